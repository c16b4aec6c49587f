package katas

import (
	"strings"

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
}

// trapColumns are the header cells a trap table must have, compared case-insensitively.
var trapColumns = []string{"trap", "why it fails", "correct pattern"}

// ParseTraps reads traps.md: every level-2 heading with a GFM table of the columns
// Trap | Why it fails | Correct pattern. A table with other columns, an empty cell or a section
// with no table is an error naming file and line.
func ParseTraps(file string, src []byte) ([]TrapTable, error) {
	doc := parseMarkdown(src)
	_, secs := sections(doc, src)
	var tables []TrapTable
	for _, s := range secs {
		tt := TrapTable{Title: plainText(s.heading, src)}
		line := lineOf(src, firstOffset(s.heading))
		for _, b := range s.blocks {
			tbl, ok := b.(*extast.Table)
			if !ok {
				continue
			}
			for row := tbl.FirstChild(); row != nil; row = row.NextSibling() {
				cells := cellTexts(row, src)
				rl := lineOf(src, firstOffset(row))
				if _, isHeader := row.(*extast.TableHeader); isHeader {
					if len(cells) != 3 || !equalFold(cells, trapColumns) {
						return nil, errAt(file, lineOf(src, firstOffset(tbl)), "a trap table's columns must be Trap | Why it fails | Correct pattern, found %s", strings.Join(cells, " | "))
					}
					continue
				}
				if len(cells) != 3 || cells[0] == "" || cells[1] == "" || cells[2] == "" {
					return nil, errAt(file, rl, "trap row needs all three cells filled")
				}
				tt.Rows = append(tt.Rows, Trap{Trap: cells[0], WhyItFails: cells[1], Correct: cells[2], Line: rl})
			}
		}
		if len(tt.Rows) == 0 {
			return nil, errAt(file, line, "section %q has no trap table rows", tt.Title)
		}
		tables = append(tables, tt)
	}
	return tables, nil
}

func cellTexts(row ast.Node, src []byte) []string {
	var cells []string
	for c := row.FirstChild(); c != nil; c = c.NextSibling() {
		cells = append(cells, plainText(c, src))
	}
	return cells
}

func equalFold(a, b []string) bool {
	for i := range a {
		if !strings.EqualFold(strings.TrimSpace(a[i]), b[i]) {
			return false
		}
	}
	return true
}
