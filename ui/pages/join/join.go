// Package join is the workshop screen: join an instructor's workshop by its address and a
// name, or see the one joined (connection, events waiting) and leave it.
package join

import (
	"context"
	"strings"
	"time"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"

	"github.com/kata-mcp/kata/ui/common"
	"github.com/kata-mcp/kata/ui/components/field"
	"github.com/kata-mcp/kata/ui/keymap"
	"github.com/kata-mcp/kata/workshop"
	"github.com/kata-mcp/kata/workshop/learner"
)

// joinTimeout bounds a join or a leave.
const joinTimeout = 30 * time.Second

// Model is the workshop screen.
type Model struct {
	c     common.Common
	addr  field.Model
	name  field.Model
	focus int // 0 address, 1 name
	busy  string
	note  string
	err   string
}

// joinedMsg ends a join; leftMsg a leave.
type (
	joinedMsg struct{ err error }
	leftMsg   struct {
		dropped int
		err     error
	}
)

// New returns the workshop screen.
func New(c common.Common) *Model {
	m := &Model{c: c, addr: field.Model{Placeholder: "http://10.0.0.5:7878/ABCD-1234", Limit: 300},
		name: field.Model{Placeholder: c.T("join.name_placeholder"), Limit: workshop.MaxName}}
	m.addr.Focus()
	return m
}

// joined reports whether the learner is in a workshop.
func (m *Model) joined() bool { return m.c.WorkshopStatus().Conn != learner.NotJoined }

// Typing reports whether keys are text for the form: the root then passes letters (q, ?)
// to it and keeps only ctrl+c and esc.
func (m *Model) Typing() bool { return !m.joined() && m.busy == "" }

// Activate clears the last outcome when the screen comes into view.
func (m *Model) Activate() { m.note, m.err = "", "" }

// ShortHelp lists the keys that apply.
func (m *Model) ShortHelp() []key.Binding {
	k := m.c.Keys.Join
	if m.joined() {
		return []key.Binding{k.Leave}
	}
	return []key.Binding{k.Submit, k.Next}
}

// FullHelp lists the screen's keys.
func (m *Model) FullHelp() [][]key.Binding {
	k := m.c.Keys.Join
	return [][]key.Binding{{k.Submit, k.Next}, {k.Leave}}
}

// SetSize records the screen's space.
func (m *Model) SetSize(w, h int) tea.Cmd {
	m.c.SetSize(w, h)
	return nil
}

// Update types into the form, joins and leaves.
func (m *Model) Update(msg tea.Msg) tea.Cmd {
	switch msg := msg.(type) {
	case joinedMsg:
		m.busy = ""
		if msg.err != nil {
			m.err = msg.err.Error()
			return nil
		}
		m.err, m.note = "", m.c.T("join.joined")
		return nil
	case leftMsg:
		m.busy = ""
		switch {
		case msg.err != nil:
			m.err = msg.err.Error()
		case msg.dropped > 0:
			m.note = m.c.N("join.left_dropped", msg.dropped)
		default:
			m.note = m.c.T("join.left")
		}
		return nil
	case tea.KeyPressMsg:
		if m.busy != "" {
			return nil
		}
		k := m.c.Keys.Join
		if m.joined() {
			if key.Matches(msg, k.Leave) {
				m.busy, m.note, m.err = m.c.T("join.leaving"), "", ""
				return m.leave()
			}
			return nil
		}
		switch {
		case key.Matches(msg, k.Next):
			m.setFocus(1 - m.focus)
			return nil
		case key.Matches(msg, k.Submit):
			if m.focus == 0 {
				m.setFocus(1)
				return nil
			}
			return m.join()
		}
		m.typeInto(msg)
	case tea.PasteMsg:
		m.typeInto(msg)
	}
	return nil
}

// typeInto gives a key or paste to the field in focus.
func (m *Model) typeInto(msg tea.Msg) {
	if m.focus == 0 {
		m.addr.Update(msg)
	} else {
		m.name.Update(msg)
	}
}

func (m *Model) setFocus(i int) {
	m.focus = i
	if i == 0 {
		m.name.Blur()
		m.addr.Focus()
	} else {
		m.addr.Blur()
		m.name.Focus()
	}
}

// join checks the form and returns the command that joins.
func (m *Model) join() tea.Cmd {
	addr, name := strings.TrimSpace(m.addr.Value()), strings.TrimSpace(m.name.Value())
	if _, err := workshop.ParseJoinURL(addr); err != nil {
		m.err = err.Error()
		m.setFocus(0)
		return nil
	}
	if name == "" {
		m.err = m.c.T("join.need_name")
		return nil
	}
	m.busy, m.err, m.note = m.c.T("join.joining"), "", ""
	ws := m.c.Workshop
	return func() tea.Msg {
		ctx, cancel := context.WithTimeout(context.Background(), joinTimeout)
		defer cancel()
		_, err := ws.Join(ctx, addr, name)
		return joinedMsg{err: err}
	}
}

func (m *Model) leave() tea.Cmd {
	ws := m.c.Workshop
	return func() tea.Msg {
		ctx, cancel := context.WithTimeout(context.Background(), joinTimeout)
		defer cancel()
		n, err := ws.Leave(ctx)
		return leftMsg{dropped: n, err: err}
	}
}

// View draws the form, or the workshop joined.
func (m *Model) View() string {
	st := m.c.Styles
	w := m.c.Width
	lines := []string{st.Title.Render(m.c.T("join.title")), ""}
	add := func(s string) { lines = append(lines, strings.Split(s, "\n")...) }
	ws := m.c.WorkshopStatus()
	if ws.Conn != learner.NotJoined {
		add(common.WrapHanging("  ", m.c.T("join.in_workshop", "Code", ws.Code, "Name", ws.Name, "Conn", m.c.ConnName(ws.Conn)), w))
		add(st.Subtle.Render(common.WrapHanging("  ", m.c.T("join.address_katas", "URL", ws.URL, "Katas", strings.Join(ws.Katas, ", ")), w)))
		if ws.Queued > 0 {
			add(common.WrapHanging("  ", m.c.N("join.queued", ws.Queued), w))
		}
		if ws.Dropped > 0 {
			add(common.WrapHanging("  ", m.c.N("join.dropped", ws.Dropped), w))
		}
		if ws.Err != "" && ws.Conn != learner.Live {
			add(st.Subtle.Render(common.WrapHanging("  ", m.c.T("join.last_failure", "Error", ws.Err), w)))
		}
		add("")
		add(st.Subtle.Render(common.WrapHanging("  ", m.c.T("join.sees", "Leave", keymap.Says(m.c.Keys.Join.Leave, m.c.T("join.leave"))), w)))
	} else {
		add(common.WrapHanging("  ", m.c.T("join.intro"), w))
		add("")
		label := func(s string, i int) string {
			if i == m.focus {
				return st.Accent.Render(s)
			}
			return st.Label.Render(s)
		}
		addr, name := m.c.T("join.address"), m.c.T("join.your_name")
		pad := max(lipgloss.Width(addr), lipgloss.Width(name)) + 1
		fill := func(s string) string { return s + strings.Repeat(" ", pad-lipgloss.Width(s)) }
		add("  " + label(fill(addr), 0) + m.addr.View(st, w-2-pad))
		add("  " + label(fill(name), 1) + m.name.View(st, w-2-pad))
		add("")
		add(st.Subtle.Render("  " + keymap.Says(m.c.Keys.Join.Submit, m.c.T("key.join")) + " · " + keymap.Says(m.c.Keys.Join.Next, m.c.T("key.next_field")) + " · " + keymap.Says(m.c.Keys.Back, m.c.T("key.back"))))
	}
	if m.busy != "" {
		add("")
		add(st.Accent.Render("  " + m.busy))
	}
	if m.note != "" {
		add("")
		add(st.Accent.Render(common.WrapHanging("  ", m.note, w)))
	}
	if m.err != "" {
		add("")
		add(st.Fail.Render(common.WrapHanging("  ", m.err, w)))
	}
	return strings.Join(lines, "\n")
}
