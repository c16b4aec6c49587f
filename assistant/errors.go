package assistant

import (
	"encoding/json"
	"fmt"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The categories of a failed tool call (a ToolError's errorCategory), kata's own typed error
// contract for its tools; docs/assistant.md documents them. The MCP
// specification defines no categories: like the katas' contracts, this one is a convention
// carried in structuredContent.
const (
	// CategoryValidation: an argument is missing, has the wrong JSON type, is not one of the
	// tool's arguments, or has a value the tool cannot use (an option id the item does not
	// have, a folder that is no kata workspace). The same call fails again; fix the argument.
	CategoryValidation = "validation"
	// CategoryNotFound: the kata, item or workspace folder named does not exist.
	CategoryNotFound = "not_found"
	// CategoryTransient: the call could not finish now but may later: a grade was
	// interrupted, or another grade of the same workspace is running.
	CategoryTransient = "transient"
	// CategoryInternal: kata itself failed (a packet file could not be read, a result did not
	// match the tool's output schema). Retrying does not help; report it.
	CategoryInternal = "internal"
)

// Retryable maps each category to its isRetryable flag: only a transient failure is worth
// the same call again.
var Retryable = map[string]bool{
	CategoryValidation: false,
	CategoryNotFound:   false,
	CategoryTransient:  true,
	CategoryInternal:   false,
}

// ToolError is the payload of a failed tool call: the structuredContent of a CallToolResult
// with isError true, mirrored as JSON text in its first content block (MCP 2025-11-25, "Tools",
// tool execution errors). Every field is always present.
type ToolError struct {
	// IsError is always true; it repeats the result's isError for clients that read only the
	// payload.
	IsError bool `json:"isError"`
	// ErrorCategory is one of the Category constants.
	ErrorCategory string `json:"errorCategory"`
	// IsRetryable says whether the same call may succeed later (Retryable[ErrorCategory]).
	IsRetryable bool `json:"isRetryable"`
	// RetryAfterSeconds is how long to wait before retrying, in whole seconds, when known;
	// null otherwise (kata's tools never know it today, so it is always null).
	RetryAfterSeconds *int `json:"retryAfterSeconds"`
	// Explanation says, for a person or a model, what failed and what to do; no decision should
	// depend on its wording.
	Explanation string `json:"explanation"`
}

// toolErr returns the typed error of category with an explanation. Every string or error
// among args is clipped (clip): an argument the client sent may be megabytes long, and the
// explanation quotes no more than its start.
func toolErr(category, format string, args ...any) *ToolError {
	for i, a := range args {
		switch v := a.(type) {
		case string:
			args[i] = clip(v)
		case error:
			args[i] = clip(v.Error())
		}
	}
	return &ToolError{IsError: true, ErrorCategory: category, IsRetryable: Retryable[category],
		Explanation: fmt.Sprintf(format, args...)}
}

// Error returns the explanation prefixed with the category.
func (e *ToolError) Error() string { return e.ErrorCategory + ": " + e.Explanation }

// result returns the CallToolResult that carries e: isError true, e as structuredContent and as
// JSON text. It is built by hand, never through the SDK's typed handlers, so no output schema
// is applied to it.
func (e *ToolError) result() *mcp.CallToolResult {
	b, err := json.Marshal(e)
	if err != nil { // a struct of strings and booleans always marshals
		panic(err)
	}
	return &mcp.CallToolResult{
		IsError:           true,
		StructuredContent: json.RawMessage(b),
		Content:           []mcp.Content{&mcp.TextContent{Text: string(b)}},
	}
}

// maxEcho is how many bytes of a value the client sent an explanation or error message quotes.
const maxEcho = 1024

// clip returns s when it is at most maxEcho bytes long; otherwise its first maxEcho bytes (cut
// at a character boundary) and how long it was, so that a huge argument is never echoed whole.
func clip(s string) string {
	if len(s) <= maxEcho {
		return s
	}
	cut := maxEcho
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return fmt.Sprintf("%s… (%d bytes in all)", s[:cut], len(s))
}
