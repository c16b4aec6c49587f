package grader

import "testing"

// TestSanitize: escape sequences of every kind and stray control characters are removed;
// text, newlines, tabs and non-ASCII letters stay.
func TestSanitize(t *testing.T) {
	for in, want := range map[string]string{
		"plain text\nline two\tTab":              "plain text\nline two\tTab",
		"\x1b[31mred\x1b[0m":                     "red",
		"\x1b[2J\x1b[Hcleared":                   "cleared",
		"osc52 \x1b]52;c;aGVsbG8=\x07copied":     "osc52 copied",
		"title \x1b]0;pwned\x1b\\ st":            "title  st",
		"dcs \x1bPq#0;2;0;0;0\x1b\\ end":         "dcs  end",
		"c1 csi \u009b31mred":                    "c1 csi red",
		"c1 osc \u009d0;x\u009c end":             "c1 osc  end",
		"two-byte \x1bcreset \x1b(Bcharset":      "two-byte reset charset",
		"bell\x07 backspace\x08 nul\x00 del\x7f": "bell backspace nul del",
		"crlf\r\nline":                           "crlf\nline",
		"progress 10%\rprogress 20%":             "progress 10%\nprogress 20%",
		"unterminated \x1b]52;c;aGVsbG8=":        "unterminated ",
		"trailing esc \x1b":                      "trailing esc ",
		"Привет, ¿qué tal? 👨‍👩‍👧":                "Привет, ¿qué tal? 👨‍👩‍👧",
	} {
		if got := Sanitize(in); got != want {
			t.Errorf("Sanitize(%q) = %q; want %q", in, got, want)
		}
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
		if needsSanitizing(tr.Message) || needsSanitizing(tr.Output) {
			t.Errorf("escape sequences reached the report: %q / %q", tr.Message, tr.Output)
		}
	}
	rep := r.errorReport(&SubmissionError{Msg: "build failed:\n\x1b]0;title\x07error"})
	if needsSanitizing(rep.Message) {
		t.Errorf("escape sequences reached the run's error: %q", rep.Message)
	}
}
