package grader

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
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
	// Verbose shows the learner process's stderr (server or client) for failed tests.
	Verbose bool
}

// WriteText writes the readable report: tests grouped by task step, each failure with its
// rule, the call sent, what came back and what was expected; then a summary line and the seed.
func WriteText(w io.Writer, r *Report, o TextOptions) {
	mark := func(status string) string {
		s := map[string]string{StatusPass: "PASS", StatusFail: "FAIL", StatusError: "ERROR"}[status]
		if !o.Color {
			return s
		}
		c := map[string]string{StatusPass: "32", StatusFail: "31", StatusError: "33"}[status]
		return "\x1b[" + c + "m" + s + "\x1b[0m"
	}
	fmt.Fprintln(w, header(r))
	if r.Status == StatusError {
		fmt.Fprintf(w, "\n%s  the submission could not be graded:\n%s\n", mark(StatusError), indent(r.Message, "  "))
		fmt.Fprintf(w, "\nseed %d · %d ms\n", r.Seed, r.DurationMS)
		return
	}
	for _, step := range sortedSteps(r.Tests) {
		title := o.Steps[step]
		fmt.Fprintf(w, "\nStep %d", step)
		if title != "" {
			fmt.Fprintf(w, " · %s", title)
		}
		fmt.Fprintln(w)
		for _, t := range r.Tests {
			if t.TaskID != step {
				continue
			}
			fmt.Fprintf(w, "  %s  %s\n", mark(t.Status), t.Name)
			if t.Status == StatusPass && t.Note != "" {
				fmt.Fprintln(w, indent("note: "+t.Note, "        "))
			}
			if t.Status != StatusPass {
				if t.Rule != "" {
					fmt.Fprintf(w, "        rule: %s\n", t.Rule)
				}
				fmt.Fprintln(w, indent(t.Message, "        "))
				if o.Verbose && strings.TrimSpace(t.Output) != "" {
					label := "stderr"
					if t.OutputOf != "" {
						label = t.OutputOf + " stderr"
					}
					fmt.Fprintf(w, "        %s:\n%s\n", label, indent(strings.TrimRight(t.Output, "\n"), "          "))
				}
			}
		}
	}
	if r.Message != "" {
		fmt.Fprintf(w, "\n%s\n", r.Message) // e.g. the run was interrupted
	}
	if !o.Verbose && hiddenStderr(r) {
		fmt.Fprintln(w, "\nRun with -v to see your server's or client's stderr under each failed test.")
	}
	pass, fail, errored := r.Counts()
	fmt.Fprintf(w, "\n%d passed, %d failed", pass, fail)
	if errored > 0 {
		fmt.Fprintf(w, ", %d errored", errored)
	}
	fmt.Fprintf(w, " · seed %d (repeat with --seed %d) · %d ms\n", r.Seed, r.Seed, r.DurationMS)
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
