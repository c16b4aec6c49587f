package common

import (
	"image/color"

	"charm.land/bubbles/v2/help"
	"charm.land/lipgloss/v2"

	"github.com/kata-mcp/kata/ui/traptable"
)

// Styles are the lipgloss styles of every screen, for one background and colour setting.
type Styles struct {
	noColor bool

	Title    lipgloss.Style // screen titles
	Subtle   lipgloss.Style // secondary text: ids, counts, paths
	Accent   lipgloss.Style // emphasis
	Selected lipgloss.Style // the cursor line of a list
	TabOn    lipgloss.Style // the active layer tab
	TabOff   lipgloss.Style // inactive layer tabs
	Pass     lipgloss.Style // passed tests, correct answers
	Fail     lipgloss.Style // failed tests, wrong answers
	ErrBox   lipgloss.Style // a report that could not be graded
	Label    lipgloss.Style // field labels ("Workspace", "Steps")
	Help     help.Styles
	Traps    traptable.Styles
}

// NewStyles builds the styles for a dark or light background; noColor keeps only bold,
// underline and reverse video (NO_COLOR).
func NewStyles(isDark, noColor bool) *Styles {
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
		return &Styles{
			noColor:  true,
			Title:    plain.Bold(true),
			Subtle:   plain,
			Accent:   plain.Bold(true),
			Selected: plain.Reverse(true),
			TabOn:    plain.Reverse(true).Padding(0, 1),
			TabOff:   plain.Padding(0, 1),
			Pass:     plain.Bold(true),
			Fail:     plain.Bold(true),
			ErrBox:   plain.Bold(true).Border(lipgloss.NormalBorder()).Padding(0, 1),
			Label:    plain.Bold(true),
			Help:     h,
			Traps:    traptable.Plain(),
		}
	}
	ld := lipgloss.LightDark(isDark)
	c := func(light, dark string) color.Color { return ld(lipgloss.Color(light), lipgloss.Color(dark)) }
	accent := c("#5A3FC0", "#B7A6FF")
	subtle := c("#6B6B6B", "#9A9A9A")
	green := c("#1E7B34", "#5FD787")
	red := c("#B3261E", "#FF6B6B")
	return &Styles{
		Title:    lipgloss.NewStyle().Bold(true).Foreground(accent),
		Subtle:   lipgloss.NewStyle().Foreground(subtle),
		Accent:   lipgloss.NewStyle().Bold(true).Foreground(accent),
		Selected: lipgloss.NewStyle().Bold(true).Foreground(c("#FFFFFF", "#1A1A1A")).Background(accent),
		TabOn:    lipgloss.NewStyle().Bold(true).Foreground(c("#FFFFFF", "#1A1A1A")).Background(accent).Padding(0, 1),
		TabOff:   lipgloss.NewStyle().Foreground(subtle).Padding(0, 1),
		Pass:     lipgloss.NewStyle().Bold(true).Foreground(green),
		Fail:     lipgloss.NewStyle().Bold(true).Foreground(red),
		ErrBox:   lipgloss.NewStyle().Bold(true).Foreground(red).Border(lipgloss.RoundedBorder()).BorderForeground(red).Padding(0, 1),
		Label:    lipgloss.NewStyle().Bold(true),
		Help:     help.DefaultStyles(isDark),
		Traps:    traptable.Colored(isDark),
	}
}

// Mark returns the pass/fail/error mark of a test status: ✓ ✗ ! in colour, PASS FAIL ERROR
// without.
func (s *Styles) Mark(status string) string {
	switch status {
	case "pass":
		if s.noColor {
			return "PASS"
		}
		return s.Pass.Render("✓")
	case "fail":
		if s.noColor {
			return "FAIL"
		}
		return s.Fail.Render("✗")
	default:
		if s.noColor {
			return "ERROR"
		}
		return s.Fail.Render("!")
	}
}

// NoColor reports whether the styles are the colourless ones (NO_COLOR).
func (s *Styles) NoColor() bool { return s.noColor }
