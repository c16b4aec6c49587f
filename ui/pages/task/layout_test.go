package task

import (
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"

	"github.com/kata-mcp/kata/grader"
)

// TestSpinnerTickRedrawsOneLine: a spinner tick while grading redraws the grading line and
// leaves the rest of the laid-out content as it was (it is not laid out again per tick).
func TestSpinnerTickRedrawsOneLine(t *testing.T) {
	m, _, dir := watchedTask(t, false)
	m.Update(workspaceMsg{packet: "mini-kata", dir: dir, exists: true})
	m.startGrade()
	m.refresh()
	if m.spinAt < 0 {
		t.Fatalf("no grading line while grading:\n%s", m.View())
	}
	m.vp.SetContent("LAID OUT BEFORE THE TICK") // the content under the summary
	before := m.top[m.spinAt]
	m.Update(m.spin.Tick())
	v := m.View()
	if !strings.Contains(v, "LAID OUT BEFORE THE TICK") {
		t.Errorf("a spinner tick laid the content out again:\n%s", v)
	}
	if m.top[m.spinAt] == before || !strings.Contains(v, m.top[m.spinAt]) {
		t.Errorf("a spinner tick left the spinner as it was: %q", before)
	}
}

// TestTestListKeepsItsOrderWhileGrading (issue 16, defect 10): while a grading runs, tests
// that finish out of order take their place in the run's order (grader.TestOrder), so none
// moves past another, and the selected test stays selected as others appear above it.
func TestTestListKeepsItsOrderWhileGrading(t *testing.T) {
	m, _, dir := watchedTask(t, false)
	m.Update(workspaceMsg{packet: "mini-kata", dir: dir, exists: true})
	m.order = []string{"a-first", "b-second", "c-third"}
	m.step, m.open = 1, true
	m.startGrade()
	id := m.run.id
	finish := func(test, status string) {
		r := grader.TestResult{ID: test, Name: "test " + test, Status: status, Step: 2, Message: "m " + test}
		m.Update(gradeEventMsg{id: id, ev: grader.Event{Kind: grader.EventTestFinished, Result: &r}})
	}
	finish("c-third", grader.StatusFail)
	if !strings.Contains(ansi.Strip(m.View()), "> ✗ test c-third") {
		t.Fatalf("the only test is not selected:\n%s", ansi.Strip(m.View()))
	}
	finish("a-first", grader.StatusPass)
	finish("b-second", grader.StatusFail)
	v := ansi.Strip(m.View())
	a, b, c := strings.Index(v, "test a-first"), strings.Index(v, "test b-second"), strings.Index(v, "test c-third")
	if a < 0 || b < 0 || c < 0 || a > b || b > c {
		t.Fatalf("tests not in the run's order while grading:\n%s", v)
	}
	if !strings.Contains(v, "> ✗ test c-third") {
		t.Errorf("the selection moved to another test as tests finished:\n%s", v)
	}
}
