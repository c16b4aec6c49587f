package kata

import (
	"strings"

	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/kata-mcp/kata/ui/common"
	"github.com/kata-mcp/kata/ui/keymap"
)

// findHits finds every match of the search in the layer (code lines in full, so a match past
// the right edge is found too) and keeps the hit index in range.
func (m *Model) findHits() {
	m.hits = nil
	q := m.search.Query()
	if q == "" || m.doc == nil {
		return
	}
	for i, l := range m.doc.Lines {
		for _, c := range matches(l.Plain(), q) {
			m.hits = append(m.hits, hit{line: i, col: c[0]})
		}
	}
	m.hit = min(m.hit, max(len(m.hits)-1, 0))
}

// firstHitFrom returns the first hit at or below line, or the first hit (wrapping as less
// does); -1 when there is none.
func (m *Model) firstHitFrom(line int) int {
	for i, h := range m.hits {
		if h.line >= line {
			return i
		}
	}
	if len(m.hits) > 0 {
		return 0
	}
	return -1
}

// jump shows hit i: its line a third of the way down, and its code scrolled into view.
func (m *Model) jump(i int) {
	if i < 0 || i >= len(m.hits) {
		return
	}
	m.hit = i
	h := m.hits[i]
	l := m.doc.Lines[h.line]
	if l.Code >= 0 {
		pre := ansi.StringWidth(ansi.Strip(l.Prefix))
		room := m.c.Width - pre - 2
		col := h.col - pre
		end := col + ansi.StringWidth(m.search.Query())
		if col < m.xoff || end > m.xoff+room {
			m.xoff = max(min(col-room/3, m.doc.MaxScroll(m.c.Width)), 0)
		}
	}
	m.refresh()
	m.vp.SetYOffset(max(h.line-m.vp.Height()/3, 0))
}

// hitStatus says where the search stands: "3 of 12", or that nothing matches.
func (m *Model) hitStatus() string {
	switch {
	case m.search.Query() == "":
		return m.c.T("search.type")
	case len(m.hits) == 0:
		return m.c.T("search.none")
	case m.search.Typing():
		return m.c.T("search.typing", "Matches", m.c.N("count.match", len(m.hits)), "Key", keymap.Name(m.c.Keys.Find.Done))
	}
	return m.c.T("search.at", "Hit", m.hit+1, "Hits", len(m.hits), "Next", keymap.Name(m.c.Keys.Find.Next), "Back", keymap.Name(m.c.Keys.Back))
}

// matches returns the display columns [start, end) of every match of q in plain, ignoring case.
func matches(plain, q string) [][2]int {
	hay, needle := strings.ToLower(plain), strings.ToLower(q)
	if len(hay) != len(plain) || needle == "" { // lower-casing changed the byte offsets
		hay, needle = plain, q
	}
	if needle == "" {
		return nil
	}
	var out [][2]int
	for from := 0; ; {
		i := strings.Index(hay[from:], needle)
		if i < 0 {
			return out
		}
		start := from + i
		end := start + len(needle)
		out = append(out, [2]int{ansi.StringWidth(plain[:start]), ansi.StringWidth(plain[:end])})
		from = end
	}
}

// highlight shows every match of q in a rendered line in reverse video.
func highlight(line, q string, st *common.Styles) string {
	plain := ansi.Strip(line)
	ms := matches(plain, q)
	if len(ms) == 0 {
		return line
	}
	mark := lipgloss.NewStyle().Reverse(true)
	var b strings.Builder
	last := 0
	for _, c := range ms {
		b.WriteString(ansi.Cut(line, last, c[0]))
		b.WriteString(mark.Render(ansi.Strip(ansi.Cut(line, c[0], c[1]))))
		last = c[1]
	}
	b.WriteString(ansi.Cut(line, last, ansi.StringWidth(line)))
	return b.String()
}
