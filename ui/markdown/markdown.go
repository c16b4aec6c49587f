// Package markdown renders packet Markdown for terminals with glamour, memoised by document,
// width and style; it is headless and shared by the TUI and the CLI.
package markdown

import (
	"container/list"
	"crypto/sha256"
	"maps"
	"slices"
	"strings"
	"sync"

	"charm.land/glamour/v2"
	"charm.land/glamour/v2/styles"
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
	mu    sync.Mutex
	cache = map[cacheKey]*list.Element{}
	lru   = list.New() // of *cacheEntry, most recently used first
)

type cacheEntry struct {
	key cacheKey
	doc *Doc
}

// Render renders md for a view of width columns in the named glamour style (one of Styles())
// and returns its lines joined, code lines cut at the width with CutMarker (see RenderDoc).
func Render(md string, width int, style string) (string, error) {
	d, err := RenderDoc(md, width, style)
	if err != nil {
		return "", err
	}
	return d.String(max(width, MinWidth)), nil
}

// RenderDoc lays md out for a view of width columns in the named glamour style, one of
// Styles(): paragraphs reflowed (see Reflow) and wrapped at ClampWidth(width), lists with
// hanging indents, block quotes with their bar on every line, code blocks never wrapped
// (highlighted in colour styles), and emoji sequences whose width terminals disagree on made
// unambiguous (see Unambiguous). Results are cached by (hash of md, width, style) and shared:
// the caller must not modify them. RenderDoc is safe for concurrent use. Front matter must
// already be gone (katas.Layer.Markdown turns it into a yaml code block). The error is an
// unknown style or a glamour failure.
func RenderDoc(md string, width int, style string) (*Doc, error) {
	width = ClampWidth(width)
	th, err := themeFor(style)
	if err != nil {
		return nil, err
	}
	key := cacheKey{sum: sha256.Sum256([]byte(md)), width: width, style: style}
	mu.Lock()
	if el, ok := cache[key]; ok {
		lru.MoveToFront(el)
		d := el.Value.(*cacheEntry).doc
		mu.Unlock()
		return d, nil
	}
	mu.Unlock()

	b := &builder{th: th}
	inner := max(width-2*th.docMargin, MinInner)
	lines, err := b.render(Reflow(md), inner, false)
	if err != nil {
		return nil, err
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
	cache[key] = lru.PushFront(&cacheEntry{key: key, doc: d})
	for lru.Len() > cacheSize {
		old := lru.Remove(lru.Back()).(*cacheEntry)
		delete(cache, old.key)
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
