package kata

import (
	"fmt"
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

// pick copies the prompt whose letter was pressed, through OSC 52 (tea.SetClipboard); any
// other key closes the picker.
func (m *Model) pick(msg tea.KeyPressMsg) tea.Cmd {
	ps := m.prompts
	m.prompts = nil
	if i := keymap.Index(m.c.Keys.Letter, msg.String()); i >= 0 && i < len(ps) {
		p := ps[i]
		m.note = fmt.Sprintf("Copied “%s” to the clipboard (OSC 52; %d characters).", p.title, len(p.text))
		return tea.SetClipboard(p.text)
	}
	return nil
}

// pickerView lists the prompts to copy.
func (m *Model) pickerView() string {
	st := m.c.Styles
	lines := []string{st.Label.Render("  Copy which prompt to the clipboard?"), ""}
	for i, p := range m.prompts {
		lines = append(lines, common.WrapHanging("  "+question.Letter(i)+") ", p.title, m.c.Width))
	}
	lines = append(lines, "", st.Subtle.Render(common.WrapHanging("  ", "Press its letter; any other key cancels. The terminal must allow OSC 52 (tmux: set-clipboard on).", m.c.Width)))
	return strings.Join(lines, "\n")
}
