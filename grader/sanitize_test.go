package grader

import (
	"testing"

	"github.com/kata-mcp/kata/internal/termtext"
)

// TestSanitize: grader.Sanitize is termtext.Sanitize (tested there in full).
func TestSanitize(t *testing.T) {
	if got := Sanitize("osc52 \x1b]52;c;aGVsbG8=\x07copied \u009b31mred"); got != "osc52 copied red" {
		t.Errorf("Sanitize = %q", got)
	}
}

// TestReportsAreSanitised: a test that finishes with learner escape sequences in its message
// and stderr tail reaches the report, and the progress callback, without them.
func TestReportsAreSanitised(t *testing.T) {
	var seen []TestResult
	r := &run{rep: &Report{}, opts: Options{OnEvent: func(e Event) {
		if e.Result != nil {
			seen = append(seen, *e.Result)
		}
	}}}
	r.record(TestResult{ID: "x", Status: StatusFail, Message: "got: \x1b]52;c;aGk=\x07{\"explanation\": \"\x1b[2J\"}", Output: "Traceback\x1b[31m!\x1b[0m\n"})
	for _, tr := range append(seen, r.rep.Tests...) {
		if termtext.Control(tr.Message) >= 0 || termtext.Control(tr.Output) >= 0 {
			t.Errorf("escape sequences reached the report: %q / %q", tr.Message, tr.Output)
		}
	}
	rep := r.errorReport(&SubmissionError{Msg: "build failed:\n\x1b]0;title\x07error"})
	if termtext.Control(rep.Message) >= 0 {
		t.Errorf("escape sequences reached the run's error: %q", rep.Message)
	}
}
