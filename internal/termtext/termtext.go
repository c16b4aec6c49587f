// Package termtext makes text that kata did not write itself safe to print on a terminal: a
// learner's output, a packet's text (third-party packets come from anyone who hands out a
// folder), fixture names and learner folder names. A terminal obeys the control sequences it is
// sent — OSC 52 writes the clipboard, OSC 0 the window title, OSC 8 makes a link whose target
// is not what it shows, CSI 2J clears the screen — so such text is printed only after Sanitize
// (or, for text kata's own renderer has styled, Styled). ECMA-48 §5 and §8.3 define the
// sequences. The package has no dependency: katas, ui, grader and grader/class all use it.
package termtext

import (
	"regexp"
	"strconv"
	"strings"
)

// Sanitize returns s without an escape sequence of any kind — CSI (ESC [ … final byte), OSC
// (ESC ] … BEL or ESC \), DCS, SOS, PM and APC strings (ESC P/X/^/_ … ESC \), two-byte
// escapes, a lone ESC, and their 8-bit C1 forms — and without any other control character but
// newline and tab; a carriage return before a newline is dropped, a lone one becomes a newline
// (so progress bars do not overwrite lines). Text without a control character is returned as
// it is, at the cost of one scan.
func Sanitize(s string) string {
	return filter(s, false)
}

// Styled is Sanitize for text that kata's own renderer has styled (glamour, lipgloss): it
// keeps SGR sequences (CSI parameters "m": colours, bold, underline), which only style the
// text, and drops everything else Sanitize drops — OSC 8 hyperlinks included, so a link shows
// as its text and its address, both plain.
func Styled(s string) string {
	return filter(s, true)
}

// Control returns the byte offset in s of its first control character other than newline,
// tab, and a carriage return before a newline (CR LF ends a line in some editors), or -1 when
// it has none. Control characters are C0 (U+0000–U+001F), DEL (U+007F) and C1
// (U+0080–U+009F); ESC (U+001B) starts every escape sequence.
func Control(s string) int {
	for i, r := range s {
		if r == '\r' && i+1 < len(s) && s[i+1] == '\n' {
			continue
		}
		if isControl(r) && r != '\n' && r != '\t' {
			return i
		}
	}
	return -1
}

// isControl reports whether r is a C0 or C1 control character or DEL.
func isControl(r rune) bool {
	return r < 0x20 || r == 0x7f || r >= 0x80 && r < 0xa0
}

// needsFilter reports whether s holds a control character other than newline and tab.
func needsFilter(s string) bool {
	for _, r := range s {
		if isControl(r) && r != '\n' && r != '\t' {
			return true
		}
	}
	return false
}

// filter drops s's escape sequences and control characters (see Sanitize), keeping SGR
// sequences when keepSGR.
func filter(s string, keepSGR bool) string {
	if !needsFilter(s) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s))
	rs := []rune(s)
	for i := 0; i < len(rs); i++ {
		r := rs[i]
		switch {
		case r == '\n' || r == '\t':
			b.WriteRune(r)
		case r == '\r':
			if i+1 < len(rs) && rs[i+1] == '\n' {
				continue
			}
			b.WriteByte('\n')
		case r == 0x1b: // ESC
			if i+1 >= len(rs) {
				continue
			}
			end := skipEscape(rs, i+1)
			if keepSGR && rs[i+1] == '[' && isSGR(rs[i+2:end+1]) {
				b.WriteString(string(rs[i : end+1]))
			}
			i = end
		case r == 0x9b: // C1 CSI
			i = skipCSI(rs, i+1)
		case r == 0x9d || r == 0x90 || r == 0x98 || r == 0x9e || r == 0x9f: // C1 OSC, DCS, SOS, PM, APC
			i = skipString(rs, i+1)
		case isControl(r):
			// another control character: dropped
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// isSGR reports whether seq, a control sequence after its CSI, is Select Graphic Rendition:
// parameters of digits, ";" and ":" only, and the final byte "m".
func isSGR(seq []rune) bool {
	if len(seq) == 0 || seq[len(seq)-1] != 'm' {
		return false
	}
	for _, r := range seq[:len(seq)-1] {
		if (r < '0' || r > '9') && r != ';' && r != ':' {
			return false
		}
	}
	return true
}

// skipEscape skips the escape sequence whose introducer follows ESC at rs[i] and returns the
// index of its last rune.
func skipEscape(rs []rune, i int) int {
	switch rs[i] {
	case '[':
		return skipCSI(rs, i+1)
	case ']', 'P', 'X', '^', '_':
		return skipString(rs, i+1)
	}
	// A two-byte escape (ESC 7, ESC c, …), with any intermediate bytes (ESC ( B).
	for i < len(rs) && rs[i] >= 0x20 && rs[i] <= 0x2f {
		i++
	}
	return min(i, len(rs)-1)
}

// skipCSI skips a control sequence's parameter and intermediate bytes and its final byte
// (0x40–0x7e), starting at rs[i]; it returns the index of the final byte.
func skipCSI(rs []rune, i int) int {
	for ; i < len(rs); i++ {
		if rs[i] >= 0x40 && rs[i] <= 0x7e {
			return i
		}
		if rs[i] < 0x20 || rs[i] > 0x7e { // not part of a CSI: stop before it
			return i - 1
		}
	}
	return len(rs) - 1
}

// skipString skips a control string up to its terminator — BEL, ESC \ or C1 ST (0x9c) — and
// returns the index of the terminator's last rune; an unterminated string runs to the end.
func skipString(rs []rune, i int) int {
	for ; i < len(rs); i++ {
		switch {
		case rs[i] == 0x07 || rs[i] == 0x9c:
			return i
		case rs[i] == 0x1b && i+1 < len(rs) && rs[i+1] == '\\':
			return i + 1
		}
	}
	return len(rs) - 1
}

// charRef matches a numeric character reference (CommonMark §6.2, HTML): "&#27;", "&#x1B;".
var charRef = regexp.MustCompile(`&#(?:[0-9]{1,7}|[xX][0-9a-fA-F]{1,6});`)

// ControlRef returns the byte offset in md, Markdown, of its first numeric character reference
// that names a control character other than newline and tab ("&#27;" is ESC: a renderer
// decodes it into the character itself), or -1 when it has none.
func ControlRef(md string) int {
	if !strings.Contains(md, "&#") {
		return -1
	}
	for _, loc := range charRef.FindAllStringIndex(md, -1) {
		if refIsControl(md[loc[0]:loc[1]]) {
			return loc[0]
		}
	}
	return -1
}

// refIsControl reports whether ref, a numeric character reference, names a control character
// other than newline and tab.
func refIsControl(ref string) bool {
	num := strings.TrimSuffix(strings.TrimPrefix(ref, "&#"), ";")
	base := 10
	if num[0] == 'x' || num[0] == 'X' {
		num, base = num[1:], 16
	}
	v, err := strconv.ParseUint(num, base, 32)
	return err == nil && isControl(rune(v)) && v != '\n' && v != '\t'
}

// Markdown is Sanitize for Markdown source, which a renderer turns into terminal text: it also
// drops each numeric character reference that names a control character ("&#27;" would become
// ESC). Run it on the source before rendering; the renderer's own styling is then the only
// escape sequence in its output (and Styled keeps no more than that).
func Markdown(md string) string {
	md = Sanitize(md)
	if ControlRef(md) < 0 {
		return md
	}
	return charRef.ReplaceAllStringFunc(md, func(ref string) string {
		if refIsControl(ref) {
			return ""
		}
		return ref
	})
}

// Name returns a name — of a file, a folder, a learner — as it may be printed: as it is when it
// holds no control character (newline and tab included: a name is one line), else quoted as a
// Go string ("04-\x1b]0;x\a.md"), so the reader still tells which one it is and the terminal
// obeys nothing.
func Name(s string) string {
	if !strings.ContainsFunc(s, isControl) {
		return s
	}
	return strconv.Quote(s)
}
