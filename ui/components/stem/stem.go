// Package stem shows an item stem rendered from Markdown off the Update loop, for one width and
// style, with the plain text in its place until the rendering arrives.
package stem

import (
	"strings"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/kata-mcp/kata/ui/common"
)

// Model is the rendering of one stem: the key asked for and the result.
type Model struct {
	want common.RenderKey
	out  string
}

// Request asks for md at k unless it is already wanted; the command renders it.
func (s *Model) Request(k common.RenderKey, md string) tea.Cmd {
	if k == s.want {
		return nil
	}
	s.want, s.out = k, ""
	return common.RenderMarkdown(k, md)
}

// Take keeps a rendering that is the one wanted and reports whether it did.
func (s *Model) Take(msg common.RenderedMsg) bool {
	if msg.Key != s.want {
		return false
	}
	s.out = ""
	if msg.Err == nil {
		s.out = strings.TrimRight(msg.Out, "\n ")
	}
	return true
}

// View returns the stem of document doc under a blank line: rendered when its rendering is
// in, else md wrapped as plain text.
func (s *Model) View(doc, md string, width int) string {
	if s.out != "" && s.want.Doc == doc {
		return "\n" + s.out
	}
	return "\n" + common.WrapHanging("  ", md, width)
}

// ViewTop is View without the blank lines above the stem, for a stem that opens the page.
func (s *Model) ViewTop(doc, md string, width int) string {
	lines := strings.Split(s.View(doc, md, width), "\n")
	for len(lines) > 1 && strings.TrimSpace(ansi.Strip(lines[0])) == "" {
		lines = lines[1:]
	}
	return strings.Join(lines, "\n")
}
