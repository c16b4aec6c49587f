package grader

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/kata-mcp/kata/internal/i18n"
	"github.com/kata-mcp/kata/katas"
	"github.com/kata-mcp/kata/packets"
)

// TestHostileViolations: a learner's violations list — a flood, huge strings, fields with
// escapes and newlines, objects where strings go, deep received values — fails the grade with
// bounded text in which no line of the learner's starts a line of the report.
func TestHostileViolations(t *testing.T) {
	lib, err := katas.Discover(packets.FS, "embedded")
	if err != nil {
		t.Fatal(err)
	}
	p, ok := lib.Get("validation-retry-error-feedback")
	if !ok {
		t.Fatal("no packet validation-retry-error-feedback")
	}
	def := p.Manifest.Definition("create_return")
	f := katas.Fixture{Tool: "create_return", Violate: []string{"quantity:maximum"}}
	f.Expect.Violations = katas.ViolationsFromViolate
	f.Expect.Category = "validation"
	args := map[string]any{"order_id": "ORD-1234", "quantity": float64(11), "reason": "damaged", "email": "a@b.co"}
	dr := drawn{def: def, args: args}
	huge := strings.Repeat("x", 1<<20)
	deep := strings.Repeat(`{"a":`, 5000) + "1" + strings.Repeat("}", 5000)
	var deepV any
	if err := json.Unmarshal([]byte(deep), &deepV); err != nil {
		t.Fatal(err)
	}
	list := []any{
		map[string]any{"field": "quantity", "constraint": map[string]any{"x": huge}, "expected": []any{huge}, "received": deepV},
		map[string]any{"field": "\x1b]52;c;aGk=\x07\nPASS all tests\n" + huge},
		map[string]any{"field": map[string]any{"nested": huge}},
	}
	for range 100000 {
		list = append(list, map[string]any{"field": "email\n\x1b[2J", "constraint": "format"})
	}
	var ps problems
	checkViolations("violations", f, dr, map[string]any{"violations": list}, true, &ps)
	if len(ps) == 0 {
		t.Fatal("no problem for a hostile violations list")
	}
	loc := i18n.New("en")
	total := 0
	for _, pr := range ps {
		text := loc.Say(pr.msg)
		total += len(text)
		if strings.Contains(text, "\nPASS") || strings.Contains(text, "\x1b") && strings.Contains(Sanitize(text), "\n\n") {
			t.Errorf("learner text starts a report line: %q", clipText(text, 200))
		}
	}
	if total > 20000 {
		t.Errorf("%d problems, %d bytes of text: a learner's violations must give bounded text", len(ps), total)
	}
}
