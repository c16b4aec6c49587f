package class

import (
	"context"
	"errors"
	"fmt"
	mrand "math/rand/v2"
	"runtime"
	"sync"
	"time"

	"github.com/kata-mcp/kata/grader"
	"github.com/kata-mcp/kata/internal/i18n"
	"github.com/kata-mcp/kata/katas"
)

// DefaultTimeout bounds one learner's grade beyond the grader's own deadlines (a 60 s build,
// 60 s of tests, the shutdowns; docs/grading.md#deadlines), for a machine so loaded that they
// stretch.
const DefaultTimeout = 5 * time.Minute

// DefaultJobs is how many learners a batch grades at once unless told: two per core. Each
// learner is graded as one of a batch (grader.Options.Batch): its fixtures that wait for a
// timeout wait one after another on one server instance, a few seconds in all, and while one
// learner waits another uses the core. Each learner then starts three processes at most at
// once (two server instances and a client), so two learners per core start fewer than one
// learner per core did with an instance per waiting fixture.
func DefaultJobs() int { return 2 * runtime.NumCPU() }

// Options tune a batch.
type Options struct {
	// Seed is every learner's seed when SeedSet; otherwise the class's seed from the store, or
	// a new one drawn and saved.
	Seed    int64
	SeedSet bool
	// Kata is the class's kata (Assignment): a learner whose kata.json names another kata is
	// not graded, and gets a "this workspace is for …" error report in this kata. Empty: every
	// learner is graded for the kata its kata.json names.
	Kata string
	// Jobs is how many learners are graded at once; 0 means DefaultJobs().
	Jobs int
	// Regrade grades every learner, even those with a result of the same folder and seed.
	Regrade bool
	// NoIsolation grades although Isolation reports the grader does not isolate learner code.
	NoIsolation bool
	// Timeout bounds one learner's grade; 0 means DefaultTimeout.
	Timeout time.Duration
	// Deps, when set, installs each learner's dependencies (from their lock file) before
	// the grade; a learner whose install fails is a cannot-grade row.
	Deps *Deps
	// OnEvent, when set, is told of each learner that starts and finishes, from one goroutine
	// at a time.
	OnEvent func(Event)
	// grade replaces grader.Grade (tests).
	grade func(ctx context.Context, lib *katas.Library, dir string, opts grader.Options) *grader.Report
}

// EventKind says what an Event reports.
type EventKind string

// Event kinds.
const (
	EventBegan    EventKind = "began"    // the batch began: Seed, Jobs and Total are set
	EventStarted  EventKind = "started"  // a learner's grade began
	EventFinished EventKind = "finished" // a learner's result is ready (graded now or from the store)
)

// Event is a progress notice of a batch.
type Event struct {
	Kind    EventKind
	Learner Learner
	// Result is set for EventFinished.
	Result *Result
	// Done counts finished learners, Running those being graded, Total all of the batch.
	Done, Running, Total int
	// Seed is the batch's seed and Jobs how many learners are graded at once.
	Seed int64
	Jobs int
}

// Result is one learner's outcome in a batch.
type Result struct {
	Learner
	// Hash is the folder's hash when it was graded (HashFolder).
	Hash string
	// Report is the grader's report; status "error" means the learner cannot be graded, and
	// its Message says why.
	Report *grader.Report
	// Reused says the result came from the store: the folder and the seed are those it was
	// graded with.
	Reused bool
	// Unsaved says the result is not kept in the store (kata itself failed, the grade ran out
	// of its timeout, or the store could not write it); the next run grades the learner again.
	Unsaved  bool
	Duration time.Duration
	GradedAt time.Time
}

// Batch is the outcome of Run: one Result per learner, in the learners' order.
type Batch struct {
	Seed    int64
	Results []Result
	// Graded counts the learners graded by this run, Reused those taken from the store.
	Graded, Reused int
	Jobs           int
	Duration       time.Duration
}

// ErrNotIsolated is Run's error when the grader does not isolate learner code and
// Options.NoIsolation is not set.
var ErrNotIsolated = errors.New("refusing to grade a class without isolation")

// notIsolated is Run's refusal: ErrNotIsolated with why and what to do, as a catalog message
// (i18n.Localizer.Error words it through Unwrap).
type notIsolated struct{ msg i18n.Msg }

func (e notIsolated) Error() string        { return e.msg.English() }
func (e notIsolated) Is(target error) bool { return target == ErrNotIsolated }
func (e notIsolated) Unwrap() error        { return &i18n.Error{Msg: e.msg} }

// Run grades the learners with one seed, opts.Jobs at a time, each learner's result saved in
// store as soon as it is ready. A learner whose stored result has the folder's current hash
// and the batch's seed is not graded again (unless opts.Regrade). A learner that cannot be
// graded — not a workspace, a failed build, a server that hangs, floods or crashes — gets a
// report with status "error" and never holds up the others; a panic of kata's own while
// grading one learner is that learner's error too. When ctx ends (ctrl-c), the grades under
// way are stopped and not saved, and Run returns the batch so far with ctx's error.
func Run(ctx context.Context, lib *katas.Library, store *Store, learners []Learner, opts Options) (*Batch, error) {
	if ok, why := Isolation(); !ok && !opts.NoIsolation {
		return nil, notIsolated{i18n.M("class.cli.not_isolated", "Why", why)}
	}
	start := time.Now()
	seed, err := classSeed(store, opts)
	if err != nil {
		return nil, err
	}
	jobs := opts.Jobs
	if jobs <= 0 {
		jobs = DefaultJobs()
	}
	timeout := opts.Timeout
	if timeout <= 0 {
		timeout = DefaultTimeout
	}
	grade := opts.grade
	if grade == nil {
		grade = grader.Grade
	}
	b := &Batch{Seed: seed, Results: make([]Result, len(learners)), Jobs: jobs}
	done, running := 0, 0
	emit := func(kind EventKind, l Learner, r *Result) {
		if opts.OnEvent != nil {
			opts.OnEvent(Event{Kind: kind, Learner: l, Result: r, Done: done, Running: running, Total: len(learners), Seed: seed, Jobs: jobs})
		}
	}
	emit(EventBegan, Learner{}, nil)

	// The results already in the store come first, so the progress counts start from them.
	var todo []int
	hashes := make([]string, len(learners))
	for i, l := range learners {
		if has := NamedKata(l.Dir); opts.Kata != "" && has != "" && has != opts.Kata {
			// not this class's assignment: nothing to grade, nothing to save
			b.Results[i] = Result{Learner: l, Report: wrongKata(l, has, opts.Kata, seed), Unsaved: true, GradedAt: time.Now()}
			b.Graded++
			done++
			emit(EventFinished, l, &b.Results[i])
			continue
		}
		hashes[i], _ = HashFolder(l.Dir) // an unreadable folder hashes as "" and is always graded
		if opts.Regrade || hashes[i] == "" {
			todo = append(todo, i)
			continue
		}
		st, err := store.Result(l.Dir)
		if err != nil {
			return nil, err
		}
		if st == nil || st.Hash != hashes[i] || st.Seed != seed {
			todo = append(todo, i)
			continue
		}
		b.Results[i] = Result{Learner: l, Hash: st.Hash, Report: st.Report, Reused: true, Duration: st.Duration, GradedAt: st.GradedAt}
		b.Reused++
		done++
		emit(EventFinished, l, &b.Results[i])
	}

	type outcome struct {
		i int
		r Result
	}
	work := make(chan int)
	out := make(chan outcome)
	started := make(chan int)
	var wg sync.WaitGroup
	for range min(jobs, max(len(todo), 1)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range work {
				started <- i
				if opts.Deps != nil {
					if err := opts.Deps.Install(ctx, learners[i].Dir); err != nil {
						// not saved: the next run tries the install again
						now := time.Now()
						out <- outcome{i, Result{Learner: learners[i], Hash: hashes[i], Report: depsReport(learners[i], seed, err), Unsaved: true, GradedAt: now}}
						continue
					}
				}
				out <- outcome{i, gradeOne(ctx, lib, learners[i], hashes[i], seed, timeout, grade)}
			}
		}()
	}
	go func() {
		defer close(work)
		for _, i := range todo {
			select {
			case work <- i:
			case <-ctx.Done():
				return
			}
		}
	}()
	go func() {
		wg.Wait()
		close(out)
	}()
	var saveErr error
	for open := true; open; {
		select {
		case i := <-started:
			running++
			emit(EventStarted, learners[i], nil)
		case o, ok := <-out:
			if !ok {
				open = false
				break
			}
			running--
			if ctx.Err() != nil {
				continue // stopped by ctrl-c: no verdict, nothing saved
			}
			if !o.r.Unsaved {
				if err := store.Save(Stored{Learner: o.r.Learner, Hash: o.r.Hash, Seed: seed, Report: o.r.Report, Duration: o.r.Duration, GradedAt: o.r.GradedAt}); err != nil {
					saveErr = err
					o.r.Unsaved = true
				}
			}
			b.Results[o.i] = o.r
			b.Graded++
			done++
			emit(EventFinished, o.r.Learner, &b.Results[o.i])
		}
	}
	b.Duration = time.Since(start)
	if err := ctx.Err(); err != nil {
		b.Results = finished(b.Results)
		return b, err
	}
	return b, saveErr
}

// finished drops the learners a stopped batch never finished.
func finished(rs []Result) []Result {
	var out []Result
	for _, r := range rs {
		if r.Report != nil {
			out = append(out, r)
		}
	}
	return out
}

// classSeed is the batch's seed: the one asked for (saved as the class's), else the class's,
// else a new one, saved.
func classSeed(store *Store, opts Options) (int64, error) {
	if opts.SeedSet {
		return opts.Seed, store.SetSeed(opts.Seed)
	}
	seed, ok, err := store.Seed()
	if err != nil || ok {
		return seed, err
	}
	seed = mrand.Int64N(1_000_000_000)
	return seed, store.SetSeed(seed)
}

// gradeOne grades one learner within timeout. A grade cut short by the timeout, and a panic
// of kata's own, become the learner's error report; neither is saved, so the next run grades
// that learner again: the grader's own deadlines bound any submission well within timeout, so
// reaching it says the machine (or kata) failed, not the learner.
func gradeOne(ctx context.Context, lib *katas.Library, l Learner, hash string, seed int64, timeout time.Duration,
	grade func(context.Context, *katas.Library, string, grader.Options) *grader.Report) (res Result) {
	start := time.Now()
	res = Result{Learner: l, Hash: hash, GradedAt: start}
	defer func() {
		if p := recover(); p != nil {
			res.Report = errorReport(l, seed, fmt.Sprintf("kata itself failed while grading this submission (please report it, with what `kata grade` says of the folder): %v", p))
			res.Unsaved = true
		}
		res.Duration = time.Since(start)
	}()
	lctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	// Batch: the other learners use the cores while this one's slow fixtures wait, so it is
	// graded on as few processes as the interface allows (docs/grading.md#instances).
	rep := grade(lctx, lib, l.Dir, grader.Options{Seed: seed, SeedSet: true, Batch: true})
	if ctx.Err() == nil && errors.Is(lctx.Err(), context.DeadlineExceeded) {
		msg := fmt.Sprintf("grading took longer than %s, far beyond the grader's own deadlines (docs/grading.md#deadlines); its processes were stopped. A machine this loaded grades unfairly: grade again with fewer --jobs", timeout)
		kata := rep.Kata
		rep = errorReport(l, seed, msg)
		rep.Kata = kata
		res.Unsaved = true
	}
	res.Report = rep
	return res
}

// errorReport is the report of a learner that cannot be graded, saying why.
func errorReport(l Learner, seed int64, msg string) *grader.Report {
	return &grader.Report{Version: 3, Status: grader.StatusError, Message: msg, Tests: []grader.TestResult{}, Seed: seed, Workspace: l.Dir}
}
