// The orders MCP server: a BROKEN reference for mcp-error-responses.
//
// It is correct/cmd/server/main.go with one fault, marked FAULT below:
// every error payload carries an empty message, so the agent has nothing to tell the customer.
package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"net/http"
	"net/url"
	"os"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"

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

var retryable = map[string]bool{
	"transient":  true,
	"validation": false,
	"business":   false,
	"permission": false,
}

var (
	orderIDPattern    = regexp.MustCompile(`^ORD-[0-9]{4,}$`)
	customerIDPattern = regexp.MustCompile(`^C-[0-9]+$`)
)

const refundLimit = 500 // refunds above this need a manager's approval

const maxPages = 1000 // a guard against a service whose next_page never ends

// toolFailure is a failure with its category, returned below and turned into the typed payload.
//
// message is for the customer; detail is for whoever reads the log (status, page, timeout) and
// travels in attemptedQuery, never in message.
type toolFailure struct {
	category       string
	message        string
	detail         string
	field          string
	partialResults []any // nil: null
}

func (f *toolFailure) Error() string { return f.message }

func fail(category, message, detail string) *toolFailure {
	return &toolFailure{category: category, message: message, detail: detail}
}

func invalid(field, message, detail string) *toolFailure {
	return &toolFailure{category: "validation", message: message, detail: detail, field: field}
}

// -- attemptedQuery -----------------------------------------------------------------------------

// showValue is an argument value as it appears in attemptedQuery: strings as they are, the rest
// as JSON.
func showValue(value any) string {
	if s, ok := value.(string); ok {
		if s == "" {
			return `""`
		}
		return s
	}
	b, err := json.Marshal(value)
	if err != nil {
		return fmt.Sprint(value)
	}
	return string(b)
}

// attemptedQuery is the call as it was received, every argument value included, e.g.
// "process_refund order_id: ORD-8821, amount: 750" or "lookup_order with no order_id".
func attemptedQuery(tool string, arguments map[string]any, names []string, detail string) string {
	var given, missing []string
	known := map[string]bool{}
	for _, name := range names {
		known[name] = true
		if v, ok := arguments[name]; ok {
			given = append(given, name+": "+showValue(v))
		} else {
			missing = append(missing, name)
		}
	}
	var others []string
	for name := range arguments {
		if !known[name] {
			others = append(others, name)
		}
	}
	sort.Strings(others)
	for _, name := range others {
		given = append(given, name+": "+showValue(arguments[name]))
	}
	text := tool
	if len(given) > 0 {
		text += " " + strings.Join(given, ", ")
	}
	if len(missing) > 0 {
		if len(given) > 0 {
			text += ", with no "
		} else {
			text += " with no "
		}
		text += strings.Join(missing, " and no ")
	}
	if detail != "" {
		text += " (" + detail + ")"
	}
	return text
}

func typedError(f *toolFailure, tool string, arguments map[string]any, names []string) shim.Result {
	var partial any // JSON null unless orders were fetched before the failure
	if f.partialResults != nil {
		partial = f.partialResults
	}
	payload := map[string]any{
		"isError":        true,
		"errorCategory":  f.category,
		"isRetryable":    retryable[f.category],
		"message":        "", // FAULT: nothing for the customer
		"attemptedQuery": attemptedQuery(tool, arguments, names, f.detail),
		"partialResults": partial,
	}
	if f.category == "validation" {
		payload["field"] = f.field
	}
	text, _ := json.Marshal(payload)
	shim.Log("error:", string(text))
	return shim.ToolError(payload)
}

// -- validation (step 1) ------------------------------------------------------------------------

func requireID(arguments map[string]any, name string, pattern *regexp.Regexp, missingMessage, malformedMessage string) (string, *toolFailure) {
	value, present := arguments[name]
	if !present || value == nil {
		return "", invalid(name, missingMessage, "no request sent")
	}
	s, ok := value.(string)
	if !ok || !pattern.MatchString(s) {
		return "", invalid(name, malformedMessage, "malformed, no request sent")
	}
	return s, nil
}

func requireOrderID(arguments map[string]any) (string, *toolFailure) {
	return requireID(arguments, "order_id", orderIDPattern,
		"I need the order number to go on. Order numbers look like ORD-8821.",
		"That order number doesn't look right. Order numbers look like ORD-8821.")
}

func requireCustomerID(arguments map[string]any) (string, *toolFailure) {
	return requireID(arguments, "customer_id", customerIDPattern,
		"I need the customer number to go on. Customer numbers look like C-1042.",
		"That customer number doesn't look right. Customer numbers look like C-1042.")
}

func requireAmount(arguments map[string]any) (float64, *toolFailure) {
	value, present := arguments["amount"]
	if !present || value == nil {
		return 0, invalid("amount", "I need the amount to refund, for example 120.00.", "no request sent")
	}
	// JSON numbers decode to float64: the string "120" and the bool true are not numbers.
	n, ok := value.(float64)
	if !ok || math.IsNaN(n) || math.IsInf(n, 0) {
		return 0, invalid("amount", "The refund amount must be a number, for example 120.00.",
			"amount is not a number, no request sent")
	}
	if n <= 0 {
		return 0, invalid("amount", "The refund amount must be more than zero.",
			"amount must be greater than 0, no request sent")
	}
	return n, nil
}

// -- the Orders API (steps 2 and 4) -------------------------------------------------------------

// errorCode is the "error" string of an HTTP error's JSON body, or "".
func errorCode(raw []byte) string {
	var body struct {
		Error any `json:"error"`
	}
	if json.Unmarshal(raw, &body) != nil {
		return ""
	}
	s, _ := body.Error.(string)
	return s
}

// call is what one tool call is about: its words for the customer, and the argument that carries
// the id (the field a 404 names).
type call struct {
	idField  string
	thing    string // e.g. "order ORD-8821"
	isRefund bool
}

func (c call) transientMessage(why string) string {
	if c.isRefund {
		// A POST that timed out or failed may have been applied: promise nothing.
		return "I couldn't confirm whether the refund went through. It will be checked " +
			"before anything is sent again."
	}
	switch why {
	case "busy":
		return "The order system is busy right now. Trying again in a moment should work."
	case "slow":
		return "The order system is slow to respond. Trying again soon should work."
	}
	return "The order system is having a temporary problem. Trying again in a moment should work."
}

func httpFailure(c call, what string, status int, header http.Header, body []byte) *toolFailure {
	detail := fmt.Sprintf("%s: %d", what, status)
	if code := errorCode(body); code != "" {
		detail += " " + code
	}
	switch {
	case status == 401 || status == 403:
		message := "I can't open order records right now. A colleague with access will help."
		if c.isRefund {
			message = "I can't issue refunds right now, so no refund was made. A colleague with " +
				"access will take this over."
		}
		return fail("permission", message, detail)
	case status == 404:
		return invalid(c.idField, fmt.Sprintf("I couldn't find %s. Could you check the number?", c.thing), detail)
	case status == 422 && c.isRefund:
		return fail("business",
			"Refunds above $500 need a manager's approval. I can ask a manager to approve it, "+
				"or refund $500 or less now.", detail)
	case status == 429:
		if values := header.Values("Retry-After"); len(values) > 0 {
			detail += ", Retry-After: " + values[0]
		}
		message := c.transientMessage("busy")
		if c.isRefund {
			// A rate-limited request was refused before it was processed: nothing was applied.
			message = "The refund system is busy and made no refund. It can be tried again soon."
		}
		return fail("transient", message, detail)
	case status == 408 || (status >= 500 && status <= 599):
		return fail("transient", c.transientMessage("unavailable"), detail)
	}
	// Another 4xx: the API refused this request as it stands; the same call will fail again.
	return invalid(c.idField, fmt.Sprintf("The order system did not accept the request for %s.", c.thing), detail)
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

func networkFailure(c call, what string, err error) *toolFailure {
	if isTimeout(err) {
		return fail("transient", c.transientMessage("slow"), fmt.Sprintf("%s timed out after %g s", what, timeoutSeconds))
	}
	// refused, unreachable, reset, dropped, cut short
	return fail("transient", c.transientMessage("unavailable"), fmt.Sprintf("%s failed: %v", what, err))
}

// apiRequest sends one request: exactly one, with the timeout, never retried. It returns the
// JSON body, numbers kept exactly as the service wrote them.
func apiRequest(c call, method, path string, body any) (any, *toolFailure) {
	what := method + " " + path
	var reader io.Reader
	if body != nil {
		encoded, err := json.Marshal(body)
		if err != nil {
			return nil, fail("transient", c.transientMessage("unavailable"), fmt.Sprintf("%s could not be encoded: %v", what, err))
		}
		reader = bytes.NewReader(encoded)
	}
	req, err := http.NewRequest(method, apiURL+path, reader)
	if err != nil {
		return nil, fail("transient", c.transientMessage("unavailable"), fmt.Sprintf("%s could not be built: %v", what, err))
	}
	req.Header.Set("Authorization", "Bearer "+apiToken)
	req.Header.Set("Accept", "application/json")
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := httpClient.Do(req)
	if err != nil {
		return nil, networkFailure(c, what, err)
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	if resp.StatusCode >= 400 {
		return nil, httpFailure(c, what, resp.StatusCode, resp.Header, raw)
	}
	if err != nil {
		return nil, networkFailure(c, what, err)
	}
	var decoded any
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	if err := dec.Decode(&decoded); err != nil {
		return nil, fail("transient", c.transientMessage("unavailable"), what+": answer is not JSON")
	}
	return decoded, nil
}

func quoted(value string) string { return url.PathEscape(value) }

// -- the tools ----------------------------------------------------------------------------------

// The arguments are declared with their types but not listed as "required": a schema check before
// the handler would answer a missing argument with untyped text. The handlers check them.
var lookupOrderSchema = map[string]any{
	"type": "object",
	"properties": map[string]any{
		"order_id": map[string]any{"type": "string", "description": "The order id, e.g. ORD-8821."},
	},
}

var searchOrdersSchema = map[string]any{
	"type": "object",
	"properties": map[string]any{
		"customer_id": map[string]any{"type": "string", "description": "The customer id, e.g. C-1042."},
	},
}

var processRefundSchema = map[string]any{
	"type": "object",
	"properties": map[string]any{
		"order_id": map[string]any{"type": "string", "description": "The order to refund, e.g. ORD-8821."},
		"amount":   map[string]any{"type": "number", "description": "The refund amount, more than 0."},
	},
}

func lookupOrder(arguments map[string]any) shim.Result {
	shim.Log("lookup_order", arguments)
	names := []string{"order_id"}
	orderID, f := requireOrderID(arguments)
	if f != nil {
		return typedError(f, "lookup_order", arguments, names)
	}
	c := call{idField: "order_id", thing: "order " + orderID}
	order, f := apiRequest(c, http.MethodGet, "/orders/"+quoted(orderID), nil)
	if f != nil {
		return typedError(f, "lookup_order", arguments, names)
	}
	return shim.OK(map[string]any{"order": order})
}

func searchOrders(arguments map[string]any) shim.Result {
	shim.Log("search_orders", arguments)
	names := []string{"customer_id"}
	customerID, f := requireCustomerID(arguments)
	if f != nil {
		return typedError(f, "search_orders", arguments, names)
	}
	c := call{idField: "customer_id", thing: "customer " + customerID}
	orders := []any{}
	pagesFetched := 0
	f = func() *toolFailure {
		var page any = 1
		seen := map[string]bool{}
		for page != nil {
			key := fmt.Sprint(page)
			if seen[key] || len(seen) >= maxPages {
				return fail("transient", c.transientMessage("unavailable"),
					fmt.Sprintf("the pages never reach a last page (next_page %s again)", showValue(page)))
			}
			seen[key] = true
			path := fmt.Sprintf("/customers/%s/orders?page=%s", quoted(customerID), url.QueryEscape(key))
			body, f := apiRequest(c, http.MethodGet, path, nil)
			if f != nil {
				return f
			}
			object, ok := body.(map[string]any)
			list, listOK := object["orders"].([]any)
			if _, present := object["orders"]; ok && !present {
				list, listOK = []any{}, true
			}
			if !ok || !listOK {
				return fail("transient", c.transientMessage("unavailable"),
					fmt.Sprintf("GET %s answered 200 without an orders list", path))
			}
			orders = append(orders, list...)
			pagesFetched++
			page = object["next_page"]
		}
		return nil
	}()
	if f != nil {
		// A failure after some pages arrived keeps them, and is still an error: never pass a
		// partial list off as the whole history. Nothing fetched is null, not [].
		if pagesFetched > 0 {
			f.partialResults = orders
			f.detail = fmt.Sprintf("%s; %d page(s) with %d order(s) fetched before", f.detail, pagesFetched, len(orders))
		}
		return typedError(f, "search_orders", arguments, names)
	}
	// No orders at all is a complete answer, and a success.
	return shim.OK(map[string]any{"orders": orders})
}

func processRefund(arguments map[string]any) shim.Result {
	shim.Log("process_refund", arguments)
	var orderID string
	refund, f := func() (any, *toolFailure) {
		// Validation first, order_id before amount: -20 is validation, not business.
		var f *toolFailure
		if orderID, f = requireOrderID(arguments); f != nil {
			return nil, f
		}
		amount, f := requireAmount(arguments)
		if f != nil {
			return nil, f
		}
		if amount > refundLimit {
			// The policy, checked here without a request; the API's 422 says the same.
			return nil, fail("business",
				"Refunds above $500 need a manager's approval. I can ask a manager to approve "+
					"it, or refund $500 or less now.",
				fmt.Sprintf("amount above the refund limit of %d; no request sent", refundLimit))
		}
		c := call{idField: "order_id", thing: "order " + orderID, isRefund: true}
		// One POST, never repeated here: a repeat could pay the refund twice.
		return apiRequest(c, http.MethodPost, "/refunds", map[string]any{"order_id": orderID, "amount": amount})
	}()
	if f != nil {
		return typedError(f, "process_refund", arguments, []string{"order_id", "amount"})
	}
	return shim.OK(map[string]any{"refund": refund})
}

func main() {
	server := shim.NewServer("orders", "1.0.0")
	server.Tool("lookup_order", "Look up one order by its id.", lookupOrderSchema, lookupOrder)
	server.Tool("search_orders", "List every order of one customer, all pages.", searchOrdersSchema, searchOrders)
	server.Tool("process_refund", "Refund an amount of one order. Refunds above 500 need a manager's approval.", processRefundSchema, processRefund)
	server.Run()
}
