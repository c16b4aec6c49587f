package mockexam

import (
	"fmt"
	"strings"
	"time"

	"github.com/kata-mcp/kata/internal/progress"
	"github.com/kata-mcp/kata/katas/exam"
	"github.com/kata-mcp/kata/ui/common"
	"github.com/kata-mcp/kata/ui/keymap"
)

// refresh rebuilds the viewport content for the stage.
func (m *Model) refresh() {
	if m.c.Width == 0 {
		return
	}
	if len(m.qs) == 0 && m.stage >= stageTaking {
		m.vp.SetContent("")
		return
	}
	switch m.stage {
	case stageTaking:
		switch m.mode {
		case modeJump:
			content, line := m.jumpContent()
			m.vp.SetContent(content)
			if m.follow {
				m.vp.Follow(line, false)
			}
		case modeConfirm:
			m.vp.SetContent(m.confirmContent())
			m.vp.GotoTop()
		default:
			content, line := m.itemContent()
			m.setContent(content)
			if m.follow {
				m.vp.Follow(line, false)
			}
		}
		m.follow = false
	case stageResult:
		m.vp.SetContent(m.resultContent())
	case stageReview:
		m.setContent(m.reviewContent())
	case stageOffer:
		m.vp.SetContent(m.offerContent())
	case stageSubmitting:
		m.vp.SetContent(m.c.Styles.Subtle.Render("  " + m.c.T("mock.submitting")))
	default:
		m.vp.SetContent(m.c.Styles.Subtle.Render("  " + m.c.T("mock.preparing")))
	}
}

// setContent puts an item (or its review) on show, a line shorter than the space when it does
// not fit: the line under it says there is more below (View).
func (m *Model) setContent(s string) {
	full := max(m.c.Height-3, 1)
	m.vp.SetSize(m.c.Width, full)
	m.vp.SetContent(s)
	if m.vp.Overflows() && full > 2 {
		m.vp.SetSize(m.c.Width, full-1)
	}
}

// Overflows reports whether the item on show is longer than the screen: the key bar then
// keeps the scroll keys.
func (m *Model) Overflows() bool {
	return (m.stage == stageTaking && m.mode == modeItems || m.stage == stageReview) && m.vp.Overflows()
}

// stemLines returns the stem of the item on show: rendered, or plain while it renders.
func (m *Model) stemLines(q exam.Question) string {
	return m.stem.View(q.Ref, q.Item.Stem, m.c.Width)
}

// itemContent lays out the item on show for answering, and the cursor's line.
func (m *Model) itemContent() (string, int) {
	st := m.c.Styles
	w := m.c.Width
	q := m.qs[m.idx]
	var lines []string
	add := func(s string) { lines = append(lines, strings.Split(s, "\n")...) }
	if m.note != "" {
		add(st.Accent.Render(common.WrapHanging("  ", m.note, w)))
		add("")
	}
	// No item title while answering: it could cue the key. The review after submitting shows it.
	add(m.stem.ViewTop(q.Ref, q.Item.Stem, m.c.Width))
	add("")
	if q.Item.Choose > 1 {
		add(st.Accent.Render(common.WrapHanging("  ", m.c.N("mock.choose", q.Item.Choose, "Marked", m.a.Marked()), w)))
		add("")
	}
	opts, cursor := m.a.Lines(st, m.c.Loc, w, true)
	base := len(lines)
	lines = append(lines, opts...)
	if m.a.HasNote() { // the note on a refused key ends the options: keep it in sight
		cursor = len(opts) - 1
	}
	add("")
	hint := m.c.T("mock.hint_saved", "Key", keymap.Key(m.c.Keys.Question.Mark))
	if m.c.Store == nil || m.unsaved {
		hint = m.c.T("mock.hint_unsaved", "Key", keymap.Key(m.c.Keys.Question.Mark))
	}
	add(st.Subtle.Render(common.WrapHanging("  ", hint, w)))
	return strings.Join(lines, "\n"), base + cursor
}

// jumpContent lays out the jump list: every item with its answered and flagged state.
func (m *Model) jumpContent() (string, int) {
	st := m.c.Styles
	answered, flagged := m.counts()
	lines := []string{st.Label.Render("  " + m.c.T("mock.jump_head", "Answered", answered, "Total", len(m.qs), "Flagged", flagged)), ""}
	cursor := -1
	for i, q := range m.qs {
		mark, flag := "·", " "
		switch {
		case m.answered(q):
			mark = "✓"
		case len(m.chosen[q.Ref]) > 0:
			mark = "~"
		}
		if m.flagged[q.Ref] {
			flag = "⚑"
		}
		marker := "  "
		if i == m.jump {
			marker = "> "
			cursor = len(lines)
		}
		line := common.Truncate(fmt.Sprintf("%s%2d  %s %s  %s", marker, i+1, mark, flag, stemOpening(q.Item.Stem)), m.c.Width)
		if i == m.jump {
			line = st.Selected.Render(line)
		}
		lines = append(lines, line)
	}
	lines = append(lines, "", st.Subtle.Render("  "+m.c.T("mock.jump_legend")))
	return strings.Join(lines, "\n"), cursor
}

// confirmContent asks whether to submit.
func (m *Model) confirmContent() string {
	st := m.c.Styles
	answered, flagged := m.counts()
	lines := []string{
		st.Title.Render("  " + m.c.T("mock.confirm")),
		"",
		"  " + m.c.T("mock.confirm_counts", "Answered", answered, "Total", len(m.qs), "Flagged", flagged),
	}
	if left := len(m.qs) - answered; left > 0 {
		lines = append(lines, st.Fail.Render("  "+m.c.N("mock.unanswered", left)))
	}
	x := m.c.Keys.MockExam
	lines = append(lines, "", "  "+keymap.Says(x.Yes, m.c.T("mock.submit_see"))+" · "+keymap.Says(x.No, m.c.T("key.keep_going")))
	return strings.Join(lines, "\n")
}

// offerContent offers to resume an unfinished attempt.
func (m *Model) offerContent() string {
	st := m.c.Styles
	a := m.offer
	// Count complete answers, as the exam's header does (a half-marked multiple-response item
	// is saved but not answered).
	answered := exam.CountAnswered(m.c.Lib.Packets(), m.offered, func(a progress.ExamAnswer) []string { return a.Chosen })
	lines := []string{
		st.Title.Render("  " + m.c.T("mock.unfinished")),
		"",
		"  " + m.c.T("mock.offer_counts", "Started", a.Started.Local().Format(m.c.T("common.date_layout")), "Items", m.c.N("count.item", len(a.Items)), "Answered", answered),
		common.WrapHanging("  ", m.c.T("mock.offer_katas", "Katas", strings.Join(a.Katas, ", ")), m.c.Width),
	}
	if a.Limit > 0 {
		left := a.Started.Add(a.Limit).Sub(m.c.Now())
		if left > 0 {
			lines = append(lines, "  "+m.c.T("mock.time_left_closed", "Left", common.Clock(left)))
		} else {
			lines = append(lines, "  "+m.c.T("mock.time_ran_out"))
		}
	}
	x := m.c.Keys.MockExam
	lines = append(lines, "", "  "+keymap.Says(x.Resume, m.c.T("mock.resume_it"))+" · "+keymap.Says(x.New, m.c.T("mock.abandon")), st.Subtle.Render(common.WrapHanging("     ", m.c.T("mock.the_new_one", "Words", m.newExamWords()), m.c.Width)))
	if m.note != "" {
		lines = append(lines, "", st.Fail.Render(common.WrapHanging("  ", m.note, m.c.Width)))
	}
	return strings.Join(lines, "\n")
}

// newExamWords describes the exam n starts: its size, katas and time limit.
func (m *Model) newExamWords() string {
	total := 0
	var ids []string
	for _, p := range m.packets() {
		total += len(p.Items)
		ids = append(ids, p.ID)
	}
	n := min(m.opts.Items, total)
	if m.opts.Items <= 0 {
		n = total
	}
	limit := m.c.T("mock.untimed")
	switch {
	case m.opts.Time == 0:
		limit = m.c.T("mock.to_answer", "Time", common.Clock(time.Duration(n)*PerItemTime))
	case m.opts.Time > 0:
		limit = m.c.T("mock.to_answer", "Time", common.Clock(m.opts.Time))
	}
	return m.drawWords(n, ids, len(m.opts.Katas) == 0) + ", " + limit
}

// drawWords says how many items an exam has and where they come from: "3 items from
// mini-kata", or, over several katas, "3 items in all, drawn across the 3 katas" (every kata)
// or "… across kata-a, kata-b" (those named) — never "from every kata", which reads as
// 3 from each.
func (m *Model) drawWords(n int, ids []string, every bool) string {
	items := m.c.N("count.item", n)
	switch {
	case len(ids) == 1:
		return m.c.T("mock.draw_one", "Items", items, "Kata", ids[0])
	case every:
		return m.c.T("mock.draw_every", "Items", items, "Katas", m.c.N("count.kata", len(ids)))
	}
	return m.c.T("mock.draw_named", "Items", items, "Katas", strings.Join(ids, ", "))
}

// stemOpening is the first line of a stem as plain text: how the jump list names an item while
// answering, since the title could cue the key.
func stemOpening(stem string) string {
	first, _, _ := strings.Cut(strings.TrimSpace(stem), "\n")
	return common.Inline(first)
}
