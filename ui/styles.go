package ui

import (
	"image/color"

	"charm.land/bubbles/v2/help"
	"charm.land/lipgloss/v2"

	"github.com/kata-mcp/kata/ui/traptable"
)

// styles are the lipgloss styles of every screen, for one background and colour setting.
type styles struct {
	noColor bool

	title    lipgloss.Style // screen titles
	subtle   lipgloss.Style // secondary text: ids, counts, paths
	accent   lipgloss.Style // emphasis
	selected lipgloss.Style // the cursor line of a list
	tabOn    lipgloss.Style // the active layer tab
	tabOff   lipgloss.Style // inactive layer tabs
	pass     lipgloss.Style // passed tests, correct answers
	fail     lipgloss.Style // failed tests, wrong answers
	errBox   lipgloss.Style // a report that could not be graded
	label    lipgloss.Style // field labels ("Workspace", "Steps")
	help     help.Styles
	traps    traptable.Styles
}

// newStyles builds the styles for a dark or light background; noColor keeps only bold,
// underline and reverse video (NO_COLOR).
func newStyles(isDark, noColor bool) styles {
	if noColor {
		plain := lipgloss.NewStyle()
		h := help.Styles{
			Ellipsis:       plain,
			ShortKey:       plain.Bold(true),
			ShortDesc:      plain,
			ShortSeparator: plain,
			FullKey:        plain.Bold(true),
			FullDesc:       plain,
			FullSeparator:  plain,
		}
		return styles{
			noColor:  true,
			title:    plain.Bold(true),
			subtle:   plain,
			accent:   plain.Bold(true),
			selected: plain.Reverse(true),
			tabOn:    plain.Reverse(true).Padding(0, 1),
			tabOff:   plain.Padding(0, 1),
			pass:     plain.Bold(true),
			fail:     plain.Bold(true),
			errBox:   plain.Bold(true).Border(lipgloss.NormalBorder()).Padding(0, 1),
			label:    plain.Bold(true),
			help:     h,
			traps:    traptable.Plain(),
		}
	}
	ld := lipgloss.LightDark(isDark)
	c := func(light, dark string) color.Color { return ld(lipgloss.Color(light), lipgloss.Color(dark)) }
	accent := c("#5A3FC0", "#B7A6FF")
	subtle := c("#6B6B6B", "#9A9A9A")
	green := c("#1E7B34", "#5FD787")
	red := c("#B3261E", "#FF6B6B")
	return styles{
		title:    lipgloss.NewStyle().Bold(true).Foreground(accent),
		subtle:   lipgloss.NewStyle().Foreground(subtle),
		accent:   lipgloss.NewStyle().Bold(true).Foreground(accent),
		selected: lipgloss.NewStyle().Bold(true).Foreground(c("#FFFFFF", "#1A1A1A")).Background(accent),
		tabOn:    lipgloss.NewStyle().Bold(true).Foreground(c("#FFFFFF", "#1A1A1A")).Background(accent).Padding(0, 1),
		tabOff:   lipgloss.NewStyle().Foreground(subtle).Padding(0, 1),
		pass:     lipgloss.NewStyle().Bold(true).Foreground(green),
		fail:     lipgloss.NewStyle().Bold(true).Foreground(red),
		errBox:   lipgloss.NewStyle().Bold(true).Foreground(red).Border(lipgloss.RoundedBorder()).BorderForeground(red).Padding(0, 1),
		label:    lipgloss.NewStyle().Bold(true),
		help:     help.DefaultStyles(isDark),
		traps:    traptable.Colored(isDark),
	}
}

// mark returns the pass/fail/error mark of a test status: ✓ ✗ ! in colour, PASS FAIL ERROR
// without.
func (s styles) mark(status string) string {
	switch status {
	case "pass":
		if s.noColor {
			return "PASS"
		}
		return s.pass.Render("✓")
	case "fail":
		if s.noColor {
			return "FAIL"
		}
		return s.fail.Render("✗")
	default:
		if s.noColor {
			return "ERROR"
		}
		return s.fail.Render("!")
	}
}
