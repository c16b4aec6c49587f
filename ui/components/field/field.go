// Package field is a one-line text field: typed and pasted text appended at the end,
// backspace, ctrl+w (a word) and ctrl+u (all) to delete; shown with a block cursor when
// focused and its placeholder when empty.
package field

import (
	"strings"
	"unicode"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/kata-mcp/kata/ui/common"
)

// Model is one text field.
type Model struct {
	// Placeholder shows, dimmed, while the field is empty.
	Placeholder string
	// Limit caps the length in characters (0: none).
	Limit   int
	value   []rune
	focused bool
}

// Value is the text typed.
func (m *Model) Value() string { return string(m.value) }

// SetValue replaces the text.
func (m *Model) SetValue(s string) { m.value = nil; m.insert(s) }

// Focus and Blur say whether keys go to the field (its cursor shows).
func (m *Model) Focus() { m.focused = true }

// Blur takes the focus away.
func (m *Model) Blur() { m.focused = false }

// insert appends the printable characters of s, within the limit.
func (m *Model) insert(s string) {
	for _, r := range s {
		if r == '\n' || r == '\r' || r == '\t' {
			r = ' '
		}
		if !unicode.IsPrint(r) {
			continue
		}
		if m.Limit > 0 && len(m.value) >= m.Limit {
			return
		}
		m.value = append(m.value, r)
	}
}

// Update takes a key or a paste; it reports whether the text changed.
func (m *Model) Update(msg tea.Msg) bool {
	switch msg := msg.(type) {
	case tea.PasteMsg:
		before := len(m.value)
		m.insert(msg.Content)
		return len(m.value) != before
	case tea.KeyPressMsg:
		switch msg.String() {
		case "backspace":
			if len(m.value) > 0 {
				m.value = m.value[:len(m.value)-1]
				return true
			}
		case "ctrl+u":
			m.value = nil
			return true
		case "ctrl+w":
			s := strings.TrimRightFunc(string(m.value), unicode.IsSpace)
			i := strings.LastIndexFunc(s, unicode.IsSpace)
			m.value = []rune(s[:i+1])
			return true
		default:
			if msg.Text != "" {
				m.insert(msg.Text)
				return true
			}
		}
	}
	return false
}

// View draws the field in width cells: the end of the text when it is longer.
func (m *Model) View(st *common.Styles, width int) string {
	width = max(width, 2)
	if len(m.value) == 0 {
		cur := ""
		if m.focused {
			cur = "█"
		}
		return cur + st.Subtle.Render(ansi.Truncate(m.Placeholder, width-1, "…"))
	}
	text := string(m.value)
	if m.focused {
		text += "█"
	}
	if w := ansi.StringWidth(text); w > width {
		text = "…" + ansi.TruncateLeft(text, w-width+1, "")
	}
	return text
}
