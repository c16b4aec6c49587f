// Package markdown renders packet Markdown for terminals with glamour, memoised by document,
// width and style; it is headless and shared by the TUI and the CLI.
package markdown

import (
	"container/list"
	"context"
	"crypto/sha256"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"

	"charm.land/glamour/v2"
	"charm.land/glamour/v2/styles"

	"github.com/kata-mcp/kata/internal/termtext"
	"github.com/kata-mcp/kata/katas"
)

// Built-in glamour styles the kata app uses. "ascii" and "notty" produce stable, uncoloured
// text (NO_COLOR, pipes and golden tests); "dark" and "light" suit the terminal's background.
const (
	StyleDark  = styles.DarkStyle
	StyleLight = styles.LightStyle
	StyleNoTTY = styles.NoTTYStyle
	StyleASCII = styles.AsciiStyle
)

// MaxWidth caps the wrap width of prose: lines much longer than this are hard to read, so a
// wide terminal shows prose at this measure (glow caps its width the same way). Code lines are
// not capped: they run to the view's width and are cut there (see Doc).
const MaxWidth = 80

// MinWidth is the narrowest wrap width Render uses; narrower requests are widened to it.
const MinWidth = 20

// cacheSize bounds the number of rendered documents kept.
const cacheSize = 128

// cacheBytes bounds the total size of the rendered documents kept: 32 MiB (a variable only so
// a test can lower it).
var cacheBytes = 32 << 20

type cacheKey struct {
	sum   [sha256.Size]byte
	width int // the prose width (ClampWidth)
	view  int // the view's width, which tables are laid out at
	style string
}

// lockedRenderer is one glamour renderer; a TermRenderer is not safe for concurrent use.
type lockedRenderer struct {
	mu sync.Mutex
	r  *glamour.TermRenderer
}

var (
	mu     sync.Mutex
	cache  = map[cacheKey]*list.Element{}
	lru    = list.New() // of *cacheEntry, most recently used first
	cached int          // bytes of the documents in cache (cacheEntry.size)
)

type cacheEntry struct {
	key  cacheKey
	doc  *Doc
	size int // the document's bytes: its lines and code
}

// BoundsError is a document Render refuses because it breaks katas.MarkdownBounds: too
// large, or nested too deep to render in bounded time (docs/packets.md#limits).
type BoundsError struct {
	// Line is the 1-based line of the document where the bound is broken.
	Line int
	Msg  string
}

// Error says where and why: "line N: ...".
func (e *BoundsError) Error() string {
	return fmt.Sprintf("markdown: line %d: %s", e.Line, e.Msg)
}

// Render is RenderContext without a context.
func Render(md string, width int, style string) (string, error) {
	return RenderContext(context.Background(), md, width, style)
}

// RenderContext renders md for a view of width columns in the named glamour style (one of
// Styles()) and returns its lines joined, code lines cut at the width with CutMarker (see
// RenderDocContext, whose errors it returns).
func RenderContext(ctx context.Context, md string, width int, style string) (string, error) {
	d, err := RenderDocContext(ctx, md, width, style)
	if err != nil {
		return "", err
	}
	return d.String(max(width, MinWidth)), nil
}

// RenderDoc is RenderDocContext without a context.
func RenderDoc(md string, width int, style string) (*Doc, error) {
	return RenderDocContext(context.Background(), md, width, style)
}

// RenderDocContext lays md out for a view of width columns in the named glamour style, one
// of Styles(): paragraphs reflowed (see Reflow) and wrapped at ClampWidth(width), top-level
// tables laid out at the view's whole width, lists with
// hanging indents, block quotes with their bar on every line, code blocks never wrapped
// (highlighted in colour styles), and emoji sequences whose width terminals disagree on made
// unambiguous (see Unambiguous). md may come from any packet: its control characters are
// dropped before it renders (termtext.Markdown), and the lines keep no escape sequence but
// SGR styling (termtext.Styled; glamour's OSC 8 hyperlinks go). A document that breaks
// katas.MarkdownBounds is refused with a *BoundsError before anything renders it, so every
// render is bounded. Results are cached by (hash of md, width, style), within cacheSize
// documents and cacheBytes, and shared: the caller must not modify them. When ctx ends before the render starts — the layer was left,
// another was asked for — it returns ctx's error and renders nothing; a render that has
// started runs to its end. It is safe for concurrent use. Front matter must already be gone
// (katas.Layer.Markdown turns it into a yaml code block). Other errors are an unknown style or
// a glamour failure.
func RenderDocContext(ctx context.Context, md string, width int, style string) (*Doc, error) {
	md = termtext.Markdown(md)
	view := max(width, MinWidth)
	width = ClampWidth(width)
	th, err := themeFor(style)
	if err != nil {
		return nil, err
	}
	key := cacheKey{sum: sha256.Sum256([]byte(md)), width: width, view: view, style: style}
	mu.Lock()
	if el, ok := cache[key]; ok {
		lru.MoveToFront(el)
		d := el.Value.(*cacheEntry).doc
		mu.Unlock()
		return d, nil
	}
	mu.Unlock()
	if line, msg := katas.MarkdownBounds([]byte(md)); line > 0 {
		return nil, &BoundsError{Line: line, Msg: msg}
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}

	inner := max(width-2*th.docMargin, MinInner)
	b := &builder{th: th, inner: inner, wide: max(view-2*th.docMargin, MinInner)}
	lines, err := b.render(Reflow(md), inner, false)
	if err != nil {
		return nil, err
	}
	for i := range lines { // glamour's own hyperlinks (OSC 8) go: a link shows as its text and address
		lines[i].Prefix, lines[i].Text = termtext.Styled(lines[i].Prefix), termtext.Styled(lines[i].Text)
	}
	margin := strings.Repeat(" ", th.docMargin)
	lines = indent(lines, margin, margin, "")
	d := &Doc{Lines: lines, Code: b.code, Width: width}

	mu.Lock()
	defer mu.Unlock()
	if el, ok := cache[key]; ok { // rendered concurrently by another caller
		lru.MoveToFront(el)
		return el.Value.(*cacheEntry).doc, nil
	}
	size := d.size()
	cache[key] = lru.PushFront(&cacheEntry{key: key, doc: d, size: size})
	cached += size
	for lru.Len() > cacheSize || (cached > cacheBytes && lru.Len() > 1) {
		old := lru.Remove(lru.Back()).(*cacheEntry)
		delete(cache, old.key)
		cached -= old.size
	}
	return d, nil
}

// ClampWidth returns the wrap width Render uses for a requested width.
func ClampWidth(width int) int {
	return max(MinWidth, min(width, MaxWidth))
}

// Styles lists the style names Render accepts, sorted.
func Styles() []string {
	return slices.Sorted(maps.Keys(styles.DefaultStyles))
}

// StyleFor picks the style for an output: "notty" without colour (NO_COLOR, not a terminal),
// otherwise "dark" or "light" after the background.
func StyleFor(noColor, darkBackground bool) string {
	switch {
	case noColor:
		return StyleNoTTY
	case darkBackground:
		return StyleDark
	default:
		return StyleLight
	}
}
