package markdown

import (
	"strings"

	"charm.land/lipgloss/v2"
	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/extension"
	extast "github.com/yuin/goldmark/extension/ast"
	"github.com/yuin/goldmark/text"
)

var parser = goldmark.New(goldmark.WithExtensions(extension.GFM)).Parser()

// Reflow joins the soft line breaks of md's paragraphs (CommonMark §6.7: a line ending that is
// not a hard break) into single spaces, so that a renderer re-wraps each paragraph to the
// terminal's width instead of keeping the author's line ends. Glamour keeps soft breaks inside
// list items and block quotes as new lines, which leaves ragged, unindented continuation lines;
// after Reflow every paragraph is one source line. Code blocks, hard breaks (two trailing
// spaces or a backslash) and everything outside paragraphs are left as written.
func Reflow(md string) string {
	src := []byte(md)
	doc := parser.Parse(text.NewReader(src))
	// joins are [from, to) byte ranges (the line ending plus the next line's indentation or
	// block-quote markers) to replace with one space, in source order.
	var joins [][2]int
	_ = ast.Walk(doc, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering {
			return ast.WalkContinue, nil
		}
		t, ok := n.(*ast.Text)
		if !ok || !t.SoftLineBreak() || t.HardLineBreak() {
			return ast.WalkContinue, nil
		}
		if !inParagraph(t) {
			return ast.WalkContinue, nil
		}
		from := t.Segment.Stop
		// the segment stops before trailing spaces and the line ending
		for from < len(src) && (src[from] == ' ' || src[from] == '\t') {
			from++
		}
		if from >= len(src) || (src[from] != '\n' && src[from] != '\r') {
			return ast.WalkContinue, nil
		}
		to := from
		if src[to] == '\r' {
			to++
		}
		if to < len(src) && src[to] == '\n' {
			to++
		}
		for to < len(src) && (src[to] == ' ' || src[to] == '\t' || src[to] == '>') {
			to++
		}
		joins = append(joins, [2]int{t.Segment.Stop, to})
		return ast.WalkContinue, nil
	})
	if len(joins) == 0 {
		return md
	}
	var b strings.Builder
	b.Grow(len(src))
	last := 0
	for _, j := range joins {
		if j[0] < last {
			continue
		}
		b.Write(src[last:j[0]])
		b.WriteByte(' ')
		last = j[1]
	}
	b.Write(src[last:])
	return b.String()
}

// inParagraph reports whether n sits in a paragraph or a tight list item's text block, the
// places where a soft break is ordinary prose; headings and table cells have no soft breaks.
func inParagraph(n ast.Node) bool {
	for p := n.Parent(); p != nil; p = p.Parent() {
		switch p.Kind() {
		case ast.KindParagraph, ast.KindTextBlock:
			return true
		case ast.KindHeading, extast.KindTableCell, ast.KindDocument:
			return false
		}
	}
	return false
}

// Inline renders one line of inline Markdown — the text of an exam option, a rationale or a
// trap-table cell, as katas flattens it (code spans keep their backticks, emphasis its markers)
// — for a terminal: code spans lose their backticks and take the code style, strong and
// emphasis take bold and italic, links show their text. Soft breaks become spaces. Text that
// is not valid inline Markdown is shown as written. With a zero-value code style (NO_COLOR)
// code is shown as plain text.
func Inline(s string, code lipgloss.Style) string {
	if !strings.ContainsAny(s, "`*_[\\&<") {
		return s
	}
	src := []byte(s)
	doc := parser.Parse(text.NewReader(src))
	var b strings.Builder
	var walk func(n ast.Node, style lipgloss.Style, styled bool)
	walk = func(n ast.Node, style lipgloss.Style, styled bool) {
		for c := n.FirstChild(); c != nil; c = c.NextSibling() {
			switch t := c.(type) {
			case *ast.Text:
				seg := string(t.Segment.Value(src))
				if t.SoftLineBreak() || t.HardLineBreak() {
					seg += " "
				}
				b.WriteString(renderWith(seg, style, styled))
			case *ast.String:
				b.WriteString(renderWith(string(t.Value), style, styled))
			case *ast.CodeSpan:
				var cs strings.Builder
				for g := t.FirstChild(); g != nil; g = g.NextSibling() {
					if tx, ok := g.(*ast.Text); ok {
						cs.Write(tx.Segment.Value(src))
					}
				}
				b.WriteString(code.Render(cs.String()))
			case *ast.Emphasis:
				st := style
				if t.Level >= 2 {
					st = st.Bold(true)
				} else {
					st = st.Italic(true)
				}
				walk(t, st, true)
			case *ast.RawHTML:
				for i := 0; i < t.Segments.Len(); i++ {
					seg := t.Segments.At(i)
					b.WriteString(renderWith(string(seg.Value(src)), style, styled))
				}
			default:
				if c.Type() == ast.TypeBlock && b.Len() > 0 {
					b.WriteByte(' ')
				}
				walk(c, style, styled)
			}
		}
	}
	walk(doc, lipgloss.NewStyle(), false)
	out := strings.TrimSpace(b.String())
	if out == "" {
		return s
	}
	return out
}

func renderWith(s string, st lipgloss.Style, styled bool) string {
	if !styled {
		return s
	}
	return st.Render(s)
}

// nbHyphen stands in for a hyphen inside inline code while glamour wraps: U+2011 (non-breaking
// hyphen) is no break opportunity, so `Retry-After` never splits into "Retry-" and "After".
// unprotect puts the hyphens back in the rendered lines.
const nbHyphen = "\u2011"

// protectCode replaces the hyphens of md's inline code spans with nbHyphen (code blocks and
// prose are left alone).
func protectCode(md string) string {
	if !strings.Contains(md, "`") || !strings.Contains(md, "-") {
		return md
	}
	src := []byte(md)
	doc := parser.Parse(text.NewReader(src))
	var at []int // byte offsets of hyphens inside code spans
	_ = ast.Walk(doc, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering {
			return ast.WalkContinue, nil
		}
		if _, ok := n.(*ast.CodeSpan); !ok {
			return ast.WalkContinue, nil
		}
		for c := n.FirstChild(); c != nil; c = c.NextSibling() {
			if t, ok := c.(*ast.Text); ok {
				for i := t.Segment.Start; i < t.Segment.Stop; i++ {
					if src[i] == '-' {
						at = append(at, i)
					}
				}
			}
		}
		return ast.WalkSkipChildren, nil
	})
	if len(at) == 0 {
		return md
	}
	var b strings.Builder
	last := 0
	for _, i := range at {
		b.Write(src[last:i])
		b.WriteString(nbHyphen)
		last = i + 1
	}
	b.Write(src[last:])
	return b.String()
}

// unprotect restores the hyphens protectCode replaced.
func unprotect(s string) string { return strings.ReplaceAll(s, nbHyphen, "-") }
