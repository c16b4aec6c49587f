package mockexam

import (
	"fmt"
	"strings"
	"time"

	"charm.land/lipgloss/v2"

	"github.com/kata-mcp/kata/ui/common"
)

// View draws the status line (item, counts, save state, countdown) and the stage's content.
func (m *Model) View() string {
	st := m.c.Styles
	if len(m.qs) == 0 && m.stage >= stageTaking {
		return st.Title.Render("Mock exam") + "\n\n  There are no exam items in the chosen katas."
	}
	var left, right, second string
	switch m.stage {
	case stageTaking:
		answered, flagged := m.counts()
		left = st.Title.Render(fmt.Sprintf("Mock exam · item %d of %d", m.idx+1, len(m.qs))) +
			st.Subtle.Render(fmt.Sprintf(" · %d answered · %d flagged", answered, flagged))
		if m.att.Limit > 0 {
			right = "left " + common.Clock(m.deadline().Sub(m.now))
			if m.deadline().Sub(m.now) < time.Minute {
				right = st.Fail.Render(right)
			} else {
				right = st.Accent.Render(right)
			}
		}
		q := m.qs[m.idx]
		second = st.Subtle.Render(q.Kata + " · scenario: " + q.Item.Scenario)
		// an item of a localized library that has no English original was read in English
		if loc := m.c.Lib.Locale(); loc != "" && q.Item.English == nil {
			second += " " + st.Accent.Render("· "+common.InEnglish(loc))
		}
		if m.flagged[q.Ref] {
			second += " " + st.Accent.Render("⚑ flagged")
		}
		// The save state always shows whole: the kata and scenario give way.
		if state := m.saveState(); state != "" {
			second = common.Truncate(second, max(m.c.Width-lipgloss.Width(state)-2, 1)) + "  " + state
		}
	case stageResult:
		left = st.Title.Render("Mock exam · result")
		second = st.Subtle.Render(drawWords(len(m.qs), m.att.Katas, len(m.opts.Katas) == 0))
	case stageReview:
		q := m.qs[m.idx]
		left = st.Title.Render(fmt.Sprintf("Mock exam review · item %d of %d", m.idx+1, len(m.qs)))
		second = st.Subtle.Render(q.Kata + " · " + q.Item.ID + " · scenario: " + q.Item.Scenario)
	default:
		left = st.Title.Render("Mock exam")
	}
	head := left
	if right != "" {
		// The countdown always shows whole: the counts give way.
		left = common.Truncate(left, max(m.c.Width-lipgloss.Width(right)-1, 1))
		head = left + strings.Repeat(" ", max(m.c.Width-lipgloss.Width(left)-lipgloss.Width(right), 1)) + right
	}
	return common.Truncate(head, m.c.Width) + "\n" + common.Truncate(second, m.c.Width) + "\n\n" + m.vp.View()
}

// saveState says whether the answers are saved.
func (m *Model) saveState() string {
	st := m.c.Styles
	switch {
	case m.c.Store == nil:
		return st.Subtle.Render("not saved: no progress store")
	case m.unsaved:
		return st.Fail.Render("not saved: the store failed")
	case m.failed:
		return st.Fail.Render("last answer not saved")
	case m.att.ID == 0:
		return st.Subtle.Render("starting…")
	case m.pending > 0:
		return st.Subtle.Render("saving…")
	case m.saved > 0:
		return st.Subtle.Render("saved")
	}
	return ""
}
