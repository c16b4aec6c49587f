package grader

import (
	"sort"
	"strconv"
	"strings"

	"github.com/kata-mcp/kata/internal/i18n"
)

// Expand replaces ${VAR} and ${VAR:-default} in s the way Claude Code expands .mcp.json
// (command, args, env, url, headers): a defined variable gives its value, an undefined one
// its default, and an undefined one without a default is an error naming it. A bare $VAR is
// left as it is. An unclosed "${" is an error.
func Expand(s string, lookup func(string) (string, bool)) (string, error) {
	var b strings.Builder
	for {
		i := strings.Index(s, "${")
		if i < 0 {
			b.WriteString(s)
			return b.String(), nil
		}
		b.WriteString(s[:i])
		end := strings.IndexByte(s[i:], '}')
		if end < 0 {
			return "", i18n.Err("harness.expand.unclosed", "Value", strconv.Quote(s))
		}
		expr := s[i+2 : i+end]
		name, def, hasDef := strings.Cut(expr, ":-")
		if !validVarName(name) {
			return "", i18n.Err("harness.expand.not_a_name", "Ref", "${"+expr+"}")
		}
		if v, ok := lookup(name); ok {
			b.WriteString(v)
		} else if hasDef {
			b.WriteString(def)
		} else {
			return "", &UndefinedVarError{Name: name}
		}
		s = s[i+end+1:]
	}
}

// UndefinedVarError is an ${VAR} reference to a variable the grader does not define.
type UndefinedVarError struct{ Name string }

// Error names the variable and the variables the grader defines, in English.
func (e *UndefinedVarError) Error() string { return e.Unwrap().Error() }

// Unwrap is the error as a catalog message (*i18n.Error), for the reader's language.
func (e *UndefinedVarError) Unwrap() error {
	return i18n.Err("harness.expand.undefined", "Ref", "${"+e.Name+"}", "WithDefault", "${"+e.Name+":-default}")
}

func validVarName(s string) bool {
	if s == "" {
		return false
	}
	for i, r := range s {
		if r == '_' || (r >= 'A' && r <= 'Z') || (r >= 'a' && r <= 'z') || (i > 0 && r >= '0' && r <= '9') {
			continue
		}
		return false
	}
	return true
}

// expandEntry expands every field of a server entry that Claude Code expands. Errors name
// .mcp.json and the line of the offending string.
func (m *MCPConfig) expandEntry(e ServerEntry, lookup func(string) (string, bool)) (ServerEntry, error) {
	one := func(s string) (string, error) {
		v, err := Expand(s, lookup)
		if err != nil {
			return "", sayErr(".mcp.json", valueLine(m.raw, s), errText(err))
		}
		return v, nil
	}
	many := func(in map[string]string) (map[string]string, error) {
		if in == nil {
			return nil, nil
		}
		keys := make([]string, 0, len(in))
		for k := range in {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		out := make(map[string]string, len(in))
		for _, k := range keys {
			v, err := one(in[k])
			if err != nil {
				return nil, err
			}
			out[k] = v
		}
		return out, nil
	}
	var err error
	out := ServerEntry{Type: e.Type}
	if out.Command, err = one(e.Command); err != nil {
		return out, err
	}
	for _, a := range e.Args {
		v, err := one(a)
		if err != nil {
			return out, err
		}
		out.Args = append(out.Args, v)
	}
	if out.Env, err = many(e.Env); err != nil {
		return out, err
	}
	if out.URL, err = one(e.URL); err != nil {
		return out, err
	}
	if out.Headers, err = many(e.Headers); err != nil {
		return out, err
	}
	return out, nil
}
