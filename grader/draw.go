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
