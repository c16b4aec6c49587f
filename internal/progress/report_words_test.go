package progress

import (
	"strings"
	"testing"
	"time"

	"github.com/kata-mcp/kata/internal/i18n"
)

// The stats text in Spanish and Russian agrees in number with one scheduled card and says the
// grade's status and seed in the reader's words (issue 27: "0 из 1 запланированных",
// "de 1 programadas", "fail" and "seed" left in English).
func TestStatsWordsInSpanishAndRussian(t *testing.T) {
	at := time.Date(2026, 3, 2, 9, 0, 0, 0, time.UTC)
	r := &Report{Path: "/p", Katas: []ReportKata{{KataStats: KataStats{Kata: "k", Cards: 1,
		LastGrade: &GradeRun{Status: GradeFail, Passed: 1, Failed: 2, Seed: 7, At: at}}, Title: "K", LayersTotal: 5}}}
	for lang, want := range map[string][]string{
		"es": {"de 1 programada\n", "fallida (", "semilla 7"},
		"ru": {"из 1 запланированной\n", "не пройдена (", "зерно 7"},
		"en": {"0 due now of 1 scheduled", "fail (", "seed 7"},
	} {
		var b strings.Builder
		r.WriteTextIn(&b, i18n.New(lang))
		for _, w := range want {
			if !strings.Contains(b.String(), w) {
				t.Errorf("%s stats lack %q:\n%s", lang, w, b.String())
			}
		}
	}
}
