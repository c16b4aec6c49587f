package ui

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"sync"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/kata-mcp/kata/grader"
	"github.com/kata-mcp/kata/katas"
)

// This file holds the commands: everything that reads files, renders Markdown or grades runs
// here, off the Update loop, and comes back as a message.

// workspaceMsg reports whether a kata's workspace folder exists, or the result of creating it.
type workspaceMsg struct {
	packet  string
	dir     string
	exists  bool
	created bool  // the message answers an init
	err     error // stat or init failure
}

// gradeEventMsg is one progress event of grading run id.
type gradeEventMsg struct {
	id int
	ev grader.Event
}

// gradeDoneMsg ends grading run id.
type gradeDoneMsg struct {
	id  int
	rep *grader.Report
}

// gradeRun is one grading in flight: its progress channel, its result and its cancel.
type gradeRun struct {
	id     int
	events chan grader.Event
	done   chan *grader.Report
	ctx    context.Context
	cancel context.CancelFunc
}

// runTracker knows the gradings in flight so Run can cancel and await them on exit.
type runTracker struct {
	mu   sync.Mutex
	next int
	live map[int]*gradeRun
	wg   sync.WaitGroup
}

func newRunTracker() *runTracker { return &runTracker{live: map[int]*gradeRun{}} }

// newRun registers a grading; its goroutine starts in the command startGrade returns.
func (t *runTracker) newRun() *gradeRun {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.next++
	ctx, cancel := context.WithCancel(context.Background())
	r := &gradeRun{id: t.next, events: make(chan grader.Event, 64), done: make(chan *grader.Report, 1), ctx: ctx, cancel: cancel}
	t.live[r.id] = r
	t.wg.Add(1)
	return r
}

func (t *runTracker) finished(r *gradeRun) {
	t.mu.Lock()
	delete(t.live, r.id)
	t.mu.Unlock()
	r.cancel()
	t.wg.Done()
}

// stopAll cancels every grading in flight and waits up to timeout for them to return.
func (t *runTracker) stopAll(timeout time.Duration) {
	t.mu.Lock()
	for _, r := range t.live {
		r.cancel()
	}
	t.mu.Unlock()
	done := make(chan struct{})
	go func() { t.wg.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(timeout):
	}
}

// startGrade returns the command that runs grade for r in its own goroutine and then waits for
// its first message. A panic in grade becomes an error report.
func startGrade(r *gradeRun, runs *runTracker, grade GradeFunc, dir string) tea.Cmd {
	return func() tea.Msg {
		go func() {
			defer runs.finished(r)
			var rep *grader.Report
			defer func() {
				if p := recover(); p != nil {
					rep = &grader.Report{Version: 3, Status: grader.StatusError, Message: fmt.Sprintf("the grader failed: %v", p), Tests: []grader.TestResult{}}
				}
				if rep == nil {
					rep = &grader.Report{Version: 3, Status: grader.StatusError, Message: "the grader returned no report", Tests: []grader.TestResult{}}
				}
				r.done <- rep
			}()
			progress := func(ev grader.Event) {
				select {
				case r.events <- ev:
				case <-r.ctx.Done():
				}
			}
			rep = grade(r.ctx, dir, progress)
		}()
		return waitGrade(r)()
	}
}

// waitGrade returns the command that waits for r's next event or its report. Events are all
// sent before the report, so once the report is there any event left over is stale.
func waitGrade(r *gradeRun) tea.Cmd {
	return func() tea.Msg {
		select {
		case ev := <-r.events:
			return gradeEventMsg{id: r.id, ev: ev}
		case rep := <-r.done:
			return gradeDoneMsg{id: r.id, rep: rep}
		}
	}
}

// statWorkspace reports whether dir exists.
func statWorkspace(packet, dir string) tea.Cmd {
	return func() tea.Msg {
		ok, err := dirExists(dir)
		return workspaceMsg{packet: packet, dir: dir, exists: ok, err: err}
	}
}

// initWorkspace creates the workspace from the packet's template for lang.
func initWorkspace(p *katas.Packet, dir, lang string) tea.Cmd {
	return func() tea.Msg {
		if err := p.Init(dir, lang); err != nil {
			ok, _ := dirExists(dir)
			return workspaceMsg{packet: p.ID, dir: dir, exists: ok, created: true, err: err}
		}
		return workspaceMsg{packet: p.ID, dir: dir, exists: true, created: true}
	}
}

// workspaceChangedMsg says a file of the watched workspace dir was saved.
type workspaceChangedMsg struct {
	dir string
}

// watcher re-grades a workspace on save: grader.WatchWorkspace feeds its channel, and
// waitChange turns each change into a message.
type watcher struct {
	dir     string
	changes chan struct{}
	cancel  context.CancelFunc
}

// watchers owns the running workspace watchers, one per folder, until the program ends.
type watchers struct {
	mu   sync.Mutex
	byID map[string]*watcher
	// Debounce is the quiet time after a save; tests shorten it.
	debounce time.Duration
}

func newWatchers() *watchers {
	return &watchers{byID: map[string]*watcher{}, debounce: grader.DefaultDebounce}
}

// watch starts watching dir unless it is already watched, and returns the command that
// waits for its first change (nil when already watched: a waiter is in flight).
func (ws *watchers) watch(dir string) tea.Cmd {
	ws.mu.Lock()
	defer ws.mu.Unlock()
	if _, ok := ws.byID[dir]; ok {
		return nil
	}
	ctx, cancel := context.WithCancel(context.Background())
	w := &watcher{dir: dir, changes: make(chan struct{}, 1), cancel: cancel}
	ws.byID[dir] = w
	go grader.WatchWorkspace(ctx, dir, ws.debounce, func() {
		select {
		case w.changes <- struct{}{}:
		default: // a change is already pending
		}
	})
	return waitChange(w)
}

// next returns the command that waits for dir's next change.
func (ws *watchers) next(dir string) tea.Cmd {
	ws.mu.Lock()
	defer ws.mu.Unlock()
	if w, ok := ws.byID[dir]; ok {
		return waitChange(w)
	}
	return nil
}

// stopAll ends every watcher.
func (ws *watchers) stopAll() {
	ws.mu.Lock()
	defer ws.mu.Unlock()
	for _, w := range ws.byID {
		w.cancel()
	}
}

func waitChange(w *watcher) tea.Cmd {
	return func() tea.Msg {
		<-w.changes
		return workspaceChangedMsg{dir: w.dir}
	}
}

// dirExists reports whether dir is an existing folder; only commands call it.
func dirExists(dir string) (bool, error) {
	fi, err := os.Stat(dir)
	switch {
	case err == nil && fi.IsDir():
		return true, nil
	case err == nil:
		return false, fmt.Errorf("%s is a file, not a folder", dir)
	case errors.Is(err, fs.ErrNotExist):
		return false, nil
	default:
		return false, err
	}
}
