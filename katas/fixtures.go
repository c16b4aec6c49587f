package katas

import (
	"fmt"
	"slices"
	"strings"
)

// FixtureSet is fixtures/<part>.json: the hidden fixtures of one graded part.
type FixtureSet struct {
	Part     string    `json:"part"`
	Fixtures []Fixture `json:"fixtures"`
}

// Fixture is one hidden test of a graded server: the tool call, how the Orders API behaves for
// the ids in it, and what the kata's contract expects back. Strings in Arguments may hold
// placeholders the grader draws from the run's seed: {order_id}, {customer_id},
// {malformed_order_id}, {malformed_customer_id} (every malformed form — wrong prefix, too few
// digits, empty, … — is tried in every run, one call each), and the numbers {amount} (0 < a ≤ 500),
// {amount_over_limit} (> 500) and {amount_nonpositive} (≤ 0).
type Fixture struct {
	// ID is a short stable id, unique in the set (e.g. "lookup-rate-limit-seconds").
	ID string `json:"id"`
	// Name is the test name reports show.
	Name string `json:"name"`
	// Task is the task step the fixture grades (task_id in reports).
	Task int `json:"task"`
	// Rule names the contract rule in plain words, shown with a failure.
	Rule      string    `json:"rule"`
	Tool      string    `json:"tool"`
	Arguments Arguments `json:"arguments"`
	Backend   Backend   `json:"backend"`
	Expect    Expect    `json:"expect"`
	// Violate, Set and Repair are for a declared tool called with "{valid}" arguments
	// (docs/packets.md#fixtures-of-a-declared-tool): Violate breaks each listed argument by a
	// keyword ("quantity:maximum"), Set puts values in ("{secret_like}" a secret-like string),
	// and Repair plays the scripted model against the feedback after the checks.
	Violate []string       `json:"violate,omitempty"`
	Set     map[string]any `json:"set,omitempty"`
	Repair  bool           `json:"repair,omitempty"`
}

// Backend is what the grader's Orders API does for the fixture's ids (docs/grading.md#api-failures).
type Backend struct {
	// Kind is one of the Backend* constants.
	Kind BackendKind `json:"kind"`
	// Status lists HTTP statuses for BackendStatus (and FailPage). Every status is tried in
	// every run, each with its own call and ids (docs/grading.md#seed: the seed varies values,
	// never coverage).
	Status []int `json:"status,omitempty"`
	// RetryAfter is the form of the Retry-After header a 429 carries: one of the RetryAfter*
	// constants; empty means none.
	RetryAfter RetryAfterForm `json:"retryAfter,omitempty"`
	// Pages for BackendPages is the [min, max] page count the seed picks from.
	Pages []int `json:"pages,omitempty"`
	// SlowPage makes one later page (2..n, seed-picked) hold the request past the timeout.
	SlowPage bool `json:"slowPage,omitempty"`
	// FailPage makes one later page (2..n, seed-picked) answer with each status of Status in turn.
	FailPage bool `json:"failPage,omitempty"`
}

// BackendKind is how the Orders API behaves for a fixture's ids (fixtures/<part>.json
// "backend.kind").
type BackendKind string

// Backend kinds.
const (
	BackendNone   BackendKind = "none"   // no request may reach the API
	BackendOK     BackendKind = "ok"     // 200 with an order
	BackendStatus BackendKind = "status" // an error status with its JSON body
	BackendSlow   BackendKind = "slow"   // holds the request past the timeout
	BackendDrop   BackendKind = "drop"   // closes the connection without answering
	BackendPages  BackendKind = "pages"  // a customer's orders over several pages
	BackendEmpty  BackendKind = "empty"  // a customer with no orders
	// BackendRefused: nothing listens at ORDERS_API_URL, so the connection is refused. The
	// grader runs such a fixture on a server instance started with a closed port's URL.
	BackendRefused BackendKind = "refused"
)

// backendKinds are every BackendKind, for validation.
var backendKinds = []BackendKind{BackendNone, BackendOK, BackendStatus, BackendSlow, BackendDrop, BackendPages, BackendEmpty, BackendRefused}

// RetryAfterForm is the form of the Retry-After header the Orders API sends with a 429
// (RFC 9110 §10.2.3 allows delay-seconds or an HTTP-date).
type RetryAfterForm string

// Retry-After forms.
const (
	// RetryAfterSeconds sends delay-seconds: "Retry-After: 17".
	RetryAfterSeconds RetryAfterForm = "seconds"
	// RetryAfterHTTPDate sends an IMF-fixdate in the future: "Retry-After: Wed, 02 Dec 2026 10:00:17 GMT".
	RetryAfterHTTPDate RetryAfterForm = "http-date"
	// RetryAfterHTTPDatePast sends an HTTP-date already passed, which means no wait (0).
	RetryAfterHTTPDatePast RetryAfterForm = "http-date-past"
	// RetryAfterNone sends no Retry-After header.
	RetryAfterNone RetryAfterForm = "none"
)

// retryAfterForms are every RetryAfterForm ("" means none too), for validation.
var retryAfterForms = []RetryAfterForm{"", RetryAfterSeconds, RetryAfterHTTPDate, RetryAfterHTTPDatePast, RetryAfterNone}

// SuccessKind is the success payload a fixture expects (fixtures/<part>.json "expect.success").
type SuccessKind string

// Success kinds, each naming the payload key that carries the result.
const (
	SuccessOrder  SuccessKind = "order"  // {"order": {...}}: the order the API returned
	SuccessOrders SuccessKind = "orders" // {"orders": [...]}: every order of every page, in order
	SuccessEmpty  SuccessKind = "empty"  // {"orders": []}: the customer has none
	SuccessRefund SuccessKind = "refund" // {"refund": {...}}: the refund the API created
)

// successKinds are every SuccessKind, for validation.
var successKinds = []SuccessKind{SuccessOrder, SuccessOrders, SuccessEmpty, SuccessRefund}

// PayloadKey is the success payload's key for the kind: "orders" for SuccessEmpty, else the
// kind's own name.
func (k SuccessKind) PayloadKey() string {
	if k == SuccessEmpty {
		return string(SuccessOrders)
	}
	return string(k)
}

// RetryAfterExpect says what retryAfterSeconds must carry (fixtures/<part>.json
// "expect.retryAfter").
type RetryAfterExpect string

// RetryAfterFromHeader means retryAfterSeconds carries the Retry-After the API sent, in whole
// seconds (within 2 s for an HTTP-date). The empty value means null or absent.
const RetryAfterFromHeader RetryAfterExpect = "header"

// Expect is what the fixture's call must return.
type Expect struct {
	// Success is the success payload expected (a SuccessKind); empty for an error.
	Success SuccessKind `json:"success,omitempty"`
	// Category is the errorCategory of the typed error payload expected.
	Category string `json:"category,omitempty"`
	// RetryAfter RetryAfterFromHeader means retryAfterSeconds must carry the Retry-After sent
	// (within 2 s for an HTTP-date); empty means it must be null or absent.
	RetryAfter RetryAfterExpect `json:"retryAfter,omitempty"`
	// Field is the argument a validation error must name (katas whose contract has `field`).
	Field string `json:"field,omitempty"`
	// ProtocolError, when non-zero, is the JSON-RPC error code expected instead of a result.
	ProtocolError int `json:"protocolError,omitempty"`
	// Violations, "from-violate" (ViolationsFromViolate), expects the contract's violations
	// field to list exactly the arguments the fixture broke (docs/grading.md#violations).
	Violations string `json:"violations,omitempty"`
}

// ParseFixtures decodes fixtures/<part>.json and checks each fixture against the manifest: a
// known tool, a known backend kind, an expectation, and a category the contract defines. Every
// problem is reported (the error, when not nil, is Problems).
func ParseFixtures(file string, src []byte, m *Manifest) (*FixtureSet, error) {
	return collect(func(ps *Problems) *FixtureSet { return parseFixtures(file, src, m, ps) })
}

// parseFixtures decodes and checks a fixture set, recording every problem in ps; nil when the
// JSON cannot be decoded.
func parseFixtures(file string, src []byte, m *Manifest, ps *Problems) *FixtureSet {
	var fs FixtureSet
	if err := decodeStrict(file, src, &fs); err != nil {
		ps.addErr(file, err)
		return nil
	}
	seen := map[string]bool{}
	for i, f := range fs.Fixtures {
		bad := checkEntry(ps, file, src, "fixture", i, f.ID, f.Name, f.Task, seen)
		if f.Expect.ProtocolError == 0 && !slices.Contains(m.Tools, f.Tool) {
			bad("tool %q is not in the manifest's tools %v", f.Tool, m.Tools)
		}
		if !slices.Contains(backendKinds, f.Backend.Kind) {
			bad("unknown backend kind %q", f.Backend.Kind)
		}
		if (f.Backend.Kind == BackendStatus || f.Backend.FailPage) && len(f.Backend.Status) == 0 {
			bad("backend kind status (or failPage) needs a status list")
		}
		if !slices.Contains(retryAfterForms, f.Backend.RetryAfter) {
			bad("retryAfter must be seconds, http-date, http-date-past or none")
		}
		if f.Backend.Kind == BackendPages && (len(f.Backend.Pages) != 2 || f.Backend.Pages[0] < 1 || f.Backend.Pages[1] < f.Backend.Pages[0]) {
			bad("pages must be [min, max] with 1 ≤ min ≤ max")
		}
		e := f.Expect
		set := 0
		for _, b := range []bool{e.Success != "", e.Category != "", e.ProtocolError != 0} {
			if b {
				set++
			}
		}
		if set != 1 {
			bad("expect needs exactly one of success, category, protocolError")
		}
		if e.Category != "" {
			if _, ok := m.Contract.Categories[e.Category]; !ok {
				bad("category %q is not in the contract (%s)", e.Category, strings.Join(m.Contract.CategoryNames(), ", "))
			}
		}
		if e.RetryAfter != "" && e.RetryAfter != RetryAfterFromHeader {
			bad("expect.retryAfter must be %q or absent", RetryAfterFromHeader)
		}
		if d := m.Definition(f.Tool); d != nil || f.Arguments.Valid() || f.Violate != nil || f.Set != nil || f.Repair || e.Violations != "" {
			checkDeclaredFixture(f, d, m, bad)
		} else if e.Success != "" && !slices.Contains(successKinds, e.Success) {
			bad("success must be order, orders, empty or refund")
		}
		if name, _, hasArg := m.Contract.Field(RoleArgument); hasArg && e.Category == "validation" && e.Field == "" {
			bad("the contract has an argument field (%q), so a validation expectation must name the argument (expect.field)", name)
		}
	}
	if len(fs.Fixtures) == 0 {
		ps.add(file, 1, "no fixtures")
	}
	return &fs
}

// fixtureLine finds the line of `"id": "<id>"` in src.
func fixtureLine(src []byte, id string) int {
	needle := fmt.Sprintf("%q", id)
	s := string(src)
	for i := 0; ; {
		j := strings.Index(s[i:], needle)
		if j < 0 {
			return 0
		}
		k := i + j
		before := strings.TrimRight(s[:k], " \t:")
		if strings.HasSuffix(before, `"id"`) {
			return lineOf(src, k)
		}
		i = k + len(needle)
	}
}

// checkEntry checks what every fixture and scenario has — an id unique in its file (recorded in
// seen), a name, a task step — and returns the function that reports a problem of the entry: on
// the line of its id, as `<kind> <i+1> ("<id>"): …`.
func checkEntry(ps *Problems, file string, src []byte, kind string, i int, id, name string, task int, seen map[string]bool) func(format string, args ...any) {
	line := fixtureLine(src, id)
	where := fmt.Sprintf("%s %d (%q)", kind, i+1, id)
	bad := func(format string, args ...any) { ps.add(file, line, "%s: %s", where, fmt.Sprintf(format, args...)) }
	if id == "" || seen[id] {
		bad("id is empty or used twice")
	}
	seen[id] = true
	if strings.TrimSpace(name) == "" {
		bad("name is empty")
	}
	if task < 1 {
		bad("task must name a task step (1, 2, …)")
	}
	return bad
}
