package grader

import (
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/kata-mcp/kata/internal/i18n"
	"github.com/kata-mcp/kata/katas"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// This file is the one checker of a server's tools/call results: it applies a fixture's
// expectation and the kata's contract (katas.Contract: field names by role, JSON types,
// category → retryable, which categories carry Retry-After) to one call's outcome. Every
// problem it finds is tagged with the rule it breaks (rules.go), and its text is written
// here, once. docs/grading.md explains each rule under #rule-<id>.

// codeMethodNotFound is JSON-RPC 2.0's -32601 (§5.1), which some servers send for an unknown
// tool instead of the MCP spec's -32602.
const codeMethodNotFound = -32601

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

// problem is one broken rule, in a sentence for the learner. A note is not a failure: it
// says something worth knowing about a call that passed (TestResult.Note).
type problem struct {
	rule RuleID
	msg  i18n.Msg
	note bool
}

// problems collects what a check finds.
type problems []problem

// add records a problem of the rule in English only (a sentence not yet in the catalog).
func (ps *problems) add(rule RuleID, format string, args ...any) {
	*ps = append(*ps, problem{rule: rule, msg: i18n.Raw(fmt.Sprintf(format, args...))})
}

// say records a problem of the rule: m, a message of the grader's catalog
// (internal/i18n/grader.*.toml), so the report can be read in any language.
func (ps *problems) say(rule RuleID, m i18n.Msg) {
	*ps = append(*ps, problem{rule: rule, msg: m})
}

// addNote records a note of the rule: the call passed, with something worth saying.
func (ps *problems) addNote(rule RuleID, format string, args ...any) {
	*ps = append(*ps, problem{rule: rule, msg: i18n.Raw(fmt.Sprintf(format, args...)), note: true})
}

// sayNote records a note of the rule as a catalog message (see say).
func (ps *problems) sayNote(rule RuleID, m i18n.Msg) {
	*ps = append(*ps, problem{rule: rule, msg: m, note: true})
}

// failures returns the problems that are not notes.
func (ps problems) failures() problems {
	return slices.DeleteFunc(slices.Clone(ps), func(p problem) bool { return p.note })
}

// notes returns the notes' sentences in English, in order.
func (ps problems) notes() []string { return english(ps.noteMessages()) }

// texts returns the sentences in English of the problems that are not notes, in order.
func (ps problems) texts() []string { return english(ps.messages()) }

// english is messages in English.
func english(ms []i18n.Msg) []string {
	out := make([]string, len(ms))
	for i, m := range ms {
		out[i] = m.English()
	}
	return out
}

// noteMessages returns the notes' messages, in order.
func (ps problems) noteMessages() []i18n.Msg {
	var out []i18n.Msg
	for _, p := range ps {
		if p.note {
			out = append(out, p.msg)
		}
	}
	return out
}

// messages returns the messages of the problems that are not notes, in order.
func (ps problems) messages() []i18n.Msg {
	var out []i18n.Msg
	for _, p := range ps.failures() {
		out = append(out, p.msg)
	}
	return out
}

// rules returns the ids of the rules broken (notes aside), each once, in order of first
// appearance.
func (ps problems) rules() []RuleID {
	var out []RuleID
	for _, p := range ps.failures() {
		if p.rule != "" && !slices.Contains(out, p.rule) {
			out = append(out, p.rule)
		}
	}
	return out
}

// schemaValidationMarkers are phrases SDKs use when they reject arguments against the input
// schema before the tool handler runs (TypeScript SDK "Input validation error", Python
// pydantic "validation error for", go-sdk `validating "arguments"`, mcp-go "input schema
// validation failed"); hints.go names the SDK and the fix.
var schemaValidationMarkers = []string{
	"input validation error",
	"validation error for",
	`validating "arguments"`,
	"missing properties",
	"field required",
	"invalid arguments for tool",
	"input schema validation failed",
}

// payloadOf returns the tool result's payload: structuredContent when present, else the JSON
// object in the first text content block (docs/grading.md#tools). text is that block's text.
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
// returns every problem found.
func checkCall(f katas.Fixture, dr drawn, out callOutcome, c katas.Contract) problems {
	var ps problems
	if out.err != nil {
		var rpc *jsonrpc.Error
		if errors.As(out.err, &rpc) {
			if f.Expect.ProtocolError != 0 {
				// The spec's answer to an unknown tool: -32602 (Invalid params, as the MCP tools
				// page gives it) or -32601 (Method not found, which some servers send).
				if code := int(rpc.Code); code != f.Expect.ProtocolError && code != codeMethodNotFound {
					ps.add(RuleUnknownTool, "the JSON-RPC error code was %d; expected %d (Invalid params, as the MCP spec's tools page gives it) or %d (Method not found)", rpc.Code, f.Expect.ProtocolError, codeMethodNotFound)
				}
				return ps
			}
			ps.add(RuleFailureIsResult, "the call came back as a JSON-RPC error (code %d, %q) instead of a tool result with isError: true; tool failures travel as results so the model can see them (MCP spec 2025-11-25, tools)", rpc.Code, rpc.Message)
			if h, ok := protocolErrorHint(rpc); ok {
				ps.addHint(h)
			}
			return ps
		}
		ps.add(RuleValidResult, "the result is not a valid CallToolResult: %s", learnerJSONError(out.err.Error()))
		return ps
	}
	if f.Expect.ProtocolError != 0 {
		if out.res.IsError {
			// What the official SDKs' high-level servers send (TypeScript McpServer, 1.32), with
			// no option to change it: accepted, with a note (docs/grading.md#unknown-tools).
			ps.addNote(RuleUnknownTool, "accepted: the server answered the unknown tool with a tool result carrying isError: true; the MCP spec (2025-11-25, tools) lists an unknown tool among protocol errors, a JSON-RPC error %d, which is what a hand-written server should send (the official SDKs' high-level servers send this result instead)", f.Expect.ProtocolError)
			return ps
		}
		ps.add(RuleUnknownTool, "a success result came back for a tool the server does not have; expected a JSON-RPC error %d (or a tool result with isError: true)", f.Expect.ProtocolError)
		return ps
	}
	if out.waitedPastTimeout {
		ps.add(RuleTimeoutHonoured, "the Orders API held the request for %.1f s, far past ORDERS_API_TIMEOUT_SECONDS (%.1f s), and your server waited for its late answer instead of giving up: read the timeout from ORDERS_API_TIMEOUT_SECONDS and pass it to every request (a hard-coded timeout, or none, keeps an agent waiting on a stuck backend)", slowHold.Seconds(), apiTimeout.Seconds())
		return ps
	}
	payload, text, _ := payloadOf(out.res)
	if payload == nil {
		low := strings.ToLower(text)
		for _, m := range schemaValidationMarkers {
			if strings.Contains(low, m) {
				ps.add(RuleArgumentsInHandler, "the call was rejected by input-schema validation before your handler ran (%q); declare argument types but do not list them as required, check presence and format in the handler, and return the kata's typed validation payload (task step 1)", clipText(text, 160))
				if h, ok := inputValidationHint(text); ok {
					ps.addHint(h)
				}
				return ps
			}
		}
		if text == "" {
			ps.add(RulePayloadJSON, "the result has neither structuredContent nor a text content block with a JSON object")
		} else {
			ps.add(RulePayloadJSON, "the result carries no JSON object: structuredContent is absent and the text is not JSON (%q)", clipText(text, 160))
		}
		return ps
	}
	checkMirror(out.res, c, &ps)
	if f.Expect.Success != "" {
		checkSuccess(f, dr, out.res, payload, c, &ps)
	} else {
		checkTypedError(f, dr, out, payload, c, &ps)
	}
	checkRequests(f, dr, out, &ps)
	return ps
}

// checkMirror: when a result carries structuredContent, its first content block is a text
// block with the same payload as JSON (the MCP spec asks a tool that returns structured
// content to return it serialised in a TextContent block too, for clients that read only
// content; docs/grading.md#tools).
func checkMirror(res *mcp.CallToolResult, c katas.Contract, ps *problems) {
	if res.StructuredContent == nil {
		return
	}
	if len(res.Content) == 0 {
		ps.add(RuleTextMirror, "the result has structuredContent but no content blocks; the payload also travels as the JSON text of the first content block, for clients that read only content")
		return
	}
	t, ok := res.Content[0].(*mcp.TextContent)
	if !ok {
		ps.add(RuleTextMirror, "the first content block is not a text block; it must carry the structuredContent payload as JSON text")
		return
	}
	var text any
	if err := json.Unmarshal([]byte(t.Text), &text); err != nil {
		ps.add(RuleTextMirror, "the first content block's text is not JSON (%q); it must carry the same payload as structuredContent, as JSON text", clipText(t.Text, 120))
		return
	}
	if !sameJSON(text, res.StructuredContent) {
		ps.add(RuleTextMirror, "the first content block's JSON differs from structuredContent (text %s, structuredContent %s); both carry the same payload", jsonText(text), jsonText(res.StructuredContent))
		if h, ok := mirrorHint(res, text, c); ok {
			ps.addHint(h)
		}
	}
}

// checkSuccess checks a success: isError false or absent on the result and in the payload
// (the payload's flag is the contract's is-error field), and the API's data under the kind's
// key.
func checkSuccess(f katas.Fixture, dr drawn, res *mcp.CallToolResult, payload map[string]any, c katas.Contract, ps *problems) {
	if res.IsError {
		ps.add(RuleSuccessPayload, "result.isError is true; a successful call returns isError false or omits it")
	}
	if name, _, ok := c.Field(katas.RoleIsError); ok {
		if v, present := payload[name]; present && v != false {
			ps.add(RuleSuccessPayload, "the payload's %s is %s; a success may only carry false", name, jsonText(v))
		}
	}
	key := f.Expect.Success.PayloadKey()
	got, present := payload[key]
	if !present {
		ps.add(RuleSuccessPayload, `%q is missing from the payload (keys: %s); a success carries {%q: ...}`, key, keysOf(payload), key)
		return
	}
	switch f.Expect.Success {
	case katas.SuccessOrder:
		if !sameJSON(got, dr.beh.order) {
			ps.add(RuleSuccessPayload, `"order" was %s; expected the order the API returned, %s`, jsonText(got), jsonText(dr.beh.order))
		}
	case katas.SuccessRefund:
		if !sameJSON(got, dr.beh.refund) {
			ps.add(RuleSuccessPayload, `"refund" was %s; expected the refund the API created, %s`, jsonText(got), jsonText(dr.beh.refund))
		}
	case katas.SuccessOrders, katas.SuccessEmpty:
		want := dr.expectedOrders()
		list, isList := got.([]any)
		switch {
		case !isList:
			ps.add(RuleSuccessPayload, `"orders" was %s; expected a JSON array`, jsonText(got))
		case f.Expect.Success == katas.SuccessEmpty && len(list) != 0:
			ps.add(RuleSuccessPayload, `"orders" had %d entries; the customer has none`, len(list))
		case f.Expect.Success == katas.SuccessOrders && !sameJSON(list, want):
			ps.add(RuleSuccessPayload, `"orders" had %d orders; expected all %d orders of the %d pages, in order (follow next_page until it is null)`, len(list), len(want), len(dr.beh.pages))
		}
	}
}

// checkTypedError checks a failure: the isError flags agree, the payload is the contract's
// typed object with every field of its type, and each role's field says what the fixture's
// behaviour means.
func checkTypedError(f katas.Fixture, dr drawn, out callOutcome, payload map[string]any, c katas.Contract, ps *problems) {
	isErrName, _, _ := c.Field(katas.RoleIsError)
	pe, hasPE := payload[isErrName]
	switch {
	case !out.res.IsError && pe == true:
		ps.add(RuleIsErrorAgrees, "result.isError is false while the payload says %s: true; the two must agree", isErrName)
	case !out.res.IsError:
		ps.add(RuleIsErrorAgrees, "result.isError is false; a failed call must return isError: true")
	case hasPE && pe != true:
		ps.add(RuleIsErrorAgrees, "the payload's %s is %s while result.isError is true; the two must agree", isErrName, jsonText(pe))
	}
	var missing []string
	required := 0
	for _, name := range c.FieldNames() {
		if c.Fields[name].Required {
			required++
			if _, ok := payload[name]; !ok {
				missing = append(missing, name)
			}
		}
	}
	if len(missing) > 0 && len(missing) == required {
		ps.add(RuleTypedPayload, "the payload is not the kata's typed error: it has none of %s (found %s); return the contract's error object", strings.Join(missing, ", "), jsonText(payload))
		return
	}
	for _, name := range c.FieldNames() {
		v, present := payload[name]
		if !present {
			if c.Fields[name].Required {
				ps.add(RuleFieldPresent, "%s is missing", name)
			}
			continue
		}
		if msg := typeProblem(c.Fields[name].Type, v); msg != "" {
			ps.add(RuleFieldType, "%s was %s (%s); expected %s", name, jsonText(v), jsonKind(v), msg)
		}
	}
	want := f.Expect.Category
	catName, _, _ := c.Field(katas.RoleCategory)
	cat, _ := payload[catName].(string)
	if _, has := payload[catName]; has && cat != want {
		ps.add(RuleCategory, "%s was %s; expected %q (%s)", catName, jsonText(payload[catName]), want, f.Rule)
	}
	right := cat == want // the category-dependent checks below need the right category
	if name, _, ok := c.Field(katas.RoleRetryable); ok && right {
		if r, isBool := payload[name].(bool); isBool && r != c.Retryable(want) {
			ps.add(RuleRetryable, "%s was %v; %s is %s", name, r, want, map[bool]string{true: "retryable", false: "not retryable"}[c.Retryable(want)])
		}
	}
	if name, _, ok := c.Field(katas.RoleAttemptedQuery); ok {
		checkAttemptedQuery(name, payload, dr, ps)
	}
	if name, _, ok := c.Field(katas.RolePartialResults); ok {
		checkPartialResults(name, payload, dr, ps)
	}
	if name, _, ok := c.Field(katas.RoleArgument); ok && f.Expect.Field != "" && right {
		if got, _ := payload[name].(string); got != f.Expect.Field {
			ps.add(RuleArgumentName, "%s was %s; expected %q, the argument's name exactly as in the tool's input schema", name, jsonText(payload[name]), f.Expect.Field)
		}
	}
	if name, _, ok := c.Field(katas.RoleRetryAfter); ok {
		checkRetryAfter(name, f, out, payload, c, ps)
	}
}

// checkRetryAfter checks the contract's wait field: for a category that carries it and a
// fixture whose API sent Retry-After, the header's value in whole seconds — exact for
// delay-seconds, within 2 s for an HTTP-date (each with half a second more for rounding), 0
// to 2 for a date already passed (RFC 9110 §10.2.3); null in every other case
// (docs/grading.md#rule-retry-after).
func checkRetryAfter(name string, f katas.Fixture, out callOutcome, payload map[string]any, c katas.Contract, ps *problems) {
	want := f.Expect.Category
	ra, present := payload[name]
	n, isNum := ra.(float64)
	wellTyped := typeProblem(katas.FieldIntegerOrNull, ra) == "" // a wrong type is RuleFieldType's
	if f.Expect.RetryAfter != katas.RetryAfterFromHeader || !c.CarriesWait(want) {
		if present && ra != nil && wellTyped {
			why := "the API sent no Retry-After"
			if !c.CarriesWait(want) {
				why = fmt.Sprintf("only a %s error carries a wait", strings.Join(c.WaitCarriers(), " or "))
			}
			ps.add(RuleRetryAfterNull, "%s was %s; expected null (%s)", name, jsonText(ra), why)
		}
		return
	}
	tol := 0.0 // delay-seconds are exact; an HTTP-date is converted within 2 s; +0.5 s for rounding
	if f.Backend.RetryAfter == katas.RetryAfterHTTPDate {
		tol = 2
	}
	past := f.Backend.RetryAfter == katas.RetryAfterHTTPDatePast
	switch {
	case !out.hasRetryAfterSent:
		ps.add(RuleRetryAfter, "the Orders API never sent its Retry-After (no request reached it)")
	case !present || ra == nil:
		if past {
			ps.add(RuleRetryAfter, "%s was null; the API sent Retry-After as an HTTP-date already passed, which means no wait: 0 (a header was sent, so it is not null)", name)
		} else {
			ps.add(RuleRetryAfter, "%s was null; the API sent Retry-After worth %.0f s, and a %s error carries it in whole seconds", name, out.retryAfterSent, want)
		}
	case isNum && past && (n < 0 || n > 2):
		ps.add(RuleRetryAfter, "%s was %s; the Retry-After HTTP-date was already in the past, which means no wait: expected 0 (whole seconds ≥ 0, never negative)", name, jsonText(ra))
	case isNum && !past && wellTyped && math.Abs(n-out.retryAfterSent) > tol+0.5:
		ps.add(RuleRetryAfter, "%s was %s; expected %.0f, the seconds of the Retry-After header (RFC 9110 §10.2.3)", name, jsonText(ra), out.retryAfterSent)
	}
}

// checkRequests checks how many requests reached the Orders API during the call: none for
// an argument the server must reject, one per lookup or page otherwise (the server never
// retries on its own, docs/grading.md#orders-api), each with the bearer token.
func checkRequests(f katas.Fixture, dr drawn, out callOutcome, ps *problems) {
	switch {
	case f.Backend.Kind == katas.BackendNone:
		if out.strayRequests > 0 {
			ps.add(RuleNoRequestInvalid, "the server sent %d request(s) to the Orders API; an invalid argument must be rejected before any request", out.strayRequests)
		}
		return
	case dr.beh == nil:
		return
	}
	for _, r := range out.requests {
		if !r.Authorized {
			ps.add(RuleBearerToken, "a request to %s carried no valid `Authorization: Bearer <ORDERS_API_TOKEN>` header, so the Orders API answered it 401 instead of what this fixture sets up; send the token the grader passes in ORDERS_API_TOKEN (\"${ORDERS_API_TOKEN}\" in .mcp.json, not a literal)", r.Path)
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
		ps.add(RuleOneRequest, "the server made %d requests where %d %s needed; it must make one request per lookup or page and leave retries to the client", got, want, map[bool]string{true: "was", false: "were"}[want == 1])
		if h, ok := retryHint(f, got, want); ok {
			ps.addHint(h)
		}
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

// checkAttemptedQuery: the attempted-query field, when it is a string, contains every
// argument value the call was given (checked by containment, so any readable format passes;
// a wrong type is RuleFieldType's).
func checkAttemptedQuery(name string, payload map[string]any, dr drawn, ps *problems) {
	q, ok := payload[name].(string)
	if !ok {
		return
	}
	for _, k := range slices.Sorted(maps.Keys(dr.args)) {
		if !containsValue(q, dr.args[k]) {
			ps.add(RuleAttemptedQuery, "%s %q does not contain the value of %s (%s); it must name every argument the call was given", name, clipText(q, 200), k, jsonText(dr.args[k]))
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

// checkPartialResults: the partial-results field holds the orders fetched before the
// failure, in order, or null when there were none.
func checkPartialResults(name string, payload map[string]any, dr drawn, ps *problems) {
	got, present := payload[name]
	var want []map[string]any
	if dr.beh != nil && len(dr.beh.pages) > 0 {
		want = dr.expectedOrders()
	}
	if len(want) == 0 {
		if present && got != nil {
			ps.add(RulePartialResults, "%s was %s; expected null, since no orders were fetched before the failure", name, jsonText(got))
		}
		return
	}
	if !sameJSON(got, want) {
		ps.add(RulePartialResults, "%s was %s; expected the %d orders of the pages fetched before page %d failed, in order", name, jsonText(got), len(want), max(dr.beh.slowPage, dr.beh.failPage))
	}
}
