// Package kata shows one packet's layers, one at a time, and copies a prompt of its prompts layer to the clipboard.
package kata

import (
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"

	"github.com/kata-mcp/kata/katas"
	"github.com/kata-mcp/kata/ui/common"
	"github.com/kata-mcp/kata/ui/components/tabs"
	"github.com/kata-mcp/kata/ui/components/viewport"
	"github.com/kata-mcp/kata/ui/keymap"
)

// kataHeader is the number of lines above the viewport: title and tabs.
const kataHeader = 2

// Model shows one packet's layers, one at a time, in a scrollable viewport. The layer is
// loaded (made resident) and rendered in a command; the viewport shows the result whose key
// matches the wanted one.
type Model struct {
	c      common.Common
	p      *katas.Packet
	layer  int // index into p.Layers
	want   common.RenderKey
	shown  common.RenderKey // key of the content in the viewport
	errMsg string
	// prompts are the prompts layer's prompts while the copy picker is open (nil otherwise);
	// note is the last copy's outcome.
	prompts []prompt
	note    string
	loader  *Loader
	vp      *viewport.Model
}

// New returns the kata page of packet p; loader loads its layers (one loader serves every
// packet, since the Library keeps one layer resident).
func New(c common.Common, p *katas.Packet, loader *Loader) *Model {
	return &Model{c: c, p: p, loader: loader, vp: viewport.New()}
}

// ShortHelp lists the kata screen's keys.
func (m *Model) ShortHelp() []key.Binding {
	k := m.c.Keys.Kata
	if m.prompts != nil {
		return []key.Binding{k.Copy}
	}
	b := []key.Binding{k.Next}
	if m.layerName() == promptsLayer {
		b = append(b, k.Copy)
	}
	return append(b, k.Quiz, k.Drill, k.Traps, k.Task, m.c.Keys.Read.Up)
}

// FullHelp lists the kata screen's keys in columns.
func (m *Model) FullHelp() [][]key.Binding {
	k, r := m.c.Keys.Kata, m.c.Keys.Read
	return [][]key.Binding{
		{k.Next, k.Layer, k.Copy},
		{r.Up, r.PageUp, r.Top},
		{k.Quiz, k.Drill, k.Traps, k.Task},
	}
}

// SetSize sizes the viewport and asks for a rendering when the width or style changed or the
// layer on show is no longer resident (another packet's layer was read meanwhile).
func (m *Model) SetSize(w, h int) tea.Cmd {
	m.c.SetSize(w, h)
	m.vp.SetSize(w, h-kataHeader)
	return m.request(false)
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
	m.errMsg, m.note, m.prompts = "", "", nil
	m.shown = common.RenderKey{}
	m.vp.SetContent("")
	m.vp.GotoTop()
	return m.request(true)
}

// Update switches layers, scrolls, takes renderings and turns x/t/w into navigation.
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
			m.errMsg = msg.Err.Error()
			m.vp.SetContent("")
			return nil
		}
		m.errMsg = ""
		m.vp.SetContent(strings.TrimRight(msg.Out, "\n "))
		if first {
			return m.c.LayerRead(m.p.ID, m.layerName())
		}
	case promptsMsg:
		if msg.packet != m.p.ID || m.layerName() != promptsLayer {
			return nil
		}
		if msg.err != nil || len(msg.prompts) == 0 {
			m.note = "No prompt to copy."
			if msg.err != nil {
				m.note = "Cannot read the prompts: " + msg.err.Error()
			}
			return nil
		}
		m.prompts = msg.prompts
	case tea.MouseWheelMsg:
		m.vp.Wheel(msg)
	case tea.KeyPressMsg:
		if m.prompts != nil {
			return m.pick(msg)
		}
		k := m.c.Keys.Kata
		switch {
		case key.Matches(msg, k.Copy) && m.layerName() == promptsLayer && !m.locked():
			return loadPrompts(m.c.Lib, m.p.ID)
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
			m.vp.Key(msg, m.c.Keys.Read)
		}
	}
	return nil
}

// View draws the title, the layer tabs and the viewport.
func (m *Model) View() string {
	st := m.c.Styles
	title := st.Title.Render(m.p.Title) + " " + st.Subtle.Render("("+m.p.ID+")")
	if pc := m.vp.Percent(); pc != "" {
		gap := m.c.Width - lipgloss.Width(title) - lipgloss.Width(pc)
		if gap > 0 {
			title += strings.Repeat(" ", gap) + st.Subtle.Render(pc)
		}
	}
	body := m.vp.View()
	switch {
	case m.locked():
		body = st.Subtle.Render(common.WrapHanging("  ", "Locked: the "+m.layerName()+" layer "+common.Locked+".", m.c.Width))
	case m.prompts != nil:
		body = m.pickerView()
	case m.note != "":
		// The note (wrapped, never cut) takes the place of the viewport's first lines.
		note := strings.Split(common.WrapHanging("  ", m.note, m.c.Width), "\n")
		rest := strings.Split(body, "\n")
		body = st.Accent.Render(strings.Join(note, "\n")) + "\n" + strings.Join(rest[min(len(note), len(rest)):], "\n")
	case m.errMsg != "":
		body = st.Fail.Render(common.WrapHanging("", "Cannot show this layer: "+m.errMsg, m.c.Width))
	case m.shown.Doc == "":
		body = st.Subtle.Render("  Loading " + m.layerName() + "…")
	}
	return common.Truncate(title, m.c.Width) + "\n" + tabs.View(st, m.p.Layers, m.layer, m.c.Width) + "\n" + body
}
