package katas

import (
	"bytes"
	"fmt"
)

// ParseError is a problem in a packet file. File is the path inside the packet source
// (for example "mcp-structured-errors/exam.md"); Line is 1-based, 0 when unknown.
type ParseError struct {
	File string
	Line int
	Msg  string
}

// Error formats the problem as "file:line: message", the form editors and CI logs link.
func (e *ParseError) Error() string {
	if e.Line > 0 {
		return fmt.Sprintf("%s:%d: %s", e.File, e.Line, e.Msg)
	}
	return fmt.Sprintf("%s: %s", e.File, e.Msg)
}

func errAt(file string, line int, format string, args ...any) *ParseError {
	return &ParseError{File: file, Line: line, Msg: fmt.Sprintf(format, args...)}
}

// lineOf returns the 1-based line number of byte offset off in src.
func lineOf(src []byte, off int) int {
	if off < 0 {
		return 0
	}
	if off > len(src) {
		off = len(src)
	}
	return bytes.Count(src[:off], []byte("\n")) + 1
}
