package markdown

import (
	"fmt"
	"strings"
	"sync"

	"charm.land/glamour/v2"
	gansi "charm.land/glamour/v2/ansi"
	"charm.land/glamour/v2/styles"
	"charm.land/lipgloss/v2"
	"github.com/alecthomas/chroma/v2"
	"github.com/alecthomas/chroma/v2/formatters"
	"github.com/alecthomas/chroma/v2/lexers"
)

// theme is one glamour style as the layout uses it: glamour renderers without the document
// margin (the layout adds margins itself), one per width, and the marks lists, quotes and code
// blocks are drawn with.
type theme struct {
	name string
	cfg  gansi.StyleConfig

	bullet, enumSuffix string // "• ", and ". " after an item's number
	ticked, unticked   string // task list boxes
	quoteBar           string // "│ " before every line of a block quote
	codeMargin         int    // columns code blocks are indented by
	docMargin          int    // columns the whole document is indented by
	codeColor          lipgloss.Style
	markColor          lipgloss.Style
	chroma             *chroma.Style // nil: code is not highlighted

	mu        sync.Mutex
	renderers map[int]*lockedRenderer
}

var (
	themesMu sync.Mutex
	themes   = map[string]*theme{}
)

// themeFor returns the theme of a glamour style name.
func themeFor(name string) (*theme, error) {
	themesMu.Lock()
	defer themesMu.Unlock()
	if t, ok := themes[name]; ok {
		return t, nil
	}
	base, ok := styles.DefaultStyles[name]
	if !ok {
		return nil, fmt.Errorf("markdown: unknown style %q (known: %s)", name, strings.Join(Styles(), ", "))
	}
	cfg := *base
	t := &theme{name: name, renderers: map[int]*lockedRenderer{}}
	t.docMargin = int(deref(cfg.Document.Margin))
	zero := uint(0)
	cfg.Document.Margin = &zero
	cfg.Document.BlockPrefix, cfg.Document.BlockSuffix = "", ""
	t.cfg = cfg

	t.bullet = or(cfg.Item.BlockPrefix, "• ")
	t.enumSuffix = or(cfg.Enumeration.BlockPrefix, ". ")
	t.ticked = or(cfg.Task.Ticked, "[x] ")
	t.unticked = or(cfg.Task.Unticked, "[ ] ")
	t.quoteBar = "│ "
	if cfg.BlockQuote.IndentToken != nil {
		t.quoteBar = *cfg.BlockQuote.IndentToken
	}
	t.codeMargin = int(deref(cfg.CodeBlock.Margin) + deref(cfg.CodeBlock.Indent))
	t.codeColor = primitive(cfg.CodeBlock.StylePrimitive)
	t.markColor = primitive(cfg.Document.StylePrimitive)
	if c := cfg.CodeBlock.Chroma; c != nil {
		t.chroma = chromaStyle("kata-"+name, c)
	}
	themes[name] = t
	return t, nil
}

// glamour renders md at width with the style's renderer for that width (created once, used
// under its lock).
func (t *theme) glamour(md string, width int) (string, error) {
	t.mu.Lock()
	lr, ok := t.renderers[width]
	if !ok {
		cfg := t.cfg
		r, err := glamour.NewTermRenderer(glamour.WithStyles(cfg), glamour.WithWordWrap(width))
		if err != nil {
			t.mu.Unlock()
			return "", fmt.Errorf("markdown: %w", err)
		}
		lr = &lockedRenderer{r: r}
		t.renderers[width] = lr
	}
	t.mu.Unlock()
	lr.mu.Lock()
	defer lr.mu.Unlock()
	out, err := lr.r.Render(md)
	if err != nil {
		return "", fmt.Errorf("markdown: %w", err)
	}
	return out, nil
}

// highlight returns code's lines, highlighted for lang in colour styles, else in the code
// block's colour; an unknown language is shown as plain text.
func (t *theme) highlight(code, lang string) []string {
	lines := strings.Split(code, "\n")
	if t.chroma == nil {
		for i, l := range lines {
			lines[i] = t.codeColor.Render(l)
		}
		return lines
	}
	lexer := lexers.Get(lang)
	if lexer == nil {
		lexer = lexers.Fallback
	}
	it, err := chroma.Coalesce(lexer).Tokenise(nil, code+"\n")
	if err != nil {
		return lines
	}
	var out []string
	for _, toks := range chroma.SplitTokensIntoLines(it.Tokens()) {
		for i := range toks {
			toks[i].Value = strings.TrimSuffix(toks[i].Value, "\n")
		}
		var b strings.Builder
		if err := formatters.TTY256.Format(&b, t.chroma, chroma.Literator(toks...)); err != nil {
			return lines
		}
		out = append(out, b.String())
	}
	for len(out) < len(lines) {
		out = append(out, "")
	}
	return out[:len(lines)]
}

// markerStyle draws a list marker in the document's colour.
func (t *theme) markerStyle(m string) string { return t.markColor.Render(m) }

// quoteStyle draws a block quote's bar in the document's colour.
func (t *theme) quoteStyle(bar string) string { return t.markColor.Render(bar) }

// primitive turns a glamour style primitive's colours and weight into a lipgloss style.
func primitive(p gansi.StylePrimitive) lipgloss.Style {
	s := lipgloss.NewStyle()
	if p.Color != nil {
		s = s.Foreground(lipgloss.Color(*p.Color))
	}
	if p.BackgroundColor != nil {
		s = s.Background(lipgloss.Color(*p.BackgroundColor))
	}
	if p.Bold != nil && *p.Bold {
		s = s.Bold(true)
	}
	return s
}

// chromaStyle builds the chroma style of a glamour style's code-block colours (as glamour
// itself does, under a name of our own: glamour registers every style as "charm", so the
// first style used would win).
func chromaStyle(name string, c *gansi.Chroma) *chroma.Style {
	entry := func(p gansi.StylePrimitive) string {
		var parts []string
		if p.Color != nil {
			parts = append(parts, *p.Color)
		}
		if p.BackgroundColor != nil {
			parts = append(parts, "bg:"+*p.BackgroundColor)
		}
		if p.Italic != nil && *p.Italic {
			parts = append(parts, "italic")
		}
		if p.Bold != nil && *p.Bold {
			parts = append(parts, "bold")
		}
		if p.Underline != nil && *p.Underline {
			parts = append(parts, "underline")
		}
		return strings.Join(parts, " ")
	}
	s, err := chroma.NewStyle(name, chroma.StyleEntries{
		chroma.Text:                entry(c.Text),
		chroma.Error:               entry(c.Error),
		chroma.Comment:             entry(c.Comment),
		chroma.CommentPreproc:      entry(c.CommentPreproc),
		chroma.Keyword:             entry(c.Keyword),
		chroma.KeywordReserved:     entry(c.KeywordReserved),
		chroma.KeywordNamespace:    entry(c.KeywordNamespace),
		chroma.KeywordType:         entry(c.KeywordType),
		chroma.Operator:            entry(c.Operator),
		chroma.Punctuation:         entry(c.Punctuation),
		chroma.Name:                entry(c.Name),
		chroma.NameBuiltin:         entry(c.NameBuiltin),
		chroma.NameTag:             entry(c.NameTag),
		chroma.NameAttribute:       entry(c.NameAttribute),
		chroma.NameClass:           entry(c.NameClass),
		chroma.NameConstant:        entry(c.NameConstant),
		chroma.NameDecorator:       entry(c.NameDecorator),
		chroma.NameException:       entry(c.NameException),
		chroma.NameFunction:        entry(c.NameFunction),
		chroma.NameOther:           entry(c.NameOther),
		chroma.Literal:             entry(c.Literal),
		chroma.LiteralNumber:       entry(c.LiteralNumber),
		chroma.LiteralDate:         entry(c.LiteralDate),
		chroma.LiteralString:       entry(c.LiteralString),
		chroma.LiteralStringEscape: entry(c.LiteralStringEscape),
		chroma.GenericDeleted:      entry(c.GenericDeleted),
		chroma.GenericEmph:         entry(c.GenericEmph),
		chroma.GenericInserted:     entry(c.GenericInserted),
		chroma.GenericStrong:       entry(c.GenericStrong),
		chroma.GenericSubheading:   entry(c.GenericSubheading),
		chroma.Background:          entry(c.Background),
	})
	if err != nil {
		return nil
	}
	return s
}

func deref(p *uint) uint {
	if p == nil {
		return 0
	}
	return *p
}

func or(s, def string) string {
	if s == "" {
		return def
	}
	return s
}
