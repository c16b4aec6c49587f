package mockexam

import (
	"fmt"
	"strings"
	"time"

	"github.com/kata-mcp/kata/katas/exam"
	"github.com/kata-mcp/kata/katas/progress"
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
			m.vp.SetContent(content)
			if m.follow {
				m.vp.Follow(line, false)
			}
		}
		m.follow = false
	case stageResult:
		m.vp.SetContent(m.resultContent())
	case stageReview:
		m.vp.SetContent(m.reviewContent())
	case stageOffer:
		m.vp.SetContent(m.offerContent())
	case stageSubmitting:
		m.vp.SetContent(m.c.Styles.Subtle.Render("  Submitting the mock exam…"))
	default:
		m.vp.SetContent(m.c.Styles.Subtle.Render("  Preparing the mock exam…"))
	}
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
		add(st.Accent.Render(common.WrapHanging("  ", fmt.Sprintf("Choose %d. This item scores only when exactly %d options are marked (%d marked).", q.Item.Choose, q.Item.Choose, m.a.Marked()), w)))
		add("")
	}
	opts, cursor := m.a.Lines(st, m.c.Loc, w, true)
	base := len(lines)
	lines = append(lines, opts...)
	add("")
	hint := "Mark with the letters (or " + keymap.Key(m.c.Keys.Question.Mark) + " on the cursor). No feedback until you submit; answers are saved as you give them."
	if m.c.Store == nil || m.unsaved {
		hint = "Mark with the letters (or " + keymap.Key(m.c.Keys.Question.Mark) + " on the cursor). No feedback until you submit. Answers are not saved: they are lost if the app closes."
	}
	add(st.Subtle.Render(common.WrapHanging("  ", hint, w)))
	return strings.Join(lines, "\n"), base + cursor
}

// jumpContent lays out the jump list: every item with its answered and flagged state.
func (m *Model) jumpContent() (string, int) {
	st := m.c.Styles
	answered, flagged := m.counts()
	lines := []string{st.Label.Render(fmt.Sprintf("  Jump to an item · %d of %d answered · %d flagged", answered, len(m.qs), flagged)), ""}
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
	lines = append(lines, "", st.Subtle.Render("  ✓ answered · ~ partly marked · · not answered · ⚑ flagged"))
	return strings.Join(lines, "\n"), cursor
}

// confirmContent asks whether to submit.
func (m *Model) confirmContent() string {
	st := m.c.Styles
	answered, flagged := m.counts()
	lines := []string{
		st.Title.Render("  Submit the mock exam?"),
		"",
		fmt.Sprintf("  %d of %d items answered · %d flagged for review.", answered, len(m.qs), flagged),
	}
	if left := len(m.qs) - answered; left > 0 {
		lines = append(lines, st.Fail.Render("  "+common.Count(left, "item unanswered scores", "items unanswered score")+" nothing."))
	}
	x := m.c.Keys.MockExam
	lines = append(lines, "", "  "+keymap.Says(x.Yes, "submit and see the score")+" · "+keymap.Says(x.No, "keep going"))
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
		st.Title.Render("  An unfinished mock exam"),
		"",
		fmt.Sprintf("  Started %s · %d items · %d answered so far", a.Started.Local().Format("Jan 2 15:04"), len(a.Items), answered),
		common.WrapHanging("  ", "Katas: "+strings.Join(a.Katas, ", "), m.c.Width),
	}
	if a.Limit > 0 {
		left := a.Started.Add(a.Limit).Sub(m.c.Now())
		if left > 0 {
			lines = append(lines, fmt.Sprintf("  Time left: %s (the clock ran on while the app was closed).", common.Clock(left)))
		} else {
			lines = append(lines, "  Its time has run out: resuming submits it with the answers saved.")
		}
	}
	x := m.c.Keys.MockExam
	lines = append(lines, "", "  "+keymap.Says(x.Resume, "resume it")+" · "+keymap.Says(x.New, "abandon it and start a new mock exam"), st.Subtle.Render(common.WrapHanging("     ", "(the new one: "+m.newExamWords()+")", m.c.Width)))
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
	limit := "untimed"
	switch {
	case m.opts.Time == 0:
		limit = common.Clock(time.Duration(n)*PerItemTime) + " to answer"
	case m.opts.Time > 0:
		limit = common.Clock(m.opts.Time) + " to answer"
	}
	return drawWords(n, ids, len(m.opts.Katas) == 0) + ", " + limit
}

// drawWords says how many items an exam has and where they come from: "3 items from
// mini-kata", or, over several katas, "3 items in all, drawn across the 3 katas" (every kata)
// or "… across kata-a, kata-b" (those named) — never "from every kata", which reads as
// 3 from each.
func drawWords(n int, ids []string, every bool) string {
	items := common.Count(n, "item", "items")
	switch {
	case len(ids) == 1:
		return items + " from " + ids[0]
	case every:
		return items + " in all, drawn across the " + common.Count(len(ids), "kata", "katas")
	}
	return items + " in all, drawn across " + strings.Join(ids, ", ")
}

// stemOpening is the first line of a stem as plain text: how the jump list names an item while
// answering, since the title could cue the key.
func stemOpening(stem string) string {
	first, _, _ := strings.Cut(strings.TrimSpace(stem), "\n")
	return common.Inline(first)
}
