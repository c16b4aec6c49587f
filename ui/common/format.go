package common

import (
	"fmt"
	"strings"
	"time"

	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/kata-mcp/kata/ui/markdown"
)

// FitBlock makes s exactly h lines, none wider than w: long lines are cut, missing lines are
// added empty, extra lines dropped. Every screen's view passes through it so the frame never
// scrolls the terminal.
func FitBlock(s string, w, h int) string {
	if h <= 0 {
		return ""
	}
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > h {
		lines = lines[:h]
	}
	for i, l := range lines {
		if lipgloss.Width(l) > w {
			lines[i] = ansi.Truncate(l, w, "")
		}
	}
	for len(lines) < h {
		lines = append(lines, "")
	}
	return strings.Join(lines, "\n")
}

// WrapHanging wraps text to width, prefix on the first line and as much indentation on the
// following ones; no line is wider than width.
func WrapHanging(prefix, text string, width int) string {
	indent := lipgloss.Width(prefix)
	inner := max(width-indent, 1)
	lines := strings.Split(ansi.Wrap(text, inner, ""), "\n")
	pad := strings.Repeat(" ", indent)
	for i, l := range lines {
		if i == 0 {
			lines[i] = prefix + l
		} else {
			lines[i] = pad + l
		}
		if lipgloss.Width(lines[i]) > width {
			lines[i] = ansi.Truncate(lines[i], width, "")
		}
	}
	return strings.Join(lines, "\n")
}

// HangUnder wraps a line that carries its own indentation (styled text allowed) to width, its
// continuation lines indented by indent columns.
func HangUnder(line string, indent, width int) string {
	lines := strings.Split(ansi.Wrap(line, max(width-indent, 1), ""), "\n")
	for i := 1; i < len(lines); i++ {
		lines[i] = strings.Repeat(" ", indent) + lines[i]
	}
	return strings.Join(lines, "\n")
}

// Truncate cuts s to width columns with an ellipsis.
func Truncate(s string, width int) string {
	if lipgloss.Width(s) <= width {
		return s
	}
	return ansi.Truncate(s, max(width, 1), "…")
}

// Clock formats a duration as h:mm:ss or mm:ss, rounded up to the second.
func Clock(d time.Duration) string {
	if d < 0 {
		d = 0
	}
	s := int((d + time.Second - 1) / time.Second)
	if s >= 3600 {
		return fmt.Sprintf("%d:%02d:%02d", s/3600, s/60%60, s%60)
	}
	return fmt.Sprintf("%02d:%02d", s/60, s%60)
}

// PercentOf returns part/total as a whole percentage, rounded half up (2 of 3 is 67); 0 when
// total is 0.
func PercentOf(part, total int) int {
	if total <= 0 {
		return 0
	}
	return (part*200 + total) / (total * 2)
}

// Inline renders the inline Markdown of an option, rationale or trap cell as plain terminal
// text: code spans without their backticks, emphasis without its markers.
func Inline(s string) string { return markdown.Inline(s, lipgloss.NewStyle()) }
