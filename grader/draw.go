package grader

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"

	"github.com/kata-mcp/kata/katas"
)

// drawn is one fixture's random values, drawn from the run's seed (exercise-orders.md §2:
// the seed varies values, never coverage).
type drawn struct {
	args       map[string]any
	orderID    string
	customerID string
	// id is the id the fixture's backend behaviour is registered under ("" for none).
	id  string
	beh *behaviour
}

// malformed ids: strings in the wrong format, never values of the wrong JSON type (§2).
var (
	malformedOrderIDs    = []string{"12345", "ord-12", "", "ORD-12", "ORD 8821", "C-1042", "ORD-88x1"}
	malformedCustomerIDs = []string{"1042", "c-1042", "", "CUST-7", "ORD-8821", "C-", "C 1042"}
	orderStatuses        = []string{"pending", "shipped", "delivered", "cancelled"}
)

// drawer hands out values from the seed, never the same id twice in a run.
type drawer struct {
	rng  *rand.Rand
	used map[string]bool
}

func newDrawer(seed int64) *drawer {
	return &drawer{rng: rand.New(rand.NewPCG(uint64(seed), 0x6b617461)), used: map[string]bool{}}
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

// draw fills a fixture's placeholders and builds its backend behaviour.
func (d *drawer) draw(f katas.Fixture) drawn {
	dr := drawn{orderID: d.orderID(), customerID: d.customerID()}
	subst := map[string]string{
		"{order_id}":              dr.orderID,
		"{customer_id}":           dr.customerID,
		"{malformed_order_id}":    malformedOrderIDs[d.rng.IntN(len(malformedOrderIDs))],
		"{malformed_customer_id}": malformedCustomerIDs[d.rng.IntN(len(malformedCustomerIDs))],
	}
	numbers := map[string]float64{
		"{amount}":             math.Round((1+d.rng.Float64()*499)*100) / 100,
		"{amount_over_limit}":  float64(d.between(501, 5000)),
		"{amount_nonpositive}": []float64{0, -1, -25.5}[d.rng.IntN(3)],
	}
	dr.args = map[string]any{}
	for _, k := range sortedKeys(f.Arguments) {
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
	beh := &behaviour{kind: b.Kind, retryAfter: b.RetryAfter}
	if len(b.Status) > 0 {
		beh.status = b.Status[d.rng.IntN(len(b.Status))]
	}
	if beh.status == 429 {
		beh.delay = d.between(2, 120)
		if b.RetryAfter == "http-date" {
			beh.delay = d.between(20, 300)
		}
	}
	switch b.Kind {
	case katas.BackendOK:
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
	if b.Kind != katas.BackendNone {
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
