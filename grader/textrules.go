package grader

// The rules on the text of a result (docs/grading.md#rules): no result carries the Orders API
// token, in any kata; and in a kata whose failure payload has a customer-facing message, that
// message holds no URL or host of the API, no stack trace or exception type, and no HTTP status
// code — what the error-responses kata teaches a message never shows a customer.

import (
	"encoding/json"
	"regexp"
	"strconv"
	"strings"

	"github.com/kata-mcp/kata/internal/i18n"
	"github.com/kata-mcp/kata/katas"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// hasCustomerMessage reports whether the kata's contract has a customer-facing message (a
// field with the role katas.RoleCustomerMessage): only such a contract gets the message rules.
func hasCustomerMessage(p *katas.Packet) bool {
	_, _, ok := p.Contract.Field(katas.RoleCustomerMessage)
	return ok
}

// checkNoToken fails a result any of whose text — structuredContent (payload, message,
// explanation, partialResults, every field) or a text block — carries the run's Orders API
// token, alone or in an Authorization header. The token itself is never quoted back.
func checkNoToken(res *mcp.CallToolResult, token string, ps *problems) {
	if res == nil || token == "" {
		return
	}
	if res.StructuredContent != nil {
		b, _ := json.Marshal(res.StructuredContent)
		if strings.Contains(string(b), token) {
			ps.say(RuleNoToken, i18n.M("grader.no_token.found", "Where", "structuredContent"))
			return
		}
	}
	for i, c := range res.Content {
		if t, ok := c.(*mcp.TextContent); ok && strings.Contains(t.Text, token) {
			ps.say(RuleNoToken, i18n.M("grader.no_token.found", "Where", "content["+strconv.Itoa(i)+"].text"))
			return
		}
	}
}

var (
	// urlMarkers are what shows a URL or a host of the Orders API in a message: a scheme, or
	// the loopback host it listens on under any of its names.
	urlMarkers = []string{"http://", "https://", "127.0.0.1", "localhost", "[::1]"}
	// traceMarkers are the lines of a stack trace in Python, Node and Go.
	traceMarkers = []*regexp.Regexp{
		regexp.MustCompile(`Traceback \(most recent call last\)`),
		regexp.MustCompile(`File "[^"]+", line \d+`),
		regexp.MustCompile(`\bat (?:async )?\S+ \(?[^\s()]+:\d+:\d+\)?`),
		regexp.MustCompile(`goroutine \d+ \[`),
		regexp.MustCompile(`\bpanic: `),
		regexp.MustCompile(`\.go:\d+`),
	}
	// exceptionType is an exception or error class name: a capitalised identifier ending in
	// Error or Exception with something before it (HTTPError, URLError, TypeError,
	// ConnectionRefusedError, FetchError, RuntimeException), optionally module-qualified.
	exceptionType = regexp.MustCompile(`\b(?:[a-z_][\w]*\.)*[A-Z]\w*(?:Error|Exception)\b`)
)

// checkMessageText fails a failure payload whose customer-facing message shows the customer
// what the kata teaches it must not: a URL or host of the API, a stack trace or an exception
// type, or the HTTP status code the API answered this call with.
func checkMessageText(payload map[string]any, field string, status int, ps *problems) {
	msg, ok := payload[field].(string)
	if !ok || msg == "" {
		return
	}
	quoted := strconv.Quote(clipText(msg, 160))
	low := strings.ToLower(msg)
	for _, m := range urlMarkers {
		if strings.Contains(low, m) {
			ps.say(RuleMessageNoURL, i18n.M("grader.message_no_url.found", "Field", field, "Found", strconv.Quote(m), "Message", quoted))
			break
		}
	}
	found := ""
	for _, re := range traceMarkers {
		if m := re.FindString(msg); m != "" {
			found = m
			break
		}
	}
	if found == "" {
		found = exceptionType.FindString(msg)
	}
	if found != "" {
		ps.say(RuleMessageNoTrace, i18n.M("grader.message_no_trace.found", "Field", field, "Found", strconv.Quote(found), "Message", quoted))
	}
	if status >= 400 && containsStatus(msg, status) {
		ps.say(RuleMessageNoStatus, i18n.M("grader.message_no_status.found", "Field", field, "Status", status, "Message", quoted))
	}
}

// containsStatus reports whether s holds the status code as a number of its own: not inside a
// longer number, not an amount ("$500", "500.00"), not the digits of an id ("C-404").
func containsStatus(s string, status int) bool {
	code := strconv.Itoa(status)
	for i := 0; ; {
		j := strings.Index(s[i:], code)
		if j < 0 {
			return false
		}
		j += i
		end := j + len(code)
		before := byte(' ')
		if j > 0 {
			before = s[j-1]
		}
		after := byte(' ')
		if end < len(s) {
			after = s[end]
		}
		isDigit := func(b byte) bool { return b >= '0' && b <= '9' }
		if !isDigit(before) && before != '$' && before != '.' && before != '-' && !isDigit(after) && !(after == '.' && end+1 < len(s) && isDigit(s[end+1])) {
			return true
		}
		i = end
	}
}
