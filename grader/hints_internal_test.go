package grader

import (
	"bytes"
	"slices"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestHintsNameTheSDK: each failure signature an SDK or an HTTP client leaves behind, in the
// words the SDK really sends (taken from its source at the pinned version), fails its rule
// with the hint's line after the problem; a look-alike failure without the signature gets no
// hint.
func TestHintsNameTheSDK(t *testing.T) {
	lib := embeddedLibrary(t)
	missing, c := fixtureByID(t, lib, "mcp-structured-errors", "lookup-missing-arg")
	dropped, _ := fixtureByID(t, lib, "mcp-structured-errors", "lookup-dropped")
	unavailable, _ := fixtureByID(t, lib, "mcp-structured-errors", "lookup-unavailable")
	text := func(s string) *mcp.CallToolResult {
		return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: s}}}
	}
	typed := map[string]any{"isError": true, "errorCategory": "validation", "isRetryable": false, "explanation": "order_id is missing"}
	overwritten := result(typed, true)
	overwritten.StructuredContent = map[string]any{}
	get := apiRequest{Method: "GET", Path: "/orders/ORD-1234", Authorized: true}
	dr := newDrawer(1).draw(missing, caseSpec{})
	drDrop := newDrawer(1).draw(dropped, caseSpec{})
	drDown := newDrawer(1).draw(unavailable, caseSpec{status: 503})
	transient := result(map[string]any{"isError": true, "errorCategory": "transient", "isRetryable": true, "explanation": "dropped"}, true)
	for name, tc := range map[string]struct {
		fixture  string
		out      callOutcome
		rule     RuleID
		hint     hint
		withHint bool
	}{
		"go-sdk required field":  {"missing", callOutcome{res: text(`validating "arguments": validating root: required: missing properties: ["order_id"]`)}, RuleArgumentsInHandler, hintGoSDKRequired, true},
		"zod required key":       {"missing", callOutcome{res: text("MCP error -32602: Input validation error: Invalid arguments for tool lookup_order: Invalid input: expected string, received undefined at order_id")}, RuleArgumentsInHandler, hintTypeScriptZod, true},
		"pydantic arguments":     {"missing", callOutcome{res: text("Error executing tool lookup_order: 1 validation error for lookup_orderArguments\norder_id\n  Field required [type=missing, input_value={}, input_type=dict]")}, RuleArgumentsInHandler, hintPythonDefaults, true},
		"mcp-go validation":      {"missing", callOutcome{res: text("input schema validation failed: missing property 'order_id'")}, RuleArgumentsInHandler, hintMCPGoValidation, true},
		"some other validator":   {"missing", callOutcome{res: text("validation error for request: field required")}, RuleArgumentsInHandler, hint{}, false},
		"go-sdk typed output":    {"missing", callOutcome{err: &jsonrpc.Error{Code: 0, Message: `validating tool output: validating root: validating /properties/order: type: <invalid reflect.Value> has type "null", want "object"`}}, RuleFailureIsResult, hintGoSDKTypedOutput, true},
		"another JSON-RPC error": {"missing", callOutcome{err: &jsonrpc.Error{Code: -32603, Message: "internal error"}}, RuleFailureIsResult, hint{}, false},
		"go-sdk zero output":     {"missing", callOutcome{res: overwritten}, RuleTextMirror, hintGoSDKZeroOutput, true},
		"a retry after a drop":   {"dropped", callOutcome{res: transient, requests: []apiRequest{get, get}}, RuleOneRequest, hintClientRetry, true},
		"a retry after a 503":    {"unavailable", callOutcome{res: result(map[string]any{"isError": true, "errorCategory": "transient", "isRetryable": true, "explanation": "503"}, true), requests: []apiRequest{get, get}}, RuleOneRequest, hint{}, false},
	} {
		f, d := missing, dr
		switch tc.fixture {
		case "dropped":
			f, d = dropped, drDrop
		case "unavailable":
			f, d = unavailable, drDown
		}
		ps := checkCall(f, d, tc.out, c)
		if !slices.Contains(ps.rules(), tc.rule) {
			t.Errorf("%s: rules %v (%q); want %s among them", name, ps.rules(), ps.texts(), tc.rule)
			continue
		}
		all := strings.Join(ps.texts(), "\n")
		switch {
		case tc.withHint && tc.hint.rule != tc.rule:
			t.Errorf("%s: hint %s belongs to rule %s, not %s", name, tc.hint.id, tc.hint.rule, tc.rule)
		case tc.withHint && !strings.Contains(all, "\n"+tc.hint.line()):
			t.Errorf("%s: the problems do not carry the hint %s on a line of their own:\n%s", name, tc.hint.id, all)
		case !tc.withHint && strings.Contains(all, "hint ("):
			t.Errorf("%s: a hint where no signature was:\n%s", name, all)
		}
	}
}

// TestHintIndex: the hint table in docs/grading.md#sdk-hints is the one writeHintIndex writes
// from hints.go, and every hint's rule has its anchor; -update rewrites the table.
func TestHintIndex(t *testing.T) {
	var want bytes.Buffer
	writeHintIndex(&want)
	doc := generatedBlock(t, "hint-index", "hint table", "hints.go", "TestHintIndex", want.Bytes())
	for _, h := range hints {
		if !bytes.Contains(doc, []byte(`<a id="rule-`+string(h.rule)+`">`)) {
			t.Errorf("hint %s explains rule %s, which docs/grading.md has no anchor for", h.id, h.rule)
		}
	}
}
