package grader

import "github.com/kata-mcp/kata/internal/termtext"

// Sanitize makes text that learner code produced (stderr, tool results quoted in messages,
// a build's output) safe to print on a terminal: it is termtext.Sanitize, which drops every
// escape sequence and control character but newline and tab. Without it, a learner's
// `printf '\e]52;c;…\a'` would write the user's clipboard, and `\e[2J` would clear their
// screen. Every report writer and the UI get the Report already sanitised: the grader applies
// it to each test as it finishes (announce) and to a run's error.
func Sanitize(s string) string { return termtext.Sanitize(s) }

// sanitizeTest sanitises the learner text a test result carries.
func sanitizeTest(t TestResult) TestResult {
	t.Message = Sanitize(t.Message)
	t.Output = Sanitize(t.Output)
	return t
}
