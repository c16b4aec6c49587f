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
	// token is the run's Orders API token, which no result may carry (checkNoToken).
	token string
	// sent is the body the API answered a declared tool's POST with (nil: none).
	sent map[string]any
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

// say records a problem of the rule: m, a message of the grader's catalog
// (internal/i18n/grader.*.toml), so the report can be read in any language.
func (ps *problems) say(rule RuleID, m i18n.Msg) {
	*ps = append(*ps, problem{rule: rule, msg: m})
}

// sayNote records a note of the rule as a catalog message (see say): the call passed, with
// something worth saying.
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
				// The spec's answer to an unknown tool is -32602 (Invalid params, as the MCP tools
				// page gives it); -32601 (Method not found, which some servers send) passes with
				// a note naming the spec's code (docs/grading.md#unknown-tools).
				switch code := int(rpc.Code); code {
				case f.Expect.ProtocolError:
				case codeMethodNotFound:
					ps.sayNote(RuleUnknownTool, i18n.M("grader.unknown_tool.method_not_found_accepted", "Code", f.Expect.ProtocolError))
				default:
					ps.say(RuleUnknownTool, i18n.M("grader.unknown_tool.wrong_code", "Got", code, "Want", f.Expect.ProtocolError, "MethodNotFound", codeMethodNotFound))
				}
				return ps
			}
			ps.say(RuleFailureIsResult, i18n.M("grader.failure_is_result.rpc_error", "Code", int(rpc.Code), "Message", strconv.Quote(rpc.Message)))
			if h, ok := protocolErrorHint(rpc); ok {
				ps.addHint(h)
			}
			return ps
		}
		ps.say(RuleValidResult, i18n.M("grader.valid_result.invalid", "Error", learnerJSONError(out.err.Error())))
		return ps
	}
	if f.Expect.ProtocolError != 0 {
		if out.res.IsError {
			// What the official SDKs' high-level servers send (TypeScript McpServer, 1.32), with
			// no option to change it: accepted, with a note (docs/grading.md#unknown-tools).
			ps.sayNote(RuleUnknownTool, i18n.M("grader.unknown_tool.is_error_accepted", "Code", f.Expect.ProtocolError))
			return ps
		}
		ps.say(RuleUnknownTool, i18n.M("grader.unknown_tool.success", "Code", f.Expect.ProtocolError))
		return ps
	}
	if out.waitedPastTimeout {
		ps.say(RuleTimeoutHonoured, i18n.M("grader.timeout_honoured.waited", "Held", seconds(slowHold.Seconds(), 1), "Timeout", seconds(apiTimeout.Seconds(), 1)))
		return ps
	}
	checkNoToken(out.res, out.token, &ps)
	checkNoSecret(out.res, dr.secrets, &ps)
	payload, text, _ := payloadOf(out.res)
	if payload == nil {
		low := strings.ToLower(text)
		for _, m := range schemaValidationMarkers {
			if strings.Contains(low, m) {
				ps.say(RuleArgumentsInHandler, i18n.M("grader.arguments_in_handler.schema_rejected", "Text", strconv.Quote(clipText(text, 160))))
				if h, ok := inputValidationHint(text); ok {
					ps.addHint(h)
				}
				return ps
			}
		}
		if text == "" {
			ps.say(RulePayloadJSON, i18n.M("grader.payload_json.none"))
		} else {
			ps.say(RulePayloadJSON, i18n.M("grader.payload_json.not_json", "Text", strconv.Quote(clipText(text, 160))))
		}
		return ps
	}
	checkMirror(out.res, c, &ps)
	if f.Expect.Success != "" {
		checkSuccess(f, dr, out.res, payload, c, &ps)
		if dr.def != nil {
			checkDeclaredSuccess(f, dr, out, payload, &ps)
		}
	} else {
		checkTypedError(f, dr, out, payload, c, &ps)
		if field, _, ok := c.Field(katas.RoleCustomerMessage); ok {
			status := 0
			if dr.beh != nil {
				status = dr.beh.status
			}
			checkMessageText(payload, field, status, &ps)
		}
	}
	checkRequests(f, dr, out, &ps)
	return ps
}

// checkMirror: when a result carries structuredContent, its first content block is a text
// block with the same payload as JSON (the MCP spec asks a tool that returns structured
// content to return it serialised in a TextContent block too, for clients that read only
// content; docs/grading.md#tools). When structuredContent is a JSON object it is what is
// graded, and a text block that does not mirror it (an SDK's idiom: prose beside the
// payload) is a note with its hint, not a failure; the typed-output pitfall of the Go SDK,
// whose structuredContent is the zero value the SDK wrote over the payload, stays a failure.
func checkMirror(res *mcp.CallToolResult, c katas.Contract, ps *problems) {
	if res.StructuredContent == nil {
		return
	}
	structured, _, _ := payloadOf(&mcp.CallToolResult{StructuredContent: res.StructuredContent})
	valid := structured != nil
	var text any
	var found i18n.Msg
	switch t, isText := firstText(res); {
	case len(res.Content) == 0:
		found = i18n.M("grader.text_mirror.no_content")
	case !isText:
		found = i18n.M("grader.text_mirror.not_text")
	case json.Unmarshal([]byte(t), &text) != nil:
		found = i18n.M("grader.text_mirror.not_json", "Text", strconv.Quote(clipText(t, 120)))
	case !sameJSON(text, res.StructuredContent):
		found = i18n.M("grader.text_mirror.differs", "Text", jsonText(text), "Structured", jsonText(res.StructuredContent))
		if h, ok := mirrorHint(res, text, c); ok {
			ps.say(RuleTextMirror, found)
			ps.addHint(h)
			return
		}
	default:
		return
	}
	if !valid {
		ps.say(RuleTextMirror, found)
		return
	}
	ps.sayNote(RuleTextMirror, i18n.M("grader.text_mirror.note", "Problem", found))
	ps.addHint(hintTextBesideStructured)
}

// firstText is the text of the result's first content block, and whether that block is text.
func firstText(res *mcp.CallToolResult) (string, bool) {
	if len(res.Content) == 0 {
		return "", false
	}
	t, ok := res.Content[0].(*mcp.TextContent)
	if !ok {
		return "", false
	}
	return t.Text, true
}

// checkSuccess checks a success: isError false or absent on the result and in the payload
// (the payload's flag is the contract's is-error field), and the API's data under the kind's
// key.
func checkSuccess(f katas.Fixture, dr drawn, res *mcp.CallToolResult, payload map[string]any, c katas.Contract, ps *problems) {
	if res.IsError {
		ps.say(RuleSuccessPayload, i18n.M("grader.success.is_error"))
	}
	if name, _, ok := c.Field(katas.RoleIsError); ok {
		if v, present := payload[name]; present && v != false {
			ps.say(RuleSuccessPayload, i18n.M("grader.success.flag", "Field", name, "Got", jsonText(v)))
		}
	}
	key := f.Expect.Success.PayloadKey()
	got, present := payload[key]
	if !present {
		ps.say(RuleSuccessPayload, i18n.M("grader.success.missing_key", "Key", strconv.Quote(key), "Keys", payloadKeys(payload), "Shape", "{"+strconv.Quote(key)+": ...}"))
		return
	}
	switch f.Expect.Success {
	case katas.SuccessOrder:
		if !sameJSON(got, dr.beh.order) {
			ps.say(RuleSuccessPayload, i18n.M("grader.success.order", "Got", jsonText(got), "Want", jsonText(dr.beh.order)))
		}
	case katas.SuccessRefund:
		if !sameJSON(got, dr.beh.refund) {
			ps.say(RuleSuccessPayload, i18n.M("grader.success.refund", "Got", jsonText(got), "Want", jsonText(dr.beh.refund)))
		}
	case katas.SuccessOrders, katas.SuccessEmpty:
		want := dr.expectedOrders()
		list, isList := got.([]any)
		switch {
		case !isList:
			ps.say(RuleSuccessPayload, i18n.M("grader.success.orders_not_array", "Got", jsonText(got)))
		case f.Expect.Success == katas.SuccessEmpty && len(list) != 0:
			ps.say(RuleSuccessPayload, i18n.MN("grader.success.orders_not_empty", len(list)))
		case f.Expect.Success == katas.SuccessOrders && !sameJSON(list, want):
			ps.say(RuleSuccessPayload, i18n.M("grader.success.orders_wrong", "Got", i18n.MN("grader.count.order", len(list)), "Want", i18n.MN("grader.count.order", len(want)), "Pages", i18n.MN("grader.success.of_pages", len(dr.beh.pages))))
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
		ps.say(RuleIsErrorAgrees, i18n.M("grader.is_error_agrees.payload_true", "Field", isErrName))
	case !out.res.IsError:
		ps.say(RuleIsErrorAgrees, i18n.M("grader.is_error_agrees.result_false"))
	case hasPE && pe != true:
		ps.say(RuleIsErrorAgrees, i18n.M("grader.is_error_agrees.payload_differs", "Field", isErrName, "Got", jsonText(pe)))
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
		ps.say(RuleTypedPayload, i18n.M("grader.typed_payload.untyped", "Fields", strings.Join(missing, ", "), "Found", jsonText(payload)))
		return
	}
	for _, name := range c.FieldNames() {
		v, present := payload[name]
		if !present {
			if c.Fields[name].Required {
				ps.say(RuleFieldPresent, i18n.M("grader.field_present.missing", "Field", name))
			}
			continue
		}
		if want := typeProblem(c.Fields[name].Type, v); !want.IsZero() {
			ps.say(RuleFieldType, i18n.M("grader.field_type.wrong", "Field", name, "Got", jsonText(v), "Kind", kindOf(v), "Want", want))
		}
	}
	want := f.Expect.Category
	catName, _, _ := c.Field(katas.RoleCategory)
	cat, _ := payload[catName].(string)
	if _, has := payload[catName]; has && cat != want {
		ps.say(RuleCategory, i18n.M("grader.category.wrong", "Field", catName, "Got", jsonText(payload[catName]), "Want", strconv.Quote(want), "Rule", fixtureRule(f)))
	}
	right := cat == want // the category-dependent checks below need the right category
	if name, _, ok := c.Field(katas.RoleRetryable); ok && right {
		if r, isBool := payload[name].(bool); isBool && r != c.Retryable(want) {
			id := "grader.retryable.not_retryable"
			if c.Retryable(want) {
				id = "grader.retryable.retryable"
			}
			ps.say(RuleRetryable, i18n.M(id, "Field", name, "Got", strconv.FormatBool(r), "Category", want))
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
			ps.say(RuleArgumentName, i18n.M("grader.argument_name.wrong", "Field", name, "Got", jsonText(payload[name]), "Want", strconv.Quote(f.Expect.Field)))
		}
	}
	if name, _, ok := c.Field(katas.RoleRetryAfter); ok {
		checkRetryAfter(name, f, out, payload, c, ps)
	}
	if name, _, ok := c.Field(katas.RoleViolations); ok {
		checkViolations(name, f, dr, payload, right, ps)
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
	wellTyped := typeProblem(katas.FieldIntegerOrNull, ra).IsZero() // a wrong type is RuleFieldType's
	if f.Expect.RetryAfter != katas.RetryAfterFromHeader || !c.CarriesWait(want) {
		if present && ra != nil && wellTyped {
			why := i18n.M("grader.retry_after_null.no_header")
			if !c.CarriesWait(want) {
				why = i18n.M("grader.retry_after_null.not_carrier", "Categories", orList(c.WaitCarriers()))
			}
			ps.say(RuleRetryAfterNull, i18n.M("grader.retry_after_null.not_null", "Field", name, "Got", jsonText(ra), "Why", why))
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
		ps.say(RuleRetryAfter, i18n.M("grader.retry_after.never_sent"))
	case !present || ra == nil:
		if past {
			ps.say(RuleRetryAfter, i18n.M("grader.retry_after.null_past", "Field", name))
		} else {
			ps.say(RuleRetryAfter, i18n.M("grader.retry_after.missing", "Field", name, "Seconds", seconds(out.retryAfterSent, 0), "Category", want))
		}
	case isNum && past && (n < 0 || n > 2):
		ps.say(RuleRetryAfter, i18n.M("grader.retry_after.past_not_zero", "Field", name, "Got", jsonText(ra)))
	case isNum && !past && wellTyped && math.Abs(n-out.retryAfterSent) > tol+0.5:
		ps.say(RuleRetryAfter, i18n.M("grader.retry_after.wrong", "Field", name, "Got", jsonText(ra), "Want", seconds(out.retryAfterSent, 0)))
	}
}

// checkRequests checks how many requests reached the Orders API during the call: none for
// an argument the server must reject, one per lookup or page otherwise (the server never
// retries on its own, docs/grading.md#orders-api), each with the bearer token.
func checkRequests(f katas.Fixture, dr drawn, out callOutcome, ps *problems) {
	switch {
	case f.Backend.Kind == katas.BackendNone:
		if out.strayRequests > 0 {
			ps.say(RuleNoRequestInvalid, i18n.MN("grader.no_request_invalid.sent", out.strayRequests))
		}
		return
	case dr.beh == nil:
		return
	}
	for _, r := range out.requests {
		if !r.Authorized {
			ps.say(RuleBearerToken, i18n.M("grader.bearer_token.missing", "Path", r.Path))
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
		ps.say(RuleOneRequest, i18n.MN("grader.one_request.too_many", want, "Got", i18n.MN("grader.count.request", got)))
		if h, ok := retryHint(f, got, want); ok {
			ps.addHint(h)
		}
	}
}

// typeProblem is zero when v has the field type t, else what was expected, as a message
// ("a JSON string").
func typeProblem(t string, v any) i18n.Msg {
	switch t {
	case katas.FieldBoolean:
		if _, ok := v.(bool); !ok {
			return i18n.M("grader.type.boolean")
		}
	case katas.FieldString:
		if _, ok := v.(string); !ok {
			return i18n.M("grader.type.string")
		}
	case katas.FieldNonEmptyString:
		if s, ok := v.(string); !ok || strings.TrimSpace(s) == "" {
			return i18n.M("grader.type.non_empty_string")
		}
	case katas.FieldIntegerOrNull:
		if v == nil {
			return i18n.Msg{}
		}
		n, ok := v.(float64)
		if !ok || n != math.Trunc(n) || n < 0 {
			return i18n.M("grader.type.seconds_or_null")
		}
	case katas.FieldArrayOrNull:
		if v == nil {
			return i18n.Msg{}
		}
		if _, ok := v.([]any); !ok {
			return i18n.M("grader.type.array_or_null")
		}
	}
	return i18n.Msg{}
}

// kindOf names the JSON type of a decoded value ("a string"), as a message; a value of no
// JSON type by its Go type.
func kindOf(v any) i18n.Msg {
	switch v.(type) {
	case nil:
		return i18n.M("grader.kind.null")
	case bool:
		return i18n.M("grader.kind.boolean")
	case float64:
		return i18n.M("grader.kind.number")
	case string:
		return i18n.M("grader.kind.string")
	case []any:
		return i18n.M("grader.kind.array")
	case map[string]any:
		return i18n.M("grader.kind.object")
	}
	return i18n.Raw(fmt.Sprintf("%T", v))
}

// seconds writes a number of seconds with prec decimals, as %.*f does ("2.5").
func seconds(s float64, prec int) string { return strconv.FormatFloat(s, 'f', prec, 64) }

// payloadKeys lists the payload's keys as keysOf does, with "none" for no key as a message.
func payloadKeys(payload map[string]any) any {
	if len(payload) == 0 {
		return i18n.M("grader.success.no_keys")
	}
	return keysOf(payload)
}

// orList joins names with "or" in the reader's language ("rate_limit or transient"): each
// pair is the message grader.or, so a list of any length reads in any language.
func orList(names []string) i18n.Msg {
	switch len(names) {
	case 0:
		return i18n.Raw("")
	case 1:
		return i18n.Raw(names[0])
	}
	return i18n.M("grader.or", "A", orList(names[:len(names)-1]), "B", names[len(names)-1])
}

// fixtureRule is the fixture's rule, in plain words, as a field of a message: in English it
// reads f.Rule; Localize words it as the rule of the packet's locale twin for the fixture's
// id (katas.Packet.TestText), since the rule's words come from the packet, not the catalog.
func fixtureRule(f katas.Fixture) i18n.Msg {
	return i18n.M(fixtureRuleID, "Test", f.ID, "Rule", f.Rule)
}

// fixtureRuleID is the catalog id of fixtureRule's message; its text is its Rule field in
// every language.
const fixtureRuleID = "grader.fixture_rule"

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
			ps.say(RuleAttemptedQuery, i18n.M("grader.attempted_query.missing_value", "Field", name, "Query", strconv.Quote(clipText(q, 200)), "Arg", k, "Value", jsonText(dr.args[k])))
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
			ps.say(RulePartialResults, i18n.M("grader.partial_results.not_null", "Field", name, "Got", jsonText(got)))
		}
		return
	}
	if !sameJSON(got, want) {
		ps.say(RulePartialResults, i18n.MN("grader.partial_results.wrong", len(want), "Field", name, "Got", jsonText(got), "Page", max(dr.beh.slowPage, dr.beh.failPage)))
	}
}
