package grader

import (
	"context"
	"slices"
	"time"

	"github.com/kata-mcp/kata/katas"
)

// Options tune one grading run.
type Options struct {
	// Seed fixes the fixtures' random draws; used only when SeedSet is true, otherwise a seed
	// is drawn and printed in the report.
	Seed    int64
	SeedSet bool
	// OnEvent, when set, receives events as tests start and finish. It is called from the
	// grading goroutine and must not block for long.
	OnEvent func(Event)
	// First names tests (by id) to run before the others: the ones that failed last time, so
	// that on a re-grade after a save their verdict is known, and sent to OnEvent, first (as
	// pytest --ff does). It changes when a test runs, never what it checks: the report lists
	// the tests in their usual order. The server's fixtures on its main process are reordered;
	// tools/list still runs first, and the client's scenarios keep their order (a prose pair is
	// compared in order).
	First []string
	// NoIsolation grades without bwrap even where it is available: only the fallback guards of
	// docs/grading.md#not-isolated apply (kata class grade --no-isolation; the tests of the
	// fallback).
	NoIsolation bool
	// Batch grades one learner of a batch graded at once (kata class grade): the fixtures that
	// wait for a timeout run on the main server instance, one after another once the other
	// fixtures have run, instead of each on an instance of its own (docs/grading.md#instances).
	// The grade starts fewer learner processes and costs less CPU; it takes longer alone, but
	// in a batch the other learners use the cores while it waits. The plan and the verdict are
	// the same either way.
	Batch bool
	// serverBudget and clientBudget, when set, replace the phases' budgets (tests only).
	serverBudget, clientBudget time.Duration
	// handshake, when set, replaces the wait for a server's answer to initialize (10 s,
	// docs/grading.md#deadlines). Tests only, set through export_test.go's WithHandshakeWait:
	// the references that never answer initialize need not wait 10 s to fail it. Unexported,
	// so neither a caller of the grader nor a submission (kata.json, .mcp.json) can set it.
	handshake time.Duration
}

// Grade grades the workspace in dir against its kata's hidden fixtures and returns the report.
// It never returns nil: a submission that cannot be graded (bad kata.json or .mcp.json, an
// undefined variable, a server that fails the handshake) gives a report with status "error".
// ctx cancels the run; learner processes are killed either way. The report's Points and
// MaxPoints score it (ScoreOf).
func Grade(ctx context.Context, lib *katas.Library, dir string, opts Options) *Report {
	if opts.First == nil {
		opts.First = FirstFrom(ctx)
	}
	rep := grade(ctx, lib, dir, opts)
	if p, ok := lib.Get(rep.Kata); ok {
		s := ScoreOf(p, rep)
		rep.Points, rep.MaxPoints = s.Points, s.Max
	}
	return rep
}

// firstKey keys the context value WithFirst sets.
type firstKey struct{}

// WithFirst returns ctx carrying ids as Options.First for a Grade whose options name none: a
// caller that grades through a function of its own (the app's task screen) passes the tests
// that failed last time along this way.
func WithFirst(ctx context.Context, ids []string) context.Context {
	return context.WithValue(ctx, firstKey{}, slices.Clone(ids))
}

// FirstFrom is the ids WithFirst put in ctx, nil if none.
func FirstFrom(ctx context.Context) []string {
	ids, _ := ctx.Value(firstKey{}).([]string)
	return ids
}

// Failing returns the ids of rep's tests that did not pass (nil for no report): the tests a
// re-grade runs first (Options.First).
func Failing(rep *Report) []string {
	if rep == nil {
		return nil
	}
	var ids []string
	for _, t := range rep.Tests {
		if t.Status != StatusPass {
			ids = append(ids, t.ID)
		}
	}
	return ids
}
