package grader

import (
	"fmt"
	"maps"
	"math"
	"math/rand/v2"
	"slices"
	"strings"

	"github.com/kata-mcp/kata/katas"
)

// drawn is one fixture's random values, drawn from the run's seed (docs/grading.md#seed:
// the seed varies values, never coverage).
type drawn struct {
	args       map[string]any
	orderID    string
	customerID string
	// id is the id the fixture's backend behaviour is registered under ("" for none).
	id  string
	beh *behaviour
	// label names the case among a fixture's calls ("HTTP 503", a malformed id); "" when
	// the fixture makes one call.
	label string
	// spare is the same case with fresh ids, for one re-run when a failure looks like the
	// machine's load (see suspectLoad); nil when none was drawn.
	spare *drawn
}

// Malformed ids: strings in the wrong format, never values of the wrong JSON type (docs/grading.md#malformed-arguments). Every
// form is tried in every run, one call each, with digits drawn from the seed; each form catches
// a different shortcut in a format check (a prefix test, a case-insensitive match, a search
// instead of a whole-string match, no check of the empty string).
var (
	malformedOrderForms = []func(d *drawer) string{
		func(d *drawer) string { return fmt.Sprint(10000 + d.rng.IntN(90000)) },          // digits only
		func(d *drawer) string { return fmt.Sprintf("ord-%d", 1000+d.rng.IntN(9000)) },   // lower case
		func(d *drawer) string { return "" },                                             // empty
		func(d *drawer) string { return fmt.Sprintf("ORD-%d", 1+d.rng.IntN(999)) },       // too few digits
		func(d *drawer) string { return fmt.Sprintf("ORD %d", 1000+d.rng.IntN(9000)) },   // no dash
		func(d *drawer) string { return fmt.Sprintf("C-%d", 1000+d.rng.IntN(9000)) },     // a customer id
		func(d *drawer) string { return fmt.Sprintf("ORD-%dx7", 1000+d.rng.IntN(9000)) }, // trailing junk
	}
	malformedCustomerForms = []func(d *drawer) string{
		func(d *drawer) string { return fmt.Sprint(1 + d.rng.IntN(99999)) },            // digits only
		func(d *drawer) string { return fmt.Sprintf("c-%d", 1+d.rng.IntN(99999)) },     // lower case
		func(d *drawer) string { return "" },                                           // empty
		func(d *drawer) string { return "C-" },                                         // no digits
		func(d *drawer) string { return fmt.Sprintf("C %d", 1+d.rng.IntN(99999)) },     // no dash
		func(d *drawer) string { return fmt.Sprintf("ORD-%d", 1000+d.rng.IntN(9000)) }, // an order id
		func(d *drawer) string { return fmt.Sprintf("C-%dab", 1+d.rng.IntN(99999)) },   // trailing junk
	}
	orderStatuses = []string{"pending", "shipped", "delivered", "cancelled"}
)

// drawer hands out values from the seed, never the same id twice in a run.
type drawer struct {
	rng  *rand.Rand
	used map[string]bool
}

func newDrawer(seed int64) *drawer {
	return &drawer{rng: rand.New(rand.NewPCG(uint64(seed), 0x6b617461)), used: map[string]bool{}}
}

// spareDrawer returns a drawer on another stream of the same seed that shares d's used ids, so
// spare cases never reuse an id of the run.
func (d *drawer) spareDrawer(seed int64) *drawer {
	return &drawer{rng: rand.New(rand.NewPCG(uint64(seed), 0x7370617265)), used: d.used}
}

func (d *drawer) unique(f func() string) string {
	for {
		s := f()
		if !d.used[s] {
			d.used[s] = true
			return s
		}
	}
}

func (d *drawer) orderID() string {
	return d.unique(func() string { return fmt.Sprintf("ORD-%d", 1000+d.rng.IntN(990000)) })
}

func (d *drawer) customerID() string {
	return d.unique(func() string { return fmt.Sprintf("C-%d", 1+d.rng.IntN(99999)) })
}

func (d *drawer) order(customerID string) map[string]any {
	total := math.Round((5+d.rng.Float64()*995)*100) / 100
	return map[string]any{
		"order_id":    d.orderID(),
		"customer_id": customerID,
		"status":      orderStatuses[d.rng.IntN(len(orderStatuses))],
		"total":       total,
	}
}

func (d *drawer) between(lo, hi int) int { return lo + d.rng.IntN(hi-lo+1) }

// drawCases draws every call a fixture makes in this run: one per status of its status list,
// or one per malformed form when its arguments hold a malformed placeholder, else one. Each
// case has its own ids, so the Orders API tells the calls apart (docs/grading.md#seed: the
// seed varies values, never coverage).
func (d *drawer) drawCases(f katas.Fixture) []drawn {
	var forms []func(*drawer) string
	arg := ""
	for k, v := range f.Arguments {
		switch v {
		case "{malformed_order_id}":
			forms, arg = malformedOrderForms, k
		case "{malformed_customer_id}":
			forms, arg = malformedCustomerForms, k
		}
	}
	var out []drawn
	switch {
	case len(f.Backend.Status) > 1:
		for _, st := range f.Backend.Status {
			dr := d.draw(f, st, "")
			dr.label = fmt.Sprintf("HTTP %d", st)
			out = append(out, dr)
		}
	case forms != nil:
		for _, form := range forms {
			v := form(d)
			dr := d.draw(f, 0, v)
			dr.label = fmt.Sprintf("%s %q", arg, v)
			out = append(out, dr)
		}
	default:
		out = append(out, d.draw(f, 0, ""))
	}
	return out
}

// draw fills a fixture's placeholders and builds its backend behaviour for one case: status,
// when non-zero, is the HTTP status to answer with; malformed replaces a malformed placeholder.
func (d *drawer) draw(f katas.Fixture, status int, malformed string) drawn {
	dr := drawn{orderID: d.orderID(), customerID: d.customerID()}
	subst := map[string]string{
		"{order_id}":              dr.orderID,
		"{customer_id}":           dr.customerID,
		"{malformed_order_id}":    malformed,
		"{malformed_customer_id}": malformed,
	}
	numbers := map[string]float64{
		"{amount}":             math.Round((1+d.rng.Float64()*499)*100) / 100,
		"{amount_over_limit}":  float64(d.between(501, 5000)),
		"{amount_nonpositive}": []float64{0, -1, -25.5}[d.rng.IntN(3)],
	}
	dr.args = map[string]any{}
	for _, k := range slices.Sorted(maps.Keys(f.Arguments)) {
		v := f.Arguments[k]
		if s, ok := v.(string); ok {
			if n, ok := numbers[s]; ok {
				dr.args[k] = n
				continue
			}
			if r, ok := subst[s]; ok {
				v = r
			} else {
				for ph, r := range subst {
					s = strings.ReplaceAll(s, ph, r)
				}
				v = s
			}
		}
		dr.args[k] = v
	}
	b := f.Backend
	beh := &behaviour{kind: b.Kind, retryAfter: b.RetryAfter, status: status}
	if status == 0 && len(b.Status) > 0 {
		beh.status = b.Status[0]
	}
	// A 429 always has a delay drawn (sent unless RetryAfterNone); a 503 only when the
	// fixture makes it carry Retry-After too (RFC 9110 §10.2.3 allows it on a 503).
	if beh.status == 429 || (beh.status == 503 && b.RetryAfter != "" && b.RetryAfter != katas.RetryAfterNone) {
		switch b.RetryAfter {
		case katas.RetryAfterHTTPDate:
			beh.delay = d.between(20, 300)
		case katas.RetryAfterHTTPDatePast:
			beh.delay = -d.between(20, 300)
		default:
			beh.delay = d.between(2, 120)
		}
	}
	switch b.Kind {
	case katas.BackendOK, katas.BackendSlow: // a slow request is answered late, with the order
		beh.order = d.order(dr.customerID)
		beh.order["order_id"] = dr.orderID
		if f.Tool == "process_refund" {
			beh.refund = map[string]any{"refund_id": fmt.Sprintf("RF-%d", 10000+d.rng.IntN(90000)), "order_id": dr.orderID, "amount": dr.args["amount"], "status": "approved"}
		}
	case katas.BackendPages:
		n := d.between(b.Pages[0], b.Pages[1])
		for i := 0; i < n; i++ {
			var page []map[string]any
			for j := d.between(1, 3); j > 0; j-- {
				page = append(page, d.order(dr.customerID))
			}
			beh.pages = append(beh.pages, page)
		}
		if b.SlowPage || b.FailPage {
			for len(beh.pages) < 2 {
				beh.pages = append(beh.pages, []map[string]any{d.order(dr.customerID)})
			}
			if b.SlowPage {
				beh.slowPage = d.between(2, len(beh.pages))
			} else {
				beh.failPage = d.between(2, len(beh.pages))
			}
		}
	}
	if f.Tool == "process_refund" {
		beh.refundOnly = true
		if beh.order == nil {
			beh.order = d.order(dr.customerID)
			beh.order["order_id"] = dr.orderID
		}
	}
	if b.Kind != katas.BackendNone && b.Kind != katas.BackendRefused {
		dr.beh = beh
		if f.Tool == "search_orders" {
			dr.id = dr.customerID
		} else {
			dr.id = dr.orderID
		}
	}
	return dr
}

// expectedOrders returns every order of every page before the slow or failing one, in order.
func (dr drawn) expectedOrders() []map[string]any {
	var all []map[string]any
	for i, p := range dr.beh.pages {
		if dr.beh.slowPage == i+1 || dr.beh.failPage == i+1 {
			break
		}
		all = append(all, p...)
	}
	return all
}

// Scenarios of the client harness: every scenario's payload sequence and policy, drawn from
// the run's seed.

var (
	proseRetry = []string{
		"Temporary glitch: please try again right away.",
		"The service is warming up; retrying immediately will work.",
		"Transient hiccup, simply retry.",
		"Try again later, this usually clears up by itself.",
	}
	proseStop = []string{
		"Permanent failure. Do not retry this request.",
		"Fatal error: giving up is the only option.",
		"This will never succeed; stop now.",
		"Unrecoverable: escalate to a human immediately.",
	}
	unknownCategories = []string{"quota_exceeded", "internal", "Transient", "RATE_LIMIT", "", "<missing>", "<null>"}
)

// drawnScenario is a scenario with its payload sequence and policy fixed for this run.
type drawnScenario struct {
	katas.Scenario
	request  map[string]any
	policy   katas.Policy
	payloads []map[string]any
}

// drawScenarios fixes every scenario's random parts from the seed. Scenarios of one
// metamorphic pair draw from the same stream, so only their prose differs.
func drawScenarios(set *katas.ScenarioSet, contract katas.Contract, seed int64) []drawnScenario {
	var out []drawnScenario
	for i, s := range set.Scenarios {
		stream := uint64(i) + 1
		if s.Pair != "" {
			stream = hashString(s.Pair)
		}
		rng := rand.New(rand.NewPCG(uint64(seed), stream))
		prose := rand.New(rand.NewPCG(uint64(seed), uint64(i)+1000))
		d := drawnScenario{Scenario: s, policy: s.Policy.Merge(set.Policy)}
		if d.policy.Categories == nil {
			d.policy.Categories = contract.Categories
		}
		d.request = map[string]any{"tool": s.Tool, "arguments": s.Arguments}
		for _, step := range s.Results {
			n := 1
			if len(step.Repeat) == 2 {
				n = step.Repeat[0] + rng.IntN(step.Repeat[1]-step.Repeat[0]+1)
			}
			pl := fillPayload(step.Payload, d.policy, rng, prose)
			for j := 0; j < n; j++ {
				d.payloads = append(d.payloads, pl)
			}
		}
		out = append(out, d)
	}
	return out
}

func hashString(s string) uint64 {
	var h uint64 = 14695981039346656037
	for i := 0; i < len(s); i++ {
		h = (h ^ uint64(s[i])) * 1099511628211
	}
	return h
}

// fillPayload replaces a payload's placeholders (katas.ResultStep) with drawn values.
func fillPayload(tmpl map[string]any, p katas.Policy, rng, prose *rand.Rand) map[string]any {
	var retryable, final []string
	for _, c := range slices.Sorted(maps.Keys(p.Categories)) {
		switch {
		case slices.Contains(p.Escalate, c):
		case p.Categories[c]:
			retryable = append(retryable, c)
		default:
			final = append(final, c)
		}
	}
	pick := func(list []string) string {
		if len(list) == 0 {
			return "unknown"
		}
		return list[rng.IntN(len(list))]
	}
	out := map[string]any{}
	for _, k := range slices.Sorted(maps.Keys(tmpl)) {
		v := tmpl[k]
		s, ok := v.(string)
		if !ok {
			out[k] = v
			continue
		}
		switch s {
		case "{order}":
			out[k] = map[string]any{"order_id": fmt.Sprintf("ORD-%d", 1000+rng.IntN(9000)), "customer_id": "C-1042", "status": "shipped", "total": 129.5}
		case "{retry_after}":
			out[k] = float64(1 + rng.IntN(120))
		case "{retryable_category}":
			out[k] = pick(retryable)
		case "{final_category}":
			out[k] = pick(final)
		case "{escalated_category}":
			out[k] = pick(p.Escalate)
		case "{unknown_category}":
			switch u := unknownCategories[rng.IntN(len(unknownCategories))]; u {
			case "<missing>":
			case "<null>":
				out[k] = nil
			default:
				out[k] = u
			}
		case "{prose:retry}":
			out[k] = proseRetry[prose.IntN(len(proseRetry))]
		case "{prose:stop}":
			out[k] = proseStop[prose.IntN(len(proseStop))]
		default:
			out[k] = s
		}
	}
	return out
}
