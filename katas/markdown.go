package katas

import (
	"bytes"
	"strings"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/extension"
	extast "github.com/yuin/goldmark/extension/ast"
	"github.com/yuin/goldmark/text"
)

// mdParser is the one goldmark configuration packets are parsed with: CommonMark plus GFM
// (tables, task lists, strikethrough, autolinks), as GitHub renders them.
var mdParser = goldmark.New(goldmark.WithExtensions(extension.GFM))

// parseMarkdown returns the document's AST; goldmark never fails on input, any byte string is
// some document.
func parseMarkdown(src []byte) ast.Node {
	return mdParser.Parser().Parse(text.NewReader(src))
}

// plainText flattens inline content to text: code spans keep their backticks, soft line breaks
// become spaces, emphasis and links keep only their text.
func plainText(n ast.Node, src []byte) string {
	var b strings.Builder
	var walk func(ast.Node)
	walk = func(n ast.Node) {
		for c := n.FirstChild(); c != nil; c = c.NextSibling() {
			switch t := c.(type) {
			case *ast.Text:
				b.Write(t.Segment.Value(src))
				if t.SoftLineBreak() || t.HardLineBreak() {
					b.WriteByte(' ')
				}
			case *ast.String:
				b.Write(t.Value)
			case *ast.CodeSpan:
				b.WriteByte('`')
				walk(t)
				b.WriteByte('`')
			case *extast.TaskCheckBox:
				// the checkbox is structure, not text
			default:
				walk(c)
			}
		}
	}
	walk(n)
	return strings.TrimSpace(b.String())
}

// blockText flattens a block container (list item, block quote) to text, one paragraph per
// line group, separated by blank lines.
func blockText(n ast.Node, src []byte) string {
	var parts []string
	for c := n.FirstChild(); c != nil; c = c.NextSibling() {
		switch c.Kind() {
		case ast.KindParagraph, ast.KindTextBlock, ast.KindHeading:
			parts = append(parts, plainText(c, src))
		case ast.KindFencedCodeBlock, ast.KindCodeBlock:
			parts = append(parts, strings.TrimRight(string(c.Lines().Value(src)), "\n"))
		default:
			if t := blockText(c, src); t != "" {
				parts = append(parts, t)
			}
		}
	}
	return strings.Join(parts, "\n\n")
}

// FirstOffset returns the byte offset, in the source goldmark parsed, of the first source
// segment at or below n (a text's segment, a block's first line), or -1 when n has none.
func FirstOffset(n ast.Node) int {
	if t, ok := n.(*ast.Text); ok {
		return t.Segment.Start
	}
	if n.Type() == ast.TypeBlock && n.Lines() != nil && n.Lines().Len() > 0 {
		return n.Lines().At(0).Start
	}
	for c := n.FirstChild(); c != nil; c = c.NextSibling() {
		if off := FirstOffset(c); off >= 0 {
			return off
		}
	}
	return -1
}

// lineStart returns the offset of the beginning of the line that holds off.
func lineStart(src []byte, off int) int {
	if off <= 0 {
		return 0
	}
	return bytes.LastIndexByte(src[:off], '\n') + 1
}

// lineEnd returns the offset just past the newline that ends the line holding off.
func lineEnd(src []byte, off int) int {
	if off < 0 {
		off = 0
	}
	if off >= len(src) {
		return len(src)
	}
	i := bytes.IndexByte(src[off:], '\n')
	if i < 0 {
		return len(src)
	}
	return off + i + 1
}

// nodeStart is the offset of the start of the source line where block n begins. A fenced code
// block's Lines() start after the opening fence, so its start is the fence line.
func nodeStart(n ast.Node, src []byte) int {
	off := FirstOffset(n)
	if off < 0 {
		return -1
	}
	start := lineStart(src, off)
	if fc, ok := n.(*ast.FencedCodeBlock); ok {
		if fc.Info != nil {
			return lineStart(src, fc.Info.Segment.Start)
		}
		if start > 0 {
			return lineStart(src, start-1)
		}
	}
	return start
}

// headingLevelText returns the level and flattened text of n when it is a heading.
func headingLevelText(n ast.Node, src []byte) (int, string, bool) {
	h, ok := n.(*ast.Heading)
	if !ok {
		return 0, "", false
	}
	return h.Level, plainText(h, src), true
}

// section is a level-2 heading with the top-level blocks that follow it up to the next heading
// of level ≤ 2.
type section struct {
	heading *ast.Heading
	blocks  []ast.Node
	// end is the offset where the next section (or the document) begins.
	end int
}

// sections splits a document at its level-2 headings. intro holds the blocks before the first.
func sections(doc ast.Node, src []byte) (intro []ast.Node, secs []*section) {
	var cur *section
	for c := doc.FirstChild(); c != nil; c = c.NextSibling() {
		if h, ok := c.(*ast.Heading); ok && h.Level <= 2 {
			if cur != nil {
				cur.end = nodeStart(h, src)
			}
			if h.Level == 2 {
				cur = &section{heading: h, end: len(src)}
				secs = append(secs, cur)
				continue
			}
			cur = nil
			intro = append(intro, c)
			continue
		}
		if cur == nil {
			intro = append(intro, c)
		} else {
			cur.blocks = append(cur.blocks, c)
		}
	}
	return intro, secs
}
