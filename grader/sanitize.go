package grader

import "strings"

// Sanitize makes text that learner code produced (stderr, tool results quoted in messages,
// a build's output) safe to print on a terminal: it drops every escape sequence — CSI
// (ESC [ … final byte), OSC (ESC ] … BEL or ESC \), DCS, SOS, PM and APC strings (ESC P/X/^/_
// … ESC \), two-byte escapes, and their 8-bit C1 forms — and every other control character
// but newline and tab; a carriage return before a newline is dropped, a lone one becomes a
// newline (so progress bars do not overwrite lines). ECMA-48 §5 and §8.3 define the sequences.
// Without this, a learner's `printf '\e]52;c;…\a'` would write the user's clipboard, and
// `\e[2J` would clear their screen. Every report writer and the UI get the Report already
// sanitised: the grader applies it to each test as it finishes (announce) and to a run's error.
func Sanitize(s string) string {
	if !needsSanitizing(s) {
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
			i = skipEscape(rs, i+1)
		case r == 0x9b: // C1 CSI
			i = skipCSI(rs, i+1)
		case r == 0x9d || r == 0x90 || r == 0x98 || r == 0x9e || r == 0x9f: // C1 OSC, DCS, SOS, PM, APC
			i = skipString(rs, i+1)
		case r < 0x20 || r == 0x7f || r >= 0x80 && r < 0xa0:
			// another control character: dropped
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// needsSanitizing reports whether s holds a control character other than newline and tab.
func needsSanitizing(s string) bool {
	for _, r := range s {
		if r < 0x20 && r != '\n' && r != '\t' || r == 0x7f || r >= 0x80 && r < 0xa0 {
			return true
		}
	}
	return false
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

// sanitizeTest sanitises the learner text a test result carries.
func sanitizeTest(t TestResult) TestResult {
	t.Message = Sanitize(t.Message)
	t.Output = Sanitize(t.Output)
	return t
}
