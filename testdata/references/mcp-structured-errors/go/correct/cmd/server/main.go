// The orders MCP server: a reference solution for mcp-structured-errors.
//
// Every failure is a tool result with isError true and the typed payload
// {isError, errorCategory, isRetryable, retryAfterSeconds, explanation}; the client decides from
// the flags. One HTTP request per lookup or page, never a retry, logs on stderr only.
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
	v, err := strconv.ParseFloat(os.Getenv(name), 64)
	if err != nil || math.IsNaN(v) || math.IsInf(v, 0) || v < 0 {
		shim.Log(name, "is not a number; using", fallback)
		return fallback
	}
	return v
}

var retryable = map[string]bool{
	"auth":       false,
	"rate_limit": true,
	"not_found":  false,
	"validation": false,
	"transient":  true,
}

var (
	orderIDPattern    = regexp.MustCompile(`^ORD-[0-9]{4,}$`)
	customerIDPattern = regexp.MustCompile(`^C-[0-9]+$`)
)

const maxPages = 1000 // a guard against a service whose next_page never ends

// toolFailure is a failure with its category, returned below and turned into the typed payload.
type toolFailure struct {
	category          string
	explanation       string
	retryAfterSeconds *int64 // nil: null
}

func (f *toolFailure) Error() string { return f.explanation }

func fail(category, format string, args ...any) *toolFailure {
	return &toolFailure{category: category, explanation: fmt.Sprintf(format, args...)}
}

func typedError(f *toolFailure) shim.Result {
	var retryAfter any // JSON null unless the failure carries a number
	if f.retryAfterSeconds != nil {
		retryAfter = *f.retryAfterSeconds
	}
	payload := map[string]any{
		"isError":           true,
		"errorCategory":     f.category,
		"isRetryable":       retryable[f.category],
		"retryAfterSeconds": retryAfter,
		"explanation":       f.explanation,
	}
	text, _ := json.Marshal(payload)
	shim.Log("error:", string(text))
	return shim.ToolError(payload)
}

// -- validation (step 1) ------------------------------------------------------------------------

func require(arguments map[string]any, name string, pattern *regexp.Regexp, shape string) (string, *toolFailure) {
	value, present := arguments[name]
	if !present || value == nil {
		return "", fail("validation", "%s is missing; expected %s.", name, shape)
	}
	s, ok := value.(string)
	if !ok || !pattern.MatchString(s) {
		text, _ := json.Marshal(value)
		return "", fail("validation", "%s %s is malformed; expected %s.", name, text, shape)
	}
	return s, nil
}

// -- Retry-After (step 3) -----------------------------------------------------------------------

var digits = regexp.MustCompile(`^[0-9]+$`)

// retryAfterSeconds reads Retry-After (RFC 9110 §10.2.3) as whole seconds >= 0; nil when the
// header is absent or unreadable.
func retryAfterSeconds(header []string) *int64 {
	if len(header) == 0 {
		return nil
	}
	value := strings.TrimSpace(header[0])
	if digits.MatchString(value) {
		n, err := strconv.ParseInt(value, 10, 64)
		if err != nil {
			return nil
		}
		return &n
	}
	when, err := http.ParseTime(value) // IMF-fixdate, and the obsolete RFC 850 and asctime forms
	if err != nil {
		return nil
	}
	n := int64(math.Max(0, math.Round(time.Until(when).Seconds())))
	return &n
}

// -- the Orders API (step 2) --------------------------------------------------------------------

func describeBody(raw []byte) string {
	var body struct {
		Error any `json:"error"`
	}
	if json.Unmarshal(raw, &body) != nil {
		return ""
	}
	if s, ok := body.Error.(string); ok {
		return ": " + s
	}
	return ""
}

func httpFailure(what string, status int, header http.Header, body []byte) *toolFailure {
	detail := describeBody(body)
	switch {
	case status == 401 || status == 403:
		return fail("auth", "%d from %s%s; the API token was refused, a person must renew it.", status, what, detail)
	case status == 404:
		return fail("not_found", "404 from %s%s; no such record.", what, detail)
	case status == 429:
		values := header.Values("Retry-After")
		hint := "no Retry-After"
		if len(values) > 0 {
			hint = "Retry-After: " + values[0]
		}
		f := fail("rate_limit", "429 from %s%s, %s; wait before trying again.", what, detail, hint)
		f.retryAfterSeconds = retryAfterSeconds(values)
		return f
	case status == 408 || (status >= 500 && status <= 599):
		// A 503 may state how long the outage lasts (RFC 9110 §10.2.3): carry that wait too.
		f := fail("transient", "%d from %s%s; the service is temporarily unavailable.", status, what, detail)
		f.retryAfterSeconds = retryAfterSeconds(header.Values("Retry-After"))
		return f
	}
	return fail("validation", "unexpected %d from %s%s.", status, what, detail)
}

// httpClient talks to the Orders API directly: Timeout bounds each request (connecting, the
// headers and the body), Proxy nil ignores proxy settings, and no keep-alive means Go's transport
// never silently re-sends a GET on a reused connection the service dropped.
var httpClient = &http.Client{
	Timeout:   time.Duration(timeoutSeconds * float64(time.Second)),
	Transport: &http.Transport{Proxy: nil, DisableKeepAlives: true},
}

func isTimeout(err error) bool {
	var t interface{ Timeout() bool }
	return errors.As(err, &t) && t.Timeout()
}

func networkFailure(what string, err error) *toolFailure {
	if isTimeout(err) {
		return fail("transient", "%s timed out after %g s; the service is temporarily slow.", what, timeoutSeconds)
	}
	// refused, unreachable, reset, dropped, cut short
	return fail("transient", "%s failed: %v; the service is temporarily unreachable.", what, err)
}

// apiGet GETs one resource: exactly one request, with the timeout, never retried.
func apiGet(path string) (any, *toolFailure) {
	what := "GET " + path
	req, err := http.NewRequest(http.MethodGet, apiURL+path, nil)
	if err != nil {
		return nil, fail("transient", "%s could not be built: %v.", what, err)
	}
	req.Header.Set("Authorization", "Bearer "+apiToken)
	req.Header.Set("Accept", "application/json")
	resp, err := httpClient.Do(req)
	if err != nil {
		return nil, networkFailure(what, err)
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	if resp.StatusCode >= 400 {
		return nil, httpFailure(what, resp.StatusCode, resp.Header, raw)
	}
	if err != nil {
		return nil, networkFailure(what, err)
	}
	var body any
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber() // keep numbers exactly as the service wrote them
	if err := dec.Decode(&body); err != nil {
		return nil, fail("transient", "%s answered %d with a body that is not JSON.", what, resp.StatusCode)
	}
	return body, nil
}

// -- the tools ----------------------------------------------------------------------------------

// The arguments are declared with their types but not listed as "required": a schema check before
// the handler would answer a missing argument with untyped text. The handlers check it themselves.
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

func lookupOrder(arguments map[string]any) shim.Result {
	shim.Log("lookup_order", arguments)
	orderID, f := require(arguments, "order_id", orderIDPattern, "ORD- and four or more digits, e.g. ORD-8821")
	if f != nil {
		return typedError(f)
	}
	order, f := apiGet("/orders/" + url.PathEscape(orderID))
	if f != nil {
		return typedError(f)
	}
	return shim.OK(map[string]any{"order": order})
}

func searchOrders(arguments map[string]any) shim.Result {
	shim.Log("search_orders", arguments)
	customerID, f := require(arguments, "customer_id", customerIDPattern, "C- and digits, e.g. C-1042")
	if f != nil {
		return typedError(f)
	}
	orders := []any{}
	var page any = 1
	seen := map[string]bool{}
	for page != nil {
		key := fmt.Sprint(page)
		if seen[key] || len(seen) >= maxPages {
			return typedError(fail("transient", "the orders of %s never reach a last page.", customerID))
		}
		seen[key] = true
		path := fmt.Sprintf("/customers/%s/orders?page=%s", url.PathEscape(customerID), url.QueryEscape(key))
		body, f := apiGet(path)
		if f != nil {
			return typedError(f)
		}
		object, ok := body.(map[string]any)
		list, listOK := object["orders"].([]any)
		if _, present := object["orders"]; ok && !present {
			list, listOK = []any{}, true
		}
		if !ok || !listOK {
			return typedError(fail("transient", "GET %s answered 200 without an orders list.", path))
		}
		orders = append(orders, list...)
		page = object["next_page"]
	}
	return shim.OK(map[string]any{"orders": orders})
}

func main() {
	server := shim.NewServer("orders", "1.0.0")
	server.Tool("lookup_order", "Look up one order by its id.", lookupOrderSchema, lookupOrder)
	server.Tool("search_orders", "List every order of one customer, all pages.", searchOrdersSchema, searchOrders)
	server.Run()
}
