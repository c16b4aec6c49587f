// Package viewport is a scrolling viewport that knows its size: it applies the scroll keys and
// the mouse wheel, keeps a line in sight, and says how far it is scrolled.
package viewport

import (
	"fmt"

	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/viewport"
	tea "charm.land/bubbletea/v2"

	"github.com/kata-mcp/kata/ui/keymap"
)

// Model is a viewport of lines, sized by its page.
type Model struct {
	vp viewport.Model
}

// New returns an empty viewport of size zero.
func New() *Model { return &Model{vp: viewport.New()} }

// SetSize sets the viewport's width and height (at least one line).
func (m *Model) SetSize(width, height int) {
	m.vp.SetWidth(width)
	m.vp.SetHeight(max(height, 1))
}

// Width is the viewport's width.
func (m *Model) Width() int { return m.vp.Width() }

// Height is the viewport's height.
func (m *Model) Height() int { return m.vp.Height() }

// SetContent replaces the lines on show, keeping the scroll position where it can.
func (m *Model) SetContent(s string) { m.vp.SetContent(s) }

// GotoTop scrolls to the first line.
func (m *Model) GotoTop() { m.vp.GotoTop() }

// YOffset is the first line on show.
func (m *Model) YOffset() int { return m.vp.YOffset() }

// SetYOffset scrolls so that line n is the first on show.
func (m *Model) SetYOffset(n int) { m.vp.SetYOffset(n) }

// Key applies a scroll key of k and reports whether msg was one. A zero binding in k matches
// nothing.
func (m *Model) Key(msg tea.KeyPressMsg, k keymap.Scroll) bool {
	switch {
	case key.Matches(msg, k.Up):
		m.vp.ScrollUp(1)
	case key.Matches(msg, k.Down):
		m.vp.ScrollDown(1)
	case key.Matches(msg, k.PageUp):
		m.vp.PageUp()
	case key.Matches(msg, k.PageDown):
		m.vp.PageDown()
	case key.Matches(msg, k.Top):
		m.vp.GotoTop()
	case key.Matches(msg, k.Bottom):
		m.vp.GotoBottom()
	default:
		return false
	}
	return true
}

// PageKey applies only the page keys of k (on screens whose arrows move a cursor) and reports
// whether msg was one.
func (m *Model) PageKey(msg tea.KeyPressMsg, k keymap.Scroll) bool {
	return m.Key(msg, keymap.Scroll{PageUp: k.PageUp, PageDown: k.PageDown})
}

// Wheel scrolls by three lines per wheel notch.
func (m *Model) Wheel(msg tea.MouseWheelMsg) {
	switch msg.Button {
	case tea.MouseWheelUp:
		m.vp.ScrollUp(3)
	case tea.MouseWheelDown:
		m.vp.ScrollDown(3)
	}
}

// Follow scrolls to keep line in sight (at the top when top is set); line < 0 does nothing.
func (m *Model) Follow(line int, top bool) {
	switch {
	case line < 0:
	case top:
		m.vp.SetYOffset(line)
	case line < m.vp.YOffset():
		m.vp.SetYOffset(line)
	case line >= m.vp.YOffset()+m.vp.Height():
		m.vp.SetYOffset(line - m.vp.Height() + 1)
	}
}

// FollowRange scrolls the least that shows lines first to last, or as many of them from first
// as fit; first < 0 does nothing.
func (m *Model) FollowRange(first, last int) {
	h := m.vp.Height()
	switch {
	case first < 0:
	case first < m.vp.YOffset():
		m.vp.SetYOffset(first)
	case last >= m.vp.YOffset()+h:
		m.vp.SetYOffset(min(first, last-h+1))
	}
}

// Overflows reports whether the content is longer than the viewport (the scroll keys do
// something).
func (m *Model) Overflows() bool { return m.vp.TotalLineCount() > m.vp.Height() }

// MoreBelow reports whether lines below the viewport's last are out of sight.
func (m *Model) MoreBelow() bool { return m.vp.TotalLineCount() > m.vp.YOffset()+m.vp.Height() }

// Percent formats the scroll position, or "" when everything fits.
func (m *Model) Percent() string {
	if m.vp.TotalLineCount() <= m.vp.Height() {
		return ""
	}
	return fmt.Sprintf("%d%%", int(m.vp.ScrollPercent()*100))
}

// View draws the lines on show.
func (m *Model) View() string { return m.vp.View() }
