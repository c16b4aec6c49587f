package ui

import (
	"fmt"
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/kata-mcp/kata/katas"
)

// catalogModel lists the packets; enter opens one.
type catalogModel struct {
	c       *common
	keys    catalogKeys
	packets []*katas.Packet
	cursor  int
	width   int
	height  int
}

func newCatalog(c *common) *catalogModel {
	return &catalogModel{c: c, keys: newCatalogKeys(), packets: c.lib.Packets()}
}

// ShortHelp lists the catalog's keys.
func (m *catalogModel) ShortHelp() []key.Binding {
	return []key.Binding{m.keys.Up, m.keys.Open}
}

// FullHelp lists the catalog's keys in one column.
func (m *catalogModel) FullHelp() [][]key.Binding { return [][]key.Binding{m.ShortHelp()} }

// SetSize records the space the catalog has.
func (m *catalogModel) SetSize(w, h int) tea.Cmd {
	m.width, m.height = w, h
	return nil
}

// Update moves the cursor and opens the chosen packet.
func (m *catalogModel) Update(msg tea.Msg) tea.Cmd {
	k, ok := msg.(tea.KeyPressMsg)
	if !ok || len(m.packets) == 0 {
		return nil
	}
	switch {
	case key.Matches(k, m.keys.Up):
		m.cursor = max(m.cursor-1, 0)
	case key.Matches(k, m.keys.Down):
		m.cursor = min(m.cursor+1, len(m.packets)-1)
	case key.Matches(k, m.keys.Open):
		id := m.packets[m.cursor].ID
		return func() tea.Msg { return openPacketMsg{id: id} }
	}
	return nil
}

// summaryLines wraps a summary to at most two indented lines, the second cut with an ellipsis
// when the summary is longer.
func summaryLines(summary string, width int) []string {
	lines := strings.Split(wrapHanging("  ", summary, width), "\n")
	if len(lines) > 2 {
		if lipgloss.Width(lines[1])+1 > width {
			lines[1] = ansi.Truncate(lines[1], width-1, "") + "…"
		} else {
			lines[1] += "…"
		}
		lines = lines[:2]
	}
	return lines
}

// entry lays out one packet: title and id, summary, counts and source, then a blank line.
func (m *catalogModel) entry(i int) []string {
	st := m.c.st
	p := m.packets[i]
	marker, title := "  ", st.accent.Render(p.Title)
	if i == m.cursor {
		marker, title = st.accent.Render("> "), st.selected.Render(p.Title)
	}
	lines := []string{truncate(marker+title+" "+st.subtle.Render("("+p.ID+")"), m.width)}
	lines = append(lines, summaryLines(p.Summary, m.width)...)
	counts := fmt.Sprintf("  %d items · %d traps · %d fixtures · %s", len(p.Items), p.TrapCount(), p.FixtureCount(), p.Source)
	return append(lines, st.subtle.Render(truncate(counts, m.width)), "")
}

// View draws the title and as many packets as fit, scrolled just enough to show the cursor.
func (m *catalogModel) View() string {
	st := m.c.st
	head := []string{st.title.Render("kata — MCP engineering katas"), st.subtle.Render(fmt.Sprintf("%d packet(s)", len(m.packets))), ""}
	if len(m.packets) == 0 {
		return strings.Join(append(head, "No packets found."), "\n")
	}
	room := max(m.height-len(head), 1)
	entries := make([][]string, len(m.packets))
	for i := range m.packets {
		entries[i] = m.entry(i)
	}
	first := 0
	for first < m.cursor {
		h := 0
		for _, e := range entries[first : m.cursor+1] {
			h += len(e)
		}
		if h <= room {
			break
		}
		first++
	}
	lines := head
	for _, e := range entries[first:] {
		lines = append(lines, e...)
	}
	return strings.Join(lines, "\n")
}
