// Package catalog lists the packets with the learner's progress in each (filtered by / as you
// type), picks each kata's workspace language, and starts the mock exam and the review.
package catalog

import (
	"strings"
	"time"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/kata-mcp/kata/internal/progress"
	"github.com/kata-mcp/kata/katas"
	"github.com/kata-mcp/kata/ui/common"
	"github.com/kata-mcp/kata/ui/components/find"
	"github.com/kata-mcp/kata/ui/keymap"
)

// Model lists the packets with the learner's progress in each; enter opens one, x starts
// a mock exam, r reviews the cards due today.
type Model struct {
	c        common.Common
	all      []katas.Entry // every packet, known by its manifest and counts (none is parsed)
	packets  []katas.Entry // those the filter keeps, in order
	filter   find.Model
	langs    map[string]string               // kata → the language chosen for it
	progress map[string]progress.KataSummary // nil until loaded (or without a store)
	// wsGrades are the last grades of the app's workspace of each kata (nil entry: none).
	wsGrades map[string]*progress.GradeRun
	due      int       // cards due now over every kata
	open     bool      // an unfinished mock exam waits in the store
	read     time.Time // when the progress was last asked for
	cursor   int
	skipped  []string // the packets skipped for their problems, and why
}

// maxSkippedLines bounds the lines the skipped packets take at the top.
const maxSkippedLines = 4

// SetSkipped keeps lines on show above the katas: the packets skipped for their problems (each
// line a folder or a problem's file:line).
func (m *Model) SetSkipped(lines []string) { m.skipped = lines }

// catalogProgressMsg carries every packet's summary and the cards due now.
type catalogProgressMsg struct {
	summaries map[string]progress.KataSummary
	wsGrades  map[string]*progress.GradeRun
	due       int
	open      bool // an unfinished mock exam is stored
}

// Refresh returns the command that reads every packet's progress from the store.
func (m *Model) Refresh() tea.Cmd {
	now := m.c.Now()
	m.read = now
	ps := m.all
	ws := m.c.Workspace
	return m.c.Read(m.c.T("store.reading_progress"), func(s common.Store) (tea.Msg, error) {
		msg := catalogProgressMsg{summaries: map[string]progress.KataSummary{}, wsGrades: map[string]*progress.GradeRun{}}
		for _, p := range ps {
			sum, err := s.Summary(p.ID, now)
			if err != nil {
				return nil, err
			}
			msg.summaries[p.ID] = sum
			if dir := ws(p.ID); dir != "" && sum.LastGrade != nil {
				if msg.wsGrades[p.ID], err = s.LastGradeIn(p.ID, dir); err != nil {
					return nil, err
				}
			}
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
	all := c.Lib.Entries()
	return &Model{c: c, all: all, packets: all, langs: map[string]string{}}
}

// ShortHelp lists the catalog's keys (the workshop key when the app can join one).
func (m *Model) ShortHelp() []key.Binding {
	k := m.c.Keys
	if m.filter.Typing() {
		return []key.Binding{k.Find.Done}
	}
	b := []key.Binding{k.Cursor.Up, k.Catalog.Open, k.Catalog.MockExam, k.Catalog.Review, k.Catalog.Language, k.Find.Open}
	if m.c.Workshop != nil {
		b = append(b, k.Catalog.Join)
	}
	return b
}

// FullHelp lists the catalog's keys.
func (m *Model) FullHelp() [][]key.Binding {
	k := m.c.Keys
	h := [][]key.Binding{{k.Cursor.Up, k.Catalog.Open, k.Catalog.Language}, {k.Catalog.MockExam, k.Catalog.Review}, {k.Find.Open, k.Find.Done}}
	if m.c.Workshop != nil {
		h = append(h, []key.Binding{k.Catalog.Join})
	}
	return h
}

// HelpNote says what the filter matches and what l does.
func (m *Model) HelpNote() string {
	k := m.c.Keys
	return m.c.T("catalog.help_note", "Find", keymap.Name(k.Find.Open), "Done", keymap.Name(k.Find.Done), "Back", keymap.Name(k.Back), "Language", keymap.Name(k.Catalog.Language))
}

// Typing reports whether the filter is being typed (keys are text then).
func (m *Model) Typing() bool { return m.filter.Typing() }

// Back drops the filter (the one being typed, or the one kept).
func (m *Model) Back() (tea.Cmd, bool) {
	if !m.filter.Active() {
		return nil, false
	}
	m.filter.Clear()
	m.applyFilter()
	return nil, true
}

// applyFilter keeps the packets the filter matches, the cursor on the same packet when it stays.
func (m *Model) applyFilter() {
	var cur string
	if m.cursor < len(m.packets) {
		cur = m.packets[m.cursor].ID
	}
	m.packets = nil
	for _, p := range m.all {
		if m.filter.Matches(p.Title + "\n" + p.ID + "\n" + p.Summary) {
			m.packets = append(m.packets, p)
		}
	}
	m.cursor = 0
	for i, p := range m.packets {
		if p.ID == cur {
			m.cursor = i
		}
	}
}

// language is the workspace language of p: the one chosen, else the default.
func (m *Model) language(p katas.Entry) string { return m.c.Language(p.Languages, m.langs[p.ID]) }

// SetSize records the space the catalog has.
func (m *Model) SetSize(w, h int) tea.Cmd {
	m.c.SetSize(w, h)
	return nil
}

// Update moves the cursor and opens the chosen packet.
func (m *Model) Update(msg tea.Msg) tea.Cmd {
	switch msg := msg.(type) {
	case catalogProgressMsg:
		m.progress, m.wsGrades, m.due, m.open = msg.summaries, msg.wsGrades, msg.due, msg.open
		for id, sum := range msg.summaries {
			if sum.Language != "" {
				m.langs[id] = sum.Language
			}
		}
		return nil
	case common.LanguageMsg:
		m.langs[msg.Kata] = msg.Language
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
	if r := m.filter.Key(k, keys.Find); r != find.None {
		if r == find.Edited {
			m.applyFilter()
		}
		return nil
	}
	switch {
	case key.Matches(k, keys.Find.Open):
		m.filter.Open()
		m.applyFilter()
		return nil
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
	case key.Matches(k, keys.Catalog.Language):
		p := m.packets[m.cursor]
		return m.c.SetLanguage(p.ID, common.NextLanguage(p.Languages, m.language(p)))
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
	counts := m.c.T("catalog.counts", "Items", m.c.N("count.item", p.Counts.Items), "Traps", m.c.N("count.trap", p.Counts.Traps), "Fixtures", m.c.N("count.fixture", p.Counts.Fixtures), "Language", m.language(p), "Source", common.SourceName(m.c.Loc, p.Source))
	lines = append(lines, strings.Split(st.Subtle.Render(common.WrapHanging("  ", counts, m.c.Width)), "\n")...)
	if sum, ok := m.progress[p.ID]; ok {
		lines = append(lines, strings.Split(common.WrapHanging("  ", m.progressLine(p, sum), m.c.Width), "\n")...)
	}
	return append(lines, "")
}

// progressLine sums up a kata's progress: layers read, best mock exam (the kata's share, as
// kata stats shows it), last grade, cards due.
func (m *Model) progressLine(p katas.Entry, sum progress.KataSummary) string {
	parts := []string{m.c.T("catalog.read", "Read", len(sum.LayersRead), "Total", len(p.Layers))}
	if b := sum.BestExam; b != nil {
		// the score the result screen showed, and the kata's own best share of an exam (the
		// figure kata stats shows for the kata): a mixed exam's whole score alone shows the same
		// number on every kata it drew from
		parts = append(parts, m.c.T("catalog.best_mock", "Scaled", b.Scaled, "Points", b.Points, "Max", b.Max, "Share", sum.BestScaled))
	} else {
		parts = append(parts, m.c.T("catalog.no_mock"))
	}
	parts = append(parts, m.lastGrade(p, sum))
	parts = append(parts, m.c.N("catalog.due", sum.Due))
	return strings.Join(parts, " · ")
}

// lastGrade says the kata's last grade: the app workspace's, or, when that folder was never
// graded, the newest of another folder, naming it. A grade that could not run says so instead
// of counting no tests.
func (m *Model) lastGrade(p katas.Entry, sum progress.KataSummary) string {
	st := m.c.Styles
	g, other := m.wsGrades[p.ID], false
	if g == nil && sum.LastGrade != nil {
		g, other = sum.LastGrade, m.c.Workspace(p.ID) != ""
	}
	if g == nil {
		return m.c.T("catalog.not_graded")
	}
	s := m.c.T("catalog.last_grade", "Mark", st.Mark(g.Status), "Passed", g.Passed, "Total", g.Passed+g.Failed+g.Errored)
	if g.Status == progress.GradeError {
		s = m.c.T("catalog.last_grade_error", "Mark", st.Mark(g.Status))
	}
	if other && g.Workspace != "" {
		s += " " + m.c.T("catalog.in_folder", "Folder", g.Workspace)
	}
	return s
}

// View draws the title and as many packets as fit, scrolled just enough to show the cursor.
func (m *Model) View() string {
	st := m.c.Styles
	k := m.c.Keys.Catalog
	sub := m.c.N("count.kata", len(m.all))
	if m.c.Store != nil {
		sub += " · " + m.c.T("catalog.due_today", "Due", m.due, "Key", keymap.Name(k.Review))
	} else {
		sub += " · " + m.c.T("catalog.review", "Key", keymap.Name(k.Review))
	}
	if m.open {
		sub += " · " + m.c.T("catalog.resume_mock", "Key", keymap.Name(k.MockExam))
	} else {
		sub += " · " + m.c.T("catalog.mock", "Key", keymap.Name(k.MockExam))
	}
	if ws := m.c.WorkshopStatus(); ws.Conn != "" {
		// In a workshop the connection state shows in one word, first so it is never cut.
		sub = m.c.T("catalog.workshop", "Code", ws.Code, "Conn", m.c.ConnName(ws.Conn)) + " · " + sub
	}
	head := []string{st.Title.Render(m.c.T("catalog.title")), st.Subtle.Render(common.Truncate(sub, m.c.Width)), ""}
	if len(m.skipped) > 0 {
		var warn []string
		for _, l := range m.skipped {
			warn = append(warn, strings.Split(common.WrapHanging("⚠ ", l, m.c.Width), "\n")...)
		}
		if len(warn) > maxSkippedLines {
			warn = append(warn[:maxSkippedLines-1], m.c.T("catalog.skipped_more"))
		}
		for i := range warn {
			warn[i] = st.Fail.Render(common.Truncate(warn[i], m.c.Width))
		}
		head = append(head[:2], append(warn, "")...)
	}
	if m.filter.Active() {
		status := m.c.T("common.of", "Shown", len(m.packets), "Total", m.c.N("count.kata", len(m.all)))
		head[2] = m.filter.View(st, status, m.c.Width)
		head = append(head, "")
	}
	switch {
	case len(m.packets) == 0 && m.filter.Active():
		return strings.Join(append(head, common.WrapHanging("  ", m.c.T("catalog.no_match", "Query", m.filter.Query(), "Key", keymap.Name(m.c.Keys.Back)), m.c.Width)), "\n")
	case len(m.packets) == 0:
		return strings.Join(append(head, m.c.T("catalog.none")), "\n")
	}
	room := max(m.c.Height-len(head), 1)
	entries := make([][]string, len(m.packets))
	for i := range m.packets {
		entries[i] = m.entry(i)
	}
	return strings.Join(append(head, m.window(entries, room)...), "\n")
}

// window picks the entries to show in room lines: the cursor's entry whole, the screen filled
// (no blank rows below while entries are hidden above), and a line saying how many entries
// are hidden above or below.
func (m *Model) window(entries [][]string, room int) []string {
	n := len(entries)
	height := func(from, to int) int { // lines of entries[from:to]
		h := 0
		for _, e := range entries[from:to] {
			h += len(e)
		}
		return h
	}
	var lines []string
	if height(0, n) <= room {
		for _, e := range entries {
			lines = append(lines, e...)
		}
		return lines
	}
	above := func(f int) int { // the line saying entries are hidden above
		if f > 0 {
			return 1
		}
		return 0
	}
	// shows reports whether, starting at entry f, the cursor's entry fits whole.
	shows := func(f int) bool {
		used := above(f) + height(f, m.cursor+1)
		if used+height(m.cursor+1, n) <= room {
			return true
		}
		return used+1 <= room // a line says more follow
	}
	f := 0
	for f < m.cursor && !shows(f) {
		f++
	}
	for f > 0 && above(f-1)+height(f-1, n) <= room {
		f--
	}
	st := m.c.Styles
	if f > 0 {
		lines = append(lines, st.Subtle.Render("  "+m.c.N("catalog.above", f)))
	}
	for i := f; i < n; i++ {
		rest := room - len(lines)
		if height(i, n) <= rest {
			for _, e := range entries[i:] {
				lines = append(lines, e...)
			}
			break
		}
		// What is left does not all fit: the last line says what follows.
		if len(entries[i]) <= rest-1 {
			lines = append(lines, entries[i]...)
			continue
		}
		shown := max(rest-1, 0)
		lines = append(lines, entries[i][:shown]...)
		hidden := n - i
		if shown >= len(entries[i])-1 { // all of it but its blank line
			hidden--
		}
		if hidden > 0 {
			lines = append(lines, st.Subtle.Render("  "+m.c.N("catalog.below", hidden)))
		}
		break
	}
	return lines
}
