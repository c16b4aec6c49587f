package grader

import (
	"encoding/json"
	"fmt"
	"maps"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/kata-mcp/kata/internal/i18n"
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

// jsonWordForGoType names a Go type by the JSON value it decodes from, in English.
func jsonWordForGoType(t string) string { return jsonWordMsg(t).English() }

// jsonWordMsg names a Go type by the JSON value it decodes from ("a JSON boolean (true or
// false)").
func jsonWordMsg(t string) i18n.Msg {
	switch {
	case t == "bool":
		return i18n.M("harness.json.boolean")
	case t == "string":
		return i18n.M("harness.json.string")
	case strings.HasPrefix(t, "[]"):
		return i18n.M("harness.json.array")
	case strings.HasPrefix(t, "map["), strings.HasPrefix(t, "struct"), strings.Contains(t, "."):
		return i18n.M("harness.json.object")
	case strings.HasPrefix(t, "int"), strings.HasPrefix(t, "uint"), strings.HasPrefix(t, "float"):
		return i18n.M("harness.json.number")
	}
	return i18n.M("harness.json.another")
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

// failureDetail shows the call sent, how the Orders API behaved and what came back, one
// line each; the arguments and what came back are the JSON as sent.
func (r *run) failureDetail(f katas.Fixture, dr drawn, res *mcp.CallToolResult, err error) i18n.Msg {
	args, _ := json.Marshal(dr.args)
	lines := []i18n.Msg{i18n.M("harness.detail.call", "Tool", f.Tool, "Args", string(args))}
	switch {
	case f.Backend.Kind == katas.BackendRefused:
		lines = append(lines, i18n.M("harness.detail.api_refused"))
	case dr.beh != nil && r.api != nil && dr.id != "" && len(r.api.requestsFor(dr.id)) == 0:
		// What the API was set up to do, without saying it answered: nothing asked it.
		lines = append(lines, i18n.M("harness.detail.api_unasked", "Behaviour", describeBehaviour(dr.beh)))
	case dr.beh != nil:
		lines = append(lines, i18n.M("harness.detail.api", "Behaviour", describeBehaviour(dr.beh)))
	}
	switch {
	case err != nil:
		lines = append(lines, i18n.M("harness.detail.got_error", "Error", clipText(learnerJSONError(err.Error()), gotCap)))
	case res != nil:
		got, _ := json.Marshal(res)
		lines = append(lines, i18n.M("harness.detail.got", "Result", clipText(string(got), gotCap)))
	}
	return i18n.Lines(lines...)
}

// describeBehaviour says what the Orders API did for a call ("answered 429 with Retry-After:
// 2").
func describeBehaviour(b *behaviour) i18n.Msg {
	secs := func(d time.Duration) string { return fmt.Sprintf("%.1f", d.Seconds()) }
	switch b.kind {
	case katas.BackendOK:
		if b.created != nil { // a declared tool's endpoint: 201 with what it created
			return i18n.M("harness.api.created", "Record", strings.TrimSuffix(b.created.idKey, "_id"), "ID", b.created.id)
		}
		return i18n.M("harness.api.ok")
	case katas.BackendStatus:
		if b.status == 429 || (b.status == 503 && b.retryAfter != "" && b.retryAfter != katas.RetryAfterNone) {
			switch b.retryAfter {
			case katas.RetryAfterSeconds:
				return i18n.M("harness.api.retry_after", "Status", b.status, "Delay", b.delay)
			case katas.RetryAfterHTTPDate:
				return i18n.M("harness.api.retry_after_date", "Status", b.status, "Delay", b.delay)
			case katas.RetryAfterHTTPDatePast:
				return i18n.M("harness.api.retry_after_past", "Status", b.status, "Delay", -b.delay)
			default:
				return i18n.M("harness.api.no_retry_after", "Status", b.status)
			}
		}
		return i18n.M("harness.api.status", "Status", b.status)
	case katas.BackendSlow:
		return i18n.M("harness.api.slow", "Hold", secs(slowHold), "Timeout", secs(apiTimeout))
	case katas.BackendDrop:
		return i18n.M("harness.api.drop")
	case katas.BackendEmpty:
		return i18n.M("harness.api.empty")
	case katas.BackendPages:
		n := 0
		for _, p := range b.pages {
			n += len(p)
		}
		m := i18n.MN("harness.api.pages", n, "Pages", i18n.MN("harness.api.page_count", len(b.pages)))
		if b.slowPage > 0 {
			m = i18n.M("harness.api.slow_page", "Before", m, "Page", b.slowPage, "Hold", secs(slowHold), "Timeout", secs(apiTimeout))
		}
		if b.failPage > 0 {
			m = i18n.M("harness.api.fail_page", "Before", m, "Page", b.failPage, "Status", b.status)
		}
		return m
	}
	return i18n.Raw(string(b.kind))
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
