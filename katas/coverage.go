package katas

import (
	"regexp"
	"strconv"
	"strings"

	"github.com/yuin/goldmark/ast"
	extast "github.com/yuin/goldmark/extension/ast"
)

// CoverageRow is one row of coverage.md: a fact of the packet's source document (seed), where
// it stands in the seed, and the items, trap rows and task steps that teach or test it
// (docs/packets.md, "coverage.md").
type CoverageRow struct {
	// Seed is the seed's file name, e.g. "000_70b56512b6964d06.txt".
	Seed string
	// SeedLine is the 1-based line of the fact in the seed.
	SeedLine int
	// Fact is the fact in the packet's own words.
	Fact string
	Refs []CoverageRef
	// Line is the row's line in coverage.md.
	Line int
}

// Kinds of coverage references.
const (
	RefItem = "item" // an exam item, written `se-04`
	RefTrap = "trap" // a trap row, written trap:<table-slug>#<row>
	RefTask = "task" // a task step, written task:<N>
)

// CoverageRef is one reference of a coverage row's "Covered by" cell.
type CoverageRef struct {
	// Kind is RefItem, RefTrap or RefTask.
	Kind string
	// ID is the item id (RefItem).
	ID string
	// Table is the trap table's slug (TrapSlug of its heading) and Row its 1-based row
	// (RefTrap).
	Table string
	Row   int
	// Step is the task step number (RefTask).
	Step int
	// Text is the reference as written.
	Text string
}

// coverageColumns are the header cells coverage.md's table must have, compared
// case-insensitively.
var coverageColumns = []string{"seed", "line", "fact", "covered by"}

var (
	itemRefPattern = regexp.MustCompile("^`([^`]+)`$")
	trapRefPattern = regexp.MustCompile(`^trap:([a-z0-9]+(?:-[a-z0-9]+)*)#([0-9]+)$`)
	taskRefPattern = regexp.MustCompile(`^task:([0-9]+)$`)
)

// ParseCoverage reads coverage.md: one GFM table of the columns Seed | Line | Fact | Covered by.
// A row with no seed file name, a line that is not a whole number ≥ 1, an empty fact, or a
// reference that is none of `item-id`, trap:<slug>#<row>, task:<N> is a problem naming file
// and line. Whether the references exist is checked by Validate, which knows the packet.
// Every problem is reported (the error, when not nil, is Problems).
func ParseCoverage(file string, src []byte) ([]CoverageRow, error) {
	return collect(func(ps *Problems) []CoverageRow { return parseCoverage(file, src, ps) })
}

func parseCoverage(file string, src []byte, ps *Problems) []CoverageRow {
	doc := parseMarkdown(src)
	var rows []CoverageRow
	tables := 0
	for c := doc.FirstChild(); c != nil; c = c.NextSibling() {
		if p, ok := c.(*ast.Paragraph); ok && strings.HasPrefix(plainText(p, src), "|") {
			ps.add(file, lineOf(src, FirstOffset(p)), "a table row outside the table (a blank line or text splits it from the table)")
			continue
		}
		tbl, ok := c.(*extast.Table)
		if !ok {
			continue
		}
		tables++
		if tables > 1 {
			ps.add(file, lineOf(src, FirstOffset(tbl)), "coverage.md holds one table; this is a second one")
			continue
		}
		for row := tbl.FirstChild(); row != nil; row = row.NextSibling() {
			cells := cellTexts(row, src)
			rl := lineOf(src, FirstOffset(row))
			if _, isHeader := row.(*extast.TableHeader); isHeader {
				if !equalFold(cells, coverageColumns) {
					ps.add(file, lineOf(src, FirstOffset(tbl)), "the coverage table's columns must be Seed | Line | Fact | Covered by, found %s", strings.Join(cells, " | "))
					break
				}
				continue
			}
			for len(cells) < 4 {
				cells = append(cells, "")
			}
			rows = append(rows, parseCoverageRow(file, rl, cells, ps))
		}
	}
	if tables == 0 {
		ps.add(file, 1, "coverage.md has no table (Seed | Line | Fact | Covered by)")
	}
	return rows
}

func parseCoverageRow(file string, line int, cells []string, ps *Problems) CoverageRow {
	r := CoverageRow{Seed: strings.TrimSpace(cells[0]), Fact: strings.TrimSpace(cells[2]), Line: line}
	if r.Seed == "" || strings.ContainsAny(r.Seed, "/\\ `") {
		ps.add(file, line, "the Seed cell must be the seed's file name, found %q", r.Seed)
	}
	n, err := strconv.Atoi(strings.TrimSpace(cells[1]))
	if err != nil || n < 1 {
		ps.add(file, line, "the Line cell must be a line number ≥ 1 in the seed, found %q", cells[1])
	} else {
		r.SeedLine = n
	}
	if r.Fact == "" {
		ps.add(file, line, "the Fact cell is empty")
	}
	for _, part := range strings.Split(cells[3], ",") {
		text := strings.TrimSpace(part)
		if text == "" {
			continue
		}
		ref := CoverageRef{Text: text}
		var err error
		if m := itemRefPattern.FindStringSubmatch(text); m != nil {
			ref.Kind, ref.ID = RefItem, m[1]
		} else if m := trapRefPattern.FindStringSubmatch(text); m != nil {
			ref.Kind, ref.Table = RefTrap, m[1]
			ref.Row, err = strconv.Atoi(m[2])
		} else if m := taskRefPattern.FindStringSubmatch(text); m != nil {
			ref.Kind = RefTask
			ref.Step, err = strconv.Atoi(m[1])
		} else {
			ps.add(file, line, "reference %q is none of `item-id`, trap:<table-slug>#<row>, task:<N>", text)
			continue
		}
		if err != nil {
			ps.add(file, line, "reference %q: the number is out of range", text)
			continue
		}
		r.Refs = append(r.Refs, ref)
	}
	if len(r.Refs) == 0 {
		ps.add(file, line, "the fact is covered by nothing: name an item, a trap row or a task step")
	}
	return r
}

// seedTitles reads the titles coverage.md gives its seeds (docs/packets.md, "coverage.md"): a
// list item before the table reading `FILE`: title names the seed FILE. A seed without one is
// known by its file name.
func seedTitles(src []byte) map[string]string {
	titles := map[string]string{}
	doc := parseMarkdown(src)
	for c := doc.FirstChild(); c != nil; c = c.NextSibling() {
		if _, ok := c.(*extast.Table); ok {
			break
		}
		list, ok := c.(*ast.List)
		if !ok {
			continue
		}
		for it := list.FirstChild(); it != nil; it = it.NextSibling() {
			block := it.FirstChild()
			if block == nil {
				continue
			}
			code, ok := block.FirstChild().(*ast.CodeSpan)
			if !ok {
				continue
			}
			file := plainText(code, src)
			rest := strings.TrimPrefix(plainText(block, src), "`"+file+"`")
			title, ok := strings.CutPrefix(strings.TrimSpace(rest), ":")
			if title = strings.TrimSpace(title); ok && title != "" && file != "" {
				titles[file] = title
			}
		}
	}
	return titles
}

// checkRefs reports every reference of rows that names no item, trap row or task step of p.
func checkRefs(file string, rows []CoverageRow, p *Packet, ps *Problems) {
	items := map[string]bool{}
	for _, it := range p.Items {
		items[it.ID] = true
	}
	traps := map[string]int{}
	var slugs []string
	for _, t := range p.Traps {
		s := TrapSlug(t.Title)
		traps[s] = len(t.Rows)
		slugs = append(slugs, s)
	}
	for _, r := range rows {
		for _, ref := range r.Refs {
			switch ref.Kind {
			case RefItem:
				if !items[ref.ID] {
					ps.add(file, r.Line, "%s: exam.md has no item %q", ref.Text, ref.ID)
				}
			case RefTrap:
				n, ok := traps[ref.Table]
				switch {
				case !ok:
					ps.add(file, r.Line, "%s: traps.md has no table %q (tables: %s)", ref.Text, ref.Table, strings.Join(slugs, ", "))
				case ref.Row < 1 || ref.Row > n:
					ps.add(file, r.Line, "%s: table %q has rows 1–%d", ref.Text, ref.Table, n)
				}
			case RefTask:
				if _, ok := p.Task.Step(ref.Step); !ok {
					ps.add(file, r.Line, "%s: task.md has no step %d", ref.Text, ref.Step)
				}
			}
		}
	}
}
