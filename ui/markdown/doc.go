package markdown

import (
	"bytes"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/kata-mcp/kata/katas"

	"github.com/charmbracelet/x/ansi"
	"github.com/yuin/goldmark/ast"
	extast "github.com/yuin/goldmark/extension/ast"
	"github.com/yuin/goldmark/text"
)

// Doc is a rendered document: its lines, and the text of the code blocks they show. Prose is
// wrapped to the reading width (ClampWidth); a code block's lines are never wrapped: each is
// one Line, as long as the code, and a view cuts it (CutMarker) or scrolls it sideways.
type Doc struct {
	Lines []Line
	// Code is each code block's text as written (tabs and all), in document order, for copying.
	Code []string
	// Width is the wrap width the prose was laid out for (after ClampWidth).
	Width int
}

// Line is one rendered line: a prefix (margins, list indentation, block-quote bars) and the
// text after it. Code is the index in Doc.Code of the code block the line shows, -1 for prose.
type Line struct {
	Prefix string
	Text   string
	Code   int
}

// CutMarker ends a code line cut at the view's right edge, and starts one scrolled past its
// left edge ("←"), so a cut is never mistaken for the end of the code.
const (
	CutMarker     = "→"
	CutMarkerLeft = "←"
)

// String returns the line as rendered, its code in full.
func (l Line) String() string { return l.Prefix + l.Text }

// Plain is the line without its escape sequences, for searching.
func (l Line) Plain() string { return ansi.Strip(l.Prefix + l.Text) }

// View returns the line for a view width columns wide with its code scrolled xoff columns
// to the left: prose is returned as rendered (it fits the wrap width); a code line wider than
// the view is cut, CutMarker replacing its last visible column, CutMarkerLeft its first when
// scrolled. width <= 0 returns the line in full.
func (l Line) View(width, xoff int) string {
	if l.Code < 0 || width <= 0 {
		return l.String()
	}
	room := width - ansi.StringWidth(l.Prefix)
	if room < 2 {
		return ansi.Truncate(l.String(), width, "")
	}
	code := l.Text
	left := ""
	if xoff > 0 {
		code = ansi.TruncateLeft(code, xoff, "")
		left = CutMarkerLeft
		room--
	}
	if ansi.StringWidth(code) > room {
		code = ansi.Truncate(code, room-1, "") + "\x1b[m" + CutMarker
	}
	return l.Prefix + left + code
}

// MaxScroll is how far code can be scrolled sideways in a view width columns wide before
// the end of the widest code line is in sight; 0 when all code fits.
func (d *Doc) MaxScroll(width int) int {
	m := 0
	for _, l := range d.Lines {
		if l.Code < 0 {
			continue
		}
		room := width - ansi.StringWidth(l.Prefix)
		if full := ansi.StringWidth(l.Text); full > room {
			m = max(m, full-room+1)
		}
	}
	return m
}

// View returns the document's lines for a view width columns wide, code scrolled by xoff
// (see Line.View).
func (d *Doc) View(width, xoff int) []string {
	out := make([]string, len(d.Lines))
	for i, l := range d.Lines {
		out[i] = l.View(width, xoff)
	}
	return out
}

// size is the document's bytes: its lines and its code, for the cache's budget.
func (d *Doc) size() int {
	n := 0
	for _, l := range d.Lines {
		n += len(l.Prefix) + len(l.Text) + 1
	}
	for _, c := range d.Code {
		n += len(c)
	}
	return n
}

// String joins the lines, code cut at width (width <= 0: in full).
func (d *Doc) String(width int) string { return strings.Join(d.View(width, 0), "\n") }

// builder lays out one document: the style's renderers and the code blocks found so far.
type builder struct {
	th   *theme
	code []string
	// inner is the prose width of the top level; wide the view's width inside the margins:
	// a top-level table is laid out at wide, so that prose's reading measure never squeezes
	// its columns (a header such as isRetryable cut to "isRetrya…").
	inner, wide int
}

// render lays out md (already reflowed) to width columns: runs of paragraphs, headings,
// tables and rules go through glamour together; lists, block quotes and code blocks are laid
// out here, so that a list item's continuation lines hang under its text, every line of a
// quote keeps its bar, and code is never wrapped. tight joins the blocks without blank lines
// (a tight list item's content).
func (b *builder) render(md string, width int, tight bool) ([]Line, error) {
	src := []byte(md)
	doc := parser.Parse(text.NewReader(src))
	var blocks [][]Line
	chunkStart := -1
	flush := func(end int) error {
		if chunkStart < 0 {
			return nil
		}
		lines, err := b.prose(string(src[chunkStart:end]), width)
		chunkStart = -1
		if err != nil {
			return err
		}
		if len(lines) > 0 {
			blocks = append(blocks, lines)
		}
		return nil
	}
	for n := doc.FirstChild(); n != nil; n = n.NextSibling() {
		start := lineStart(src, blockPos(n, src))
		end := len(src)
		if next := n.NextSibling(); next != nil {
			end = lineStart(src, blockPos(next, src))
		}
		var lines []Line
		var err error
		switch t := n.(type) {
		case *ast.FencedCodeBlock, *ast.CodeBlock:
			if err := flush(start); err != nil {
				return nil, err
			}
			lines = b.codeBlock(t, src)
		case *ast.List:
			if err := flush(start); err != nil {
				return nil, err
			}
			lines, err = b.list(t, src, end, width)
		case *ast.Blockquote:
			if err := flush(start); err != nil {
				return nil, err
			}
			lines, err = b.quote(src[start:end], width)
		case *extast.Table:
			if err := flush(start); err != nil {
				return nil, err
			}
			tw := width
			if width == b.inner && b.wide > width {
				tw = b.wide
			}
			lines, err = b.prose(string(src[start:end]), tw)
		default:
			if chunkStart < 0 {
				chunkStart = start
			}
			continue
		}
		if err != nil {
			return nil, err
		}
		if len(lines) > 0 {
			blocks = append(blocks, lines)
		}
	}
	if err := flush(len(src)); err != nil {
		return nil, err
	}
	var out []Line
	for i, bl := range blocks {
		if i > 0 && !tight {
			out = append(out, Line{Code: -1})
		}
		out = append(out, bl...)
	}
	return out, nil
}

// prose renders a run of blocks with glamour at width, without its document margin, and
// returns its lines without the blank lines around them and without trailing padding.
func (b *builder) prose(md string, width int) ([]Line, error) {
	if strings.TrimSpace(md) == "" {
		return nil, nil
	}
	out, err := b.th.glamour(Unambiguous(protectCode(md)), width)
	if err != nil {
		return nil, err
	}
	out = unprotect(out)
	raw := strings.Split(out, "\n")
	var lines []Line
	for _, r := range raw {
		lines = append(lines, Line{Text: trimRight(r), Code: -1})
	}
	return trimBlank(lines), nil
}

// codeBlock lays out a fenced or indented code block: one line per line of code, highlighted
// in colour styles, under the style's code-block margin, never wrapped.
func (b *builder) codeBlock(n ast.Node, src []byte) []Line {
	var code bytes.Buffer
	segs := n.Lines()
	for i := 0; i < segs.Len(); i++ {
		seg := segs.At(i)
		code.WriteString(strings.Repeat(" ", seg.Padding))
		code.Write(seg.Value(src))
	}
	text := strings.TrimSuffix(code.String(), "\n")
	lang := ""
	if fc, ok := n.(*ast.FencedCodeBlock); ok && fc.Info != nil {
		lang, _, _ = strings.Cut(strings.TrimSpace(string(fc.Info.Segment.Value(src))), " ")
	}
	idx := len(b.code)
	b.code = append(b.code, text)
	margin := strings.Repeat(" ", b.th.codeMargin)
	var lines []Line
	for _, l := range b.th.highlight(strings.ReplaceAll(text, "\t", "    "), lang) {
		lines = append(lines, Line{Prefix: margin, Text: Unambiguous(l), Code: idx})
	}
	return lines
}

// list lays out a list: each item's content rendered at the width left after its marker, the
// marker on its first line and as much indentation on the others (a hanging indent). Items of
// a loose list are separated by a blank line. end is where the list's source ends.
func (b *builder) list(l *ast.List, src []byte, end, width int) ([]Line, error) {
	type item struct {
		n      *ast.ListItem
		marker string
	}
	var items []item
	num := l.Start
	for c := l.FirstChild(); c != nil; c = c.NextSibling() {
		it, ok := c.(*ast.ListItem)
		if !ok {
			continue
		}
		m := b.th.bullet
		if l.IsOrdered() {
			m = strconv.Itoa(num) + b.th.enumSuffix
			num++
		}
		if box, ok := taskBox(it); ok {
			m = b.th.unticked
			if box {
				m = b.th.ticked
			}
		}
		items = append(items, item{n: it, marker: m})
	}
	mw := 0
	for _, it := range items {
		mw = max(mw, ansi.StringWidth(it.marker))
	}
	var out []Line
	for i, it := range items {
		start := lineStart(src, blockPos(it.n, src))
		stop := end
		if i+1 < len(items) {
			stop = lineStart(src, blockPos(items[i+1].n, src))
		}
		inner := itemContent(src[start:stop])
		if _, ok := taskBox(it.n); ok {
			inner = dropTaskBox(inner)
		}
		lines, err := b.render(inner, max(width-mw, MinInner), l.IsTight)
		if err != nil {
			return nil, err
		}
		if len(lines) == 0 {
			lines = []Line{{Code: -1}}
		}
		if i > 0 && !l.IsTight {
			out = append(out, Line{Code: -1})
		}
		marker := strings.Repeat(" ", mw-ansi.StringWidth(it.marker)) + it.marker
		if !l.IsOrdered() {
			marker = it.marker + strings.Repeat(" ", mw-ansi.StringWidth(it.marker))
		}
		out = append(out, indent(lines, b.th.markerStyle(marker), strings.Repeat(" ", mw), "")...)
	}
	return out, nil
}

// MinInner is the narrowest width nested content is laid out at: deeper nesting than the width
// allows lets lines run past the right edge rather than wrap one word per line.
const MinInner = 12

// quote lays out a block quote: its content rendered at the width left after the bar, and the
// bar on every line, wrapped ones too.
func (b *builder) quote(src []byte, width int) ([]Line, error) {
	var inner []string
	for _, l := range strings.Split(strings.TrimRight(string(src), "\n"), "\n") {
		t := strings.TrimLeft(l, " ")
		if len(l)-len(t) <= 3 && strings.HasPrefix(t, ">") {
			t = t[1:]
			if strings.HasPrefix(t, " ") || strings.HasPrefix(t, "\t") {
				t = t[1:]
			}
			inner = append(inner, t)
			continue
		}
		inner = append(inner, l) // a lazy continuation line
	}
	bar := b.th.quoteBar
	lines, err := b.render(strings.Join(inner, "\n")+"\n", max(width-ansi.StringWidth(bar), MinInner), false)
	if err != nil {
		return nil, err
	}
	styled := b.th.quoteStyle(bar)
	return indent(lines, styled, styled, b.th.quoteStyle(strings.TrimRight(bar, " "))), nil
}

// indent puts first before the first line, rest before the others, and blank before a blank
// line (rest without its trailing spaces: nothing for an indentation, the bar of a quote).
func indent(lines []Line, first, rest, blank string) []Line {
	out := make([]Line, len(lines))
	for i, l := range lines {
		p := rest
		switch {
		case i == 0:
			p = first
		case l.Prefix == "" && l.Text == "":
			p = blank
		}
		l.Prefix = p + l.Prefix
		out[i] = l
	}
	return out
}

// itemContent returns a list item's content as a document of its own (CommonMark §5.2): the
// marker and the spaces after it taken off the first line, and as much indentation off the
// following ones.
func itemContent(src []byte) string {
	lines := strings.Split(strings.TrimRight(string(src), "\n"), "\n")
	if len(lines) == 0 {
		return ""
	}
	first := expandTabs(lines[0])
	i := 0
	for i < len(first) && first[i] == ' ' {
		i++
	}
	switch {
	case i < len(first) && strings.ContainsRune("-*+", rune(first[i])):
		i++
	default:
		for i < len(first) && first[i] >= '0' && first[i] <= '9' {
			i++
		}
		if i < len(first) && (first[i] == '.' || first[i] == ')') {
			i++
		}
	}
	sp := 0
	for i+sp < len(first) && first[i+sp] == ' ' {
		sp++
	}
	col := i + sp
	switch {
	case i+sp >= len(first): // the content starts on the next line
		col = i + 1
	case sp > 4: // indented code in the item: one space belongs to the marker
		col = i + 1
	}
	out := []string{first[min(col, len(first)):]}
	for _, l := range lines[1:] {
		l = expandTabs(l)
		n := 0
		for n < len(l) && n < col && l[n] == ' ' {
			n++
		}
		out = append(out, l[n:])
	}
	return strings.Join(out, "\n") + "\n"
}

// taskBox reports whether a list item is a task (GFM task list item) and whether it is checked.
func taskBox(it *ast.ListItem) (checked, ok bool) {
	first := it.FirstChild()
	if first == nil {
		return false, false
	}
	box, ok := first.FirstChild().(*extast.TaskCheckBox)
	if !ok {
		return false, false
	}
	return box.IsChecked, true
}

// dropTaskBox takes the "[ ] " or "[x] " off the start of a task item's content.
func dropTaskBox(md string) string {
	t := strings.TrimLeft(md, " ")
	if len(t) >= 3 && t[0] == '[' && t[2] == ']' {
		return strings.TrimLeft(t[3:], " \t")
	}
	return md
}

// expandTabs expands the tabs of a line's leading whitespace to 4-column stops.
func expandTabs(l string) string {
	if !strings.Contains(l, "\t") {
		return l
	}
	var b strings.Builder
	col := 0
	for i, r := range l {
		switch r {
		case '\t':
			n := 4 - col%4
			b.WriteString(strings.Repeat(" ", n))
			col += n
		case ' ':
			b.WriteByte(' ')
			col++
		default:
			b.WriteString(l[i:])
			return b.String()
		}
	}
	return b.String()
}

// blockPos is the offset where block n opens, or where its first text starts.
func blockPos(n ast.Node, src []byte) int {
	if p := n.Pos(); p >= 0 {
		return p
	}
	if off := katas.FirstOffset(n); off >= 0 {
		return off
	}
	return len(src)
}

// lineStart returns the offset of the beginning of the line that holds off.
func lineStart(src []byte, off int) int {
	if off <= 0 {
		return 0
	}
	off = min(off, len(src))
	return bytes.LastIndexByte(src[:off], '\n') + 1
}

// trimRight drops a rendered line's trailing spaces (glamour pads every line to the width)
// and the escape sequences after its last visible character, ending the line with one reset
// when it had any escapes.
func trimRight(s string) string {
	end, escapes := 0, false
	for i := 0; i < len(s); {
		if s[i] == 0x1b {
			escapes = true
			i += escapeLen(s[i:])
			continue
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		i += n
		if r != ' ' {
			end = i
		}
	}
	if !escapes {
		return s[:end]
	}
	if end == 0 {
		return ""
	}
	return s[:end] + "\x1b[m"
}

// escapeLen is the length of the escape sequence s starts with: a CSI (ESC [ … final byte), an
// OSC or other string sequence (ESC ] … BEL or ESC \\), or a two-byte escape.
func escapeLen(s string) int {
	if len(s) < 2 {
		return len(s)
	}
	switch s[1] {
	case '[':
		for i := 2; i < len(s); i++ {
			if s[i] >= 0x40 && s[i] <= 0x7e {
				return i + 1
			}
		}
		return len(s)
	case ']', 'P', '_', '^':
		for i := 2; i < len(s); i++ {
			if s[i] == 0x07 {
				return i + 1
			}
			if s[i] == 0x1b && i+1 < len(s) && s[i+1] == '\\' {
				return i + 2
			}
		}
		return len(s)
	}
	return 2
}

// trimBlank drops the blank lines at both ends.
func trimBlank(lines []Line) []Line {
	blank := func(l Line) bool { return l.Code < 0 && l.Prefix == "" && l.Text == "" }
	for len(lines) > 0 && blank(lines[0]) {
		lines = lines[1:]
	}
	for len(lines) > 0 && blank(lines[len(lines)-1]) {
		lines = lines[:len(lines)-1]
	}
	return lines
}
