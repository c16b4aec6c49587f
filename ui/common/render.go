package common

import (
	"context"

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

// RenderedMsg carries a rendered document: Doc laid out (code lines whole, for views that
// scroll code sideways), Out its lines joined with code cut at the width.
type RenderedMsg struct {
	Key RenderKey
	Doc *markdown.Doc
	Out string
	Err error
}

// RenderMarkdown renders md in a command.
func RenderMarkdown(k RenderKey, md string) tea.Cmd {
	return func() tea.Msg { return Rendered(k, md) }
}

// Rendered renders md for k: the message a rendering command answers with.
func Rendered(k RenderKey, md string) RenderedMsg {
	return RenderedContext(context.Background(), k, md)
}

// RenderedContext is Rendered that renders nothing once ctx has ended (its error is the
// message's).
func RenderedContext(ctx context.Context, k RenderKey, md string) RenderedMsg {
	d, err := markdown.RenderDocContext(ctx, md, k.Width, k.Style)
	if err != nil {
		return RenderedMsg{Key: k, Err: err}
	}
	return RenderedMsg{Key: k, Doc: d, Out: d.String(k.Width)}
}
