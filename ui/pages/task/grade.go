package task

import (
	"context"
	"fmt"
	"sync"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/kata-mcp/kata/grader"
)

// GradeFunc grades the workspace in dir, calling progress as tests start and finish, and
// returns the report (never nil).
type GradeFunc func(ctx context.Context, dir string, progress func(grader.Event)) *grader.Report

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

// Runs knows the gradings in flight, so that the program can cancel and await them on exit.
type Runs struct {
	mu   sync.Mutex
	next int
	live map[int]*gradeRun
	wg   sync.WaitGroup
}

// NewRuns returns a tracker with no grading in flight.
func NewRuns() *Runs { return &Runs{live: map[int]*gradeRun{}} }

// newRun registers a grading; its goroutine starts in the command startGrade returns.
func (t *Runs) newRun() *gradeRun {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.next++
	ctx, cancel := context.WithCancel(context.Background())
	r := &gradeRun{id: t.next, events: make(chan grader.Event, 64), done: make(chan *grader.Report, 1), ctx: ctx, cancel: cancel}
	t.live[r.id] = r
	t.wg.Add(1)
	return r
}

func (t *Runs) finished(r *gradeRun) {
	t.mu.Lock()
	delete(t.live, r.id)
	t.mu.Unlock()
	r.cancel()
	t.wg.Done()
}

// StopAll cancels every grading in flight and waits up to timeout for them to return.
func (t *Runs) StopAll(timeout time.Duration) {
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
// its first message; first names the tests to run first (grader.WithFirst). A panic in grade
// becomes an error report.
func startGrade(r *gradeRun, runs *Runs, grade GradeFunc, dir string, first []string) tea.Cmd {
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
			rep = grade(grader.WithFirst(r.ctx, first), dir, progress)
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
