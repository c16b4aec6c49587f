package task

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/kata-mcp/kata/grader"
	"github.com/kata-mcp/kata/katas"
	"github.com/kata-mcp/kata/ui/common"
)

// watchedTask returns a task page over a fresh mini-kata workspace, sized, with watching set
// as asked, and the watchers it uses (debounced by 20 ms).
func watchedTask(t *testing.T, watch bool) (*Model, *Watchers, string) {
	t.Helper()
	lib, err := katas.Discover(os.DirFS("../../../katas/testdata/packets"), "test")
	if err != nil {
		t.Fatal(err)
	}
	p, _ := lib.Get("mini-kata")
	dir := filepath.Join(t.TempDir(), "ws")
	if err := p.Init(dir, "python"); err != nil {
		t.Fatal(err)
	}
	ws := NewWatchers()
	ws.debounce = 20 * time.Millisecond
	t.Cleanup(ws.StopAll)
	grade := func(ctx context.Context, d string, progress func(grader.Event)) *grader.Report { return passing() }
	m := New(common.New(lib, common.Config{Style: "ascii"}), p, Options{Dir: dir, Grade: grade, Runs: NewRuns(), Watch: watch, Watchers: ws})
	m.SetSize(80, 24)
	return m, ws, dir
}

func passing() *grader.Report {
	return &grader.Report{Version: 3, Status: grader.StatusPass, Kata: "mini-kata", Tests: []grader.TestResult{{ID: "x", Name: "x", Status: grader.StatusPass, Step: 1}}}
}

// TestWatchStartsFromACommand: an existing workspace gives a watch command, but Update itself
// starts no watcher (no I/O in Update); checking the workspace again gives no second command;
// with Watch off there is none at all.
func TestWatchStartsFromACommand(t *testing.T) {
	m, ws, dir := watchedTask(t, true)
	cmd := m.Update(workspaceMsg{packet: "mini-kata", dir: dir, exists: true})
	if cmd == nil {
		t.Fatal("an existing workspace gave no watch command")
	}
	if ws.watching(dir) {
		t.Error("Update started the watcher itself; it must only return the command")
	}
	if again := m.Update(workspaceMsg{packet: "mini-kata", dir: dir, exists: true}); again != nil {
		t.Error("checking the workspace again gave a second watch command")
	}
	off, _, offDir := watchedTask(t, false)
	if cmd := off.Update(workspaceMsg{packet: "mini-kata", dir: offDir, exists: true}); cmd != nil {
		t.Error("with Watch off an existing workspace gave a command")
	}
}

// TestTaskScreenRegradesOnSave: once the watch command runs, saving a workspace file makes the
// task screen grade again, saying so at once; a save during that grading grades once more when
// it ends.
func TestTaskScreenRegradesOnSave(t *testing.T) {
	m, ws, dir := watchedTask(t, true)
	cmd := m.Update(workspaceMsg{packet: "mini-kata", dir: dir, exists: true})
	changed := make(chan tea.Msg, 1)
	go func() { changed <- cmd() }()
	// The watcher registers its folders just after starting: save until it reports.
	var msg tea.Msg
	deadline := time.Now().Add(10 * time.Second)
	for msg == nil {
		if err := os.WriteFile(filepath.Join(dir, "server.py"), []byte("print('edited')\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		select {
		case msg = <-changed:
		case <-time.After(100 * time.Millisecond):
			if time.Now().After(deadline) {
				t.Fatal("saving a file never produced a change message")
			}
		}
	}
	if !ws.watching(dir) {
		t.Error("the command did not register its watcher")
	}
	if _, ok := msg.(workspaceChangedMsg); !ok {
		t.Fatalf("got %T, want workspaceChangedMsg", msg)
	}
	if m.running() {
		t.Fatal("grading before any change")
	}
	m.Update(msg)
	if !m.running() || !strings.Contains(m.View(), "A file changed: grading again.") {
		t.Fatalf("the task screen did not start grading on save:\n%s", m.View())
	}
	first := m.run.id
	// Another save while grading: nothing starts now, a new grading once this one ends.
	m.Update(workspaceChangedMsg{dir: dir})
	if m.run.id != first {
		t.Fatal("a save during a grading started another at once")
	}
	m.Update(gradeDoneMsg{id: first, rep: passing()})
	if !m.running() || m.run.id == first || !strings.Contains(m.View(), "A file changed while grading: grading again.") {
		t.Fatalf("a save during the grading did not grade again when it ended:\n%s", m.View())
	}
	// Once the re-grade ends, the workspace line says ready again, not "grading again".
	m.Update(gradeDoneMsg{id: m.run.id, rep: passing()})
	if v := m.View(); m.running() || strings.Contains(v, "grading again") || !strings.Contains(v, "Ready") {
		t.Errorf("after the re-grade ended the status did not return to ready:\n%s", v)
	}
}

// TestRegradeRunsLastFailuresFirst (issue 27): a re-grade asks the grader to run the tests
// that failed last time first, and the screen says how they fare as soon as they have all
// finished, before the grading ends.
func TestRegradeRunsLastFailuresFirst(t *testing.T) {
	m, _, dir := watchedTask(t, false)
	firsts := make(chan []string, 2)
	m.opts.Grade = func(ctx context.Context, d string, progress func(grader.Event)) *grader.Report {
		firsts <- grader.FirstFrom(ctx)
		return passing()
	}
	m.Update(workspaceMsg{packet: "mini-kata", dir: dir, exists: true})
	failing := &grader.Report{Version: 3, Status: grader.StatusFail, Kata: "mini-kata", Tests: []grader.TestResult{
		{ID: "x", Name: "x", Status: grader.StatusFail, Step: 1}, {ID: "y", Name: "y", Status: grader.StatusPass, Step: 1}}}
	m.startGrade()
	m.Update(gradeDoneMsg{id: m.run.id, rep: failing})
	cmd := m.startGrade()
	if !slices.Equal(m.first, []string{"x"}) {
		t.Fatalf("the re-grade runs first %v, want [x]", m.first)
	}
	id := m.run.id
	m.Update(gradeEventMsg{id: id, ev: grader.Event{Kind: grader.EventTestFinished, TestID: "x", Test: "x", Done: 1, Total: 2,
		Result: &grader.TestResult{ID: "x", Name: "x", Status: grader.StatusPass, Step: 1}}})
	if v := m.View(); !m.running() || !strings.Contains(v, "The tests that failed last time: 1 of 1 pass now.") {
		t.Errorf("the first verdict does not show while grading:\n%s", v)
	}
	// The command passes the ids to the grade function (grader.WithFirst).
	go collectAll(cmd)
	select {
	case got := <-firsts:
		if !slices.Equal(got, []string{"x"}) {
			t.Errorf("the grade function got First %v, want [x]", got)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the grade function was never called")
	}
}

// collectAll runs a command and the commands of a batch it returns, dropping their messages.
func collectAll(cmd tea.Cmd) {
	if cmd == nil {
		return
	}
	if b, ok := cmd().(tea.BatchMsg); ok {
		for _, c := range b {
			go collectAll(c)
		}
	}
}
