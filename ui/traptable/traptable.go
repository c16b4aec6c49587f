// Package traptable lays out a packet's trap tables (Trap | Why it fails | Correct pattern) as
// terminal tables that fit a given width; it is headless and shared by the TUI and the CLI.
package traptable

import (
	"strings"

	"charm.land/lipgloss/v2"
	"charm.land/lipgloss/v2/table"
	"github.com/charmbracelet/x/ansi"
	"github.com/kata-mcp/kata/katas"
	"github.com/kata-mcp/kata/ui/markdown"
)

// Headers are the three column titles of every trap table.
var Headers = []string{"Trap", "Why it fails", "Correct pattern"}

// Styles are the lipgloss styles of the parts of a trap table.
type Styles struct {
	Title  lipgloss.Style // a table's section title
	Header lipgloss.Style // header cells
	Cell   lipgloss.Style // data cells
	Border lipgloss.Style // the table's borders
	Label  lipgloss.Style // column labels in the stacked layout
	Code   lipgloss.Style // code spans inside cells (their backticks are dropped)
}

// Plain returns styles without colour (NO_COLOR, pipes, tests): bold titles and headers only.
func Plain() Styles {
	return Styles{
		Title:  lipgloss.NewStyle().Bold(true),
		Header: lipgloss.NewStyle().Bold(true),
		Cell:   lipgloss.NewStyle(),
		Border: lipgloss.NewStyle(),
		Label:  lipgloss.NewStyle().Bold(true),
		Code:   lipgloss.NewStyle(),
	}
}

// Colored returns coloured styles for a dark or light terminal background.
func Colored(isDark bool) Styles {
	ld := lipgloss.LightDark(isDark)
	accent := ld(lipgloss.Color("#5A3FC0"), lipgloss.Color("#B7A6FF"))
	dim := ld(lipgloss.Color("#A0A0A0"), lipgloss.Color("#5C5C5C"))
	return Styles{
		Title:  lipgloss.NewStyle().Bold(true).Foreground(accent),
		Header: lipgloss.NewStyle().Bold(true).Foreground(accent),
		Cell:   lipgloss.NewStyle(),
		Border: lipgloss.NewStyle().Foreground(dim),
		Label:  lipgloss.NewStyle().Bold(true).Foreground(accent),
		Code:   lipgloss.NewStyle().Foreground(ld(lipgloss.Color("#A4461F"), lipgloss.Color("#E8A87C"))),
	}
}

// cellPadding is the horizontal padding on each side of a cell.
const cellPadding = 1

// Render lays out every trap table under its title, each as a bordered table exactly width
// columns wide with wrapped cells. When a table cannot fit (a very narrow terminal) its rows
// are stacked instead: each trap followed by its labelled reasons. No line of the result is
// wider than width.
func Render(tables []katas.TrapTable, width int, s Styles) string {
	return RenderIn(tables, width, s, Headers)
}

// RenderIn is Render with the column titles (and stacked labels) headers: Headers in the
// reader's language. The packet's own header row is what the parser reads; this only shows.
func RenderIn(tables []katas.TrapTable, width int, s Styles, headers []string) string {
	width = max(width, 1)
	var parts []string
	for _, t := range tables {
		title := s.Title.Render(ansi.Wrap(t.Title, width, ""))
		parts = append(parts, title+"\n"+renderOne(t, width, s, headers))
	}
	return strings.Join(parts, "\n\n")
}

// renderOne renders one table, falling back to the stacked layout when it does not fit.
func renderOne(t katas.TrapTable, width int, s Styles, headers []string) string {
	if out, ok := renderTable(t, width, s, headers); ok {
		return out
	}
	return renderStacked(t, width, s, headers)
}

// MinTableWidth is the narrowest width at which a trap table is drawn as a bordered table
// (about 16 columns of text per cell); narrower, the rows are stacked.
const MinTableWidth = 60

func renderTable(t katas.TrapTable, width int, s Styles, headers []string) (string, bool) {
	if width < MinTableWidth {
		return "", false
	}
	tbl := table.New().
		Border(lipgloss.RoundedBorder()).
		BorderStyle(s.Border).
		BorderRow(true).
		Headers(headers...).
		Wrap(true).
		Width(width).
		StyleFunc(func(row, _ int) lipgloss.Style {
			if row == table.HeaderRow {
				return s.Header.Padding(0, cellPadding)
			}
			return s.Cell.Padding(0, cellPadding)
		})
	for _, r := range t.Rows {
		tbl.Row(cells(r, s)...)
	}
	out := tbl.String()
	for _, line := range strings.Split(out, "\n") {
		if lipgloss.Width(line) > width {
			return "", false
		}
	}
	return out, true
}

func renderStacked(t katas.TrapTable, width int, s Styles, headers []string) string {
	var b strings.Builder
	for i, r := range t.Rows {
		if i > 0 {
			b.WriteString("\n\n")
		}
		c := cells(r, s)
		b.WriteString(wrapHanging("• ", s.Label.Render(headers[0]+": ")+c[0], width))
		b.WriteString("\n")
		b.WriteString(wrapHanging("  ", s.Label.Render(headers[1]+": ")+c[1], width))
		b.WriteString("\n")
		b.WriteString(wrapHanging("  ", s.Label.Render(headers[2]+": ")+c[2], width))
	}
	return b.String()
}

// cells renders a row's three cells' inline Markdown (code spans, emphasis) for the terminal.
func cells(r katas.Trap, s Styles) []string {
	return []string{
		markdown.Inline(r.Trap, s.Code),
		markdown.Inline(r.WhyItFails, s.Code),
		markdown.Inline(r.Correct, s.Code),
	}
}

// wrapHanging wraps text to width with prefix on the first line and as much indentation on the
// following ones.
func wrapHanging(prefix, text string, width int) string {
	indent := lipgloss.Width(prefix)
	inner := max(width-indent, 1)
	lines := strings.Split(ansi.Wrap(text, inner, ""), "\n")
	for i, l := range lines {
		if i == 0 {
			lines[i] = prefix + l
		} else {
			lines[i] = strings.Repeat(" ", indent) + l
		}
	}
	// A prefix wider than width (width 1) would still overflow: hard-cut as a last resort.
	for i, l := range lines {
		if lipgloss.Width(l) > width {
			lines[i] = ansi.Truncate(l, width, "")
		}
	}
	return strings.Join(lines, "\n")
}
