package ui

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strings"

	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/viewport"
	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/kata-mcp/kata/ui/keymap"
)

// fitBlock makes s exactly h lines, none wider than w: long lines are cut, missing lines are
// added empty, extra lines dropped. Every screen's view passes through it so the frame never
// scrolls the terminal.
func fitBlock(s string, w, h int) string {
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

// wrapHanging wraps text to width, prefix on the first line and as much indentation on the
// following ones; no line is wider than width.
func wrapHanging(prefix, text string, width int) string {
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

// truncate cuts s to width columns with an ellipsis.
func truncate(s string, width int) string {
	if lipgloss.Width(s) <= width {
		return s
	}
	return ansi.Truncate(s, max(width, 1), "…")
}

// scroll applies a scroll key to vp and reports whether msg was one.
func scroll(vp *viewport.Model, k keymap.Scroll, msg tea.KeyPressMsg) bool {
	switch {
	case key.Matches(msg, k.Up):
		vp.ScrollUp(1)
	case key.Matches(msg, k.Down):
		vp.ScrollDown(1)
	case key.Matches(msg, k.PageUp):
		vp.PageUp()
	case key.Matches(msg, k.PageDown):
		vp.PageDown()
	case key.Matches(msg, k.Top):
		vp.GotoTop()
	case key.Matches(msg, k.Bottom):
		vp.GotoBottom()
	default:
		return false
	}
	return true
}

// page applies a page-up or page-down key of k to vp and reports whether msg was one.
func page(vp *viewport.Model, k keymap.Scroll, msg tea.KeyPressMsg) bool {
	switch {
	case key.Matches(msg, k.PageUp):
		vp.PageUp()
	case key.Matches(msg, k.PageDown):
		vp.PageDown()
	default:
		return false
	}
	return true
}

// percent formats the viewport's scroll position, or "" when everything fits.
func percent(vp viewport.Model) string {
	if vp.TotalLineCount() <= vp.Height() {
		return ""
	}
	return fmt.Sprintf("%d%%", int(vp.ScrollPercent()*100))
}

// dirExists reports whether dir is an existing folder; only commands call it.
func dirExists(dir string) (bool, error) {
	fi, err := os.Stat(dir)
	switch {
	case err == nil && fi.IsDir():
		return true, nil
	case err == nil:
		return false, fmt.Errorf("%s is a file, not a folder", dir)
	case errors.Is(err, fs.ErrNotExist):
		return false, nil
	default:
		return false, err
	}
}
