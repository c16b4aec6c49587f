package grader

import (
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/kata-mcp/kata/internal/i18n"
	"github.com/kata-mcp/kata/katas"
)

// WriteJSON writes the report as indented JSON (Exercism results.json v3 field names plus
// kata, seed and duration_ms).
func WriteJSON(w io.Writer, r *Report) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(r)
}

// TextOptions tune the readable report.
type TextOptions struct {
	// Steps maps task step numbers to titles; tests are grouped under them.
	Steps map[int]string
	// Color adds ANSI colour to PASS/FAIL marks.
	Color bool
	// Verbose shows every failure in full (not only the first) and the learner process's
	// stderr (server or client) under the failed tests, each distinct stderr once.
	Verbose bool
	// Loc words the report in the reader's language (internal/i18n); nil means English.
	Loc *i18n.Localizer
	// Packet is the report's kata as the reader's locale reads it, for the tests' names and
	// rules in that language (Localize); nil keeps them as the report has them.
	Packet *katas.Packet
}

// WriteText writes the readable report (docs/grading.md#text-report): the header, the summary
// line, the first failure in full, then the tests grouped by task step, each failure with the
// first line of its message (with Verbose: in full, with the learner's stderr).
func WriteText(w io.Writer, r *Report, o TextOptions) {
	tw := textWriter{w: w, o: o, stderrOf: map[string]string{}, english: map[string]string{}}
	for _, t := range r.Tests {
		tw.english[t.ID] = t.Message
	}
	r = Localize(r, o.Loc, o.Packet)
	loc := o.Loc
	fmt.Fprintln(w, header(r))
	if r.Status == StatusError {
		fmt.Fprintf(w, "\n%s  %s:\n%s\n", tw.mark(StatusError), loc.T("task.not_gradable"), indent(r.Message, "  "))
		if len(r.Tests) > 0 { // something ran: its seed repeats it
			fmt.Fprintf(w, "\n%s · %s\n", loc.T("grade.seed", "Seed", r.Seed), loc.T("grade.ms", "N", r.DurationMS))
		}
		return
	}
	fmt.Fprintln(w, SummaryIn(r, loc))
	first := FirstFailure(r)
	if first != nil && !o.Verbose {
		fmt.Fprintf(w, "\n%s · %s\n", loc.T("grade.first_failure"), tw.stepName(first.Step))
		tw.full(*first)
	}
	for _, step := range sortedSteps(r.Tests) {
		pass, total := 0, 0
		for _, t := range r.Tests {
			if t.Step == step {
				total++
				if t.Status == StatusPass {
					pass++
				}
			}
		}
		fmt.Fprintf(w, "\n%s · %s\n", tw.stepName(step), loc.T("task.tests_passed", "Passed", pass, "Total", total))
		for _, t := range r.Tests {
			if t.Step != step {
				continue
			}
			switch {
			case t.Status == StatusPass:
				fmt.Fprintf(w, "  %s  %s\n", tw.mark(t.Status), t.Name)
				if t.Note != "" {
					fmt.Fprintln(w, indent(loc.T("grade.note", "Note", t.Note), "        "))
				}
			case o.Verbose:
				tw.full(t)
			case first != nil && t.ID == first.ID:
				fmt.Fprintf(w, "  %s  %s\n        %s\n", tw.mark(t.Status), t.Name, loc.T("grade.first_above"))
			default:
				fmt.Fprintf(w, "  %s  %s\n", tw.mark(t.Status), t.Name)
				if line := firstLine(t.Message); line != "" {
					fmt.Fprintln(w, "        "+line)
				}
			}
		}
	}
	if r.Message != "" {
		fmt.Fprintf(w, "\n%s\n", r.Message) // e.g. the run was interrupted
	}
	if !o.Verbose && (hiddenStderr(r) || failures(r) > 1) {
		fmt.Fprintln(w, "\n"+loc.T("grade.only_first"))
	}
}

// SummaryIn is the report's summary line in loc's language (nil: English): "21 passed,
// 3 failed · seed 42 (repeat with --seed 42) · 5310 ms", with ", N errored" when some tests
// errored.
func SummaryIn(r *Report, loc *i18n.Localizer) string {
	pass, fail, errored := r.Counts()
	s := loc.T("grade.passed_failed", "Passed", pass, "Failed", fail)
	if errored > 0 {
		s += loc.T("grade.and_errored", "Errored", errored)
	}
	if r.MaxPoints > 0 {
		s += " · " + loc.T("grade.points", "Points", FormatPoints(r.Points), "Max", FormatPoints(r.MaxPoints), "Percent", fmt.Sprintf("%.0f", 100*r.Points/r.MaxPoints))
	}
	return s + " · " + loc.T("grade.seed_repeat", "Seed", r.Seed) + " · " + loc.T("grade.ms", "N", r.DurationMS)
}

// FormatPoints writes points the short way: 24, 18.5, 3.33 (two decimals at most).
func FormatPoints(v float64) string { return strconv.FormatFloat(round2(v), 'f', -1, 64) }

// FirstFailure returns the first test that did not pass, in task-step order (the one to fix
// first), or nil when every test passed.
func FirstFailure(r *Report) *TestResult {
	for _, step := range sortedSteps(r.Tests) {
		for i, t := range r.Tests {
			if t.Step == step && t.Status != StatusPass {
				return &r.Tests[i]
			}
		}
	}
	return nil
}

// failures counts the tests that did not pass.
func failures(r *Report) int {
	_, fail, errored := r.Counts()
	return fail + errored
}

// firstLine is the first non-blank line of a message: the problem it names first.
func firstLine(msg string) string {
	for _, l := range strings.Split(msg, "\n") {
		if strings.TrimSpace(l) != "" {
			return l
		}
	}
	return ""
}

// textWriter writes the parts of a readable report; stderrOf remembers the stderr already
// shown, and under which test, so that each distinct one is shown once.
type textWriter struct {
	w        io.Writer
	o        TextOptions
	stderrOf map[string]string
	// english are the tests' messages in English, by id, for what only English text tells.
	english map[string]string
}

// mark is PASS, FAIL or ERROR, coloured when asked for.
func (tw *textWriter) mark(status string) string {
	s := map[string]string{StatusPass: "PASS", StatusFail: "FAIL", StatusError: "ERROR"}[status]
	if !tw.o.Color {
		return s
	}
	c := map[string]string{StatusPass: "32", StatusFail: "31", StatusError: "33"}[status]
	return "\x1b[" + c + "m" + s + "\x1b[0m"
}

// stepName is "Step 2 · Map every backend failure to a category" ("Step 2" without a title).
func (tw *textWriter) stepName(step int) string {
	if title := tw.o.Steps[step]; title != "" {
		return tw.o.Loc.T("task.step_head", "Step", step, "Title", title)
	}
	return tw.o.Loc.T("grade.step_cap", "Step", step)
}

// full writes a failed test in full: its name, rule and message, and with Verbose the
// learner's stderr during it, unless its message quotes that stderr already or an earlier
// test showed the same.
func (tw *textWriter) full(t TestResult) {
	w := tw.w
	fmt.Fprintf(w, "  %s  %s\n", tw.mark(t.Status), t.Name)
	if t.Rule != "" {
		fmt.Fprintf(w, "        %s\n", tw.o.Loc.T("grade.rule_lc", "Rule", t.Rule))
	}
	if strings.TrimSpace(t.Message) != "" {
		fmt.Fprintln(w, indent(t.Message, "        "))
	}
	out := strings.TrimRight(t.Output, "\n")
	if !tw.o.Verbose {
		return
	}
	label := "stderr"
	switch t.OutputOf {
	case "server":
		label = tw.o.Loc.T("grade.stderr_of_server")
	case "client":
		label = tw.o.Loc.T("grade.stderr_of_client")
	}
	if strings.TrimSpace(out) == "" {
		// -v answers under every failing test: a process that wrote nothing is said to have.
		if t.OutputOf != "" {
			fmt.Fprintf(w, "        %s: %s\n", label, tw.o.Loc.T("grade.stderr_nothing"))
		}
		return
	}
	switch prev, seen := tw.stderrOf[out]; {
	case quotesStderr(tw.english[t.ID], out):
		if !seen {
			tw.stderrOf[out] = t.Name // the message shows its last lines; later tests refer to it
		}
	case seen:
		fmt.Fprintf(w, "        %s: %s\n", label, tw.o.Loc.T("grade.stderr_same", "Test", strconv.Quote(prev)))
	default:
		tw.stderrOf[out] = t.Name
		fmt.Fprintf(w, "        %s:\n%s\n", label, indent(out, "          "))
	}
}

// quotesStderr reports whether a failure message already shows the stderr: its last lines, as
// the harness quotes a crashed process's, or a reference to another test's.
func quotesStderr(msg, out string) bool {
	if strings.Contains(msg, "the same last lines as under") {
		return true
	}
	tail := lastLines(out, tailLines)
	return tail != "" && strings.Contains(msg, indent(tail, "  "))
}

// hiddenStderr reports whether a test that did not pass has learner stderr that only the
// verbose report shows.
func hiddenStderr(r *Report) bool {
	for _, t := range r.Tests {
		if t.Status != StatusPass && strings.TrimSpace(t.Output) != "" {
			return true
		}
	}
	return false
}

// header is the report's first line: "kata grade · KATA · WORKSPACE", leaving out what is not
// known (a kata.json that could not be read names no kata).
func header(r *Report) string {
	parts := []string{"kata grade"}
	for _, p := range []string{r.Kata, r.Workspace} {
		if strings.TrimSpace(p) != "" {
			parts = append(parts, p)
		}
	}
	return strings.Join(parts, " · ")
}
