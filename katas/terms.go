package katas

import (
	"bytes"
	"maps"
	"slices"
	"strings"

	"github.com/yuin/goldmark/ast"
)

// Limits on packet.json's terms (docs/packets.md#terms).
const (
	maxTermsPerLanguage = 200
	maxTermLen          = 200
)

// TaskIn returns the task as a workspace in lang reads it: each inline code span of task.md
// whose text is a key of the manifest's Terms[lang] names that language's own function, type,
// file or value instead (`call_with_retry` becomes `callWithRetry` for node). Code blocks and
// prose are left as written. A language without terms, or the text of a packet whose
// rewritten task would not parse, gives the task unchanged.
func (p *Packet) TaskIn(lang string) Task {
	terms := p.Terms[lang]
	if len(terms) == 0 {
		return p.Task
	}
	src := ReplaceCodeSpans([]byte(p.Task.Markdown), terms)
	t, err := ParseTask("task.md", src)
	if err != nil {
		return p.Task
	}
	return t
}

// normalizeSpan is a code span's text as CommonMark reads it: line breaks are spaces. Runs of
// spaces are folded too, so a key matches however a span was wrapped in the source.
func normalizeSpan(s string) string { return strings.Join(strings.Fields(s), " ") }

// ReplaceCodeSpans returns src with every inline code span whose text (line breaks read as
// spaces) is a key of terms replaced by a code span of its value. Fenced and indented code
// blocks are never touched.
func ReplaceCodeSpans(src []byte, terms map[string]string) []byte {
	if len(terms) == 0 {
		return src
	}
	norm := make(map[string]string, len(terms))
	for k, v := range terms {
		norm[normalizeSpan(k)] = v
	}
	type edit struct {
		start, end int
		text       string
	}
	var edits []edit
	doc := parseMarkdown(src)
	ast.Walk(doc, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering {
			return ast.WalkContinue, nil
		}
		cs, ok := n.(*ast.CodeSpan)
		if !ok {
			return ast.WalkContinue, nil
		}
		start, end, text, ok := codeSpanRange(cs, src)
		if !ok {
			return ast.WalkSkipChildren, nil
		}
		if v, ok := norm[normalizeSpan(text)]; ok {
			edits = append(edits, edit{start, end, "`" + v + "`"})
		}
		return ast.WalkSkipChildren, nil
	})
	if len(edits) == 0 {
		return src
	}
	slices.SortFunc(edits, func(a, b edit) int { return a.start - b.start })
	var out bytes.Buffer
	last := 0
	for _, e := range edits {
		if e.start < last {
			continue
		}
		out.Write(src[last:e.start])
		out.WriteString(e.text)
		last = e.end
	}
	out.Write(src[last:])
	return out.Bytes()
}

// codeSpanRange finds a code span's bytes in src, from its opening backticks to the end of its
// closing ones, and its text; ok is false when the span's source cannot be located exactly.
func codeSpanRange(cs *ast.CodeSpan, src []byte) (start, end int, text string, ok bool) {
	first, last := -1, -1
	var b strings.Builder
	for c := cs.FirstChild(); c != nil; c = c.NextSibling() {
		t, isText := c.(*ast.Text)
		if !isText {
			return 0, 0, "", false
		}
		if first < 0 {
			first = t.Segment.Start
		}
		last = t.Segment.Stop
		b.Write(t.Segment.Value(src))
		if t.SoftLineBreak() || t.HardLineBreak() {
			b.WriteByte(' ')
		}
	}
	if first < 0 {
		return 0, 0, "", false
	}
	// The opening run of backticks ends just before the text (or one padding space before it).
	open := first
	if open > 0 && src[open-1] == ' ' && open > 1 && src[open-2] == '`' {
		open--
	}
	n := 0
	for open > 0 && src[open-1] == '`' {
		open--
		n++
	}
	if n == 0 {
		return 0, 0, "", false
	}
	closeAt := last
	for closeAt < len(src) && (src[closeAt] == ' ' || src[closeAt] == '\n' || src[closeAt] == '\r') && !bytes.HasPrefix(src[closeAt:], bytes.Repeat([]byte("`"), n)) {
		closeAt++
	}
	if !bytes.HasPrefix(src[closeAt:], bytes.Repeat([]byte("`"), n)) {
		return 0, 0, "", false
	}
	return open, closeAt + n, b.String(), true
}

// checkTerms reports what is wrong with packet.json's terms: a language key that is no
// language name, an empty or over-long key or value, one holding a backtick or a line break,
// or too many terms. Terms of a language the packet offers no template for are unused, not
// wrong (a copy of a packet may keep fewer languages).
func (m *Manifest) checkTerms(file string, ps *Problems, fieldLine func(string) int) {
	for _, lang := range slices.Sorted(maps.Keys(m.Terms)) {
		terms := m.Terms[lang]
		if !idPattern.MatchString(lang) {
			ps.add(file, fieldLine(lang), "terms: %q is not a language name such as node or go", lang)
		}
		if len(terms) > maxTermsPerLanguage {
			ps.add(file, fieldLine(lang), "terms: %s has %d terms; at most %d", lang, len(terms), maxTermsPerLanguage)
		}
		for _, k := range slices.Sorted(maps.Keys(terms)) {
			for _, s := range []string{k, terms[k]} {
				switch {
				case strings.TrimSpace(s) == "":
					ps.add(file, fieldLine(lang), "terms: %s: an empty term (key %q)", lang, k)
				case len(s) > maxTermLen:
					ps.add(file, fieldLine(lang), "terms: %s: %q is longer than %d bytes", lang, s[:40]+"…", maxTermLen)
				case strings.ContainsAny(s, "`\r\n"):
					ps.add(file, fieldLine(lang), "terms: %s: %q holds a backtick or a line break; a term is the text of one code span", lang, s)
				}
			}
		}
	}
}
