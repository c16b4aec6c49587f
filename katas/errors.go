package katas

import (
	"bytes"
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/kata-mcp/kata/internal/termtext"
)

// ParseError is a problem in a packet file. File is the path inside the packet source
// (for example "mcp-structured-errors/exam.md"); Line is 1-based, 0 when unknown.
type ParseError struct {
	File string
	Line int
	Msg  string
}

// Error formats the problem as "file:line: message", the form editors and CI logs link. It is
// printed on terminals, so a file name that holds a control character is quoted (termtext.Name)
// and the message sanitised: a packet names its own files.
func (e *ParseError) Error() string {
	file, msg := termtext.Name(e.File), termtext.Sanitize(e.Msg)
	if e.Line > 0 {
		return fmt.Sprintf("%s:%d: %s", file, e.Line, msg)
	}
	return fmt.Sprintf("%s: %s", file, msg)
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

// Problems is every problem found in one or more packets, each a *ParseError, in the order
// found. A nil or empty list means no problem. As an error it prints one problem per line and
// unwraps to its members, so errors.As finds a *ParseError in it.
type Problems []*ParseError

// add records a problem at file:line.
func (ps *Problems) add(file string, line int, format string, args ...any) {
	*ps = append(*ps, errAt(file, line, format, args...))
}

// addErr records err: a *ParseError or Problems as they are, anything else as a problem of
// file with no line.
func (ps *Problems) addErr(file string, err error) {
	if err == nil {
		return
	}
	var more Problems
	var pe *ParseError
	switch {
	case errors.As(err, &more):
		*ps = append(*ps, more...)
	case errors.As(err, &pe):
		*ps = append(*ps, pe)
	default:
		*ps = append(*ps, errAt(file, 0, "%v", err))
	}
}

// Error prints one "file:line: message" per line.
func (ps Problems) Error() string {
	lines := make([]string, len(ps))
	for i, p := range ps {
		lines[i] = p.Error()
	}
	return strings.Join(lines, "\n")
}

// Unwrap returns the problems as errors, for errors.As and errors.Is.
func (ps Problems) Unwrap() []error {
	errs := make([]error, len(ps))
	for i, p := range ps {
		errs[i] = p
	}
	return errs
}

// collect runs a parser that records its problems in a list and returns its result, or the
// zero value and the problems as Problems when there are any.
func collect[T any](parse func(ps *Problems) T) (T, error) {
	var ps Problems
	v := parse(&ps)
	if len(ps) > 0 {
		var zero T
		return zero, ps
	}
	return v, nil
}

// Rooted returns copies of the problems with root joined before each file name, so a problem
// of a packet read from an OS folder names the file as the user can open it. An empty root
// returns ps unchanged.
func (ps Problems) Rooted(root string) Problems {
	if root == "" {
		return ps
	}
	out := make(Problems, len(ps))
	for i, p := range ps {
		q := *p
		q.File = filepath.Join(root, filepath.FromSlash(p.File))
		out[i] = &q
	}
	return out
}

// Err returns ps as an error, or nil when there is no problem.
func (ps Problems) Err() error {
	if len(ps) == 0 {
		return nil
	}
	return ps
}
