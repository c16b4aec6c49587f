package mockexam

import (
	"strings"
	"time"

	"charm.land/lipgloss/v2"

	"github.com/kata-mcp/kata/ui/common"
	"github.com/kata-mcp/kata/ui/keymap"
)

// View draws the status line (item, counts, save state, countdown) and the stage's content.
func (m *Model) View() string {
	st := m.c.Styles
	if len(m.qs) == 0 && m.stage >= stageTaking {
		return st.Title.Render(m.c.T("mock.title")) + "\n\n  " + m.c.T("mock.no_items")
	}
	var left, right, second string
	switch m.stage {
	case stageTaking:
		answered, flagged := m.counts()
		left = st.Title.Render(m.c.T("mock.title")+" · "+m.c.T("mock.item_of", "N", m.idx+1, "Total", len(m.qs))) +
			st.Subtle.Render(" · "+m.c.T("mock.counts", "Answered", answered, "Flagged", flagged))
		if m.att.Limit > 0 {
			right = m.c.T("mock.left", "Clock", common.Clock(m.deadline().Sub(m.now)))
			if m.deadline().Sub(m.now) < time.Minute {
				right = st.Fail.Render(right)
			} else {
				right = st.Accent.Render(right)
			}
		}
		q := m.qs[m.idx]
		second = st.Subtle.Render(q.Kata + " · " + m.c.T("quiz.scenario", "Scenario", q.Item.Scenario))
		// an item of a localized library that has no English original was read in English
		if loc := m.c.Lib.Locale(); loc != "" && q.Item.English == nil {
			second += " " + st.Accent.Render("· "+common.InEnglish(loc))
		}
		if m.flagged[q.Ref] {
			second += " " + st.Accent.Render(m.c.T("mock.flagged"))
		}
		// The save state always shows whole: the kata and scenario give way.
		if state := m.saveState(); state != "" {
			second = common.Truncate(second, max(m.c.Width-lipgloss.Width(state)-2, 1)) + "  " + state
		}
	case stageResult:
		left = st.Title.Render(m.c.T("mock.title") + " · " + m.c.T("mock.result"))
		second = st.Subtle.Render(m.drawWords(len(m.qs), m.att.Katas, len(m.opts.Katas) == 0))
	case stageReview:
		q := m.qs[m.idx]
		left = st.Title.Render(m.c.T("mock.review_title") + " · " + m.c.T("mock.item_of", "N", m.idx+1, "Total", len(m.qs)))
		second = st.Subtle.Render(q.Kata + " · " + q.Item.ID + " · " + m.c.T("quiz.scenario", "Scenario", q.Item.Scenario))
	default:
		left = st.Title.Render(m.c.T("mock.title"))
	}
	head := left
	if right != "" {
		// The countdown always shows whole: the counts give way.
		left = common.Truncate(left, max(m.c.Width-lipgloss.Width(right)-1, 1))
		head = left + strings.Repeat(" ", max(m.c.Width-lipgloss.Width(left)-lipgloss.Width(right), 1)) + right
	}
	body := m.vp.View()
	if m.vp.Height() < m.c.Height-3 { // setContent left a line for the "more below" note
		note := ""
		if m.vp.MoreBelow() {
			note = st.Accent.Render(common.Truncate("  ↓ "+m.c.T("mock.more_below", "Key", keymap.Name(m.c.Keys.Scroll.PageUp)), m.c.Width))
		}
		body += "\n" + note
	}
	return common.Truncate(head, m.c.Width) + "\n" + common.Truncate(second, m.c.Width) + "\n\n" + body
}

// saveState says whether the answers are saved.
func (m *Model) saveState() string {
	st := m.c.Styles
	switch {
	case m.c.Store == nil:
		return st.Subtle.Render(m.c.T("mock.no_store"))
	case m.unsaved:
		return st.Fail.Render(m.c.T("mock.store_failed"))
	case m.failed:
		return st.Fail.Render(m.c.T("mock.last_not_saved"))
	case m.att.ID == 0:
		return st.Subtle.Render(m.c.T("mock.starting"))
	case m.pending > 0:
		return st.Subtle.Render(m.c.T("mock.saving"))
	case m.saved > 0:
		return st.Subtle.Render(m.c.T("mock.saved"))
	}
	return ""
}
