package katas

import (
	"strings"
	"testing"

	"github.com/kata-mcp/kata/packets"
)

// TestStepTitlesArePlainText: a task step's title is shown as plain text on the task screen,
// in kata grade's report, in the class report's HTML and in kata mcp's resource titles, none
// of which renders Markdown; so no embedded packet, in any locale, may leave Markdown markup
// (a code span's backticks, emphasis) in a step title. validation-retry-error-feedback's
// step 4 ("## 4. `received` never echoes a secret") showed its backticks raw everywhere.
func TestStepTitlesArePlainText(t *testing.T) {
	lib := NewLibrary()
	if err := lib.AddCached(packets.FS, "embedded", ""); err != nil {
		t.Fatal(err)
	}
	for _, loc := range []string{"", "es", "ru"} {
		l := lib
		if loc != "" {
			l = lib.Localized(loc)
		}
		for _, p := range l.Packets() {
			for _, s := range p.Task.Steps {
				if strings.ContainsAny(s.Title, "`*") {
					t.Errorf("%s (locale %q) step %d title %q holds Markdown markup", p.ID, loc, s.Number, s.Title)
				}
			}
		}
	}
}
