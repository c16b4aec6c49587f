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
	// serverBudget and clientBudget, when set, replace the phases' budgets (tests only).
	serverBudget, clientBudget time.Duration
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
