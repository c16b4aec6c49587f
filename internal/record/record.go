// Package record keeps a finished grading run: it turns a grader.Report into the run the
// progress store keeps (GradeRun) and, through a Recorder, saves it and sends it to the
// workshop the learner has joined. `kata grade`, `kata mcp` and the app's task screen all
// record a grade through this package, so a grade is kept the same way wherever it was made.
package record

import (
	"context"
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/kata-mcp/kata/grader"
	"github.com/kata-mcp/kata/internal/i18n"
	"github.com/kata-mcp/kata/internal/progress"
	"github.com/kata-mcp/kata/workshop/learner"
)

// GradeRun is rep as the progress store keeps it, finished at at: kata, workspace, seed,
// status, the counts by status and the duration; and each test's id, status, step and broken
// rule ids (what a workshop's board is sent, never a message or output).
func GradeRun(rep *grader.Report, at time.Time) progress.GradeRun {
	pass, fail, errored := rep.Counts()
	g := progress.GradeRun{Kata: rep.Kata, Workspace: rep.Workspace, Seed: rep.Seed, Status: rep.Status,
		Passed: pass, Failed: fail, Errored: errored, Duration: time.Duration(rep.DurationMS) * time.Millisecond, At: at}
	for _, t := range rep.Tests {
		gt := progress.GradeTest{ID: t.ID, Status: t.Status, Step: t.Step}
		for _, id := range t.FailedRules {
			gt.Rules = append(gt.Rules, string(id))
		}
		g.Tests = append(g.Tests, gt)
	}
	return g
}

// FlushTimeout bounds how long Close waits to send the runs queued for a workshop.
const FlushTimeout = 3 * time.Second

// Recorder saves the grading runs of one command (kata grade, kata mcp) in the progress store
// ($KATA_STATE, or the default path). Recording is a side effect: a store that cannot be
// opened or written is reported once on the warning writer, in the user's language, and grading
// goes on. A Recorder is safe for concurrent use: kata mcp's grades finish concurrently.
type Recorder struct {
	warn   io.Writer
	loc    *i18n.Localizer
	mu     sync.Mutex
	store  *progress.Store
	tried  bool
	warned bool
}

// New returns a Recorder that writes its warnings to warn (stderr) in loc's language. The
// store is opened on the first Record.
func New(warn io.Writer, loc *i18n.Localizer) *Recorder {
	return &Recorder{warn: warn, loc: loc}
}

// Record saves rep, finished now. A nil rep is ignored.
func (r *Recorder) Record(rep *grader.Report) {
	if rep == nil {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if !r.tried {
		r.tried = true
		path, err := progress.DefaultPath()
		if err == nil {
			r.store, err = progress.Open(path)
		}
		if err != nil {
			r.warnOnce(err)
			return
		}
	}
	if r.store == nil {
		return
	}
	if err := r.store.RecordGrade(GradeRun(rep, time.Now())); err != nil {
		r.warnOnce(err)
	}
}

func (r *Recorder) warnOnce(err error) {
	if !r.warned {
		r.warned = true
		fmt.Fprintln(r.warn, r.loc.T("out.warning", "Text", r.loc.Say(i18n.M("out.run_not_saved", "Error", err))))
	}
}

// Close sends the runs queued for a workshop the learner joined (for at most FlushTimeout: the
// app sends whatever is left when it runs) and closes the store.
func (r *Recorder) Close() {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.store == nil {
		return
	}
	if m, err := r.store.Membership(); err == nil && m != nil {
		a := learner.New(r.store, learner.Options{})
		ctx, cancel := context.WithTimeout(context.Background(), FlushTimeout)
		if err := a.Flush(ctx); err != nil {
			fmt.Fprintln(r.warn, r.loc.T("out.grade_waits", "Code", m.Code, "Error", err))
		}
		cancel()
		a.Close()
	}
	r.store.Close()
	r.store = nil
}
