package common

import (
	tea "charm.land/bubbletea/v2"

	"github.com/kata-mcp/kata/ui/markdown"
)

// RenderKey identifies one rendering: a document at a width in a style. A result whose key is
// not the one a page wants any more is stale and dropped.
type RenderKey struct {
	Doc   string // "packet/layer" or "packet#item"
	Width int
	Style string
}

// RenderedMsg carries a rendered document.
type RenderedMsg struct {
	Key RenderKey
	Out string
	Err error
}

// RenderMarkdown renders md in a command.
func RenderMarkdown(k RenderKey, md string) tea.Cmd {
	return func() tea.Msg {
		out, err := markdown.Render(md, k.Width, k.Style)
		return RenderedMsg{Key: k, Out: out, Err: err}
	}
}
