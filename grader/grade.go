package grader

import (
	"context"
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
	rep := grade(ctx, lib, dir, opts)
	if p, ok := lib.Get(rep.Kata); ok {
		s := ScoreOf(p, rep)
		rep.Points, rep.MaxPoints = s.Points, s.Max
	}
	return rep
}
