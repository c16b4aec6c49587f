package grader

import (
	"crypto/subtle"
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/kata-mcp/kata/grader/sandbox"
	"github.com/kata-mcp/kata/katas"
)

// ordersAPI is the Orders API of docs/grading.md#orders-api, played by the grader on 127.0.0.1.
// Each fixture registers how the service behaves for its own ids, so a server that makes an
// extra lookup is not confused; requests are counted per id.
type ordersAPI struct {
	URL   string
	token string

	srv  *http.Server
	stop chan struct{}

	mu        sync.Mutex
	orders    map[string]*behaviour // by order id
	customers map[string]*behaviour // by customer id
	requests  map[string][]apiRequest
	// refused keeps, by id, requests refused for want of this grade's bearer token (at most
	// refusedKept ids, refusedPerID each): they count for nothing but bearer-token.
	refused map[string][]apiRequest
	// stray counts requests for ids no fixture registered (a malformed id sent anyway).
	stray int
	// declared maps the path of each declared tool's endpoint ("/returns") to the argument
	// its requests are counted under (docs/grading.md#api-endpoints); set before any call.
	declared map[string]string
}

// apiRequest is one request the service received, kept for the checks.
type apiRequest struct {
	Method, Path string
	Page         int
	Authorized   bool
	// Body is a POST's decoded JSON body.
	Body map[string]any
}

// behaviour is what the service does for one id.
type behaviour struct {
	kind       katas.BackendKind
	status     int
	retryAfter katas.RetryAfterForm
	delay      int // Retry-After seconds to send
	order      map[string]any
	refund     map[string]any
	pages      [][]map[string]any
	slowPage   int
	failPage   int
	// sentRetryAfter records, per request, the seconds the Retry-After stood for when sent.
	sentRetryAfter []float64
	// refundOnly applies the behaviour to POST /refunds only; a lookup of the same order
	// before the refund gets the order (a server that checks the order first is not confused).
	refundOnly bool
	// answeredLate is when a held request was answered after slowHold (the learner's server
	// was still waiting for it); zero when every held request was given up in time.
	answeredLate time.Time
	// created describes what a declared tool's POST creates (createdBody); nil for the
	// built-in tools. sent is the last body it answered with.
	created *creation
	sent    map[string]any
}

// slowHold is how long the "slow" behaviour holds a request before answering after all: six
// times ORDERS_API_TIMEOUT_SECONDS, so a server honouring that timeout has long given up (with a
// fair margin on a loaded machine), and less than the 5 s production default, so a server that
// hard-codes 5 s (or has no timeout) gets the late answer and is caught (docs/grading.md#api-timeout).
const slowHold = 6 * apiTimeout

// startOrdersAPI listens on a free loopback port.
func startOrdersAPI(token string) (*ordersAPI, error) { return startOrdersAPIIn(nil, token) }

// startOrdersAPIIn starts the Orders API of a run whose learner processes box confines, where
// box.ListenAPI says (docs/grading.md#sandbox-network): on a Unix socket that only this run's
// server sandboxes reach, through their forwarder, when they have a network of their own; else
// on a free loopback port (box nil: the grader's own tests).
func startOrdersAPIIn(box *sandbox.Box, token string) (*ordersAPI, error) {
	ln, url, err := box.ListenAPI()
	if err != nil {
		return nil, fmt.Errorf("orders API: %w", err)
	}
	a := &ordersAPI{
		URL:       url,
		token:     token,
		stop:      make(chan struct{}),
		orders:    map[string]*behaviour{},
		customers: map[string]*behaviour{},
		requests:  map[string][]apiRequest{},
		refused:   map[string][]apiRequest{},
	}
	a.srv = &http.Server{Handler: a, ReadHeaderTimeout: 10 * time.Second}
	go a.srv.Serve(ln)
	return a, nil
}

// close stops the service and releases held requests.
func (a *ordersAPI) close() {
	close(a.stop)
	a.srv.Close()
}

func (a *ordersAPI) setOrder(id string, b *behaviour) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.orders[id] = b
}

func (a *ordersAPI) setCustomer(id string, b *behaviour) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.customers[id] = b
}

// requestsFor returns the requests received for an id so far: those with the grade's token,
// or, when none came, those refused for want of it (so bearer-token sees a server that sends
// no token, and a saboteur's requests never add to an honest server's own).
func (a *ordersAPI) requestsFor(id string) []apiRequest {
	a.mu.Lock()
	defer a.mu.Unlock()
	if len(a.requests[id]) == 0 {
		return append([]apiRequest(nil), a.refused[id]...)
	}
	return append([]apiRequest(nil), a.requests[id]...)
}

// Bounds of what the service keeps of refused requests.
const (
	refusedKept  = 1024
	refusedPerID = 8
)

// refuse answers a request without the grade's bearer token: 401 before anything is counted
// (docs/grading.md#api-auth). Every grade's service listens on loopback, where other learners'
// code can reach it; their requests must not count against this grade's fixtures. The request
// is only noted under the id it names, for bearer-token.
func (a *ordersAPI) refuse(w http.ResponseWriter, r *http.Request, parts []string) {
	var id string
	switch {
	case r.Method == http.MethodGet && len(parts) == 2 && parts[0] == "orders":
		id = parts[1]
	case r.Method == http.MethodGet && len(parts) == 3 && parts[0] == "customers" && parts[2] == "orders":
		id = parts[1]
	case r.Method == http.MethodPost && len(parts) == 1 && (parts[0] == "refunds" || a.declared["/"+parts[0]] != ""):
		key := "order_id"
		if k := a.declared["/"+parts[0]]; k != "" {
			key = k
		}
		var body map[string]any
		if json.NewDecoder(http.MaxBytesReader(w, r.Body, 1<<20)).Decode(&body) == nil {
			id, _ = body[key].(string)
		}
	}
	if id != "" {
		a.mu.Lock()
		if _, known := a.orders[id]; known || a.customers[id] != nil {
			if kept := a.refused[id]; len(kept) < refusedPerID && (kept != nil || len(a.refused) < refusedKept) {
				a.refused[id] = append(kept, apiRequest{Method: r.Method, Path: r.URL.Path})
			}
		}
		a.mu.Unlock()
	}
	writeJSON(w, http.StatusUnauthorized, map[string]any{"error": "token_expired", "detail": "missing or wrong bearer token"})
}

// strayRequests counts requests for ids no fixture registered, and requests to no endpoint
// at all (`GET /orders/` for an empty id). Fixtures that must send no request run one at a
// time, so the count's change during such a call is that call's.
func (a *ordersAPI) strayRequests() int {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.stray
}

// retryAfterSent returns the Retry-After seconds of the last 429 sent for id.
func (a *ordersAPI) retryAfterSent(id string) (float64, bool) {
	a.mu.Lock()
	defer a.mu.Unlock()
	for _, m := range []map[string]*behaviour{a.orders, a.customers} {
		if b, ok := m[id]; ok && len(b.sentRetryAfter) > 0 {
			return b.sentRetryAfter[len(b.sentRetryAfter)-1], true
		}
	}
	return 0, false
}

// ServeHTTP answers one Orders API request (docs/grading.md#orders-api) as the fixture in force
// for its id says, and counts it; a request without the grade's bearer token is refused first,
// and not counted (refuse).
func (a *ordersAPI) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	parts := strings.Split(strings.Trim(r.URL.Path, "/"), "/")
	if subtle.ConstantTimeCompare([]byte(r.Header.Get("Authorization")), []byte("Bearer "+a.token)) != 1 {
		a.refuse(w, r, parts)
		return
	}
	req := apiRequest{Method: r.Method, Path: r.URL.Path, Authorized: true}
	var id string
	var b *behaviour
	a.mu.Lock()
	switch {
	case r.Method == http.MethodGet && len(parts) == 2 && parts[0] == "orders":
		id = parts[1]
		b = a.orders[id]
	case r.Method == http.MethodGet && len(parts) == 3 && parts[0] == "customers" && parts[2] == "orders":
		id = parts[1]
		b = a.customers[id]
		req.Page, _ = strconv.Atoi(r.URL.Query().Get("page"))
	case r.Method == http.MethodPost && len(parts) == 1 && parts[0] == "refunds":
		var body struct {
			OrderID string `json:"order_id"`
			Amount  any    `json:"amount"`
		}
		if err := json.NewDecoder(http.MaxBytesReader(w, r.Body, 1<<20)).Decode(&body); err != nil {
			a.mu.Unlock()
			writeJSON(w, http.StatusBadRequest, map[string]any{"error": "invalid JSON body"})
			return
		}
		id = body.OrderID
		b = a.orders[id]
		req.Body = map[string]any{"order_id": body.OrderID, "amount": body.Amount}
	case r.Method == http.MethodPost && len(parts) == 1 && a.declared["/"+parts[0]] != "":
		var body map[string]any
		if err := json.NewDecoder(http.MaxBytesReader(w, r.Body, 1<<20)).Decode(&body); err != nil {
			a.mu.Unlock()
			writeJSON(w, http.StatusBadRequest, map[string]any{"error": "invalid JSON body"})
			return
		}
		id, _ = body[a.declared["/"+parts[0]]].(string)
		b = a.orders[id]
		req.Body = body
	default:
		// An empty id (GET /orders/) or a path no endpoint has: a request that must not
		// have been sent, counted as stray.
		a.stray++
		a.mu.Unlock()
		writeJSON(w, http.StatusNotFound, map[string]any{"error": "no such endpoint: " + r.Method + " " + r.URL.Path})
		return
	}
	a.requests[id] = append(a.requests[id], req)
	if b == nil {
		a.stray++
	}
	a.mu.Unlock()

	if b == nil {
		writeJSON(w, http.StatusNotFound, map[string]any{"error": "not_found"})
		return
	}
	if b.refundOnly && r.Method == http.MethodGet {
		writeJSON(w, http.StatusOK, b.order)
		return
	}
	switch b.kind {
	case "ok":
		if r.Method == http.MethodPost {
			writeJSON(w, http.StatusCreated, a.postBody(b, req.Body))
			return
		}
		writeJSON(w, http.StatusOK, b.order)
	case "status":
		a.writeStatus(w, b)
	case "slow":
		if a.hold(r, b) {
			if r.Method == http.MethodPost && (b.refund != nil || b.created != nil) {
				writeJSON(w, http.StatusCreated, a.postBody(b, req.Body))
				return
			}
			writeJSON(w, http.StatusOK, b.order)
		}
	case "drop":
		if hj, ok := w.(http.Hijacker); ok {
			if conn, _, err := hj.Hijack(); err == nil {
				conn.Close()
				return
			}
		}
		panic(http.ErrAbortHandler)
	case "empty":
		writeJSON(w, http.StatusOK, map[string]any{"orders": []any{}, "next_page": nil})
	case "pages":
		page := req.Page
		if page < 1 || page > len(b.pages) {
			writeJSON(w, http.StatusOK, map[string]any{"orders": []any{}, "next_page": nil})
			return
		}
		if page == b.slowPage && !a.hold(r, b) {
			return
		}
		if page == b.failPage {
			a.writeStatus(w, b)
			return
		}
		var next any
		if page < len(b.pages) {
			next = page + 1
		}
		writeJSON(w, http.StatusOK, map[string]any{"orders": b.pages[page-1], "next_page": next})
	default:
		writeJSON(w, http.StatusNotFound, map[string]any{"error": "not_found"})
	}
}

// writeStatus answers with a fixture's error status and the body docs/grading.md#api-failures gives it.
func (a *ordersAPI) writeStatus(w http.ResponseWriter, b *behaviour) {
	body := map[string]any{"error": "unavailable"}
	switch b.status {
	case 401:
		body["error"] = "token_expired"
	case 403:
		body["error"] = "forbidden"
	case 404:
		body["error"] = "not_found"
	case 409:
		body["error"] = "return_window_closed"
	case 422:
		body = map[string]any{"error": "refund_limit_exceeded", "limit": 500}
	case 429:
		body["error"] = "rate_limited"
	}
	// Retry-After rides on a 429 and, as RFC 9110 §10.2.3 allows, on a 503; only a rate_limit
	// error carries it in the payload (docs/grading.md#retry-after-seconds), so a 503 with the header checks
	// that a server does not copy it into a transient error.
	if b.status == 429 || b.status == 503 {
		switch b.retryAfter {
		case katas.RetryAfterSeconds:
			w.Header().Set("Retry-After", strconv.Itoa(b.delay))
			a.noteRetryAfter(b, float64(b.delay))
		case katas.RetryAfterHTTPDate, katas.RetryAfterHTTPDatePast:
			at := time.Now().Add(time.Duration(b.delay) * time.Second)
			w.Header().Set("Retry-After", at.UTC().Format(http.TimeFormat))
			// The date stands for the fixture's delay, the figure the failure's description of
			// the API quotes too (a value measured from the truncated date quoted 153 s beside
			// a "154 s ahead"); the date's whole-second resolution and the call's latency are
			// within the check's 2 s tolerance. A date already passed means no wait: 0
			// (RFC 9110 §10.2.3; §4's seconds ≥ 0).
			a.noteRetryAfter(b, float64(max(0, b.delay)))
		}
	}
	writeJSON(w, b.status, body)
}

func (a *ordersAPI) noteRetryAfter(b *behaviour, secs float64) {
	a.mu.Lock()
	defer a.mu.Unlock()
	b.sentRetryAfter = append(b.sentRetryAfter, secs)
}

// hold keeps a request open for slowHold, until the caller gives up or the service stops: the
// "slow" behaviour. It reports whether the caller was still waiting at the end, in which case
// the request is answered after all (and the time noted in b.answeredLate).
func (a *ordersAPI) hold(r *http.Request, b *behaviour) bool {
	t := time.NewTimer(slowHold)
	defer t.Stop()
	select {
	case <-r.Context().Done():
		return false
	case <-a.stop:
		return false
	case <-t.C:
		a.mu.Lock()
		b.answeredLate = time.Now()
		a.mu.Unlock()
		return true
	}
}

// answeredLateFor returns when a held request for id was answered late, or the zero time.
func (a *ordersAPI) answeredLateFor(id string) time.Time {
	a.mu.Lock()
	defer a.mu.Unlock()
	for _, m := range []map[string]*behaviour{a.orders, a.customers} {
		if b, ok := m[id]; ok {
			return b.answeredLate
		}
	}
	return time.Time{}
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(v)
}
