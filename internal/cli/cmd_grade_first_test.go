package cli

import (
	"bytes"
	"testing"

	"github.com/kata-mcp/kata/grader"
	"github.com/kata-mcp/kata/internal/i18n"
)

// In --watch, once every test that failed last time has finished, a line says how many pass
// now, once, before the grading ends; the wrapped OnEvent still sees every event.
func TestWatchSaysTheFirstVerdict(t *testing.T) {
	var out bytes.Buffer
	seen := 0
	on := withFirstVerdict(&out, i18n.New(""), []string{"a", "b"}, func(grader.Event) { seen++ })
	done := func(id, status string) grader.Event {
		return grader.Event{Kind: grader.EventTestFinished, TestID: id, Result: &grader.TestResult{ID: id, Status: status}}
	}
	on(done("a", grader.StatusPass))
	if out.Len() != 0 {
		t.Fatalf("a verdict before every first test finished: %q", out.String())
	}
	on(done("c", grader.StatusFail))
	on(done("b", grader.StatusFail))
	on(done("d", grader.StatusPass))
	if got, want := out.String(), "the tests that failed last time: 1 of 2 pass now; the rest is running…\n"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
	if seen != 4 {
		t.Errorf("the wrapped OnEvent saw %d events, want 4", seen)
	}
}

// A piped kata grade says once that it builds the workspace (a first Go build takes long enough
// to look hung), and nothing per test and no escape sequence.
func TestPipedGradeSaysItBuilds(t *testing.T) {
	var errb bytes.Buffer
	cmd := newGradeCmd()
	cmd.SetErr(&errb)
	g := &grading{cmd: cmd, loc: i18n.New("")}
	on := g.progressLog()
	building := i18n.M("harness.progress.building")
	on(grader.Event{Kind: grader.EventInfo, Message: building.English(), Says: building})
	on(grader.Event{Kind: grader.EventTestStarted, TestID: "x", Test: "x"})
	on(grader.Event{Kind: grader.EventInfo, Message: building.English(), Says: building})
	if got := errb.String(); got != "kata: note: building the workspace (kata.json build); a first Go build can take a minute\n" {
		t.Errorf("stderr %q", got)
	}
}
