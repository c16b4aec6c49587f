package mockexam

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/kata-mcp/kata/katas/exam"
	"github.com/kata-mcp/kata/ui/common"
	"github.com/kata-mcp/kata/ui/components/question"
	"github.com/kata-mcp/kata/ui/keymap"
)

// tallyRows lays out a breakdown table: name, correct/total, percent, sorted by name.
func tallyRows(st *common.Styles, title string, tallies map[string]exam.Tally, w int) []string {
	names := slices.Sorted(maps.Keys(tallies))
	width := 0
	for _, n := range names {
		width = max(width, len(n))
	}
	width = min(width, max(w-24, 10))
	lines := []string{st.Label.Render("  " + title)}
	for _, n := range names {
		t := tallies[n]
		lines = append(lines, common.Truncate(fmt.Sprintf("    %-*s %3d/%-3d %3d%%", width, common.Truncate(n, width), t.Correct, t.Total, common.PercentOf(t.Correct, t.Total)), w))
	}
	return lines
}

// resultContent lays out the scaled score, the raw score, pass/fail and the breakdowns.
func (m *Model) resultContent() string {
	st := m.c.Styles
	r := m.result
	s := m.opts.Scale
	verdict := st.Pass.Render("PASS")
	if !r.Passed {
		verdict = st.Fail.Render("FAIL")
	}
	lines := []string{
		st.Title.Render(fmt.Sprintf("  Scaled score %d", r.Scaled)) + fmt.Sprintf("  (raw %d/%d)  ", r.Points, r.Max) + verdict + st.Subtle.Render(fmt.Sprintf(" (pass mark %d)", s.Pass)),
		st.Subtle.Render(common.WrapHanging("  ", fmt.Sprintf("Raw score: %d of %d items right; an item scores only when exactly its keyed options are chosen.", r.Points, r.Max), m.c.Width)),
		st.Subtle.Render(common.WrapHanging("  ", fmt.Sprintf("Our approximation, not the official scaling: %d + %d × points/max, rounded.", s.Min, s.Max-s.Min), m.c.Width)),
	}
	used := m.att.Finished.Sub(m.att.Started)
	if m.att.Limit > 0 {
		lines = append(lines, fmt.Sprintf("  Time used %s of %s", common.Clock(min(used, m.att.Limit)), common.Clock(m.att.Limit)))
	} else {
		lines = append(lines, fmt.Sprintf("  Time used %s (untimed)", common.Clock(used)))
	}
	if m.note != "" {
		lines = append(lines, st.Accent.Render(common.WrapHanging("  ", m.note, m.c.Width)))
	}
	lines = append(lines, "")
	lines = append(lines, tallyRows(st, "By kata", r.ByKata, m.c.Width)...)
	lines = append(lines, "")
	lines = append(lines, tallyRows(st, "By scenario", r.ByScenario, m.c.Width)...)
	lines = append(lines, "", st.Subtle.Render(common.WrapHanging("  ", keymap.Says(m.c.Keys.MockExam.Review, "review every item with its rationales")+" · "+keymap.Says(m.c.Keys.Back, "back to the catalog"), m.c.Width)))
	return strings.Join(lines, "\n")
}

// reviewContent lays out one submitted item: the stem, the verdict, every option with the key,
// the learner's choice and its rationale.
func (m *Model) reviewContent() string {
	st := m.c.Styles
	w := m.c.Width
	q := m.qs[m.idx]
	chosen := m.scored()[q.Ref]
	opts := question.Choices(q)
	var lines []string
	add := func(s string) { lines = append(lines, strings.Split(s, "\n")...) }
	add(question.Title(st, q.Item.Title, w))
	add(m.stemLines(q))
	add("")
	switch {
	case len(chosen) == 0:
		add(st.Fail.Render("  ✗ not answered") + " — the key is " + question.KeyLetters(opts))
	default:
		add(question.Verdict(st, m.c.Loc, opts, exam.Correct(q.Item, chosen)))
	}
	add("")
	lines = append(lines, question.Reveal(st, m.c.Loc, w, opts, chosen)...)
	add("")
	add(st.Subtle.Render("  " + keymap.Says(m.c.Keys.MockExam.Next, "other items") + " · " + keymap.Says(m.c.Keys.Back, "back to the score")))
	return strings.Join(lines, "\n")
}
