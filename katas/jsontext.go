package katas

import (
	"bytes"
	"encoding/json"
	"fmt"
	"unicode/utf8"
)

// utf8BOM is the UTF-8 encoding of U+FEFF, the byte order mark.
var utf8BOM = []byte{0xEF, 0xBB, 0xBF}

// invalidUTF8 returns the offset of the first byte of src that is not valid UTF-8, or -1.
func invalidUTF8(src []byte) int {
	for off := 0; off < len(src); {
		r, size := utf8.DecodeRune(src[off:])
		if r == utf8.RuneError && size <= 1 {
			return off
		}
		off += size
	}
	return -1
}

// TextProblem finds what makes src unfit to be read as text: a byte order mark at its start
// (RFC 8259 §8.1 forbids one in JSON; in Markdown it would become part of the first line) or
// bytes that are not UTF-8, which encoding/json would silently replace with U+FFFD. It returns
// the 1-based line and a message, or 0 and "" when there is none.
func TextProblem(src []byte) (line int, msg string) {
	if bytes.HasPrefix(src, utf8BOM) {
		return 1, "the file starts with a byte order mark (U+FEFF, bytes EF BB BF); save it as UTF-8 without BOM"
	}
	if off := invalidUTF8(src); off >= 0 {
		return lineOf(src, off), fmt.Sprintf("byte %#02x at offset %d is not valid UTF-8; save the file as UTF-8", src[off], off)
	}
	return 0, ""
}

// JSONTextProblem is TextProblem for a JSON file, and also finds an object that has the same
// key twice: RFC 8259 §4 says names SHOULD be unique, and encoding/json silently keeps the last
// one, so a duplicate would hide a value the author meant to set. A syntax error is left to the
// decoder to report. It returns the 1-based line and a message, or 0 and "".
func JSONTextProblem(src []byte) (line int, msg string) {
	if line, msg := TextProblem(src); line > 0 {
		return line, msg
	}
	type frame struct {
		object  bool
		wantKey bool
		keys    map[string]bool
	}
	var stack []*frame
	valueDone := func() {
		if n := len(stack); n > 0 && stack[n-1].object {
			stack[n-1].wantKey = true
		}
	}
	dec := json.NewDecoder(bytes.NewReader(src))
	dec.UseNumber()
	for {
		tok, err := dec.Token()
		if err != nil {
			return 0, ""
		}
		if n := len(stack); n > 0 && stack[n-1].object && stack[n-1].wantKey {
			top := stack[n-1]
			if key, ok := tok.(string); ok {
				if top.keys[key] {
					return lineOf(src, int(dec.InputOffset())), fmt.Sprintf("key %q appears twice in one object; keep one (the second would silently win)", key)
				}
				top.keys[key] = true
				top.wantKey = false
				continue
			}
		}
		switch t := tok.(type) {
		case json.Delim:
			switch t {
			case '{':
				stack = append(stack, &frame{object: true, wantKey: true, keys: map[string]bool{}})
			case '[':
				stack = append(stack, &frame{})
			default:
				if len(stack) > 0 {
					stack = stack[:len(stack)-1]
				}
				valueDone()
			}
		default:
			valueDone()
		}
	}
}
