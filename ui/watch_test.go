package ui

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/kata-mcp/kata/grader"
	"github.com/kata-mcp/kata/ui/common"
)

// TestTaskScreenRegradesOnSave: with Watch on, saving a workspace file makes the task screen
// grade again, showing that it is grading at once.
func TestTaskScreenRegradesOnSave(t *testing.T) {
	lib := loadLib(t)
	p, _ := lib.Get("mini-kata")
	dir := filepath.Join(t.TempDir(), "ws")
	if err := p.Init(dir, "python"); err != nil {
		t.Fatal(err)
	}
	opts := Options{Watch: true, Style: "ascii", Workspace: func(string) string { return dir },
		Grade: func(ctx context.Context, d string, progress func(grader.Event)) *grader.Report {
			return &grader.Report{Version: 3, Status: grader.StatusPass, Kata: "mini-kata", Tests: []grader.TestResult{{ID: "x", Name: "x", Status: grader.StatusPass, TaskID: 1}}}
		}}
	c := &app{Common: common.New(lib, common.Config{Style: opts.Style}), opts: opts, runs: newRunTracker(), watch: newWatchers()}
	c.watch.debounce = 20 * time.Millisecond
	defer c.watch.stopAll()
	m := newTask(c, p)
	m.SetSize(80, 24)
	cmd := m.Update(workspaceMsg{packet: p.ID, dir: dir, exists: true})
	if cmd == nil {
		t.Fatal("an existing workspace started no watcher")
	}
	changed := make(chan tea.Msg, 1)
	go func() { changed <- cmd() }()
	// The watcher registers its folders just after starting: save until it reports.
	var msg tea.Msg
	deadline := time.Now().Add(10 * time.Second)
	for msg == nil {
		os.WriteFile(filepath.Join(dir, "server.py"), []byte("print('edited')\n"), 0o644)
		select {
		case msg = <-changed:
		case <-time.After(100 * time.Millisecond):
			if time.Now().After(deadline) {
				t.Fatal("saving a file never produced a change message")
			}
		}
	}
	if _, ok := msg.(workspaceChangedMsg); !ok {
		t.Fatalf("got %T, want workspaceChangedMsg", msg)
	}
	m.Update(msg)
	if !m.running() || !strings.Contains(m.View(), "A file changed") {
		t.Errorf("the task screen did not start grading on save:\n%s", m.View())
	}
}
