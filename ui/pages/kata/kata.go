// Package kata shows one packet's layers, one at a time: prose at a readable width, code never
// wrapped (scrolled sideways, copied whole), a search with n/N, and a layer counted as read
// once it was scrolled through and on screen long enough; it copies prompts and code blocks to
// the clipboard.
package kata

import (
	"strings"
	"time"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"

	"github.com/kata-mcp/kata/katas"
	"github.com/kata-mcp/kata/ui/common"
	"github.com/kata-mcp/kata/ui/components/find"
	"github.com/kata-mcp/kata/ui/components/tabs"
	"github.com/kata-mcp/kata/ui/components/viewport"
	"github.com/kata-mcp/kata/ui/keymap"
	"github.com/kata-mcp/kata/ui/markdown"
)

// kataHeader is the number of lines above the viewport: title, tabs and a blank line.
const kataHeader = 3

// sideStep is how many columns H and L scroll code by.
const sideStep = 8

// Model shows one packet's layers, one at a time, in a scrollable viewport. The layer is
// loaded (made resident) and rendered in a command; the viewport shows the result whose key
// matches the wanted one.
type Model struct {
	c      common.Common
	p      *katas.Packet
	layer  int // index into p.Layers
	want   common.RenderKey
	shown  common.RenderKey // key of the content in the viewport
	doc    *markdown.Doc    // the layer on show, laid out
	xoff   int              // how far code lines are scrolled sideways
	errMsg string
	// picks are the prompts (or code blocks) to copy while the copy picker is open (nil
	// otherwise); note is the last copy's outcome.
	picks []prompt
	note  string
	// search is the layer's search; hits are its matches (line, display column) in the
	// layer, hit the one last jumped to.
	search find.Model
	hits   []hit
	hit    int
	read   reading
	loader *Loader
	vp     *viewport.Model
}

// hit is one match of the search: its line in the layer.
type hit struct{ line, col int }

// New returns the kata page of packet p; loader loads its layers (one loader serves every
// packet, since the Library keeps one layer resident).
func New(c common.Common, p *katas.Packet, loader *Loader) *Model {
	return &Model{c: c, p: p, loader: loader, vp: viewport.New()}
}

// ShortHelp lists the kata screen's keys.
func (m *Model) ShortHelp() []key.Binding {
	k, f := m.c.Keys.Kata, m.c.Keys.Find
	switch {
	case m.picks != nil:
		return []key.Binding{m.c.Keys.Letter}
	case m.search.Typing():
		return []key.Binding{f.Done}
	}
	b := []key.Binding{k.Next}
	switch {
	case m.layerName() == promptsLayer:
		b = append(b, k.Copy)
	case m.doc != nil && len(m.doc.Code) > 0:
		b = append(b, k.CopyCode)
	}
	b = append(b, k.Quiz, k.Drill, k.Traps, k.Task)
	if len(m.hits) > 0 {
		b = append(b, f.Next)
	}
	if m.doc != nil && m.doc.MaxScroll(m.c.Width) > 0 {
		b = append(b, m.c.Keys.Read.Left)
	}
	return append(b, m.c.Keys.Read.Up)
}

// FullHelp lists the kata screen's keys in columns.
func (m *Model) FullHelp() [][]key.Binding {
	k, r, f := m.c.Keys.Kata, m.c.Keys.Read, m.c.Keys.Find
	return [][]key.Binding{
		{k.Next, k.Layer, k.Copy, k.CopyCode},
		{r.Up, r.PageUp, r.Top, r.Left},
		{f.Open, f.Next},
		{k.Quiz, k.Drill, k.Traps, k.Task},
	}
}

// HelpNote says when a layer counts as read.
func (m *Model) HelpNote() string {
	return m.c.T("kata.help_note", "WPM", SkimWordsPerMinute, "Seconds", int(MinReadTime/time.Second))
}

// Typing reports whether the search is being typed (keys are text then).
func (m *Model) Typing() bool { return m.search.Typing() }

// SetSize sizes the viewport and asks for a rendering when the width or style changed or the
// layer on show is no longer resident (another packet's layer was read meanwhile).
func (m *Model) SetSize(w, h int) tea.Cmd {
	m.c.SetSize(w, h)
	m.vp.SetSize(w, h-kataHeader)
	m.refresh()
	return tea.Batch(m.request(false), m.checkRead(false))
}

// Activate restarts the reading clock: time spent on another screen is not time spent reading.
func (m *Model) Activate() { m.read.restart(m.c.Now()) }

// Back closes the copy picker, the search being typed, or the kept search, in that order.
func (m *Model) Back() (tea.Cmd, bool) {
	switch {
	case m.picks != nil:
		m.picks = nil
	case m.search.Active():
		m.search.Clear()
		m.hits = nil
		m.refresh()
	default:
		return nil, false
	}
	return nil, true
}

// layerName is the name of the selected layer.
func (m *Model) layerName() string {
	if len(m.p.Layers) == 0 {
		return ""
	}
	return m.p.Layers[m.layer]
}

// request asks for the selected layer at the current width and style unless it is already
// wanted and resident; force re-requests regardless.
func (m *Model) request(force bool) tea.Cmd {
	name := m.layerName()
	if name == "" || m.c.Width == 0 {
		return nil
	}
	if m.locked() {
		m.want = common.RenderKey{} // no rendering is wanted, not even a late one
		return nil
	}
	k := common.RenderKey{Doc: m.p.ID + "/" + name, Width: m.c.Width, Style: m.c.MDStyle}
	if !force && k == m.want && m.loader.Resident(m.p.ID, name) {
		return nil
	}
	m.want = k
	return m.loader.Load(m.p.ID, name, k)
}

// locked reports whether the instructor of the workshop the learner joined has not opened
// the selected layer yet (never outside a workshop).
func (m *Model) locked() bool { return !m.c.LayerOpen(m.p.ID, m.layer) }

// selectLayer switches to layer i: the old content goes and the new one is requested.
func (m *Model) selectLayer(i int) tea.Cmd {
	n := len(m.p.Layers)
	if n == 0 {
		return nil
	}
	i = ((i % n) + n) % n
	if i == m.layer && m.shown.Doc != "" {
		return nil
	}
	m.layer = i
	m.errMsg, m.note, m.picks = "", "", nil
	m.shown, m.doc, m.xoff = common.RenderKey{}, nil, 0
	m.search.Clear()
	m.hits = nil
	m.read = reading{}
	m.vp.SetContent("")
	m.vp.GotoTop()
	return m.request(true)
}

// Update switches layers, scrolls, searches, takes renderings and turns x/t/w into navigation.
func (m *Model) Update(msg tea.Msg) tea.Cmd {
	switch msg := msg.(type) {
	case common.WorkshopMsg:
		if !m.locked() && m.shown.Doc == "" {
			return m.request(false) // the instructor opened the layer on show
		}
	case common.RenderedMsg:
		if msg.Key != m.want {
			return nil // stale: another layer, width or style was asked for since
		}
		first := m.shown.Doc != msg.Key.Doc
		m.shown = msg.Key
		if msg.Err != nil {
			m.errMsg, m.doc = msg.Err.Error(), nil
			m.vp.SetContent("")
			return nil
		}
		m.errMsg = ""
		m.doc = msg.Doc
		if m.doc == nil { // a plain rendering (tests): its lines as prose
			m.doc = &markdown.Doc{}
			for _, l := range strings.Split(strings.TrimRight(msg.Out, "\n "), "\n") {
				m.doc.Lines = append(m.doc.Lines, markdown.Line{Text: l, Code: -1})
			}
		}
		m.xoff = min(m.xoff, m.doc.MaxScroll(m.c.Width))
		m.findHits()
		m.refresh()
		if first {
			return m.startReading()
		}
		return m.checkRead(false)
	case readTickMsg:
		if msg.doc != m.shown.Doc || msg.gen != m.read.gen {
			return nil
		}
		return m.checkRead(true)
	case promptsMsg:
		if msg.packet != m.p.ID || m.layerName() != promptsLayer {
			return nil
		}
		if msg.err != nil || len(msg.prompts) == 0 {
			m.note = m.c.T("kata.no_prompt")
			if msg.err != nil {
				m.note = m.c.T("kata.prompts_error", "Error", msg.err.Error())
			}
			return nil
		}
		m.picks = msg.prompts
	case tea.MouseWheelMsg:
		m.vp.Wheel(msg)
		return m.checkRead(false)
	case tea.KeyPressMsg:
		cmd := m.key(msg)
		return tea.Batch(cmd, m.checkRead(false))
	}
	return nil
}

// key handles a key press.
func (m *Model) key(msg tea.KeyPressMsg) tea.Cmd {
	if m.picks != nil {
		return m.pick(msg)
	}
	if r := m.search.Key(msg, m.c.Keys.Find); r != find.None {
		if r == find.Edited {
			m.findHits()
			m.jump(m.firstHitFrom(m.vp.YOffset()))
		}
		m.refresh()
		return nil
	}
	k, f, rd := m.c.Keys.Kata, m.c.Keys.Find, m.c.Keys.Read
	switch {
	case key.Matches(msg, k.Copy) && m.layerName() == promptsLayer && !m.locked():
		return loadPrompts(m.c.Lib, m.p.ID)
	case key.Matches(msg, k.CopyCode):
		return m.copyCode()
	case key.Matches(msg, f.Open):
		m.search.Open()
		m.hits = nil
		m.refresh()
	case key.Matches(msg, f.Next) && len(m.hits) > 0:
		m.jump((m.hit + 1) % len(m.hits))
	case key.Matches(msg, f.Prev) && len(m.hits) > 0:
		m.jump((m.hit - 1 + len(m.hits)) % len(m.hits))
	case key.Matches(msg, rd.Left):
		m.scrollCode(-sideStep)
	case key.Matches(msg, rd.Right):
		m.scrollCode(sideStep)
	case key.Matches(msg, k.Drill):
		return common.Show(common.DrillScreen)
	case key.Matches(msg, k.Next):
		return m.selectLayer(m.layer + 1)
	case key.Matches(msg, k.Prev):
		return m.selectLayer(m.layer - 1)
	case key.Matches(msg, k.Layer):
		if i := keymap.Index(k.Layer, msg.String()); i < len(m.p.Layers) {
			return m.selectLayer(i)
		}
	case key.Matches(msg, k.Quiz):
		return common.Show(common.QuizScreen)
	case key.Matches(msg, k.Traps):
		return common.Show(common.TrapsScreen)
	case key.Matches(msg, k.Task):
		return common.Show(common.TaskScreen)
	default:
		m.vp.Key(msg, rd)
	}
	return nil
}

// scrollCode moves code lines sideways by d columns, within what the widest line needs.
func (m *Model) scrollCode(d int) {
	if m.doc == nil {
		return
	}
	m.xoff = max(min(m.xoff+d, m.doc.MaxScroll(m.c.Width)), 0)
	m.refresh()
}

// refresh lays the layer out for the viewport: code scrolled sideways, search hits shown.
func (m *Model) refresh() {
	if m.doc == nil || m.c.Width == 0 {
		return
	}
	lines := m.doc.View(m.c.Width, m.xoff)
	if q := m.search.Query(); q != "" {
		for i, l := range lines {
			lines[i] = highlight(l, q, m.c.Styles)
		}
	}
	m.vp.SetContent(strings.Join(lines, "\n"))
}

// View draws the title, the layer tabs and the viewport (the search line below it while a
// search is typed or kept).
func (m *Model) View() string {
	st := m.c.Styles
	// The title: the packet's title (cut first on a narrow screen), its id, the "in English"
	// marker; on the right the reading status and the percentage, which a narrow screen keeps
	// (the status goes before the title's marker does).
	id := " " + st.Subtle.Render("("+m.p.ID+")")
	marker := ""
	if m.shown.Doc != "" && m.loader.InEnglish(m.p.ID, m.layerName()) {
		marker = " " + st.Accent.Render("· "+common.InEnglish(m.p.Locale))
	}
	pc := m.vp.Percent()
	right := pc
	if rs := m.readStatus(); rs != "" && pc != "" {
		right = rs + " · " + pc
	} else if rs != "" {
		right = rs
	}
	const minTitle = 12 // the packet title's columns kept before the reading status goes
	if m.c.Width-lipgloss.Width(right)-1-lipgloss.Width(id+marker) < minTitle {
		right = pc
	}
	if m.c.Width-lipgloss.Width(right)-1-lipgloss.Width(id+marker) < minTitle {
		id = ""
	}
	room := m.c.Width - lipgloss.Width(id+marker)
	if right != "" {
		room -= lipgloss.Width(right) + 1
	}
	title := common.Truncate(st.Title.Render(m.p.Title), max(room, 1)) + id + marker
	if right != "" {
		gap := m.c.Width - lipgloss.Width(title) - lipgloss.Width(right)
		if gap > 0 {
			title += strings.Repeat(" ", gap) + st.Subtle.Render(right)
		}
	}
	body := m.vp.View()
	switch {
	case m.locked():
		body = st.Subtle.Render(common.WrapHanging("  ", m.c.T("kata.locked", "Layer", m.c.LayerName(m.layerName())), m.c.Width))
	case m.picks != nil:
		body = m.pickerView()
	case m.note != "":
		// The note (wrapped, never cut) takes the place of the viewport's first lines.
		note := strings.Split(common.WrapHanging("  ", m.note, m.c.Width), "\n")
		rest := strings.Split(body, "\n")
		body = st.Accent.Render(strings.Join(note, "\n")) + "\n" + strings.Join(rest[min(len(note), len(rest)):], "\n")
	case m.errMsg != "":
		body = st.Fail.Render(common.WrapHanging("", m.c.T("kata.layer_error", "Error", m.errMsg), m.c.Width))
	case m.shown.Doc == "":
		body = st.Subtle.Render("  " + m.c.T("kata.loading", "Layer", m.c.LayerName(m.layerName())))
	}
	if m.search.Active() && m.picks == nil {
		lines := strings.Split(body, "\n")
		h := max(m.c.Height-kataHeader, 1)
		for len(lines) < h {
			lines = append(lines, "")
		}
		lines = lines[:h]
		lines[h-1] = m.search.View(st, m.hitStatus(), m.c.Width)
		body = strings.Join(lines, "\n")
	}
	return common.Truncate(title, m.c.Width) + "\n" + tabs.View(st, m.c.LayerNames(m.p.Layers), m.layer, m.c.Width) + "\n\n" + body
}
