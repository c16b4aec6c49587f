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
	verdict := st.Pass.Render(m.c.T("mock.pass"))
	if !r.Passed {
		verdict = st.Fail.Render(m.c.T("mock.fail"))
	}
	lines := []string{
		st.Title.Render("  "+m.c.T("mock.scaled", "Scaled", r.Scaled)) + "  " + m.c.T("mock.raw", "Points", r.Points, "Max", r.Max) + "  " + verdict + st.Subtle.Render(" "+m.c.T("mock.pass_mark", "Pass", s.Pass)),
		st.Subtle.Render(common.WrapHanging("  ", m.c.T("mock.raw_note", "Points", r.Points, "Max", r.Max), m.c.Width)),
		st.Subtle.Render(common.WrapHanging("  ", m.c.T("mock.scale_note", "Min", s.Min, "Span", s.Max-s.Min), m.c.Width)),
	}
	used := m.att.Finished.Sub(m.att.Started)
	if m.att.Limit > 0 {
		lines = append(lines, "  "+m.c.T("mock.time_used", "Used", common.Clock(min(used, m.att.Limit)), "Limit", common.Clock(m.att.Limit)))
	} else {
		lines = append(lines, "  "+m.c.T("mock.time_used_untimed", "Used", common.Clock(used)))
	}
	if m.note != "" {
		lines = append(lines, st.Accent.Render(common.WrapHanging("  ", m.note, m.c.Width)))
	}
	lines = append(lines, "")
	lines = append(lines, tallyRows(st, m.c.T("mock.by_kata"), r.ByKata, m.c.Width)...)
	lines = append(lines, "")
	lines = append(lines, tallyRows(st, m.c.T("mock.by_scenario"), r.ByScenario, m.c.Width)...)
	lines = append(lines, "", st.Subtle.Render(common.WrapHanging("  ", keymap.Says(m.c.Keys.MockExam.Review, m.c.T("mock.review_every"))+" · "+keymap.Says(m.c.Keys.Back, m.c.T("mock.back_catalog")), m.c.Width)))
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
		add(st.Fail.Render("  "+m.c.T("mock.not_answered")) + " — " + m.c.T("question.key_is", "Letters", question.KeyLetters(opts)))
	default:
		add(question.Verdict(st, m.c.Loc, opts, exam.Correct(q.Item, chosen)))
	}
	add("")
	lines = append(lines, question.Reveal(st, m.c.Loc, w, opts, chosen)...)
	add("")
	add(st.Subtle.Render("  " + keymap.Says(m.c.Keys.MockExam.Next, m.c.T("mock.other_items")) + " · " + keymap.Says(m.c.Keys.Back, m.c.T("mock.back_score"))))
	return strings.Join(lines, "\n")
}
