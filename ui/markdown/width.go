package markdown

import "strings"

// Unambiguous returns s with the code points dropped that join or modify emoji into one
// grapheme of disputed width: the zero-width joiner between emoji (👨‍👩‍👧 becomes 👨👩👧),
// variation selectors (U+FE0E, U+FE0F), skin-tone modifiers (U+1F3FB–U+1F3FF), the combining
// keycap (U+20E3) and tag characters (U+E0020–U+E007F). Terminals, tmux and the renderer's
// width tables disagree on how many columns such sequences take (Unicode UAX #11 leaves it
// open; a ZWJ sequence is 2 columns drawn joined and 6 drawn apart), and a single column of
// disagreement pushes a table border or a cut out of place. What is left is measured the same
// by all of them. Regional-indicator pairs (flags such as 🇯🇵) are kept: every width table
// gives a pair 2 columns.
func Unambiguous(s string) string {
	if !strings.ContainsFunc(s, func(r rune) bool { return r == zwj || ambiguous(r) }) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s))
	var prev rune
	for _, r := range s {
		switch {
		case ambiguous(r):
			continue
		case r == zwj && pictographic(prev):
			continue // a ZWJ elsewhere (Indic scripts) shapes text and stays
		}
		b.WriteRune(r)
		prev = r
	}
	return b.String()
}

// zwj is the zero-width joiner, U+200D.
const zwj = 0x200D

// pictographic reports whether r is in the emoji blocks a ZWJ sequence is built from
// (Miscellaneous Symbols and Dingbats, and the supplementary emoji planes' blocks).
func pictographic(r rune) bool {
	return (r >= 0x2600 && r <= 0x27BF) || (r >= 0x1F000 && r <= 0x1FAFF)
}

// ambiguous reports whether r is one of the code points Unambiguous drops.
func ambiguous(r rune) bool {
	switch {
	case r == 0xFE0E, r == 0xFE0F, r == 0x20E3:
		return true
	case r >= 0x1F3FB && r <= 0x1F3FF:
		return true
	case r >= 0xE0020 && r <= 0xE007F:
		return true
	}
	return false
}
