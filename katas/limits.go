package katas

import (
	"bytes"
	"fmt"

	"github.com/yuin/goldmark/ast"
)

// Bounds on packet Markdown (docs/packets.md#limits). Rendering a block costs more the deeper it
// sits in block quotes and lists (glamour re-wraps it at every level), and goldmark's parse time
// grows with the square of the containers one line opens, so without bounds a packet of a few
// bytes (a hundred ">") stalls `kata show` and the app.
const (
	// MaxNesting is how deep a block may sit in block quotes and lists together.
	MaxNesting = 8
	// MaxLineMarkers is how many block-quote and list markers one line may start with; a line
	// with more is refused before it is parsed.
	MaxLineMarkers = 4 * MaxNesting
	// MaxMarkdownBytes bounds each Markdown file of a packet, and each layer as shown (its
	// files joined, assets expanded): 256 KiB.
	MaxMarkdownBytes = 256 << 10
)

// MarkdownBounds checks Markdown text against the bounds above and returns the 1-based line and
// a message for the first it breaks, or 0 and "". Lines that open too many containers are found
// by a scan of each line's start, before anything is parsed, so the check itself stays fast.
func MarkdownBounds(src []byte) (line int, msg string) {
	if len(src) > MaxMarkdownBytes {
		return 1, markdownTooLarge(int64(len(src)))
	}
	n := 1
	for rest := src; len(rest) > 0; n++ {
		l := rest
		if i := bytes.IndexByte(rest, '\n'); i >= 0 {
			l, rest = rest[:i], rest[i+1:]
		} else {
			rest = nil
		}
		if m := lineMarkers(l); m > MaxLineMarkers {
			return n, fmt.Sprintf("the line starts with %d block-quote or list markers; Markdown may nest block quotes and lists %d deep", m, MaxNesting)
		}
	}
	if off := deepBlock(parseMarkdown(src), MaxNesting); off >= 0 {
		return lineOf(src, off), fmt.Sprintf("block quotes and lists nest more than %d deep here; flatten the structure (a deeper level is hard to read, and slow to render)", MaxNesting)
	}
	return 0, ""
}

// markdownTooLarge is the problem of a Markdown file of size bytes (-1: unknown, past the
// bound).
func markdownTooLarge(size int64) string {
	amount := fmt.Sprintf("%d KiB", (size+1023)>>10)
	if size < 0 {
		amount = fmt.Sprintf("more than %d KiB", MaxMarkdownBytes>>10)
	}
	return fmt.Sprintf("%s of Markdown; at most %d KiB are shown at once (split it into more files, or shorten it)", amount, MaxMarkdownBytes>>10)
}

// lineMarkers counts the block-quote (">") and list ("-", "*", "+", "1.", "1)" before a space)
// markers a line starts with, with the spaces between them: an upper bound of the containers
// the line opens. A thematic break ("- - -") opens none.
func lineMarkers(l []byte) int {
	if isThematicBreak(l) {
		return 0
	}
	n := 0
	for i := 0; i < len(l); {
		switch c := l[i]; {
		case c == ' ' || c == '\t':
			i++
		case c == '>':
			n++
			i++
		case c == '-' || c == '*' || c == '+':
			if i+1 < len(l) && (l[i+1] == ' ' || l[i+1] == '\t') {
				n++
				i += 2
				continue
			}
			return n
		case c >= '0' && c <= '9':
			j := i
			for j < len(l) && j-i < 9 && l[j] >= '0' && l[j] <= '9' {
				j++
			}
			if j+1 < len(l) && (l[j] == '.' || l[j] == ')') && (l[j+1] == ' ' || l[j+1] == '\t') {
				n++
				i = j + 2
				continue
			}
			return n
		default:
			return n
		}
	}
	return n
}

// isThematicBreak reports whether l is a thematic break: three or more of one of "-", "*", "_",
// with nothing else but spaces and tabs (CommonMark §4.1).
func isThematicBreak(l []byte) bool {
	var mark byte
	count := 0
	for _, c := range l {
		switch {
		case c == ' ' || c == '\t' || c == '\r':
		case (c == '-' || c == '*' || c == '_') && (mark == 0 || c == mark):
			mark = c
			count++
		default:
			return false
		}
	}
	return count >= 3
}

// deepBlock returns the source offset of the first block nested in more than limit block
// quotes and lists, or -1.
func deepBlock(doc ast.Node, limit int) int {
	found := -1
	var walk func(n ast.Node, depth int)
	walk = func(n ast.Node, depth int) {
		if found >= 0 {
			return
		}
		if k := n.Kind(); k == ast.KindBlockquote || k == ast.KindList {
			depth++
			if depth > limit {
				found = max(FirstOffset(n), 0)
				return
			}
		}
		for c := n.FirstChild(); c != nil; c = c.NextSibling() {
			walk(c, depth)
		}
	}
	walk(doc, 0)
	return found
}

// MaxJSONBytes bounds each JSON file of a packet (packet.json, fixtures, assets, their locale
// twins): 1 MiB, a hundred times the largest shipped one.
const MaxJSONBytes = 1 << 20
