package grader

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"reflect"
	"regexp"
	"strconv"
	"strings"

	"github.com/kata-mcp/kata/katas"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// callOutcome is what one tools/call produced, as the checker sees it.
type callOutcome struct {
	res *mcp.CallToolResult
	err error
	// requests are the Orders API requests made for the fixture's id during the call;
	// strayRequests counts requests for ids no fixture registered, made during the call.
	requests      []apiRequest
	strayRequests int
	// retryAfterSent is the Retry-After the service sent, in seconds, when it sent one.
	retryAfterSent    float64
	hasRetryAfterSent bool
	// waitedPastTimeout: the service held a request for slowHold and answered it late, and the
	// server was still waiting for that answer (it ignored ORDERS_API_TIMEOUT_SECONDS).
	waitedPastTimeout bool
}

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

// checkMirror: when a result carries structuredContent, its first content block must be a
// text block with the same payload as JSON (exercise-orders.md §3; the MCP spec asks a tool
// that returns structured content to return it serialised in a TextContent block too, for
// clients that read only content).
func checkMirror(res *mcp.CallToolResult) string {
	if res.StructuredContent == nil {
		return ""
	}
	if len(res.Content) == 0 {
		return "the result has structuredContent but no content blocks; the payload also travels as the JSON text of the first content block, for clients that read only content"
	}
	t, ok := res.Content[0].(*mcp.TextContent)
	if !ok {
		return "the first content block is not a text block; it must carry the structuredContent payload as JSON text"
	}
	var text any
	if err := json.Unmarshal([]byte(t.Text), &text); err != nil {
		return fmt.Sprintf("the first content block's text is not JSON (%q); it must carry the same payload as structuredContent, as JSON text", clipText(t.Text, 120))
	}
	if !sameJSON(text, res.StructuredContent) {
		return fmt.Sprintf("the first content block's JSON differs from structuredContent (text %s, structuredContent %s); both carry the same payload", jsonText(text), jsonText(res.StructuredContent))
	}
	return ""
}

// schemaValidationMarkers are phrases SDKs use when they reject arguments against the input
// schema before the tool handler runs (TypeScript SDK "Input validation error", Python
// pydantic "validation error for", go-sdk `validating "arguments"`).
var schemaValidationMarkers = []string{
	"input validation error",
	"validation error for",
	`validating "arguments"`,
	"missing properties",
	"field required",
	"invalid arguments for tool",
}

// payloadOf returns the tool result's payload: structuredContent when present, else the JSON
// object in the first text content block (exercise-orders.md §3). text is that block's text.
func payloadOf(res *mcp.CallToolResult) (payload map[string]any, text string, from string) {
	for _, c := range res.Content {
		if t, ok := c.(*mcp.TextContent); ok {
			text = t.Text
			break
		}
	}
	if res.StructuredContent != nil {
		if m, ok := res.StructuredContent.(map[string]any); ok {
			return m, text, "structuredContent"
		}
		// Re-decode values the SDK kept as raw JSON.
		b, _ := json.Marshal(res.StructuredContent)
		var m map[string]any
		if json.Unmarshal(b, &m) == nil {
			return m, text, "structuredContent"
		}
	}
	var m map[string]any
	if text != "" && json.Unmarshal([]byte(text), &m) == nil {
		return m, text, "content[0].text"
	}
	return nil, text, ""
}

// checkCall applies a fixture's expectation and the kata's contract to one call's outcome and
// returns every problem found, each a sentence for the learner.
func checkCall(f katas.Fixture, dr drawn, out callOutcome, c katas.Contract) []string {
	var probs []string
	add := func(format string, args ...any) { probs = append(probs, fmt.Sprintf(format, args...)) }

	if out.err != nil {
		var rpc *jsonrpc.Error
		if errors.As(out.err, &rpc) {
			if f.Expect.ProtocolError != 0 {
				if int(rpc.Code) != f.Expect.ProtocolError {
					add("the JSON-RPC error code was %d; expected %d", rpc.Code, f.Expect.ProtocolError)
				}
				return probs
			}
			add("the call came back as a JSON-RPC error (code %d, %q) instead of a tool result with isError: true; tool failures travel as results so the model can see them (MCP spec 2025-11-25, tools)", rpc.Code, rpc.Message)
			return probs
		}
		add("the result is not a valid CallToolResult: %s", learnerJSONError(out.err.Error()))
		return probs
	}
	if f.Expect.ProtocolError != 0 {
		add("expected a JSON-RPC error %d for a tool the server does not have, but a tool result came back", f.Expect.ProtocolError)
		return probs
	}
	if out.waitedPastTimeout {
		add("the Orders API held the request for %.1f s, far past ORDERS_API_TIMEOUT_SECONDS (%.1f s), and your server waited for its late answer instead of giving up: read the timeout from ORDERS_API_TIMEOUT_SECONDS and pass it to every request (a hard-coded timeout, or none, keeps an agent waiting on a stuck backend)", slowHold.Seconds(), apiTimeout.Seconds())
		return probs
	}
	payload, text, _ := payloadOf(out.res)
	if payload == nil {
		low := strings.ToLower(text)
		for _, m := range schemaValidationMarkers {
			if strings.Contains(low, m) {
				add("the call was rejected by input-schema validation before your handler ran (%q); declare argument types but do not list them as required, check presence and format in the handler, and return the kata's typed validation payload (task step 1)", clipText(text, 160))
				return probs
			}
		}
		if text == "" {
			add("the result has neither structuredContent nor a text content block with a JSON object")
		} else {
			add("the result carries no JSON object: structuredContent is absent and the text is not JSON (%q)", clipText(text, 160))
		}
		return probs
	}

	if msg := checkMirror(out.res); msg != "" {
		add("%s", msg)
	}
	if f.Expect.Success != "" {
		if out.res.IsError {
			add("result.isError is true; a successful call returns isError false or omits it")
		}
		if v, ok := payload["isError"]; ok && v != false {
			add("the payload's isError is %s; a success may only carry false", jsonText(v))
		}
		key := f.Expect.Success.PayloadKey()
		if _, present := payload[key]; !present {
			add(`%q is missing from the payload (keys: %s); a success carries {%q: ...}`, key, keysOf(payload), key)
			checkRequests(f, dr, out, add)
			return probs
		}
		switch f.Expect.Success {
		case "order":
			if !sameJSON(payload["order"], dr.beh.order) {
				add(`"order" was %s; expected the order the API returned, %s`, jsonText(payload["order"]), jsonText(dr.beh.order))
			}
		case "refund":
			if !sameJSON(payload["refund"], dr.beh.refund) {
				add(`"refund" was %s; expected the refund the API created, %s`, jsonText(payload["refund"]), jsonText(dr.beh.refund))
			}
		case "orders", "empty":
			want := dr.expectedOrders()
			got, isList := payload["orders"].([]any)
			switch {
			case !isList:
				add(`"orders" was %s; expected a JSON array`, jsonText(payload["orders"]))
			case f.Expect.Success == "empty" && len(got) != 0:
				add(`"orders" had %d entries; the customer has none`, len(got))
			case f.Expect.Success == "orders" && !sameJSON(got, want):
				add(`"orders" had %d orders; expected all %d orders of the %d pages, in order (follow next_page until it is null)`, len(got), len(want), len(dr.beh.pages))
			}
		}
		checkRequests(f, dr, out, add)
		return probs
	}

	// An error is expected: the kata's typed payload.
	pe, hasPE := payload["isError"]
	switch {
	case !out.res.IsError && pe == true:
		add("result.isError is false while the payload says isError: true; the two must agree")
	case !out.res.IsError:
		add("result.isError is false; a failed call must return isError: true")
	case hasPE && pe != true:
		add("the payload's isError is %s while result.isError is true; the two must agree", jsonText(pe))
	}
	if missing := missingRequired(payload, c); len(missing) > 0 && len(missing) == countRequired(c) {
		add("the payload is not the kata's typed error: it has none of %s (found %s); return the contract's error object", strings.Join(missing, ", "), jsonText(payload))
		checkRequests(f, dr, out, add)
		return probs
	}
	for _, name := range c.FieldNames() {
		rule := c.Fields[name]
		v, present := payload[name]
		if !present {
			if rule.Required {
				add("%s is missing", name)
			}
			continue
		}
		if msg := typeProblem(rule.Type, v); msg != "" {
			add("%s was %s (%s); expected %s", name, jsonText(v), jsonKind(v), msg)
		}
	}
	cat, _ := payload["errorCategory"].(string)
	want := f.Expect.Category
	if _, has := payload["errorCategory"]; has && cat != want {
		add("errorCategory was %s; expected %q (%s)", jsonText(payload["errorCategory"]), want, f.Rule)
	}
	if r, ok := payload["isRetryable"].(bool); ok && cat == want && r != c.Categories[want] {
		add("isRetryable was %v; %s is %s", r, want, map[bool]string{true: "retryable", false: "not retryable"}[c.Categories[want]])
	}
	checkAttemptedQuery(payload, dr, c, add)
	checkPartialResults(payload, f, dr, c, add)
	if _, inContract := c.Fields["field"]; inContract && f.Expect.Field != "" && cat == want {
		if got, _ := payload["field"].(string); got != f.Expect.Field {
			add("field was %s; expected %q, the argument's name exactly as in the tool's input schema", jsonText(payload["field"]), f.Expect.Field)
		}
	}
	if _, inContract := c.Fields["retryAfterSeconds"]; inContract {
		ra, present := payload["retryAfterSeconds"]
		n, isNum := ra.(float64)
		if f.Expect.RetryAfter == katas.RetryAfterFromHeader {
			tol := 0.0 // delay-seconds are exact; an HTTP-date is converted within 2 s (§4)
			if f.Backend.RetryAfter == katas.RetryAfterHTTPDate {
				tol = 2
			}
			past := f.Backend.RetryAfter == katas.RetryAfterHTTPDatePast
			switch {
			case !out.hasRetryAfterSent:
				add("the Orders API never sent its 429 (no request reached it)")
			case !present || ra == nil:
				if past {
					add("retryAfterSeconds was null; the API sent Retry-After as an HTTP-date already passed, which means no wait: 0 (a header was sent, so it is not null)")
				} else {
					add("retryAfterSeconds was null; the API sent Retry-After worth %.0f s, and a rate_limit error carries it in whole seconds", out.retryAfterSent)
				}
			case isNum && past && (n < 0 || n > 2):
				// §4: whole seconds ≥ 0, an HTTP-date converted against the clock within 2 s;
				// a date already passed converts to no wait at all.
				add("retryAfterSeconds was %s; the Retry-After HTTP-date was already in the past, which means no wait: expected 0 (whole seconds ≥ 0, never negative)", jsonText(ra))
			case isNum && !past && typeProblem(katas.FieldIntegerOrNull, ra) == "" && math.Abs(n-out.retryAfterSent) > tol+0.5:
				add("retryAfterSeconds was %s; expected %.0f, the seconds of the Retry-After header (RFC 9110 §10.2.3)", jsonText(ra), out.retryAfterSent)
			}
		} else if present && ra != nil && typeProblem(katas.FieldIntegerOrNull, ra) == "" {
			add("retryAfterSeconds was %s; expected null (%s)", jsonText(ra), map[bool]string{true: "the API sent no Retry-After", false: "only a rate_limit error carries a wait"}[want == "rate_limit"])
		}
	}
	checkRequests(f, dr, out, add)
	return probs
}

// checkRequests checks how many requests reached the Orders API during the call: none for
// an argument the server must reject, one per lookup or page otherwise (the server never
// retries on its own, exercise-orders.md §2).
func checkRequests(f katas.Fixture, dr drawn, out callOutcome, add func(string, ...any)) {
	switch {
	case f.Backend.Kind == katas.BackendNone:
		if out.strayRequests > 0 {
			add("the server sent %d request(s) to the Orders API; an invalid argument must be rejected before any request", out.strayRequests)
		}
		return
	case dr.beh == nil:
		return
	}
	for _, r := range out.requests {
		if !r.Authorized {
			add("a request to %s carried no valid `Authorization: Bearer <ORDERS_API_TOKEN>` header, so the Orders API answered it 401 instead of what this fixture sets up; send the token the grader passes in ORDERS_API_TOKEN (\"${ORDERS_API_TOKEN}\" in .mcp.json, not a literal)", r.Path)
			return
		}
	}
	want := 1
	if f.Backend.Kind == katas.BackendPages {
		want = len(dr.beh.pages)
		if dr.beh.slowPage > 0 {
			want = dr.beh.slowPage
		}
		if dr.beh.failPage > 0 {
			want = dr.beh.failPage
		}
	}
	reqs := out.requests
	if dr.beh.refundOnly {
		reqs = nil
		for _, r := range out.requests {
			if r.Method == "POST" {
				reqs = append(reqs, r)
			}
		}
	}
	if got := len(reqs); got > want {
		add("the server made %d requests where %d %s needed; it must make one request per lookup or page and leave retries to the client", got, want, map[bool]string{true: "was", false: "were"}[want == 1])
	}
}

// typeProblem returns "" when v has the field type t, else what was expected.
func typeProblem(t string, v any) string {
	switch t {
	case katas.FieldBoolean:
		if _, ok := v.(bool); !ok {
			return "a JSON boolean (true or false, not a string)"
		}
	case katas.FieldString:
		if _, ok := v.(string); !ok {
			return "a JSON string"
		}
	case katas.FieldNonEmptyString:
		if s, ok := v.(string); !ok || strings.TrimSpace(s) == "" {
			return "a non-empty string"
		}
	case katas.FieldIntegerOrNull:
		if v == nil {
			return ""
		}
		n, ok := v.(float64)
		if !ok || n != math.Trunc(n) || n < 0 {
			return "a whole number of seconds ≥ 0, or null"
		}
	case katas.FieldArrayOrNull:
		if v == nil {
			return ""
		}
		if _, ok := v.([]any); !ok {
			return "a JSON array, or null"
		}
	}
	return ""
}

// keysOf lists a payload's keys, sorted, for messages.
func keysOf(m map[string]any) string {
	if len(m) == 0 {
		return "none"
	}
	return strings.Join(sortedKeys(m), ", ")
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

// missingRequired lists the contract's required fields absent from payload.
func missingRequired(payload map[string]any, c katas.Contract) []string {
	var out []string
	for _, name := range c.FieldNames() {
		if _, ok := payload[name]; !ok && c.Fields[name].Required {
			out = append(out, name)
		}
	}
	return out
}

func countRequired(c katas.Contract) int {
	n := 0
	for _, f := range c.Fields {
		if f.Required {
			n++
		}
	}
	return n
}

// checkAttemptedQuery: when the contract has attemptedQuery, it is a string that contains
// every argument value the call was given (checked by containment, so any readable format
// passes; exercise-orders.md §4).
func checkAttemptedQuery(payload map[string]any, dr drawn, c katas.Contract, add func(string, ...any)) {
	if _, ok := c.Fields["attemptedQuery"]; !ok {
		return
	}
	q, ok := payload["attemptedQuery"].(string)
	if !ok {
		return // the field type check has already reported it
	}
	for _, k := range sortedKeys(dr.args) {
		if !containsValue(q, dr.args[k]) {
			add("attemptedQuery %q does not contain the value of %s (%s); it must name every argument the call was given", clipText(q, 200), k, jsonText(dr.args[k]))
		}
	}
}

// containsValue reports whether s contains v written in any usual form: a string as is; a
// number as 120, 120.0 or 120.00, standing alone (not as part of a longer number or id, so
// "ORD-1234" does not contain -1 and "100" does not contain 10).
func containsValue(s string, v any) bool {
	switch x := v.(type) {
	case string:
		return strings.Contains(s, x)
	case float64:
		for _, f := range []string{strconv.FormatFloat(x, 'f', -1, 64), strconv.FormatFloat(x, 'f', 1, 64), strconv.FormatFloat(x, 'f', 2, 64)} {
			re := regexp.MustCompile(`(^|[^0-9.\-])` + regexp.QuoteMeta(f) + `($|[^0-9])`)
			if re.MatchString(s) {
				return true
			}
		}
		return false
	}
	return strings.Contains(s, jsonText(v))
}

// checkPartialResults: when the contract has partialResults, it holds the orders fetched
// before the failure, in order, or null when there were none (exercise-orders.md §4).
func checkPartialResults(payload map[string]any, f katas.Fixture, dr drawn, c katas.Contract, add func(string, ...any)) {
	if _, ok := c.Fields["partialResults"]; !ok {
		return
	}
	got, present := payload["partialResults"]
	var want []map[string]any
	if dr.beh != nil && len(dr.beh.pages) > 0 {
		want = dr.expectedOrders()
	}
	if len(want) == 0 {
		if present && got != nil {
			add("partialResults was %s; expected null, since no orders were fetched before the failure", jsonText(got))
		}
		return
	}
	if !sameJSON(got, want) {
		add("partialResults was %s; expected the %d orders of the pages fetched before page %d failed, in order", jsonText(got), len(want), max(dr.beh.slowPage, dr.beh.failPage))
	}
}
