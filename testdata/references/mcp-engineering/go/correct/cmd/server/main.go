// The orders MCP server: a reference solution for mcp-engineering.
//
// Every failure of lookup_order is a tool result with isError true and the typed payload
// {isError, errorCategory, isRetryable, retryAfterSeconds}, in the four categories auth,
// rate_limit, transient and fatal; the client decides from the flags. Credentials come only from
// the environment that .mcp.json passes by ${VAR} reference. One HTTP request per call, never a
// retry, logs on stderr only.
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
	"auth":       false,
	"rate_limit": true,
	"transient":  true,
	"fatal":      false,
}

var orderIDPattern = regexp.MustCompile(`^ORD-[0-9]{4,}$`)

// toolFailure is a failure with its category, returned below and turned into the typed payload.
//
// detail is for the log (stderr) only: the contract carries flags, not prose.
type toolFailure struct {
	category          string
	detail            string
	retryAfterSeconds *int64 // nil: null
}

func (f *toolFailure) Error() string { return f.detail }

func fail(category, format string, args ...any) *toolFailure {
	return &toolFailure{category: category, detail: fmt.Sprintf(format, args...)}
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
	}
	text, _ := json.Marshal(payload)
	shim.Log(fmt.Sprintf("error: %s -> %s", f.detail, text))
	return shim.ToolError(payload)
}

func isHTTPURL(value string) bool {
	return strings.HasPrefix(value, "http://") || strings.HasPrefix(value, "https://")
}

// -- configuration (step 2) ---------------------------------------------------------------------

// checkConfiguration fails closed: with no URL or no token there is nothing sensible to send.
func checkConfiguration() {
	var missing []string
	if apiURL == "" {
		missing = append(missing, "ORDERS_API_URL")
	}
	if apiToken == "" {
		missing = append(missing, "ORDERS_API_TOKEN")
	}
	if len(missing) > 0 {
		verb := "are"
		if len(missing) == 1 {
			verb = "is"
		}
		shim.Log(fmt.Sprintf("%s %s empty: pass credentials from .mcp.json as ${VAR} references (TASK.md, step 2). Exiting.",
			strings.Join(missing, " and "), verb))
		os.Exit(1)
	}
	if !isHTTPURL(apiURL) {
		// A bare "$ORDERS_API_URL" in .mcp.json is not expanded and arrives as text.
		shim.Log(fmt.Sprintf("ORDERS_API_URL is %q, not an http(s) URL; every lookup will fail as fatal. "+
			"Check .mcp.json: use ${ORDERS_API_URL}, with braces.", apiURL))
	}
}

// -- validation (step 3) ------------------------------------------------------------------------

func requireOrderID(arguments map[string]any) (string, *toolFailure) {
	value, present := arguments["order_id"]
	if !present || value == nil {
		return "", fail("fatal", "order_id is missing; no request sent")
	}
	s, ok := value.(string)
	if !ok || !orderIDPattern.MatchString(s) {
		text, _ := json.Marshal(value)
		return "", fail("fatal", "order_id %s is malformed; no request sent", text)
	}
	return s, nil
}

// -- Retry-After (step 4) -----------------------------------------------------------------------

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

// -- the Orders API (step 3) --------------------------------------------------------------------

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

func httpFailure(what string, status int, header http.Header, body []byte) *toolFailure {
	detail := fmt.Sprintf("%s: %d", what, status)
	if code := errorCode(body); code != "" {
		detail += " " + code
	}
	switch {
	case status == 401 || status == 403:
		return fail("auth", "%s; the credential must be renewed", detail)
	case status == 429:
		values := header.Values("Retry-After")
		hint := "no Retry-After"
		if len(values) > 0 {
			hint = "Retry-After: " + values[0]
		}
		f := fail("rate_limit", "%s, %s", detail, hint)
		f.retryAfterSeconds = retryAfterSeconds(values)
		return f
	case status == 408 || (status >= 500 && status <= 599):
		// A 503 may state how long the outage lasts (RFC 9110 §10.2.3): carry that wait too.
		f := fail("transient", "%s", detail)
		f.retryAfterSeconds = retryAfterSeconds(header.Values("Retry-After"))
		return f
	}
	// 404 and any other 4xx: the same call will get the same answer.
	return fail("fatal", "%s", detail)
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
		return fail("transient", "%s timed out after %g s", what, timeoutSeconds)
	}
	// refused, unreachable, reset, dropped, cut short
	return fail("transient", "%s failed: %v", what, err)
}

// apiGet GETs one resource: exactly one request, with the timeout, never retried.
func apiGet(path string) (any, *toolFailure) {
	what := "GET " + path
	if !isHTTPURL(apiURL) {
		return nil, fail("fatal", "ORDERS_API_URL %q is not an http(s) URL", apiURL)
	}
	req, err := http.NewRequest(http.MethodGet, apiURL+path, nil)
	if err != nil {
		return nil, fail("fatal", "%s could not be built: %v", what, err)
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
		return nil, fail("transient", "%s answered 200 with a body that is not JSON", what)
	}
	return body, nil
}

// -- the tool -----------------------------------------------------------------------------------

// order_id is declared with its type but not listed as "required": a schema check before the
// handler would answer a missing argument with untyped text. The handler checks it itself.
var lookupOrderSchema = map[string]any{
	"type": "object",
	"properties": map[string]any{
		"order_id": map[string]any{"type": "string", "description": "The order id, e.g. ORD-8821."},
	},
}

func lookupOrder(arguments map[string]any) shim.Result {
	shim.Log("lookup_order", arguments)
	orderID, f := requireOrderID(arguments)
	if f != nil {
		return typedError(f)
	}
	order, f := apiGet("/orders/" + url.PathEscape(orderID))
	if f != nil {
		return typedError(f)
	}
	return shim.OK(map[string]any{"order": order})
}

func main() {
	checkConfiguration()
	server := shim.NewServer("orders", "1.0.0")
	server.Tool("lookup_order", "Look up one order by its id.", lookupOrderSchema, lookupOrder)
	server.Run()
}
