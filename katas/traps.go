package katas

import (
	"strings"
	"unicode"

	"github.com/yuin/goldmark/ast"
	extast "github.com/yuin/goldmark/extension/ast"
)

// TrapTable is one table of traps under a level-2 heading of traps.md.
type TrapTable struct {
	Title string
	Rows  []Trap
}

// Trap is one row: the tempting mistake, why it fails, and the pattern to use instead.
type Trap struct {
	Trap, WhyItFails, Correct string
	Line                      int
	// English is, for a row read from a locale twin of traps.md (Library.Localized), the
	// English row it translates; nil in English. Its card (srs.TrapCardID) is the English
	// row's, so a card and its reviews are the same in every locale.
	English *TrapOrigin
}

// TrapOrigin is the English row a translated trap row stands for, and its table's title.
type TrapOrigin struct {
	Table string
	Row   Trap
}

// trapColumns are the header cells a trap table must have, compared case-insensitively.
var trapColumns = []string{"trap", "why it fails", "correct pattern"}

// ParseTraps reads traps.md: every level-2 heading with a GFM table of the columns
// Trap | Why it fails | Correct pattern. A table with other columns, an empty cell or a section
// with no table is a problem naming file and line; every problem is reported (the error, when
// not nil, is Problems).
func ParseTraps(file string, src []byte) ([]TrapTable, error) {
	return collect(func(ps *Problems) []TrapTable { return parseTraps(file, src, ps) })
}

func parseTraps(file string, src []byte, ps *Problems) []TrapTable {
	src = cleanMarkdown(src)
	doc := parseMarkdown(src)
	_, secs := sections(doc, src)
	var tables []TrapTable
	for _, s := range secs {
		tt := TrapTable{Title: plainText(s.heading, src)}
		line := lineOf(src, FirstOffset(s.heading))
		badHeader := false
		for _, b := range s.blocks {
			tbl, ok := b.(*extast.Table)
			if !ok {
				continue
			}
			for row := tbl.FirstChild(); row != nil; row = row.NextSibling() {
				cells := cellTexts(row, src)
				rl := lineOf(src, FirstOffset(row))
				if _, isHeader := row.(*extast.TableHeader); isHeader {
					if len(cells) != 3 || !equalFold(cells, trapColumns) {
						ps.add(file, lineOf(src, FirstOffset(tbl)), "a trap table's columns must be Trap | Why it fails | Correct pattern, found %s", strings.Join(cells, " | "))
						badHeader = true
						break
					}
					continue
				}
				if len(cells) != 3 || cells[0] == "" || cells[1] == "" || cells[2] == "" {
					ps.add(file, rl, "trap row needs all three cells filled")
				}
				for len(cells) < 3 {
					cells = append(cells, "")
				}
				tt.Rows = append(tt.Rows, Trap{Trap: cells[0], WhyItFails: cells[1], Correct: cells[2], Line: rl})
			}
		}
		if len(tt.Rows) == 0 && !badHeader {
			ps.add(file, line, "section %q has no trap table rows", tt.Title)
		}
		tables = append(tables, tt)
	}
	return tables
}

// TrapSlug is a trap table's reference name in coverage.md: its heading, lower-case, with
// every run of other characters than letters and digits turned into one '-' ("Client and
// agent side" → "client-and-agent-side").
func TrapSlug(title string) string {
	var b strings.Builder
	dash := false
	for _, r := range strings.ToLower(title) {
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			if dash && b.Len() > 0 {
				b.WriteByte('-')
			}
			b.WriteRune(r)
			dash = false
			continue
		}
		dash = true
	}
	return b.String()
}

func cellTexts(row ast.Node, src []byte) []string {
	var cells []string
	for c := row.FirstChild(); c != nil; c = c.NextSibling() {
		cells = append(cells, plainText(c, src))
	}
	return cells
}

func equalFold(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if !strings.EqualFold(strings.TrimSpace(a[i]), b[i]) {
			return false
		}
	}
	return true
}
