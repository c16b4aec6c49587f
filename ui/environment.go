package ui

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/kata-mcp/kata/ui/markdown"
)

// Theme decides between the dark and light looks without asking the terminal (a colour query
// that a detached or slow terminal never answers would stall start-up). In order: flag ("dark",
// "light", or "" / "auto" to decide from the environment), then $KATA_THEME (same values), then
// $COLORFGBG ("fg;bg" as rxvt, Konsole and others set it: a background colour 7 or 9–15 is
// light), else dark. It returns the markdown style name ("dark" or "light"); an unknown value is
// an error naming where it came from.
func Theme(flag string, getenv func(string) string) (string, error) {
	for _, src := range []struct{ name, value string }{{"--theme", flag}, {"KATA_THEME", getenv("KATA_THEME")}} {
		switch strings.ToLower(strings.TrimSpace(src.value)) {
		case "", "auto":
		case "dark":
			return markdown.StyleDark, nil
		case "light":
			return markdown.StyleLight, nil
		default:
			return "", fmt.Errorf("%s %q: want dark, light or auto", src.name, src.value)
		}
	}
	if fgbg := getenv("COLORFGBG"); fgbg != "" {
		parts := strings.Split(fgbg, ";")
		if bg, err := strconv.Atoi(parts[len(parts)-1]); err == nil && (bg == 7 || (bg >= 9 && bg <= 15)) {
			return markdown.StyleLight, nil
		}
	}
	return markdown.StyleDark, nil
}

// NoColor reports whether the NO_COLOR environment variable asks for no colour: set and not
// empty (https://no-color.org). Every output of kata that colours asks here.
func NoColor(getenv func(string) string) bool { return getenv("NO_COLOR") != "" }

// Editor is the editor's command line from the environment: $VISUAL, else $EDITOR (either may
// carry arguments, e.g. "code -w"); "" when neither is set.
func Editor(getenv func(string) string) string {
	if ed := strings.TrimSpace(getenv("VISUAL")); ed != "" {
		return ed
	}
	return strings.TrimSpace(getenv("EDITOR"))
}
