package task

import (
	"strings"
	"testing"
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
	m.lines[0] = "LAID OUT BEFORE THE TICK"
	before := m.lines[m.spinAt]
	m.Update(m.spin.Tick())
	v := m.View()
	if !strings.Contains(v, "LAID OUT BEFORE THE TICK") {
		t.Errorf("a spinner tick laid the content out again:\n%s", v)
	}
	if m.lines[m.spinAt] == before {
		t.Errorf("a spinner tick left the spinner as it was: %q", before)
	}
}
