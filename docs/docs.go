// Package docs holds the project's documentation pages (the *.md files beside this one),
// embedded in the binary so that `kata docs` prints them and every link kata prints, such as
// docs/grading.md#seed, resolves for a user who has only the binary.
package docs

import (
	"embed"
	"fmt"
	"io/fs"
	"regexp"
	"slices"
	"strings"
)

//go:embed *.md
var files embed.FS

// Page is one documentation page.
type Page struct {
	// Name is the file name without .md: "grading".
	Name string
	// Title is the page's first heading.
	Title string
	// Markdown is the whole page.
	Markdown string
}

// Pages returns every page, by name.
func Pages() []Page {
	names, _ := fs.Glob(files, "*.md")
	var out []Page
	for _, n := range names {
		p, _ := Get(n)
		out = append(out, p)
	}
	return out
}

// Names returns the pages' names, sorted.
func Names() []string {
	var out []string
	for _, p := range Pages() {
		out = append(out, p.Name)
	}
	return out
}

// Get returns the page a reference names: "grading", "grading.md" or "docs/grading.md"
// (an anchor after # is ignored).
func Get(ref string) (Page, bool) {
	name, _, _ := strings.Cut(ref, "#")
	name = strings.TrimSuffix(strings.TrimPrefix(name, "docs/"), ".md")
	if name == "" || strings.ContainsAny(name, "/\\") {
		return Page{}, false
	}
	b, err := files.ReadFile(name + ".md")
	if err != nil {
		return Page{}, false
	}
	md := string(b)
	title := name
	for _, l := range strings.Split(md, "\n") {
		if t, ok := strings.CutPrefix(l, "# "); ok {
			title = strings.ReplaceAll(t, "`", "")
			break
		}
	}
	return Page{Name: name, Title: title, Markdown: md}, true
}

// WithoutAnchors returns md without its <a id="…"></a> tags, for a renderer that would show them.
func WithoutAnchors(md string) string { return anchorTag.ReplaceAllString(md, "") }

// Split splits a link such as docs/grading.md#seed into the page and the anchor ("" when
// there is none).
func Split(ref string) (page, anchor string) {
	page, anchor, _ = strings.Cut(ref, "#")
	return page, anchor
}

var (
	anchorTag  = regexp.MustCompile(`<a id="([^"]+)"></a>`)
	anchorLink = regexp.MustCompile(`\]\(#([^)]+)\)`)
	listItem   = regexp.MustCompile(`^\s*([-*]|\d+\.)\s`)
)

// Slug is the anchor GitHub gives a heading: lower case, punctuation but hyphens dropped,
// spaces turned into hyphens ("## 10. Every rule by id" is 10-every-rule-by-id).
func Slug(heading string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(strings.TrimSpace(strings.TrimLeft(heading, "#"))) {
		switch {
		case r == ' ':
			b.WriteByte('-')
		case r == '-' || r == '_' || r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r > 127:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// heading returns a line's heading level, 0 when it is no heading.
func heading(l string) int {
	n := 0
	for n < len(l) && l[n] == '#' {
		n++
	}
	if n == 0 || n > 6 || n == len(l) || l[n] != ' ' {
		return 0
	}
	return n
}

// Section returns the part of a page an anchor names: an <a id> tag or a heading's slug. A
// heading's section runs to the next heading of its level or above; a table row (a rule of the
// rule index) comes with its table's header and the sections its links point to; an anchor
// in a list item or a paragraph gives that item or paragraph. The anchor tags themselves are
// left out. An error names the anchor and the page.
func Section(p Page, anchor string) (string, error) {
	lines := strings.Split(p.Markdown, "\n")
	fence := false
	at := -1
	for i, l := range lines {
		if strings.HasPrefix(strings.TrimSpace(l), "```") {
			fence = !fence
			continue
		}
		if fence {
			continue
		}
		if strings.Contains(l, `<a id="`+anchor+`"></a>`) || heading(l) > 0 && Slug(l) == anchor {
			at = i
			break
		}
	}
	if at < 0 {
		return "", fmt.Errorf("docs/%s.md has no section #%s", p.Name, anchor)
	}
	var out []string
	l := lines[at]
	switch {
	case strings.TrimSpace(anchorTag.ReplaceAllString(l, "")) == "" || heading(l) > 0:
		start := at
		for start < len(lines) && heading(lines[start]) == 0 && strings.TrimSpace(anchorTag.ReplaceAllString(lines[start], "")) == "" {
			start++
		}
		if start < len(lines) && heading(lines[start]) > 0 {
			out = headingSection(lines, start)
		} else {
			out = block(lines, start, false)
		}
	case strings.HasPrefix(strings.TrimSpace(l), "|"):
		top := at
		for top > 0 && strings.HasPrefix(strings.TrimSpace(lines[top-1]), "|") {
			top--
		}
		out = append(out, lines[top])
		if top+1 < at {
			out = append(out, lines[top+1])
		}
		out = append(out, l)
		var seen []string
		for _, m := range anchorLink.FindAllStringSubmatch(l, -1) {
			if slices.Contains(seen, m[1]) || m[1] == anchor {
				continue
			}
			seen = append(seen, m[1])
			if more, err := Section(p, m[1]); err == nil && !strings.HasPrefix(strings.TrimSpace(more), "|") {
				out = append(out, "", more)
			}
		}
	default:
		out = block(lines, at, listItem.MatchString(l))
	}
	return strings.TrimSpace(anchorTag.ReplaceAllString(strings.Join(out, "\n"), "")) + "\n", nil
}

// headingSection is the heading at lines[start] and everything under it.
func headingSection(lines []string, start int) []string {
	level := heading(lines[start])
	fence := false
	end := start + 1
	for ; end < len(lines); end++ {
		l := lines[end]
		if strings.HasPrefix(strings.TrimSpace(l), "```") {
			fence = !fence
		}
		if fence {
			continue
		}
		if h := heading(l); h > 0 && h <= level {
			break
		}
		// An anchor tag right before the next heading belongs to it.
		if strings.TrimSpace(anchorTag.ReplaceAllString(l, "")) == "" && strings.Contains(l, "<a id=") && end+1 < len(lines) {
			if h := heading(lines[end+1]); h > 0 && h <= level {
				break
			}
		}
	}
	return lines[start:end]
}

// block is the paragraph, or with item the list item, that starts at lines[start].
func block(lines []string, start int, item bool) []string {
	end := start + 1
	for ; end < len(lines); end++ {
		l := lines[end]
		if strings.TrimSpace(l) == "" || heading(l) > 0 || item && listItem.MatchString(l) {
			break
		}
	}
	return lines[start:end]
}
