// Package find is the one-line text a search or a filter is typed into, as in less and
// lazygit: "/" opens it, every key then edits the text, enter keeps it, esc drops it. It does
// no I/O and runs no timers (no blinking cursor).
package find

import (
	"strings"
	"unicode"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"github.com/kata-mcp/kata/ui/common"
	"github.com/kata-mcp/kata/ui/keymap"
)

// Model is a query being typed or kept.
type Model struct {
	query   string
	editing bool
}

// Result is what a key did to the query.
type Result int

// What a key did.
const (
	None   Result = iota // the key is not the query's (the query is not being typed)
	Edited               // the text changed
	Done                 // enter: typing ended, the text kept
	Kept                 // a key that changed nothing (an arrow while typing)
)

// Open starts typing a new query.
func (m *Model) Open() { m.query, m.editing = "", true }

// Typing reports whether keys go to the query.
func (m *Model) Typing() bool { return m.editing }

// Active reports whether a query is kept or being typed.
func (m *Model) Active() bool { return m.editing || m.query != "" }

// Query is the text typed.
func (m *Model) Query() string { return m.query }

// Clear drops the query and stops typing.
func (m *Model) Clear() { m.query, m.editing = "", false }

// Key applies a key while typing: letters, digits, punctuation and space add to the text,
// backspace removes the last character, ctrl+u clears it, Done ends typing. Keys when not
// typing are None.
func (m *Model) Key(msg tea.KeyPressMsg, k keymap.Find) Result {
	if !m.editing {
		return None
	}
	switch {
	case key.Matches(msg, k.Done):
		m.editing = false
		return Done
	case msg.String() == "backspace":
		if r := []rune(m.query); len(r) > 0 {
			m.query = string(r[:len(r)-1])
			return Edited
		}
		return Kept
	case msg.String() == "ctrl+u":
		m.query = ""
		return Edited
	case msg.String() == "space":
		m.query += " "
		return Edited
	}
	if t := msg.Text; t != "" && !strings.ContainsFunc(t, unicode.IsControl) {
		m.query += t
		return Edited
	}
	return Kept
}

// Matches reports whether s contains the query, ignoring case; an empty query matches all.
func (m *Model) Matches(s string) bool {
	return m.query == "" || strings.Contains(strings.ToLower(s), strings.ToLower(m.query))
}

// View is the query line: "/text" with a block for the cursor while typing, and what the
// screen says of it (e.g. "3 of 12").
func (m *Model) View(st *common.Styles, status string, width int) string {
	line := "/" + m.query
	if m.editing {
		line += "█"
	}
	if status != "" {
		line += "  " + st.Subtle.Render(status)
	}
	return common.Truncate(line, width)
}
