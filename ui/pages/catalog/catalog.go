// Package catalog lists the packets with the learner's progress in each, and starts the mock exam and the review.
package catalog

import (
	"fmt"
	"strings"
	"time"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/kata-mcp/kata/katas"
	"github.com/kata-mcp/kata/katas/progress"
	"github.com/kata-mcp/kata/ui/common"
	"github.com/kata-mcp/kata/ui/keymap"
)

// Model lists the packets with the learner's progress in each; enter opens one, x starts
// a mock exam, r reviews the cards due today.
type Model struct {
	c        common.Common
	packets  []*katas.Packet
	progress map[string]progress.KataSummary // nil until loaded (or without a store)
	due      int                             // cards due now over every kata
	open     bool                            // an unfinished mock exam waits in the store
	read     time.Time                       // when the progress was last asked for
	cursor   int
}

// catalogProgressMsg carries every packet's summary and the cards due now.
type catalogProgressMsg struct {
	summaries map[string]progress.KataSummary
	due       int
	open      bool // an unfinished mock exam is stored
}

// Refresh returns the command that reads every packet's progress from the store.
func (m *Model) Refresh() tea.Cmd {
	now := m.c.Now()
	m.read = now
	ps := m.packets
	return m.c.Read("reading progress", func(s common.Store) (tea.Msg, error) {
		msg := catalogProgressMsg{summaries: map[string]progress.KataSummary{}}
		for _, p := range ps {
			sum, err := s.Summary(p.ID, now)
			if err != nil {
				return nil, err
			}
			msg.summaries[p.ID] = sum
		}
		due, err := s.Due(now, nil)
		if err != nil {
			return nil, err
		}
		msg.due = len(due)
		att, err := s.OpenAttempt()
		if err != nil {
			return nil, err
		}
		msg.open = att != nil
		return msg, nil
	})
}

// New returns the catalog of every packet in the library.
func New(c common.Common) *Model {
	return &Model{c: c, packets: c.Lib.Packets()}
}

// ShortHelp lists the catalog's keys (the workshop key when the app can join one).
func (m *Model) ShortHelp() []key.Binding {
	k := m.c.Keys
	b := []key.Binding{k.Cursor.Up, k.Catalog.Open, k.Catalog.MockExam, k.Catalog.Review}
	if m.c.Workshop != nil {
		b = append(b, k.Catalog.Join)
	}
	return b
}

// FullHelp lists the catalog's keys.
func (m *Model) FullHelp() [][]key.Binding {
	k := m.c.Keys
	h := [][]key.Binding{{k.Cursor.Up, k.Catalog.Open}, {k.Catalog.MockExam, k.Catalog.Review}}
	if m.c.Workshop != nil {
		h = append(h, []key.Binding{k.Catalog.Join})
	}
	return h
}

// SetSize records the space the catalog has.
func (m *Model) SetSize(w, h int) tea.Cmd {
	m.c.SetSize(w, h)
	return nil
}

// Update moves the cursor and opens the chosen packet.
func (m *Model) Update(msg tea.Msg) tea.Cmd {
	switch msg := msg.(type) {
	case catalogProgressMsg:
		m.progress, m.due, m.open = msg.summaries, msg.due, msg.open
		return nil
	case tea.MouseWheelMsg:
		switch msg.Button {
		case tea.MouseWheelUp:
			m.cursor = max(m.cursor-1, 0)
		case tea.MouseWheelDown:
			m.cursor = max(min(m.cursor+1, len(m.packets)-1), 0)
		}
		return nil
	}
	k, ok := msg.(tea.KeyPressMsg)
	if !ok {
		return nil
	}
	// Cards fall due while the catalog sits open: a key after a while reads the counts again.
	var stale tea.Cmd
	if m.c.Store != nil && m.c.Now().Sub(m.read) >= staleAfter {
		stale = m.Refresh()
	}
	return tea.Batch(stale, m.key(k))
}

// staleAfter is how old the catalog's progress may get before a key reads it again.
const staleAfter = time.Minute

// key handles a key press.
func (m *Model) key(k tea.KeyPressMsg) tea.Cmd {
	keys := m.c.Keys
	switch {
	case m.c.Workshop != nil && key.Matches(k, keys.Catalog.Join):
		return common.Send(common.ShowJoinMsg{})
	case key.Matches(k, keys.Catalog.MockExam):
		return func() tea.Msg { return common.StartMockExamMsg{} }
	case key.Matches(k, keys.Catalog.Review):
		return func() tea.Msg { return common.StartReviewMsg{} }
	}
	if len(m.packets) == 0 {
		return nil
	}
	switch {
	case key.Matches(k, keys.Cursor.Up):
		m.cursor = max(m.cursor-1, 0)
	case key.Matches(k, keys.Cursor.Down):
		m.cursor = min(m.cursor+1, len(m.packets)-1)
	case key.Matches(k, keys.Catalog.Open):
		id := m.packets[m.cursor].ID
		return func() tea.Msg { return common.OpenPacketMsg{ID: id} }
	}
	return nil
}

// summaryLines wraps a summary to at most two indented lines, the second cut with an ellipsis
// when the summary is longer.
func summaryLines(summary string, width int) []string {
	lines := strings.Split(common.WrapHanging("  ", summary, width), "\n")
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
func (m *Model) entry(i int) []string {
	st := m.c.Styles
	p := m.packets[i]
	marker, title := "  ", st.Accent.Render(p.Title)
	if i == m.cursor {
		marker, title = st.Accent.Render("> "), st.Selected.Render(p.Title)
	}
	lines := []string{common.Truncate(marker+title+" "+st.Subtle.Render("("+p.ID+")"), m.c.Width)}
	lines = append(lines, summaryLines(p.Summary, m.c.Width)...)
	counts := fmt.Sprintf("  %s · %s · %s · %s", common.Count(len(p.Items), "item", "items"), common.Count(p.TrapCount(), "trap", "traps"), common.Count(p.FixtureCount(), "fixture", "fixtures"), p.Source)
	lines = append(lines, st.Subtle.Render(common.Truncate(counts, m.c.Width)))
	if sum, ok := m.progress[p.ID]; ok {
		lines = append(lines, common.Truncate(m.progressLine(p, sum), m.c.Width))
	}
	return append(lines, "")
}

// progressLine sums up a kata's progress: layers read, best mock exam, last grade, cards due.
func (m *Model) progressLine(p *katas.Packet, sum progress.KataSummary) string {
	st := m.c.Styles
	parts := []string{fmt.Sprintf("read %d/%d layers", len(sum.LayersRead), len(p.Layers))}
	if sum.BestScaled > 0 {
		parts = append(parts, fmt.Sprintf("best mock exam %d", sum.BestScaled))
	} else {
		parts = append(parts, "no mock exam yet")
	}
	if g := sum.LastGrade; g != nil {
		parts = append(parts, "last grade "+st.Mark(g.Status)+fmt.Sprintf(" %d/%d", g.Passed, g.Passed+g.Failed+g.Errored))
	} else {
		parts = append(parts, "not graded yet")
	}
	parts = append(parts, fmt.Sprintf("%d due", sum.Due))
	return "  " + strings.Join(parts, " · ")
}

// View draws the title and as many packets as fit, scrolled just enough to show the cursor.
func (m *Model) View() string {
	st := m.c.Styles
	k := m.c.Keys.Catalog
	sub := common.Count(len(m.packets), "kata", "katas")
	if m.c.Store != nil {
		sub += fmt.Sprintf(" · due today (%d): %s review", m.due, keymap.Name(k.Review))
	} else {
		sub += " · " + keymap.Name(k.Review) + " review"
	}
	if m.open {
		sub += " · " + keymap.Name(k.MockExam) + " resume the unfinished mock exam"
	} else {
		sub += " · " + keymap.Name(k.MockExam) + " mock exam"
	}
	if ws := m.c.WorkshopStatus(); ws.Conn != "" {
		// In a workshop the connection state shows in one word, first so it is never cut.
		sub = "workshop " + ws.Code + ": " + string(ws.Conn) + " · " + sub
	}
	head := []string{st.Title.Render("kata — MCP engineering katas"), st.Subtle.Render(common.Truncate(sub, m.c.Width)), ""}
	if len(m.packets) == 0 {
		return strings.Join(append(head, "No packets found."), "\n")
	}
	room := max(m.c.Height-len(head), 1)
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
