package katas

import (
	"io/fs"
	"path"
	"regexp"
	"slices"
	"strings"

	"github.com/yuin/goldmark/ast"
)

// Prompt is one ready prompt of a packet's prompts layer, one file each (docs/packets.md,
// "Ready prompts"): the file's first level-1 heading is its title, the first paragraph after
// that heading says when to use it, and its first fenced code block is the text to paste.
// Fill-ins in that text are written `<like this>`; those the file names under an
// "## Arguments" heading are the prompt's arguments, which a host (an MCP client's prompt
// picker) can fill in.
type Prompt struct {
	// Name is the file name without ".md" and without a leading number and dash:
	// "01-review-my-error-contract.md" → "review-my-error-contract".
	Name string
	// File is the layer file's name, e.g. "01-review-my-error-contract.md".
	File string
	// Title is the first level-1 heading's text, else Name.
	Title string
	// Description is the first paragraph after the title, as plain text ("" when none).
	Description string
	// Text is the body of the first fenced code block, else the whole file.
	Text string
	// Arguments are the named fill-ins, in the order the file lists them.
	Arguments []PromptArgument
}

// PromptArgument is one named fill-in of a prompt: a list item under "## Arguments" that starts
// with the argument's name in a code span and names, in another code span, the placeholder of
// the prompt's text it replaces:
//
//   - `server_source`: the server's source code; replaces `<paste server.py here>`.
type PromptArgument struct {
	// Name is lower-case letters, digits and '_', starting with a letter.
	Name string
	// Placeholder is the fill-in as written in the text, angle brackets included.
	Placeholder string
	// Description is the list item's text after the name.
	Description string
	// Line is the list item's line in the file.
	Line int
}

// argumentName is the form of a prompt argument's name: an identifier any host can pass.
var argumentName = regexp.MustCompile(`^[a-z][a-z0-9_]*$`)

// ParsePrompt reads one file of the prompts layer; file is its path for problems and md its
// Markdown. It returns the prompt as far as it could be read and, when the Arguments section
// has problems, Problems naming file and line: an item that does not start with a name in a
// code span, a name used twice or not an identifier, no placeholder in a code span, or a
// placeholder the text does not contain. A file without an Arguments section has no
// arguments and no problem.
func ParsePrompt(file, md string) (Prompt, error) {
	var ps Problems
	src := cleanMarkdown([]byte(md))
	doc := parseMarkdown(src)
	base := strings.TrimSuffix(path.Base(file), ".md")
	p := Prompt{Name: promptName(base), File: path.Base(file), Title: base, Text: strings.TrimSpace(md)}
	titled, described, coded := false, false, false
	var args *ast.List
	inArgs := false
	for c := doc.FirstChild(); c != nil; c = c.NextSibling() {
		switch n := c.(type) {
		case *ast.Heading:
			inArgs = n.Level == 2 && plainText(n, src) == "Arguments"
			if n.Level == 1 && !titled {
				p.Title, titled = plainText(n, src), true
			}
		case *ast.Paragraph:
			if titled && !described && !coded {
				p.Description, described = plainText(n, src), true
			}
		case *ast.FencedCodeBlock:
			if !coded {
				p.Text, coded = strings.TrimRight(string(n.Lines().Value(src)), "\n"), true
			}
		case *ast.List:
			if inArgs && args == nil {
				args = n
			}
		}
	}
	if args != nil {
		p.Arguments = parseArguments(file, src, args, p.Text, &ps)
	}
	return p, ps.Err()
}

// promptName drops a leading "NN-" from a file's base name.
func promptName(base string) string {
	i := 0
	for i < len(base) && base[i] >= '0' && base[i] <= '9' {
		i++
	}
	if i > 0 && i < len(base)-1 && base[i] == '-' {
		return base[i+1:]
	}
	return base
}

// parseArguments reads the list under "## Arguments"; each item names an argument and its
// placeholder, which must occur in text.
func parseArguments(file string, src []byte, list *ast.List, text string, ps *Problems) []PromptArgument {
	var out []PromptArgument
	seen := map[string]bool{}
	fills := placeholders(text)
	for li := list.FirstChild(); li != nil; li = li.NextSibling() {
		line := lineOf(src, FirstOffset(li))
		block := li.FirstChild()
		if block == nil {
			ps.add(file, line, "an argument item is empty; write - `name`: what it is; replaces `<placeholder>`")
			continue
		}
		first, ok := block.FirstChild().(*ast.CodeSpan)
		if !ok {
			ps.add(file, line, "an argument item must start with the argument's name in backticks, e.g. - `server_source`: …")
			continue
		}
		a := PromptArgument{Name: plainText(first, src), Line: line}
		if !argumentName.MatchString(a.Name) {
			ps.add(file, line, "argument name %q must be lower-case letters, digits and '_', starting with a letter", a.Name)
			continue
		}
		if seen[a.Name] {
			ps.add(file, line, "argument %q is listed twice", a.Name)
			continue
		}
		seen[a.Name] = true
		for c := first.NextSibling(); c != nil; c = c.NextSibling() {
			if cs, ok := c.(*ast.CodeSpan); ok {
				if t := plainText(cs, src); strings.HasPrefix(t, "<") && strings.HasSuffix(t, ">") {
					a.Placeholder = t
					break
				}
			}
		}
		all := plainText(block, src)
		a.Description = strings.TrimSpace(strings.TrimLeft(strings.TrimPrefix(all, "`"+a.Name+"`"), " :—–-"))
		switch {
		case a.Placeholder == "":
			ps.add(file, line, "argument %q names no placeholder: add the fill-in it replaces in backticks, e.g. `<paste server.py here>`", a.Name)
			continue
		case !fills[fold(a.Placeholder)]:
			ps.add(file, line, "argument %q: the prompt's text has no placeholder %s", a.Name, a.Placeholder)
			continue
		}
		out = append(out, a)
	}
	return out
}

// Fill returns the prompt's text with every placeholder of a named argument replaced by its
// value in values (keyed by argument name). Arguments without a value, or with an empty one,
// keep their placeholder, so the reader still sees what to fill in. Placeholders match as
// written, except that any run of white space (a line break inside a long placeholder) matches
// any other.
func (p Prompt) Fill(values map[string]string) string {
	with := map[string]string{}
	for _, a := range p.Arguments {
		if v := values[a.Name]; v != "" {
			with[fold(a.Placeholder)] = v
		}
	}
	if len(with) == 0 {
		return p.Text
	}
	return replaceFills(p.Text, func(fill string) string {
		if v, ok := with[fold(fill)]; ok {
			return v
		}
		return fill
	})
}

// placeholders returns the set of `<…>` fill-ins in a prompt's text, white space folded.
func placeholders(text string) map[string]bool {
	out := map[string]bool{}
	replaceFills(text, func(fill string) string {
		out[fold(fill)] = true
		return fill
	})
	return out
}

// replaceFills returns text with each `<…>` fill-in (from a '<' to the next '>') replaced by
// what with returns for it. The text is a prompt to paste, plain text rather than Markdown.
func replaceFills(text string, with func(fill string) string) string {
	var b strings.Builder
	for {
		open := strings.IndexByte(text, '<')
		if open < 0 {
			break
		}
		end := strings.IndexByte(text[open:], '>')
		if end < 0 {
			break
		}
		b.WriteString(text[:open])
		b.WriteString(with(text[open : open+end+1]))
		text = text[open+end+1:]
	}
	b.WriteString(text)
	return b.String()
}

// fold joins every run of white space into one space, so a placeholder broken over two lines
// matches the same placeholder written on one.
func fold(s string) string { return strings.Join(strings.Fields(s), " ") }

// validatePrompts parses every file of the prompts layer, recording the problems of their
// Arguments sections. It reads the files directly, so it never touches a library's resident
// layer.
func validatePrompts(fsys fs.FS, dir string, p *Packet, ps *Problems) {
	if !slices.Contains(p.Layers, "prompts") {
		return
	}
	names, err := layerFiles(fsys, dir, "prompts")
	if err != nil {
		return // reported by CheckPacket
	}
	for _, n := range names {
		file := path.Join(dir, "prompts", n)
		b, err := fs.ReadFile(fsys, file)
		if err != nil {
			ps.add(file, 0, "cannot read: %v", unwrapPathError(err))
			continue
		}
		if !markdownFit(b) {
			continue // reported by CheckPacket (readLayer)
		}
		_, err = ParsePrompt(file, string(b))
		ps.addErr(file, err)
	}
}
