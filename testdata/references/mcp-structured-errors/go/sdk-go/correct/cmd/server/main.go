// The orders MCP server on the official Go SDK (github.com/modelcontextprotocol/go-sdk): a
// reference solution for mcp-structured-errors, with typed tool handlers (mcp.AddTool).
//
// Every failure is a tool result with isError true and the typed payload
// {isError, errorCategory, isRetryable, retryAfterSeconds, explanation}. Two choices keep the
// SDK out of the way of that contract:
//   - every argument field is tagged omitempty, so the input schema the SDK generates lists no
//     property as required and a missing argument reaches the handler;
//   - the handlers' output type is any, so the SDK generates no output schema and leaves the
//     error results, which carry their own payload, as they are.
//
// One HTTP request per lookup or page, never a retry, logs on stderr only.
package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log"
	"math"
	"net/http"
	"net/url"
	"os"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

var (
	apiURL         = strings.TrimRight(os.Getenv("ORDERS_API_URL"), "/")
	apiToken       = os.Getenv("ORDERS_API_TOKEN")
	timeoutSeconds = envSeconds("ORDERS_API_TIMEOUT_SECONDS", 5)
)

func envSeconds(name string, fallback float64) float64 {
	v, err := strconv.ParseFloat(os.Getenv(name), 64)
	if err != nil || math.IsNaN(v) || math.IsInf(v, 0) || v < 0 {
		log.Println(name, "is not a number; using", fallback)
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

func typedError(f *toolFailure) *mcp.CallToolResult {
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
	log.Println("error:", jsonText(payload))
	return result(payload, true)
}

// result is a CallToolResult carrying payload in structuredContent and, as JSON text, in its
// first content block.
func result(payload map[string]any, isError bool) *mcp.CallToolResult {
	return &mcp.CallToolResult{
		Content:           []mcp.Content{&mcp.TextContent{Text: jsonText(payload)}},
		StructuredContent: payload,
		IsError:           isError,
	}
}

func jsonText(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

// -- validation (step 1) ------------------------------------------------------------------------

// require checks one argument. With omitempty, a missing argument and an empty string both
// arrive as "": either is a validation error.
func require(value, name string, pattern *regexp.Regexp, shape string) (string, *toolFailure) {
	if value == "" {
		return "", fail("validation", "%s is missing or empty; expected %s.", name, shape)
	}
	if !pattern.MatchString(value) {
		return "", fail("validation", "%s %q is malformed; expected %s.", name, value, shape)
	}
	return value, nil
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

// The argument structs: omitempty keeps each field out of the schema's "required" list, so the
// SDK passes a call without it to the handler, which answers with the typed payload. The
// jsonschema tag is the property's description.
type lookupOrderArgs struct {
	OrderID string `json:"order_id,omitempty" jsonschema:"the order id, e.g. ORD-8821"`
}

type searchOrdersArgs struct {
	CustomerID string `json:"customer_id,omitempty" jsonschema:"the customer id, e.g. C-1042"`
}

// The handlers return (result, nil, nil): the output type any means no output schema, so the
// SDK sends the result as built, error results included.

func lookupOrder(ctx context.Context, req *mcp.CallToolRequest, args lookupOrderArgs) (*mcp.CallToolResult, any, error) {
	log.Println("lookup_order", jsonText(args))
	orderID, f := require(args.OrderID, "order_id", orderIDPattern, "ORD- and four or more digits, e.g. ORD-8821")
	if f != nil {
		return typedError(f), nil, nil
	}
	order, f := apiGet("/orders/" + url.PathEscape(orderID))
	if f != nil {
		return typedError(f), nil, nil
	}
	return result(map[string]any{"order": order}, false), nil, nil
}

func searchOrders(ctx context.Context, req *mcp.CallToolRequest, args searchOrdersArgs) (*mcp.CallToolResult, any, error) {
	log.Println("search_orders", jsonText(args))
	customerID, f := require(args.CustomerID, "customer_id", customerIDPattern, "C- and digits, e.g. C-1042")
	if f != nil {
		return typedError(f), nil, nil
	}
	orders := []any{}
	var page any = 1
	seen := map[string]bool{}
	for page != nil {
		key := fmt.Sprint(page)
		if seen[key] || len(seen) >= maxPages {
			return typedError(fail("transient", "the orders of %s never reach a last page.", customerID)), nil, nil
		}
		seen[key] = true
		path := fmt.Sprintf("/customers/%s/orders?page=%s", url.PathEscape(customerID), url.QueryEscape(key))
		body, f := apiGet(path)
		if f != nil {
			return typedError(f), nil, nil
		}
		object, ok := body.(map[string]any)
		list, listOK := object["orders"].([]any)
		if _, present := object["orders"]; ok && !present {
			list, listOK = []any{}, true
		}
		if !ok || !listOK {
			return typedError(fail("transient", "GET %s answered 200 without an orders list.", path)), nil, nil
		}
		orders = append(orders, list...)
		page = object["next_page"]
	}
	return result(map[string]any{"orders": orders}, false), nil, nil
}

func main() {
	log.SetFlags(0) // log writes to stderr; stdout carries JSON-RPC only
	server := mcp.NewServer(&mcp.Implementation{Name: "orders", Version: "1.0.0"}, nil)
	mcp.AddTool(server, &mcp.Tool{Name: "lookup_order", Description: "Look up one order by its id."}, lookupOrder)
	mcp.AddTool(server, &mcp.Tool{Name: "search_orders", Description: "List every order of one customer, all pages."}, searchOrders)
	if err := server.Run(context.Background(), &mcp.StdioTransport{}); err != nil {
		log.Fatal(err)
	}
}
