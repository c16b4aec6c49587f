package kata

import (
	"path"
	"strings"

	tea "charm.land/bubbletea/v2"

	"github.com/kata-mcp/kata/katas"
	"github.com/kata-mcp/kata/ui/common"
	"github.com/kata-mcp/kata/ui/components/question"
	"github.com/kata-mcp/kata/ui/keymap"
)

// promptsLayer is the layer whose prompts can be copied to the clipboard.
const promptsLayer = "prompts"

// prompt is one ready prompt: its title (the file's first heading, else its file name) and the
// text to paste (the file's first fenced code block, else the whole file).
type prompt struct {
	title, text string
}

// promptsMsg carries a packet's prompts, read in a command.
type promptsMsg struct {
	packet  string
	prompts []prompt
	err     error
}

// loadPrompts reads the prompts layer (it is the resident layer when the learner is on it, so
// this does not read the files again).
func loadPrompts(lib *katas.Library, packet string) tea.Cmd {
	return func() tea.Msg {
		l, err := lib.LoadLayer(packet, promptsLayer)
		if err != nil {
			return promptsMsg{packet: packet, err: err}
		}
		var ps []prompt
		for _, f := range l.Files() {
			ps = append(ps, parsePrompt(f.Name, f.Markdown))
		}
		return promptsMsg{packet: packet, prompts: ps}
	}
}

// parsePrompt takes a prompt file apart: the first "# " heading as its title and the body of
// its first fenced code block (``` or ~~~) as the text to paste.
func parsePrompt(name, md string) prompt {
	p := prompt{title: strings.TrimSuffix(path.Base(name), ".md"), text: strings.TrimSpace(md)}
	lines := strings.Split(md, "\n")
	for _, l := range lines {
		if strings.HasPrefix(l, "# ") {
			p.title = strings.TrimSpace(l[2:])
			break
		}
	}
	fence, start := "", -1
	for i, l := range lines {
		t := strings.TrimSpace(l)
		switch {
		case start < 0 && (strings.HasPrefix(t, "```") || strings.HasPrefix(t, "~~~")):
			fence, start = t[:3], i+1
		case start >= 0 && strings.HasPrefix(t, fence):
			p.text = strings.Join(lines[start:i], "\n")
			return p
		}
	}
	return p
}

// pick copies the prompt (or code block) whose letter was pressed, through OSC 52
// (tea.SetClipboard); any other key closes the picker.
func (m *Model) pick(msg tea.KeyPressMsg) tea.Cmd {
	ps := m.picks
	m.picks = nil
	if i := keymap.Index(m.c.Keys.Letter, msg.String()); i >= 0 && i < len(ps) {
		return m.copy(ps[i])
	}
	return nil
}

// copy copies p to the clipboard and says so.
func (m *Model) copy(p prompt) tea.Cmd {
	title := p.title
	if title == "" {
		title = m.c.T("kata.empty_code")
	}
	m.note = m.c.T("kata.copied", "Title", title, "Chars", m.c.N("count.character", len(p.text)))
	return tea.SetClipboard(p.text)
}

// copyCode copies the code block on screen whole (however far it runs past the edges), or
// opens the picker when several are on screen.
func (m *Model) copyCode() tea.Cmd {
	if m.doc == nil {
		return nil
	}
	var picks []prompt
	seen := map[int]bool{}
	top := m.vp.YOffset()
	for i := top; i < min(top+m.vp.Height(), len(m.doc.Lines)); i++ {
		c := m.doc.Lines[i].Code
		if c < 0 || seen[c] {
			continue
		}
		seen[c] = true
		picks = append(picks, prompt{title: codeTitle(m.doc.Code[c]), text: m.doc.Code[c]})
	}
	switch len(picks) {
	case 0:
		m.note = m.c.T("kata.no_code", "Key", keymap.Name(m.c.Keys.Kata.CopyCode))
		return nil
	case 1:
		return m.copy(picks[0])
	}
	m.picks = picks
	return nil
}

// codeTitle names a code block in the picker and the copy note: its first non-blank line
// ("" for an empty block, which the page names in its language).
func codeTitle(code string) string {
	for _, l := range strings.Split(code, "\n") {
		if t := strings.TrimSpace(l); t != "" {
			return common.Truncate(t, 48)
		}
	}
	return ""
}

// pickerView lists the prompts (or code blocks) to copy.
func (m *Model) pickerView() string {
	st := m.c.Styles
	ask := m.c.T("kata.copy_prompt")
	if m.layerName() != promptsLayer {
		ask = m.c.T("kata.copy_code")
	}
	lines := []string{st.Label.Render("  " + ask), ""}
	for i, p := range m.picks {
		title := p.title
		if title == "" {
			title = m.c.T("kata.empty_code")
		}
		lines = append(lines, common.WrapHanging("  "+question.Letter(i)+") ", title, m.c.Width))
	}
	lines = append(lines, "", st.Subtle.Render(common.WrapHanging("  ", m.c.T("kata.copy_hint"), m.c.Width)))
	return strings.Join(lines, "\n")
}
