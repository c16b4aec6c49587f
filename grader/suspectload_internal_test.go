package grader

import (
	"strings"
	"testing"

	"github.com/kata-mcp/kata/katas"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestSuspectLoadOnAFailingPage: a search whose later page fails (503) expects transient with
// the orders of the pages before it. A server whose 0.5 s timeout fired on an earlier page,
// which the API answered at once, also reports transient, with no partial results: the
// category agrees, so only the pages asked for show that the machine's load, not the server,
// may be at fault, and the case is run once more (docs/grading.md#timeout). A server that
// reached the failing page and still lost the partial results is not excused.
func TestSuspectLoadOnAFailingPage(t *testing.T) {
	c := katas.Contract{
		Categories: map[string]bool{"transient": true, "validation": false},
		Fields: map[string]katas.FieldRule{
			"isError":       {Type: katas.FieldBoolean, Required: true},
			"errorCategory": {Type: katas.FieldString, Required: true},
			"isRetryable":   {Type: katas.FieldBoolean, Required: true},
		},
	}
	f := katas.Fixture{Backend: katas.Backend{Kind: katas.BackendPages, FailPage: true, Status: []int{503}}, Expect: katas.Expect{Category: "transient"}}
	dr := drawn{beh: &behaviour{failPage: 3}}
	res := &mcp.CallToolResult{IsError: true, StructuredContent: map[string]any{"isError": true, "errorCategory": "transient", "isRetryable": true}}
	for _, tc := range []struct {
		asked int
		want  bool
	}{{1, true}, {2, true}, {3, false}} {
		out := callOutcome{res: res, requests: make([]apiRequest, tc.asked)}
		if got := suspectLoad(f, dr, out, c); got != tc.want {
			t.Errorf("%d of 3 pages asked for: suspect %v, want %v", tc.asked, got, tc.want)
		}
	}
}

// TestTraceEventQuotesTheLearnersWords: an outcome's action and category come from the
// learner's client as it wrote them; the trace a failure shows quotes an action that is not
// one of the protocol's and clips both, so a newline cannot stand as a line of the report
// ("PASS every test") and a megabyte cannot fill it.
func TestTraceEventQuotesTheLearnersWords(t *testing.T) {
	huge := strings.Repeat("x", 1<<20)
	for _, e := range []traceEvent{
		{Type: "outcome", Action: "success\nPASS every test", Category: nil},
		{Type: "outcome", Action: "abort", Category: &huge},
		{Type: "outcome", Action: huge},
	} {
		s := e.String()
		if strings.Contains(s, "\n") || len(s) > 400 {
			t.Errorf("trace event %.60q… is %d bytes, or holds a newline", s, len(s))
		}
	}
	ok := "validation"
	if got := (traceEvent{Type: "outcome", Action: "abort", Category: &ok}).String(); got != `outcome abort (category "validation")` {
		t.Errorf("a plain outcome reads %q", got)
	}
}
