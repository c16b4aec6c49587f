package task

import (
	"context"
	"sync"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/kata-mcp/kata/grader"
)

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

// Watchers owns the running workspace watchers, one per folder, until the program ends.
type Watchers struct {
	mu   sync.Mutex
	byID map[string]*watcher
	// debounce is the quiet time after a save; tests shorten it.
	debounce time.Duration
}

// NewWatchers returns an owner of no watcher yet, debouncing saves by grader.DefaultDebounce.
func NewWatchers() *Watchers {
	return &Watchers{byID: map[string]*watcher{}, debounce: grader.DefaultDebounce}
}

// Watch returns the command that starts watching dir (fsnotify, in its own goroutine) and then
// waits for its first change. Nothing starts until the command runs, so Update stays free of
// I/O; when dir is already watched the command answers nil (a waiter is in flight).
func (ws *Watchers) Watch(dir string) tea.Cmd {
	return func() tea.Msg {
		w := ws.start(dir)
		if w == nil {
			return nil
		}
		return waitChange(w)()
	}
}

// start starts a watcher on dir unless one runs, and returns it (nil if one ran already).
func (ws *Watchers) start(dir string) *watcher {
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
	return w
}

// watching reports whether a watcher runs on dir.
func (ws *Watchers) watching(dir string) bool {
	ws.mu.Lock()
	defer ws.mu.Unlock()
	_, ok := ws.byID[dir]
	return ok
}

// next returns the command that waits for dir's next change.
func (ws *Watchers) next(dir string) tea.Cmd {
	ws.mu.Lock()
	defer ws.mu.Unlock()
	if w, ok := ws.byID[dir]; ok {
		return waitChange(w)
	}
	return nil
}

// StopAll ends every watcher.
func (ws *Watchers) StopAll() {
	ws.mu.Lock()
	defer ws.mu.Unlock()
	for _, w := range ws.byID {
		w.cancel()
	}
}

// waitChange returns the command that waits for w's next change.
func waitChange(w *watcher) tea.Cmd {
	return func() tea.Msg {
		<-w.changes
		return workspaceChangedMsg{dir: w.dir}
	}
}
