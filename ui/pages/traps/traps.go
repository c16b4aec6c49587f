// Package traps shows a packet's trap tables laid out for the terminal's width, scrollable.
package traps

import (
	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"github.com/kata-mcp/kata/katas"
	"github.com/kata-mcp/kata/ui/common"
	"github.com/kata-mcp/kata/ui/components/viewport"
	"github.com/kata-mcp/kata/ui/traptable"
)

// Model shows the packet's trap tables laid out for the terminal width, scrollable.
type Model struct {
	c    common.Common
	p    *katas.Packet
	vp   *viewport.Model
	laid common.RenderKey // the width and style the content was laid out for
}

// New returns the trap tables of packet p.
func New(c common.Common, p *katas.Packet) *Model {
	return &Model{c: c, p: p, vp: viewport.New()}
}

// ShortHelp lists the trap screen's keys.
func (m *Model) ShortHelp() []key.Binding {
	r := m.c.Keys.Read
	return []key.Binding{m.c.Keys.Traps.Drill, r.Up, r.PageUp, r.Top}
}

// FullHelp lists the trap screen's keys in one column.
func (m *Model) FullHelp() [][]key.Binding { return [][]key.Binding{m.ShortHelp()} }

// SetSize lays the tables out again for the new width (a pure computation, no I/O).
func (m *Model) SetSize(w, h int) tea.Cmd {
	m.c.SetSize(w, h)
	m.vp.SetSize(w, h-2)
	if k := (common.RenderKey{Width: w, Style: m.c.MDStyle}); k != m.laid {
		m.laid = k
		m.vp.SetContent(traptable.Render(m.p.Traps, w, m.c.Styles.Traps))
	}
	return nil
}

// Update scrolls, and d starts the drill.
func (m *Model) Update(msg tea.Msg) tea.Cmd {
	switch msg := msg.(type) {
	case tea.KeyPressMsg:
		if key.Matches(msg, m.c.Keys.Traps.Drill) {
			return common.Show(common.DrillScreen)
		}
		m.vp.Key(msg, m.c.Keys.Read)
	case tea.MouseWheelMsg:
		m.vp.Wheel(msg)
	}
	return nil
}

// View draws the title line and the tables.
func (m *Model) View() string {
	st := m.c.Styles
	title := st.Title.Render("Traps") + " " + st.Subtle.Render("— "+m.p.Title)
	if pc := m.vp.Percent(); pc != "" {
		title += "  " + st.Subtle.Render(pc)
	}
	return common.Truncate(title, m.c.Width) + "\n\n" + m.vp.View()
}
