package grader

import (
	"slices"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestUnknownToolBothWays: a tool the server lacks passes with the spec's JSON-RPC error
// -32602; with -32601 (Method not found, which some servers send) and with a tool result carrying
// isError: true (what the official SDKs' high-level servers send) it passes with a note naming
// the spec's code; a success result or another code fails.
func TestUnknownToolBothWays(t *testing.T) {
	lib := embeddedLibrary(t)
	f, c := fixtureByID(t, lib, "mcp-structured-errors", "unknown-tool")
	dr := newDrawer(1).draw(f, caseSpec{})
	sdk := &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: "MCP error -32602: Tool cancel_order not found"}}}
	for name, tc := range map[string]struct {
		out   callOutcome
		pass  bool
		noted bool
	}{
		"-32602":           {callOutcome{err: &jsonrpc.Error{Code: -32602, Message: "unknown tool"}}, true, false},
		"-32601":           {callOutcome{err: &jsonrpc.Error{Code: -32601, Message: "method not found"}}, true, true},
		"isError result":   {callOutcome{res: sdk}, true, true},
		"another code":     {callOutcome{err: &jsonrpc.Error{Code: -32603, Message: "internal"}}, false, false},
		"a success result": {callOutcome{res: &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "cancelled"}}}}, false, false},
	} {
		ps := checkCall(f, dr, tc.out, c)
		if pass := len(ps.failures()) == 0; pass != tc.pass {
			t.Errorf("%s: pass %v, want %v (%q)", name, pass, tc.pass, ps.texts())
		}
		if noted := len(ps.notes()) > 0; noted != tc.noted {
			t.Errorf("%s: note %v, want %v (%q)", name, noted, tc.noted, ps.notes())
		}
		if !tc.pass && !slices.Equal(ps.rules(), []RuleID{RuleUnknownTool}) {
			t.Errorf("%s: rules %v; want unknown-tool", name, ps.rules())
		}
		if tc.noted && len(ps.notes()) > 0 && !strings.Contains(ps.notes()[0], "-32602") {
			t.Errorf("%s: the note %q does not say what the spec prefers", name, ps.notes()[0])
		}
	}
}
