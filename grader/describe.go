package grader

import (
	"encoding/json"
	"fmt"
	"maps"
	"reflect"
	"regexp"
	"slices"
	"strings"

	"github.com/kata-mcp/kata/katas"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// This file writes what a failure shows the learner: the call sent, how the Orders API
// behaved, what came back, and JSON values and Go decoding errors in JSON terms.

// goTypeError matches encoding/json's type errors, which name Go types and struct fields.
var goTypeError = regexp.MustCompile(`json: cannot unmarshal (\w+) into Go (?:struct field (\S+?)|value) of type (\S+)`)

// learnerJSONError rewrites encoding/json's wording ("json: cannot unmarshal string into Go
// struct field CallToolResult.isError of type bool") in JSON terms for the learner ("isError
// was a JSON string; expected a JSON boolean").
func learnerJSONError(msg string) string {
	return goTypeError.ReplaceAllStringFunc(msg, func(m string) string {
		g := goTypeError.FindStringSubmatch(m)
		got, field, want := g[1], g[2], jsonWordForGoType(g[3])
		if field == "" {
			return fmt.Sprintf("a JSON %s was given where %s was expected", got, want)
		}
		if i := strings.IndexByte(field, '.'); i >= 0 {
			field = field[i+1:] // drop the Go type name: CallToolResult.isError → isError
		}
		return fmt.Sprintf("%s was a JSON %s; expected %s", field, got, want)
	})
}

// jsonWordForGoType names a Go type by the JSON value it decodes from.
func jsonWordForGoType(t string) string {
	switch {
	case t == "bool":
		return "a JSON boolean (true or false)"
	case t == "string":
		return "a JSON string"
	case strings.HasPrefix(t, "[]"):
		return "a JSON array"
	case strings.HasPrefix(t, "map["), strings.HasPrefix(t, "struct"), strings.Contains(t, "."):
		return "a JSON object"
	case strings.HasPrefix(t, "int"), strings.HasPrefix(t, "uint"), strings.HasPrefix(t, "float"):
		return "a JSON number"
	}
	return "another JSON type"
}

// keysOf lists a payload's keys, sorted, for messages.
func keysOf(m map[string]any) string {
	if len(m) == 0 {
		return "none"
	}
	return strings.Join(slices.Sorted(maps.Keys(m)), ", ")
}

func jsonText(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return clipText(string(b), 300)
}

func jsonKind(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case bool:
		return "a boolean"
	case float64:
		return "a number"
	case string:
		return "a string"
	case []any:
		return "an array"
	case map[string]any:
		return "an object"
	}
	return fmt.Sprintf("%T", v)
}

// sameJSON compares two values by their JSON form (numbers as float64).
func sameJSON(a, b any) bool {
	norm := func(v any) any {
		bs, _ := json.Marshal(v)
		var out any
		json.Unmarshal(bs, &out)
		return out
	}
	return reflect.DeepEqual(norm(a), norm(b))
}

// lastLines returns the last n lines of s, without a trailing newline.
func lastLines(s string, n int) string {
	s = strings.TrimRight(s, "\n")
	if s == "" {
		return ""
	}
	lines := strings.Split(s, "\n")
	if len(lines) > n {
		lines = append([]string{"…"}, lines[len(lines)-n:]...)
	}
	return strings.Join(lines, "\n")
}

// clipTail keeps the last n bytes of s.
func clipTail(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return "…" + s[len(s)-n:]
}

// failureDetail shows the call sent, how the Orders API behaved and what came back.
func (r *run) failureDetail(f katas.Fixture, dr drawn, res *mcp.CallToolResult, err error) string {
	args, _ := json.Marshal(dr.args)
	var b strings.Builder
	fmt.Fprintf(&b, "call: tools/call %s %s\n", f.Tool, args)
	switch {
	case f.Backend.Kind == katas.BackendRefused:
		fmt.Fprintf(&b, "Orders API: nothing listening at ORDERS_API_URL (connection refused)\n")
	case dr.beh != nil:
		fmt.Fprintf(&b, "Orders API: %s\n", describeBehaviour(dr.beh))
	}
	switch {
	case err != nil:
		fmt.Fprintf(&b, "got: error: %s", clipText(learnerJSONError(err.Error()), gotCap))
	case res != nil:
		got, _ := json.Marshal(res)
		fmt.Fprintf(&b, "got: %s", clipText(string(got), gotCap))
	}
	return b.String()
}

func describeBehaviour(b *behaviour) string {
	switch b.kind {
	case katas.BackendOK:
		return "answered 200 with the order"
	case katas.BackendStatus:
		s := fmt.Sprintf("answered %d", b.status)
		if b.status == 429 || (b.status == 503 && b.retryAfter != "" && b.retryAfter != katas.RetryAfterNone) {
			switch b.retryAfter {
			case katas.RetryAfterSeconds:
				s += fmt.Sprintf(" with Retry-After: %d", b.delay)
			case katas.RetryAfterHTTPDate:
				s += fmt.Sprintf(" with Retry-After as an HTTP-date %d s ahead", b.delay)
			case katas.RetryAfterHTTPDatePast:
				s += fmt.Sprintf(" with Retry-After as an HTTP-date %d s in the past", -b.delay)
			default:
				s += " without a Retry-After header"
			}
		}
		return s
	case katas.BackendSlow:
		return fmt.Sprintf("held the request for %.1f s, longer than the %.1f s timeout, then answered 200", slowHold.Seconds(), apiTimeout.Seconds())
	case katas.BackendDrop:
		return "closed the connection without answering"
	case katas.BackendEmpty:
		return `answered 200 {"orders": [], "next_page": null}`
	case katas.BackendPages:
		n := 0
		for _, p := range b.pages {
			n += len(p)
		}
		s := fmt.Sprintf("had %d orders over %d pages", n, len(b.pages))
		if b.slowPage > 0 {
			s += fmt.Sprintf("; page %d held the request for %.1f s, past the %.1f s timeout", b.slowPage, slowHold.Seconds(), apiTimeout.Seconds())
		}
		if b.failPage > 0 {
			s += fmt.Sprintf("; page %d answered %d", b.failPage, b.status)
		}
		return s
	}
	return string(b.kind)
}

func indent(s, prefix string) string {
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		lines[i] = prefix + l
	}
	return strings.Join(lines, "\n")
}

func clipText(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}
