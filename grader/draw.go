package grader

import (
	"encoding/json"
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
	// label names the case among a fixture's calls ("HTTP 503", a malformed id with its drawn
	// value); "" when the fixture makes one call.
	label string
	// variant names the case without its drawn values ("HTTP 503", "order_id: lower case"):
	// the same under every seed (Plan).
	variant string
	// spec is the case's part of the fixture's coverage.
	spec caseSpec
	// spare is the same case with fresh ids, for one re-run when a failure looks like the
	// machine's load (see suspectLoad); nil when none was drawn.
	spare *drawn
	// For a declared tool (declared.go): def is its declaration, trueArgs the valid argument
	// object args was broken from, secrets the secret-like values args holds, and repairBeh
	// what the Orders API does for the scripted model's calls (nil without "repair").
	def       *katas.ToolDefinition
	trueArgs  map[string]any
	secrets   []string
	repairBeh *behaviour
}

// Malformed ids: strings in the wrong format, never values of the wrong JSON type (docs/grading.md#malformed-arguments). Every
// form is tried in every run, one call each, with digits drawn from the seed; each form catches
// a different shortcut in a format check (a prefix test, a case-insensitive match, a search
// instead of a whole-string match, no check of the empty string).
// malformedForm is one malformed form of an id: its name, the same in every run (it is what
// the grade's plan lists), and how its digits are drawn.
type malformedForm struct {
	name string
	draw func(d *drawer) string
}

var (
	malformedOrderForms = []malformedForm{
		{"digits only", func(d *drawer) string { return fmt.Sprint(10000 + d.rng.IntN(90000)) }},
		{"lower case", func(d *drawer) string { return fmt.Sprintf("ord-%d", 1000+d.rng.IntN(9000)) }},
		{"empty", func(d *drawer) string { return "" }},
		{"too few digits", func(d *drawer) string { return fmt.Sprintf("ORD-%d", 1+d.rng.IntN(999)) }},
		{"no dash", func(d *drawer) string { return fmt.Sprintf("ORD %d", 1000+d.rng.IntN(9000)) }},
		{"the other kind of id", func(d *drawer) string { return fmt.Sprintf("C-%d", 1000+d.rng.IntN(9000)) }},
		{"trailing junk", func(d *drawer) string { return fmt.Sprintf("ORD-%dx7", 1000+d.rng.IntN(9000)) }},
		{"non-ASCII digits", func(d *drawer) string { return "ORD-" + d.foreignDigits(4) }},
	}
	malformedCustomerForms = []malformedForm{
		{"digits only", func(d *drawer) string { return fmt.Sprint(1 + d.rng.IntN(99999)) }},
		{"lower case", func(d *drawer) string { return fmt.Sprintf("c-%d", 1+d.rng.IntN(99999)) }},
		{"empty", func(d *drawer) string { return "" }},
		{"no digits", func(d *drawer) string { return "C-" }},
		{"no dash", func(d *drawer) string { return fmt.Sprintf("C %d", 1+d.rng.IntN(99999)) }},
		{"the other kind of id", func(d *drawer) string { return fmt.Sprintf("ORD-%d", 1000+d.rng.IntN(9000)) }},
		{"trailing junk", func(d *drawer) string { return fmt.Sprintf("C-%dab", 1+d.rng.IntN(99999)) }},
		{"non-ASCII digits", func(d *drawer) string { return "C-" + d.foreignDigits(3) }},
	}
	// digitZeros are the zeros of decimal digit scripts other than ASCII (Arabic-Indic,
	// Devanagari, fullwidth): digits a Unicode-aware \d accepts and the id formats do not.
	digitZeros = []rune{'\u0660', '\u0966', '\uFF10'}
	// nonpositiveAmounts are the amounts ≤ 0 a refund fixture's "{amount_nonpositive}" tries,
	// every one in every run: zero catches a check written as amount < 0.
	nonpositiveAmounts = []float64{0, -1, -25.5}
	orderStatuses      = []string{"pending", "shipped", "delivered", "cancelled"}
)

// drawer hands out values from the seed, never the same id twice in a run.
type drawer struct {
	rng  *rand.Rand
	used map[string]bool
	// defs are the packet's declared tools, by name (nil: none).
	defs map[string]*katas.ToolDefinition
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

// foreignDigits draws n digits of one non-ASCII decimal script, the script drawn too (the
// scripts are equivalent for a format check: each fails [0-9] and passes a Unicode \d).
func (d *drawer) foreignDigits(n int) string {
	zero := digitZeros[d.rng.IntN(len(digitZeros))]
	var b strings.Builder
	for range n {
		b.WriteRune(zero + rune(d.rng.IntN(10)))
	}
	return b.String()
}

// caseSpec is what sets one call of a fixture apart from its other calls: the part of a case
// that every run covers, whatever the seed (docs/grading.md#seed).
type caseSpec struct {
	// status, when non-zero, is the HTTP status to answer with (one of a status list).
	status int
	// form, when non-nil, is the malformed form that replaces a malformed placeholder.
	form *malformedForm
	// amount, when set, is the amount that replaces "{amount_nonpositive}".
	amount *float64
	// declared, for a declared tool's fixture, is the forms its arguments are broken by.
	declared *declaredSpec
}

// drawCases draws every call a fixture makes in this run: one per status of its status list,
// one per malformed form when its arguments hold a malformed placeholder, one per amount ≤ 0
// when they hold "{amount_nonpositive}", else one. Which cases a fixture has never depends on
// the seed; each case has its own ids, so the Orders API tells the calls apart
// (docs/grading.md#seed: the seed varies values, never coverage).
func (d *drawer) drawCases(f katas.Fixture) []drawn {
	var out []drawn
	cases := fixtureCases(f)
	if def := d.defs[f.Tool]; def != nil {
		cases = declaredCases(f, def)
	}
	for _, c := range cases {
		out = append(out, d.draw(f, c))
	}
	return out
}

// fixtureCases lists a fixture's calls, in the order they run: the same list under every seed.
func fixtureCases(f katas.Fixture) []caseSpec {
	var forms []malformedForm
	nonpositive := false
	for _, k := range slices.Sorted(maps.Keys(f.Arguments)) {
		switch f.Arguments[k] {
		case "{malformed_order_id}":
			forms = malformedOrderForms
		case "{malformed_customer_id}":
			forms = malformedCustomerForms
		case "{amount_nonpositive}":
			nonpositive = true
		}
	}
	var out []caseSpec
	switch {
	case len(f.Backend.Status) > 1:
		for _, st := range f.Backend.Status {
			out = append(out, caseSpec{status: st})
		}
	case forms != nil:
		for i := range forms {
			out = append(out, caseSpec{form: &forms[i]})
		}
	case nonpositive:
		for i := range nonpositiveAmounts {
			out = append(out, caseSpec{amount: &nonpositiveAmounts[i]})
		}
	default:
		out = append(out, caseSpec{})
	}
	return out
}

// malformedArg is the name of the argument a fixture fills with a malformed id, or "".
func malformedArg(f katas.Fixture) string {
	for _, k := range slices.Sorted(maps.Keys(f.Arguments)) {
		if v := f.Arguments[k]; v == "{malformed_order_id}" || v == "{malformed_customer_id}" {
			return k
		}
	}
	return ""
}

// draw fills a fixture's placeholders and builds its backend behaviour for one case.
func (d *drawer) draw(f katas.Fixture, c caseSpec) drawn {
	if c.declared != nil {
		return d.drawDeclared(f, c)
	}
	dr := drawn{orderID: d.orderID(), customerID: d.customerID(), spec: c}
	malformed := ""
	if c.form != nil {
		malformed = c.form.draw(d)
	}
	subst := map[string]string{
		"{order_id}":              dr.orderID,
		"{customer_id}":           dr.customerID,
		"{malformed_order_id}":    malformed,
		"{malformed_customer_id}": malformed,
	}
	numbers := map[string]float64{
		"{amount}":            math.Round((1+d.rng.Float64()*499)*100) / 100,
		"{amount_over_limit}": float64(d.between(501, 5000)),
	}
	if c.amount != nil {
		numbers["{amount_nonpositive}"] = *c.amount
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
	switch {
	case c.status != 0:
		dr.label = fmt.Sprintf("HTTP %d", c.status)
		dr.variant = dr.label
	case c.form != nil:
		arg := malformedArg(f)
		dr.label = fmt.Sprintf("%s %q", arg, malformed)
		dr.variant = fmt.Sprintf("%s: %s", arg, c.form.name)
	case c.amount != nil:
		dr.label = fmt.Sprintf("amount %s", fmtSeconds(*c.amount))
		dr.variant = dr.label
	}
	status := c.status
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
	unknownCategories = []string{"quota_exceeded", "internal", "Transient", "RATE_LIMIT", "", unknownMissing, unknownNull}
)

// variantPlaceholders are the placeholders of a scenario's payloads whose values are not
// equivalent for a client: every value of each is played in every run, one case each
// (docs/grading.md#seed). The prose is among them: a client that reads it reacts to one
// wording and not to another. The others ({order}, {retry_after}) are values the seed draws.
var variantPlaceholders = []string{"{escalated_category}", "{final_category}", "{retryable_category}", "{unknown_category}", "{malformed_is_error}", "{prose:retry}", "{prose:stop}"}

// malformedIsErrors are the values "{malformed_is_error}" takes, as JSON text: an isError that
// is neither a boolean nor absent, which a client reads as a malformed result
// (docs/grading.md#client-rule-1).
var malformedIsErrors = []string{`"true"`, `"false"`, `1`, `0`, `null`}

// unknownMissing and unknownNull are the entries of unknownCategories that leave the key out
// and that set it to JSON null.
const (
	unknownMissing = "<missing>"
	unknownNull    = "<null>"
)

// drawnScenario is a scenario with every case it plays fixed for this run.
type drawnScenario struct {
	katas.Scenario
	request map[string]any
	policy  katas.Policy
	// cases are the scenario's plays, one per combination of its variant placeholders' values,
	// in the same order under every seed; a scenario without one has a single case.
	cases []scenarioCase
}

// scenarioCase is one play of a scenario: its payload sequence, and its variant in words
// ("errorCategory \"Transient\""; "" for a scenario without a variant placeholder).
type scenarioCase struct {
	variant  string
	payloads []map[string]any
}

// variantValues lists the values a variant placeholder takes under a policy, in a fixed order;
// a category placeholder with no category to take stands for "unknown".
func variantValues(ph string, p katas.Policy) []string {
	var retryable, final []string
	for _, c := range slices.Sorted(maps.Keys(p.Categories)) {
		switch {
		case slices.Contains(p.Escalate, c):
		case p.MaxRepairs != nil && c == katas.RepairCategory: // the repair loop's own, neither final nor retried
		case p.Categories[c]:
			retryable = append(retryable, c)
		default:
			final = append(final, c)
		}
	}
	var list []string
	switch ph {
	case "{retryable_category}":
		list = retryable
	case "{final_category}":
		list = final
	case "{escalated_category}":
		list = slices.Sorted(slices.Values(p.Escalate))
	case "{unknown_category}":
		list = unknownCategories
	case "{malformed_is_error}":
		list = malformedIsErrors
	case "{prose:retry}":
		list = proseRetry
	case "{prose:stop}":
		list = proseStop
	}
	if len(list) == 0 {
		return []string{"unknown"}
	}
	return list
}

// scenarioVariants lists the assignments of values to the variant placeholders a scenario's
// payloads use: their cross product, in a fixed order; one empty assignment when it uses none.
func scenarioVariants(s katas.Scenario, p katas.Policy) []map[string]string {
	used := map[string]bool{}
	for _, step := range s.Results {
		for _, v := range step.Payload {
			if str, ok := v.(string); ok && slices.Contains(variantPlaceholders, str) {
				used[str] = true
			}
		}
	}
	out := []map[string]string{{}}
	for _, ph := range variantPlaceholders {
		if !used[ph] {
			continue
		}
		var next []map[string]string
		for _, a := range out {
			for _, v := range variantValues(ph, p) {
				b := maps.Clone(a)
				b[ph] = v
				next = append(next, b)
			}
		}
		out = next
	}
	return out
}

// drawScenarios fixes every scenario's cases from the seed: one case per combination of its
// variant placeholders' values, each with its values (repeat counts, retryAfterSeconds, order
// ids) drawn. Scenarios of one metamorphic pair draw from the same stream and have the same
// variants but for the prose, so case k of each differs only in its prose.
func drawScenarios(set *katas.ScenarioSet, contract katas.Contract, seed int64) []drawnScenario {
	var out []drawnScenario
	for i, s := range set.Scenarios {
		stream := uint64(i) + 1
		if s.Pair != "" {
			stream = hashString(s.Pair)
		}
		rng := rand.New(rand.NewPCG(uint64(seed), stream))
		d := drawnScenario{Scenario: s, policy: s.Policy.Merge(set.Policy)}
		if d.policy.Categories == nil {
			d.policy.Categories = contract.Categories
		}
		d.request = map[string]any{"tool": s.Tool, "arguments": s.Arguments}
		variants := scenarioVariants(s, d.policy)
		for _, v := range variants {
			var c scenarioCase
			var parts []string
			for _, step := range s.Results {
				n := 1
				if len(step.Repeat) == 2 {
					n = step.Repeat[0] + rng.IntN(step.Repeat[1]-step.Repeat[0]+1)
				}
				pl := fillPayload(step.Payload, v, rng)
				parts = variantParts(parts, step.Payload, pl)
				for j := 0; j < n; j++ {
					c.payloads = append(c.payloads, pl)
				}
			}
			c.variant = strings.Join(parts, ", ")
			d.cases = append(d.cases, c)
		}
		out = append(out, d)
	}
	return out
}

// variantParts names what a filled payload holds where its step has a variant placeholder
// ("errorCategory \"Transient\"", "errorCategory missing"), read from the payload itself, so
// the plan shows what a run really plays; it adds each part to parts once.
func variantParts(parts []string, tmpl, pl map[string]any) []string {
	for _, key := range slices.Sorted(maps.Keys(tmpl)) {
		if str, ok := tmpl[key].(string); !ok || !slices.Contains(variantPlaceholders, str) {
			continue
		}
		part := key + " missing"
		if v, present := pl[key]; present {
			part = key + " " + jsonText(v)
		}
		if !slices.Contains(parts, part) {
			parts = append(parts, part)
		}
	}
	return parts
}

// fillPayload replaces a payload's placeholders (katas.ResultStep): a variant placeholder with
// the case's value, the others with values drawn from the seed.
func fillPayload(tmpl map[string]any, variant map[string]string, rng *rand.Rand) map[string]any {
	out := map[string]any{}
	for _, k := range slices.Sorted(maps.Keys(tmpl)) {
		v := tmpl[k]
		s, ok := v.(string)
		if !ok {
			out[k] = v
			continue
		}
		if val, ok := variant[s]; ok {
			if s == "{malformed_is_error}" {
				var v any
				json.Unmarshal([]byte(val), &v) // malformedIsErrors are valid JSON
				out[k] = v
				continue
			}
			switch val {
			case unknownMissing:
			case unknownNull:
				out[k] = nil
			default:
				out[k] = val
			}
			continue
		}
		switch s {
		case "{order}":
			out[k] = map[string]any{"order_id": fmt.Sprintf("ORD-%d", 1000+rng.IntN(9000)), "customer_id": "C-1042", "status": "shipped", "total": 129.5}
		case "{retry_after}":
			out[k] = float64(1 + rng.IntN(120))
		default:
			out[k] = s
		}
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
