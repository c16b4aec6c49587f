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

// MaxWidth caps the wrap width: prose wider than this is hard to read (glow does the same).
const MaxWidth = 120

// MinWidth is the narrowest wrap width Render uses; narrower requests are widened to it.
const MinWidth = 20

// cacheSize bounds the number of rendered documents kept.
const cacheSize = 128

// cacheBytes bounds the total size of the rendered documents kept: 32 MiB (a variable only so
// a test can lower it).
var cacheBytes = 32 << 20

type rendererKey struct {
	width int
	style string
}

type cacheKey struct {
	sum   [sha256.Size]byte
	width int
	style string
}

// lockedRenderer is one glamour renderer; a TermRenderer is not safe for concurrent use.
type lockedRenderer struct {
	mu sync.Mutex
	r  *glamour.TermRenderer
}

var (
	mu        sync.Mutex
	renderers = map[rendererKey]*lockedRenderer{}
	cache     = map[cacheKey]*list.Element{}
	lru       = list.New() // of *cacheEntry, most recently used first
	cached    int          // bytes of output in cache
)

type cacheEntry struct {
	key cacheKey
	out string
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

// RenderContext renders md for a terminal wrap width of width columns (clamped to
// [MinWidth, MaxWidth]) in the named glamour style, one of Styles(). A document that breaks
// katas.MarkdownBounds is refused with a *BoundsError before anything renders it, so every
// render is bounded. Results are cached by (hash of md, width, style), within cacheSize
// documents and cacheBytes of output; one renderer per (width, style) is kept and used under a
// lock, so RenderContext is safe for concurrent use. When ctx ends before the render starts —
// the layer was left, another was asked for — it returns ctx's error and renders nothing; a
// render that has started runs to its end. Paragraphs are reflowed first (see Reflow). Front
// matter must already be gone (katas.Layer.Markdown turns it into a yaml code block). Other
// errors are an unknown style or a glamour failure.
func RenderContext(ctx context.Context, md string, width int, style string) (string, error) {
	width = ClampWidth(width)
	if _, ok := styles.DefaultStyles[style]; !ok {
		return "", fmt.Errorf("markdown: unknown style %q (known: %s)", style, strings.Join(Styles(), ", "))
	}
	key := cacheKey{sum: sha256.Sum256([]byte(md)), width: width, style: style}
	mu.Lock()
	if el, ok := cache[key]; ok {
		lru.MoveToFront(el)
		out := el.Value.(*cacheEntry).out
		mu.Unlock()
		return out, nil
	}
	lr, err := rendererLocked(rendererKey{width, style})
	mu.Unlock()
	if err != nil {
		return "", err
	}
	if line, msg := katas.MarkdownBounds([]byte(md)); line > 0 {
		return "", &BoundsError{Line: line, Msg: msg}
	}
	if err := ctx.Err(); err != nil {
		return "", err
	}
	lr.mu.Lock()
	if err := ctx.Err(); err != nil { // cancelled while another render held the renderer
		lr.mu.Unlock()
		return "", err
	}
	out, err := lr.r.Render(Reflow(md))
	lr.mu.Unlock()
	if err != nil {
		return "", fmt.Errorf("markdown: %w", err)
	}

	mu.Lock()
	defer mu.Unlock()
	if el, ok := cache[key]; ok { // rendered concurrently by another caller
		lru.MoveToFront(el)
		return el.Value.(*cacheEntry).out, nil
	}
	cache[key] = lru.PushFront(&cacheEntry{key: key, out: out})
	cached += len(out)
	for lru.Len() > cacheSize || (cached > cacheBytes && lru.Len() > 1) {
		old := lru.Remove(lru.Back()).(*cacheEntry)
		delete(cache, old.key)
		cached -= len(old.out)
	}
	return out, nil
}

// rendererLocked returns the renderer for k, creating it; mu must be held.
func rendererLocked(k rendererKey) (*lockedRenderer, error) {
	if lr, ok := renderers[k]; ok {
		return lr, nil
	}
	r, err := glamour.NewTermRenderer(
		glamour.WithStandardStyle(k.style),
		glamour.WithWordWrap(k.width),
	)
	if err != nil {
		return nil, fmt.Errorf("markdown: %w", err)
	}
	lr := &lockedRenderer{r: r}
	renderers[k] = lr
	return lr, nil
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
