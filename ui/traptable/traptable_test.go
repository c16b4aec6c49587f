package traptable

import (
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/kata-mcp/kata/katas"
)

var update = flag.Bool("update", false, "rewrite the golden files")

var tables = []katas.TrapTable{{
	Title: "Server side",
	Rows: []katas.Trap{
		{Trap: "Return `{\"error\": \"failed\"}` from every except branch", WhyItFails: "The client must guess from prose", Correct: "Return typed flags: `isError`, `errorCategory`, `isRetryable`"},
		{Trap: "Retry inside the server", WhyItFails: "Retries multiply with the client's", Correct: "Let the client retry"},
		{Trap: "Ein sehr langes Wort: Donaudampfschifffahrtsgesellschaftskapitän", WhyItFails: "幅の広い文字も折り返す", Correct: "ok"},
	},
}}

func TestNoLineWiderThanWidth(t *testing.T) {
	for _, s := range []Styles{Plain(), Colored(true), Colored(false)} {
		for w := 1; w <= 200; w++ {
			out := Render(tables, w, s)
			for _, l := range strings.Split(out, "\n") {
				if lw := lipgloss.Width(l); lw > w {
					t.Fatalf("width %d: line %q is %d wide", w, ansi.Strip(l), lw)
				}
			}
			if w >= len("Server side") && !strings.Contains(ansi.Strip(out), "Server side") {
				t.Fatalf("width %d: title missing", w)
			}
		}
	}
}

func TestLayouts(t *testing.T) {
	wide := ansi.Strip(Render(tables, 80, Plain()))
	if !strings.Contains(wide, "│ Trap") || !strings.Contains(wide, "Correct pattern") {
		t.Errorf("at 80 columns the table is not a table:\n%s", wide)
	}
	narrow := ansi.Strip(Render(tables, MinTableWidth-1, Plain()))
	if strings.Contains(narrow, "│") || !strings.Contains(narrow, "• Trap: Retry inside the server") ||
		!strings.Contains(narrow, "Why it fails: Retries multiply") {
		t.Errorf("below MinTableWidth the rows are not stacked:\n%s", narrow)
	}
}

func TestGolden(t *testing.T) {
	got := ansi.Strip(Render(tables, 80, Plain()))
	path := filepath.Join("testdata", "traps-80.golden")
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with -update)", err)
	}
	if got != string(want) {
		t.Errorf("layout differs from %s:\n%s", path, got)
	}
}
