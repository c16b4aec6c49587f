package ui

import (
	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/viewport"
	tea "charm.land/bubbletea/v2"

	"github.com/kata-mcp/kata/katas"
	"github.com/kata-mcp/kata/ui/traptable"
)

// trapsModel shows the packet's trap tables laid out for the terminal width, scrollable.
type trapsModel struct {
	c      *common
	p      *katas.Packet
	vp     viewport.Model
	width  int
	height int
	laid   renderKey // the width and style the content was laid out for
}

func newTraps(c *common, p *katas.Packet) *trapsModel {
	return &trapsModel{c: c, p: p, vp: viewport.New()}
}

// ShortHelp lists the trap screen's keys.
func (m *trapsModel) ShortHelp() []key.Binding {
	r := m.c.keys.Read
	return []key.Binding{m.c.keys.Traps.Drill, r.Up, r.PageUp, r.Top}
}

// FullHelp lists the trap screen's keys in one column.
func (m *trapsModel) FullHelp() [][]key.Binding { return [][]key.Binding{m.ShortHelp()} }

// SetSize lays the tables out again for the new width (a pure computation, no I/O).
func (m *trapsModel) SetSize(w, h int) tea.Cmd {
	m.width, m.height = w, h
	m.vp.SetWidth(w)
	m.vp.SetHeight(max(h-2, 1))
	if k := (renderKey{width: w, style: m.c.mdStyle}); k != m.laid {
		m.laid = k
		m.vp.SetContent(traptable.Render(m.p.Traps, w, m.c.st.traps))
	}
	return nil
}

// Update scrolls, and d starts the drill.
func (m *trapsModel) Update(msg tea.Msg) tea.Cmd {
	switch msg := msg.(type) {
	case tea.KeyPressMsg:
		if key.Matches(msg, m.c.keys.Traps.Drill) {
			return navigate(drillScreen)
		}
		scroll(&m.vp, m.c.keys.Read, msg)
	case tea.MouseWheelMsg:
		wheel(&m.vp, msg)
	}
	return nil
}

// View draws the title line and the tables.
func (m *trapsModel) View() string {
	st := m.c.st
	title := st.title.Render("Traps") + " " + st.subtle.Render("— "+m.p.Title)
	if pc := percent(m.vp); pc != "" {
		title += "  " + st.subtle.Render(pc)
	}
	return truncate(title, m.width) + "\n\n" + m.vp.View()
}
