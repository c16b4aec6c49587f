package grader

import (
	"fmt"
	"io"
	"regexp"
	"strings"

	"github.com/kata-mcp/kata/internal/i18n"
	"github.com/kata-mcp/kata/katas"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// This file holds the hints: a failure whose signature an MCP SDK (or an HTTP client) leaves
// behind gets one more line, naming that cause and its fix. The checks in contract.go call the
// matchers below; each hint belongs to the rule whose failure it explains, and
// docs/grading.md#sdk-hints lists them all (written from the table by TestHintIndex).

// hint is an SDK-specific cause of a failure, recognised by its signature
// (docs/grading.md#sdk-hints).
type hint struct {
	// id names the hint in docs/grading.md#sdk-hints.
	id string
	// rule is the rule whose failure the hint explains; it follows that rule's problem text.
	rule RuleID
	// source is who leaves the signature behind: an SDK, or an HTTP client.
	source string
	// signature says, in words, what the grader recognises.
	signature string
	// fix is the cause and the fix, in a sentence or two.
	fix string
}

// line is the hint as a failure message shows it in English, on a line of its own; the
// grader's catalog has it, and its Spanish and Russian, as msg.
func (h hint) line() string { return fmt.Sprintf("hint (%s): %s", h.source, h.fix) }

// msg is the hint's line as a message of the grader's catalog, grader.hint.<id>, whose
// English is line (TestHintsInTheCatalog).
func (h hint) msg() i18n.Msg { return i18n.M("grader.hint." + h.id) }

// The hints, in the order docs/grading.md lists them.
var (
	hintGoSDKRequired = hint{"go-sdk-required", RuleArgumentsInHandler, "official Go SDK",
		`the text of an isError result says "validating root: required: missing properties"`,
		"mcp.AddTool derives the input schema from your arguments struct, and every field whose json tag lacks omitempty (or omitzero) becomes a required property that the SDK enforces before your handler runs; tag each argument `json:\"order_id,omitempty\"` (a `jsonschema:\"...\"` tag only sets the description) or give the Tool an InputSchema of your own without \"required\""}
	hintTypeScriptZod = hint{"typescript-zod-required", RuleArgumentsInHandler, "official TypeScript SDK",
		`the text of an isError result says "Invalid arguments for tool" (McpServer's zod check)`,
		"McpServer parses the arguments with the tool's zod shape before your handler runs, and a key declared z.string() is required; declare each argument z.string().optional() and check presence and shape in the handler (a .regex() or .min() in the shape is also answered before the handler, with the SDK's text)"}
	hintPythonDefaults = hint{"python-sdk-defaults", RuleArgumentsInHandler, "Python SDK, FastMCP",
		"the text of an isError result says \"validation error for\" a model named after the tool function plus `Arguments` (pydantic)",
		"FastMCP (MCPServer in version 2) builds a pydantic model from the tool function's parameters, and a parameter without a default is required; give each argument a default, `order_id: str | None = None`, and check it in the function"}
	hintMCPGoValidation = hint{"mcp-go-input-validation", RuleArgumentsInHandler, "mark3labs/mcp-go",
		`the text of an isError result says "input schema validation failed"`,
		"server.WithInputSchemaValidation() checks each call against the input schema before your handler runs; leave mcp.Required() off the arguments (and omitempty on the fields of a WithInputSchema[T] struct), or leave that option out and check the arguments in the handler"}
	hintGoSDKTypedOutput = hint{"go-sdk-typed-output", RuleFailureIsResult, "official Go SDK",
		`a JSON-RPC error whose message starts "validating tool output"`,
		"mcp.AddTool with an output type checks the output value the handler returns against the output schema it derived, even when the result it returns has IsError set: the zero value returned beside your error result failed that check, and the SDK answered with a JSON-RPC error instead of your result. Give tools that return error results the output type any (no output schema; return nil as the output), or register them with Server.AddTool"}
	hintGoSDKZeroOutput = hint{"go-sdk-zero-output", RuleTextMirror, "official Go SDK",
		"an isError result whose text block carries the typed error while structuredContent lacks its isError field",
		"mcp.AddTool with an output type writes the output value the handler returns into structuredContent, over the one your result set, even for an error result; here it wrote the zero value. Give tools that return error results the output type any (no output schema; return nil as the output), or register them with Server.AddTool"}
	hintTextBesideStructured = hint{"text-beside-structured", RuleTextMirror, "mcp-go, official Go SDK",
		"structuredContent is a JSON object and content[0] is text that is not the same JSON (prose, a summary)",
		"mcp-go's mcp.NewToolResultStructured(value, text), like a CallToolResult built by hand with the Go SDK, puts the text you pass beside the payload; the grader graded structuredContent, but a client that reads only content sees your text instead. Pass the payload's own JSON as that text (json.Marshal of the same value), as the tools page asks of a tool that returns structured content"}
	hintClientRetry = hint{"http-client-retry", RuleOneRequest, "HTTP client",
		"more than one request for a call whose Orders API dropped the connection",
		"the Orders API closed the connection without answering, and the same request came again at once: that is the HTTP client retrying by itself, not your code. Go's net/http re-sends an idempotent GET when a reused keep-alive connection closes before the answer: give your http.Client a Transport with DisableKeepAlives: true (or a fresh Transport per request). Other clients that retry by themselves: urllib3 (its default Retry(3), or a requests HTTPAdapter given max_retries) in Python; got (2 retries of a GET by default) or an undici RetryAgent in Node; turn their retries off"}
)

// hints lists every hint, for docs/grading.md#sdk-hints.
var hints = []hint{hintGoSDKRequired, hintTypeScriptZod, hintPythonDefaults, hintMCPGoValidation, hintGoSDKTypedOutput, hintGoSDKZeroOutput, hintTextBesideStructured, hintClientRetry}

// pydanticArguments is the first line of pydantic's error for the arguments model FastMCP
// builds, named after the tool function ("1 validation error for lookup_orderArguments").
var pydanticArguments = regexp.MustCompile(`validation errors? for \w+Arguments\b`)

// inputValidationHint names the SDK whose input-schema check wrote text, the text of an
// isError result that carries no payload.
func inputValidationHint(text string) (hint, bool) {
	low := strings.ToLower(text)
	switch {
	case strings.Contains(low, "validating root: required: missing properties"), strings.Contains(low, `validating "arguments"`):
		return hintGoSDKRequired, true
	case strings.Contains(low, "invalid arguments for tool"):
		return hintTypeScriptZod, true
	case pydanticArguments.MatchString(text):
		return hintPythonDefaults, true
	case strings.Contains(low, "input schema validation failed"):
		return hintMCPGoValidation, true
	}
	return hint{}, false
}

// protocolErrorHint names the cause of a JSON-RPC error sent where a tool result was due.
func protocolErrorHint(rpc *jsonrpc.Error) (hint, bool) {
	if strings.HasPrefix(rpc.Message, "validating tool output") {
		return hintGoSDKTypedOutput, true
	}
	return hint{}, false
}

// mirrorHint recognises an error result whose structuredContent was overwritten: the text
// block carries the contract's typed error (its is-error field true) and structuredContent has
// no is-error field at all.
func mirrorHint(res *mcp.CallToolResult, text any, c katas.Contract) (hint, bool) {
	name, _, ok := c.Field(katas.RoleIsError)
	if !ok || !res.IsError {
		return hint{}, false
	}
	fromText, isObject := text.(map[string]any)
	structured, _, _ := payloadOf(&mcp.CallToolResult{StructuredContent: res.StructuredContent})
	if _, has := structured[name]; isObject && fromText[name] == true && !has {
		return hintGoSDKZeroOutput, true
	}
	return hint{}, false
}

// retryHint recognises the HTTP client's own retry: more requests than allowed for a call
// whose Orders API dropped the connection, which it does to every request of the call.
func retryHint(f katas.Fixture, got, want int) (hint, bool) {
	if f.Backend.Kind == katas.BackendDrop && got > want {
		return hintClientRetry, true
	}
	return hint{}, false
}

// addHint appends the hint's line to the last problem, which is of the hint's rule.
func (ps *problems) addHint(h hint) {
	if n := len(*ps); n > 0 && (*ps)[n-1].rule == h.rule {
		(*ps)[n-1].msg = i18n.Lines((*ps)[n-1].msg, h.msg())
	}
}

// writeHintIndex writes the hint table of docs/grading.md#sdk-hints: one row per hint, with
// its anchor "hint-<id>", the rule it explains, who leaves the signature, the signature and
// the fix.
func writeHintIndex(w io.Writer) {
	fmt.Fprintln(w, "| hint | rule | from | signature | cause and fix |")
	fmt.Fprintln(w, "| --- | --- | --- | --- | --- |")
	cell := func(s string) string { return strings.ReplaceAll(s, "|", "\\|") }
	for _, h := range hints {
		fmt.Fprintf(w, "| <a id=\"hint-%s\"></a>`%s` | [`%s`](#rule-%s) | %s | %s | %s |\n", h.id, h.id, h.rule, h.rule, h.source, cell(h.signature), cell(h.fix))
	}
}
