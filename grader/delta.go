package grader

import (
	"fmt"
	"io"
	"strings"
	"unicode/utf8"
)

// Delta is what changed between two gradings of one workspace, test by test (by id): the tests
// that failed and now pass, those that fail in both, and those that fail now but passed, or
// did not run, before. Each list keeps the newer report's order.
type Delta struct {
	Fixed, StillFailing, New []TestResult
}

// Compare returns what changed from prev to cur. A nil prev (no earlier grading) counts every
// failure as new.
func Compare(prev, cur *Report) Delta {
	failed := map[string]bool{}
	if prev != nil {
		for _, t := range prev.Tests {
			failed[t.ID] = t.Status != StatusPass
		}
	}
	var d Delta
	for _, t := range cur.Tests {
		before, ran := failed[t.ID]
		switch {
		case t.Status == StatusPass && ran && before:
			d.Fixed = append(d.Fixed, t)
		case t.Status == StatusPass:
		case ran && before:
			d.StillFailing = append(d.StillFailing, t)
		default:
			d.New = append(d.New, t)
		}
	}
	return d
}

// String is the delta as one line: "fixed: 3, still failing: 5, new: 0".
func (d Delta) String() string {
	return fmt.Sprintf("fixed: %d, still failing: %d, new: %d", len(d.Fixed), len(d.StillFailing), len(d.New))
}

// WriteChanges writes a grading that follows an earlier one of the same workspace (kata grade
// --watch, docs/grading.md#text-report): the header, the summary line, what changed since
// ("since the last grade: fixed: 3, still failing: 5, new: 0", naming the fixed and the new),
// and the first failure in full. A report that could not grade is written whole (WriteText).
func WriteChanges(w io.Writer, prev, cur *Report, o TextOptions) {
	if cur.Status == StatusError || prev == nil || prev.Status == StatusError {
		WriteText(w, cur, o)
		return
	}
	tw := textWriter{w: w, o: o, stderrOf: map[string]string{}, english: map[string]string{}}
	for _, t := range cur.Tests {
		tw.english[t.ID] = t.Message
	}
	prev, cur = Localize(prev, o.Loc, o.Packet), Localize(cur, o.Loc, o.Packet)
	fmt.Fprintln(w, header(cur))
	loc := o.Loc
	fmt.Fprintln(w, SummaryIn(cur, loc))
	d := Compare(prev, cur)
	fmt.Fprintln(w, loc.T("grade.since", "Delta", loc.T("grade.delta", "Fixed", len(d.Fixed), "Still", len(d.StillFailing), "New", len(d.New))))
	fixed, added := loc.T("grade.fixed"), loc.T("grade.new")
	pad := max(utf8.RuneCountInString(fixed), utf8.RuneCountInString(added)) + 2
	for _, t := range d.Fixed {
		fmt.Fprintf(w, "  %s%s\n", padRight(fixed, pad), t.Name)
	}
	for _, t := range d.New {
		fmt.Fprintf(w, "  %s%s\n", padRight(added, pad), t.Name)
	}
	if first := FirstFailure(cur); first != nil {
		fmt.Fprintf(w, "\n%s · %s\n", loc.T("grade.first_failure"), tw.stepName(first.Step))
		tw.full(*first)
	} else {
		fmt.Fprintln(w, "\n"+loc.T("grade.every_passes"))
	}
	if cur.Message != "" {
		fmt.Fprintf(w, "\n%s\n", cur.Message)
	}
}

// padRight pads s with spaces to n characters (runes: the words padded are letters, one column
// each, in every language kata has).
func padRight(s string, n int) string {
	return s + strings.Repeat(" ", max(n-utf8.RuneCountInString(s), 0))
}
