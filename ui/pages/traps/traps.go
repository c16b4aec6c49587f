// Package traps shows a packet's trap tables laid out for the terminal's width, scrollable, and
// filtered by / as you type (the rows whose trap, reason or pattern holds the text).
package traps

import (
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"github.com/kata-mcp/kata/katas"
	"github.com/kata-mcp/kata/ui/common"
	"github.com/kata-mcp/kata/ui/components/find"
	"github.com/kata-mcp/kata/ui/components/viewport"
	"github.com/kata-mcp/kata/ui/keymap"
	"github.com/kata-mcp/kata/ui/traptable"
)

// Model shows the packet's trap tables laid out for the terminal width, scrollable.
type Model struct {
	c      common.Common
	p      *katas.Packet
	vp     *viewport.Model
	filter find.Model
	laid   common.RenderKey // the width and style the content was laid out for
	query  string           // the filter it was laid out for
	shown  int              // rows the filter keeps
}

// New returns the trap tables of packet p.
func New(c common.Common, p *katas.Packet) *Model {
	return &Model{c: c, p: p, vp: viewport.New()}
}

// ShortHelp lists the trap screen's keys.
func (m *Model) ShortHelp() []key.Binding {
	r, f := m.c.Keys.Read, m.c.Keys.Find
	if m.filter.Typing() {
		return []key.Binding{f.Done}
	}
	return []key.Binding{m.c.Keys.Traps.Drill, f.Open, r.Up, r.PageUp, r.Top}
}

// FullHelp lists the trap screen's keys in one column.
func (m *Model) FullHelp() [][]key.Binding { return [][]key.Binding{m.ShortHelp()} }

// HelpNote says what the filter matches.
func (m *Model) HelpNote() string {
	k := m.c.Keys
	return m.c.T("traps.help_note", "Find", keymap.Name(k.Find.Open), "Done", keymap.Name(k.Find.Done), "Back", keymap.Name(k.Back))
}

// Typing reports whether the filter is being typed (keys are text then).
func (m *Model) Typing() bool { return m.filter.Typing() }

// Back drops the filter.
func (m *Model) Back() (tea.Cmd, bool) {
	if !m.filter.Active() {
		return nil, false
	}
	m.filter.Clear()
	m.layout()
	return nil, true
}

// SetSize lays the tables out again for the new width (a pure computation, no I/O).
func (m *Model) SetSize(w, h int) tea.Cmd {
	m.c.SetSize(w, h)
	m.vp.SetSize(w, h-2)
	m.layout()
	return nil
}

// layout lays the tables out for the width, the filter's rows only, unless they already are.
func (m *Model) layout() {
	k := common.RenderKey{Width: m.c.Width, Style: m.c.MDStyle}
	if k == m.laid && m.query == m.filter.Query() && m.c.Width > 0 {
		return
	}
	m.laid, m.query = k, m.filter.Query()
	tables := m.filtered()
	m.shown = 0
	for _, t := range tables {
		m.shown += len(t.Rows)
	}
	if len(tables) == 0 {
		m.vp.SetContent(common.WrapHanging("  ", m.c.T("traps.no_match", "Query", m.query, "Key", keymap.Name(m.c.Keys.Back)), m.c.Width))
		return
	}
	m.vp.SetContent(traptable.RenderIn(tables, m.c.Width, m.c.Styles.Traps, []string{m.c.T("traps.col_trap"), m.c.T("traps.col_why"), m.c.T("traps.col_correct")}))
	m.vp.GotoTop()
}

// filtered is the tables with only the rows the filter keeps (tables left empty dropped).
func (m *Model) filtered() []katas.TrapTable {
	if m.filter.Query() == "" {
		return m.p.Traps
	}
	var out []katas.TrapTable
	for _, t := range m.p.Traps {
		var rows []katas.Trap
		for _, r := range t.Rows {
			if m.filter.Matches(strings.Join([]string{r.Trap, r.WhyItFails, r.Correct}, "\n")) {
				rows = append(rows, r)
			}
		}
		if len(rows) > 0 {
			t.Rows = rows
			out = append(out, t)
		}
	}
	return out
}

// Update scrolls, filters, and d starts the drill.
func (m *Model) Update(msg tea.Msg) tea.Cmd {
	switch msg := msg.(type) {
	case tea.KeyPressMsg:
		if r := m.filter.Key(msg, m.c.Keys.Find); r != find.None {
			m.layout()
			return nil
		}
		switch {
		case key.Matches(msg, m.c.Keys.Traps.Drill):
			return common.Show(common.DrillScreen)
		case key.Matches(msg, m.c.Keys.Find.Open):
			m.filter.Open()
			m.layout()
			return nil
		}
		m.vp.Key(msg, m.c.Keys.Read)
	case tea.MouseWheelMsg:
		m.vp.Wheel(msg)
	}
	return nil
}

// View draws the title line (or the filter) and the tables.
func (m *Model) View() string {
	st := m.c.Styles
	title := st.Title.Render(m.c.T("traps.title")) + " " + st.Subtle.Render("— "+m.p.Title)
	if m.p.InEnglish("traps.md") {
		title += " " + st.Accent.Render("· "+common.InEnglish(m.p.Locale))
	}
	if pc := m.vp.Percent(); pc != "" {
		title += "  " + st.Subtle.Render(pc)
	}
	second := ""
	if m.filter.Active() {
		second = m.filter.View(st, m.c.T("common.of", "Shown", m.shown, "Total", m.c.N("count.trap", m.p.TrapCount())), m.c.Width)
	}
	return common.Truncate(title, m.c.Width) + "\n" + second + "\n" + m.vp.View()
}
