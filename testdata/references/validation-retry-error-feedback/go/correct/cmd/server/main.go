// The orders MCP server: a reference solution for validation-retry-error-feedback.
//
// create_return checks every argument against its input schema before it sends anything, and
// answers all the violations at once as a tool result with isError true and the typed payload
// {isError, errorCategory, isRetryable, message, violations}: each violation names the field, the
// JSON Schema keyword that failed (constraint), what would pass with a valid example (expected)
// and the value sent (received, redacted when it looks like a secret). A valid call is one
// POST /returns; the failures a model cannot repair by changing its arguments are not_found,
// business and auth, and transient (5xx, a timeout, a dropped connection) is the only retryable
// one. Logs on stderr.
package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"net/http"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"orders/internal/shim"
)

var (
	apiURL         = strings.TrimRight(os.Getenv("ORDERS_API_URL"), "/")
	apiToken       = os.Getenv("ORDERS_API_TOKEN")
	timeoutSeconds = envSeconds("ORDERS_API_TIMEOUT_SECONDS", 5)
)

func envSeconds(name string, fallback float64) float64 {
	raw := os.Getenv(name)
	if raw == "" {
		return fallback
	}
	v, err := strconv.ParseFloat(raw, 64)
	if err != nil || math.IsNaN(v) || math.IsInf(v, 0) || v < 0 {
		shim.Log(name, "is not a number; using", fallback)
		return fallback
	}
	return v
}

// retryable says whether the same call, sent again unchanged, may succeed. A validation error is
// not retryable; that the model can repair it is what errorCategory and violations say.
var retryable = map[string]bool{
	"validation": false,
	"not_found":  false,
	"business":   false,
	"auth":       false,
	"transient":  true,
}

// property is one argument of the input schema, in the JSON Schema keywords the tool uses.
type property struct {
	name     string
	kind     string   // type: string, integer, number or boolean
	pattern  string   // "" for none
	format   string   // "" for none; "email" is checked
	enum     []string // nil for none
	minimum  *float64
	maximum  *float64
	maxLen   int // maxLength, -1 for none
	examples []string
}

func bound(v float64) *float64 { return &v }

// createReturnProperties is the input schema of create_return, in order: the schema tools/list
// declares is built from it, and so are the checks and their words.
var createReturnProperties = []property{
	{name: "order_id", kind: "string", pattern: "^ORD-[0-9]{4,8}$", maxLen: -1, examples: []string{"ORD-8821", "ORD-104427"}},
	{name: "quantity", kind: "integer", minimum: bound(1), maximum: bound(10), maxLen: -1},
	{name: "reason", kind: "string", enum: []string{"damaged", "wrong_item", "not_needed", "arrived_late"}, maxLen: -1},
	{name: "email", kind: "string", format: "email", maxLen: -1, examples: []string{"ana.lopez@example.com"}},
	{name: "note", kind: "string", maxLen: 200},
}

var createReturnRequired = []string{"order_id", "quantity", "reason", "email"}

// inputSchema is the JSON Schema object of properties, "required" kept and no other argument
// allowed.
func inputSchema(properties []property, required []string) map[string]any {
	declared := map[string]any{}
	for _, p := range properties {
		s := map[string]any{"type": p.kind}
		if p.pattern != "" {
			s["pattern"] = p.pattern
		}
		if p.format != "" {
			s["format"] = p.format
		}
		if p.enum != nil {
			s["enum"] = p.enum
		}
		if p.minimum != nil {
			s["minimum"] = *p.minimum
		}
		if p.maximum != nil {
			s["maximum"] = *p.maximum
		}
		if p.maxLen >= 0 {
			s["maxLength"] = p.maxLen
		}
		if p.examples != nil {
			s["examples"] = p.examples
		}
		declared[p.name] = s
	}
	return map[string]any{
		"type":                 "object",
		"properties":           declared,
		"required":             required,
		"additionalProperties": false,
	}
}

// violation is one broken argument, as the payload's violations list carries it.
type violation struct {
	Field      string `json:"field"`
	Constraint string `json:"constraint"`
	Expected   string `json:"expected"`
	Received   any    `json:"received,omitempty"` // absent for a missing argument
}

// toolFailure is a failure with its category, returned below and turned into the typed payload.
// message is for the model (and whoever it answers); detail is for the log only.
type toolFailure struct {
	category   string
	message    string
	detail     string
	violations []violation
}

func typedError(f *toolFailure) shim.Result {
	violations := f.violations
	if violations == nil {
		violations = []violation{}
	}
	payload := map[string]any{
		"isError":       true,
		"errorCategory": f.category,
		"isRetryable":   retryable[f.category],
		"message":       f.message,
		"violations":    violations,
	}
	encoded, _ := json.Marshal(payload)
	shim.Log("error:", string(encoded), "|", f.detail)
	return shim.ToolError(payload)
}

// -- secrets (step 4) -----------------------------------------------------------------------------

var secretPrefixes = []string{"sk_", "sk-", "ghp_", "gho_", "github_pat_", "xoxb-", "xoxp-", "AKIA"}

const redacted = "[redacted: looks like a secret]"

// isSecretLike reports a string a server must never echo: a known key prefix, or 32 or more
// characters without white space.
func isSecretLike(value any) bool {
	s, ok := value.(string)
	if !ok {
		return false
	}
	for _, prefix := range secretPrefixes {
		if strings.HasPrefix(s, prefix) {
			return true
		}
	}
	return utf8.RuneCountInString(s) >= 32 && !strings.ContainsFunc(s, unicode.IsSpace)
}

// redact returns value with every secret-like string in it (object keys included) replaced.
func redact(value any) any {
	if isSecretLike(value) {
		return redacted
	}
	switch v := value.(type) {
	case map[string]any:
		out := make(map[string]any, len(v))
		for k, item := range v {
			out[redactName(k)] = redact(item)
		}
		return out
	case []any:
		out := make([]any, len(v))
		for i, item := range v {
			out[i] = redact(item)
		}
		return out
	}
	return value
}

func redactName(name string) string {
	if isSecretLike(name) {
		return redacted
	}
	return name
}

// -- validation against the input schema (steps 2 and 3) ------------------------------------------

// isEmail: one @, a non-empty name before it, a domain with a dot after it, no white space.
func isEmail(s string) bool {
	local, domain, found := strings.Cut(s, "@")
	return found && local != "" && strings.Contains(domain, ".") && !strings.Contains(domain, "@") &&
		!strings.ContainsFunc(s, unicode.IsSpace)
}

var formats = map[string]func(string) bool{"email": isEmail}

func hasType(value any, kind string) bool {
	switch kind {
	case "string":
		_, ok := value.(string)
		return ok
	case "boolean":
		_, ok := value.(bool)
		return ok
	case "integer": // JSON Schema: a number with no fractional part (3.0 counts)
		f, ok := value.(float64)
		return ok && f == math.Trunc(f) && !math.IsInf(f, 0)
	case "number":
		_, ok := value.(float64)
		return ok
	}
	return true
}

// failedKeyword is the first keyword of p that value fails, or "" when it passes.
func failedKeyword(p property, value any) string {
	if !hasType(value, p.kind) {
		return "type"
	}
	if s, ok := value.(string); ok {
		if p.enum != nil && !slices.Contains(p.enum, s) {
			return "enum"
		}
		if p.pattern != "" && !regexp.MustCompile(p.pattern).MatchString(s) {
			return "pattern"
		}
		if check, ok := formats[p.format]; ok && !check(s) {
			return "format"
		}
		if p.maxLen >= 0 && utf8.RuneCountInString(s) > p.maxLen { // characters, not bytes
			return "maxLength"
		}
	}
	if f, ok := value.(float64); ok {
		if p.minimum != nil && f < *p.minimum {
			return "minimum"
		}
		if p.maximum != nil && f > *p.maximum {
			return "maximum"
		}
	}
	return ""
}

var articles = map[string]string{"string": "a string", "integer": "an integer", "number": "a number", "boolean": "true or false"}

func quote(s string) string {
	encoded, _ := json.Marshal(s)
	return string(encoded)
}

func number(f float64) string { return strconv.FormatFloat(f, 'f', -1, 64) }

// describe says what passes p, in words a model can act on, with a valid example:
// `a string matching ^ORD-[0-9]{4,8}$, for example "ORD-8821" or "ORD-104427"`.
func describe(p property) string {
	if p.enum != nil {
		values := make([]string, len(p.enum))
		for i, v := range p.enum {
			values[i] = quote(v)
		}
		return "one of " + strings.Join(values, ", ")
	}
	text := articles[p.kind]
	if p.format == "email" {
		text = "an email address: one @, a name before it, a domain with a dot after it, no spaces"
	}
	if p.pattern != "" {
		text += " matching " + p.pattern
	}
	switch {
	case p.minimum != nil && p.maximum != nil:
		text += " from " + number(*p.minimum) + " to " + number(*p.maximum)
	case p.minimum != nil:
		text += " of at least " + number(*p.minimum)
	case p.maximum != nil:
		text += " of at most " + number(*p.maximum)
	}
	if p.maxLen >= 0 {
		text += fmt.Sprintf(" of at most %d characters", p.maxLen)
	}
	if len(p.examples) > 0 {
		examples := make([]string, len(p.examples))
		for i, v := range p.examples {
			examples[i] = quote(v)
		}
		text += ", for example " + strings.Join(examples, " or ")
	}
	return text
}

// violationsOf lists every violation of arguments, one per broken argument: declared arguments in
// the schema's order, then unknown ones by name.
func violationsOf(properties []property, required []string, arguments map[string]any) []violation {
	var found []violation
	names := make([]string, len(properties))
	for i, p := range properties {
		names[i] = p.name
		value, present := arguments[p.name]
		if !present {
			if slices.Contains(required, p.name) {
				found = append(found, violation{Field: p.name, Constraint: "required", Expected: p.name + " is required: " + describe(p)})
			}
			continue
		}
		if keyword := failedKeyword(p, value); keyword != "" {
			found = append(found, violation{Field: p.name, Constraint: keyword, Expected: describe(p), Received: receivedValue(value)})
		}
	}
	var unknown []string
	for name := range arguments {
		if !slices.Contains(names, name) {
			unknown = append(unknown, name)
		}
	}
	slices.Sort(unknown)
	for _, name := range unknown {
		found = append(found, violation{
			Field:      redactName(name),
			Constraint: "additionalProperties",
			Expected:   "leave this argument out; the arguments are " + strings.Join(names, ", "),
			Received:   receivedValue(arguments[name]),
		})
	}
	return found
}

// receivedValue is a value sent as the payload carries it: redacted, and a JSON null kept as
// null (omitempty would drop a nil interface).
func receivedValue(value any) any {
	if value == nil {
		return json.RawMessage("null")
	}
	return redact(value)
}

func validationFailure(violations []violation) *toolFailure {
	listed := make([]string, len(violations))
	for i, v := range violations {
		listed[i] = v.Field + " (" + v.Constraint + ")"
	}
	noun := "arguments need"
	if len(violations) == 1 {
		noun = "argument needs"
	}
	return &toolFailure{
		category: "validation",
		message: fmt.Sprintf("No return was created: %d %s fixing: %s. Correct each one as its violation's "+
			"expected says, then call create_return again.", len(violations), noun, strings.Join(listed, "; ")),
		detail:     "invalid arguments, no request sent",
		violations: violations,
	}
}

// -- the Orders API (steps 1 and 5) ---------------------------------------------------------------

// errorCode is the "error" string of an HTTP error's JSON body, or "".
func errorCode(body []byte) string {
	var decoded struct {
		Error string `json:"error"`
	}
	if json.Unmarshal(body, &decoded) != nil {
		return ""
	}
	return decoded.Error
}

const transientMessage = "The returns service is having a temporary problem and no return was confirmed. " +
	"The same call may succeed in a moment."

func httpFailure(orderID string, status int, body []byte) *toolFailure {
	detail := strings.TrimSpace(fmt.Sprintf("POST /returns: %d %s", status, errorCode(body)))
	switch {
	case status == 401 || status == 403:
		return &toolFailure{category: "auth", detail: detail,
			message: "The returns service refused this server's credentials, so no return was created. " +
				"A person has to renew the access; changing the arguments will not help."}
	case status == 404:
		return &toolFailure{category: "not_found", detail: detail,
			message: "There is no order " + orderID + ", so no return was created. Ask the customer " +
				"for the right order number; the same call will fail again."}
	case status == 408 || status == 429 || (status >= 500 && status <= 599):
		return &toolFailure{category: "transient", message: transientMessage, detail: detail}
	}
	message := "The returns service refused a return for order " + orderID + " under its rules, so " +
		"none was created. Sending the same call again will not change that."
	if errorCode(body) == "return_window_closed" {
		message = "The return window of order " + orderID + " has closed, so no return was created. " +
			"This is the shop's rule: offer the customer another option."
	}
	// 409, 422 and any other refusal: a rule of the business, not something to retry or repair.
	return &toolFailure{category: "business", message: message, detail: detail}
}

// httpClient talks to the Orders API directly: Timeout bounds each request (connecting, the
// headers and the body), Proxy nil ignores proxy settings, and no keep-alive means Go's transport
// never silently re-sends a request on a reused connection the service dropped.
var httpClient = &http.Client{
	Timeout:   time.Duration(timeoutSeconds * float64(time.Second)),
	Transport: &http.Transport{Proxy: nil, DisableKeepAlives: true},
}

func isTimeout(err error) bool {
	var t interface{ Timeout() bool }
	return errors.As(err, &t) && t.Timeout()
}

func networkFailure(err error) *toolFailure {
	if isTimeout(err) {
		return &toolFailure{category: "transient", message: transientMessage,
			detail: fmt.Sprintf("POST /returns timed out after %g s", timeoutSeconds)}
	}
	// refused, unreachable, reset, dropped, cut short
	return &toolFailure{category: "transient", message: transientMessage, detail: "POST /returns failed: " + err.Error()}
}

// postReturn sends POST /returns with the arguments as its body: exactly one request, with the
// timeout, never retried. It returns the created return, numbers kept as the service wrote them.
func postReturn(arguments map[string]any) (map[string]any, *toolFailure) {
	encoded, err := json.Marshal(arguments)
	if err != nil {
		return nil, &toolFailure{category: "transient", message: transientMessage, detail: "arguments could not be encoded: " + err.Error()}
	}
	req, err := http.NewRequest(http.MethodPost, apiURL+"/returns", bytes.NewReader(encoded))
	if err != nil {
		return nil, &toolFailure{category: "transient", message: transientMessage, detail: "request could not be built: " + err.Error()}
	}
	req.Header.Set("Authorization", "Bearer "+apiToken)
	req.Header.Set("Accept", "application/json")
	req.Header.Set("Content-Type", "application/json")
	resp, err := httpClient.Do(req)
	if err != nil {
		return nil, networkFailure(err)
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	if resp.StatusCode >= 400 {
		orderID, _ := arguments["order_id"].(string)
		return nil, httpFailure(orderID, resp.StatusCode, raw)
	}
	if err != nil {
		return nil, networkFailure(err)
	}
	var created map[string]any
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	if err := dec.Decode(&created); err != nil || created == nil {
		return nil, &toolFailure{category: "transient", message: transientMessage, detail: "POST /returns: answer is not an object"}
	}
	return created, nil
}

// -- the tool ---------------------------------------------------------------------------------------

func createReturn(arguments map[string]any) shim.Result {
	logged, _ := json.Marshal(redact(arguments))
	shim.Log("create_return", string(logged))
	// Every violation at once, and nothing sent while there is one.
	if violations := violationsOf(createReturnProperties, createReturnRequired, arguments); len(violations) > 0 {
		return typedError(validationFailure(violations))
	}
	created, f := postReturn(arguments)
	if f != nil {
		return typedError(f)
	}
	return shim.OK(map[string]any{"return": created})
}

func main() {
	server := shim.NewServer("orders", "1.0.0")
	server.Tool("create_return", "Open a return for items of one order and email the customer a return label.",
		inputSchema(createReturnProperties, createReturnRequired), createReturn)
	server.Run()
}
