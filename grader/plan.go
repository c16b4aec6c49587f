package grader

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/kata-mcp/kata/katas"
)

// PlanItem is one call or play a grade makes: a case of a server fixture or of a client
// scenario, or a config rule. It names what is covered, never a drawn value, so a grade's plan
// is the same under every seed (docs/grading.md#seed).
type PlanItem struct {
	// Part is "config", "server" or "client".
	Part string `json:"part"`
	// ID is the test's id (the fixture's, the scenario's or the rule's).
	ID string `json:"id"`
	// Variant names the case among the test's cases ("HTTP 503", "order_id: lower case",
	// `errorCategory "Transient"`); "" for a test that makes one call.
	Variant string `json:"variant,omitempty"`
	// Covers says what the case exercises: for a server case, the tool, the arguments' kinds
	// and the Orders API's behaviour (status, Retry-After form, a slow or failing later page);
	// for a client case, the policy and how many payload steps it plays.
	Covers string `json:"covers"`
}

// String is the item on one line: "server lookup-unavailable [HTTP 503] lookup_order …".
func (it PlanItem) String() string {
	v := ""
	if it.Variant != "" {
		v = " [" + it.Variant + "]"
	}
	return fmt.Sprintf("%s %s%s %s", it.Part, it.ID, v, it.Covers)
}

// Plan lists every case a grade of p under seed runs, in run order, without running anything:
// the config rules, each server fixture's cases and each client scenario's cases, drawn exactly
// as a grade draws them (drawCases, drawScenarios). The seed varies values, never coverage, so
// the plan is the same under every seed; TestPlanIsTheSameUnderEverySeed holds the grader to it.
func Plan(p *katas.Packet, seed int64) []PlanItem {
	var out []PlanItem
	if set := p.ConfigRules; set != nil {
		for _, f := range set.Rules {
			out = append(out, PlanItem{Part: "config", ID: f.ID, Covers: "check " + f.Check})
		}
	}
	if set := p.Fixtures["server"]; set != nil {
		out = append(out, PlanItem{Part: "server", ID: string(RuleToolsList), Covers: "tools/list"})
		d := newDrawer(seed)
		d.defs = p.ToolDefinitions
		for _, f := range set.Fixtures {
			for _, dr := range d.drawCases(f) {
				out = append(out, PlanItem{Part: "server", ID: f.ID, Variant: dr.variant, Covers: describeCase(f, dr)})
			}
		}
		out = append(out, PlanItem{Part: "server", ID: string(RuleStdoutProtocol), Covers: "stdout"})
	}
	if p.Scenarios != nil {
		for _, d := range drawScenarios(p.Scenarios, p.Contract, seed) {
			for _, cs := range d.cases {
				steps := 0
				for i, pl := range cs.payloads {
					if i == 0 || !sameJSON(pl, cs.payloads[i-1]) {
						steps++
					}
				}
				out = append(out, PlanItem{Part: "client", ID: d.ID, Variant: cs.variant, Covers: fmt.Sprintf("%s %s, policy maxRetries %d base %s multiplier %s categories %v escalate %v, %d kinds of payload",
					d.Tool, jsonText(d.Scenario.Arguments), *d.policy.MaxRetries, fmtSeconds(*d.policy.BaseDelaySeconds), fmtSeconds(*d.policy.Multiplier), d.policy.Categories, d.policy.Escalate, steps)})
			}
		}
	}
	return out
}

// describeCase says what one server case covers: the tool, each argument's kind (a drawn id,
// an amount, a literal) and the behaviour the Orders API plays, without any drawn value.
func describeCase(f katas.Fixture, dr drawn) string {
	var args []string
	keys := slices.Sorted(maps.Keys(f.Arguments))
	if dr.def != nil {
		// a declared tool's arguments are drawn whole: say which are broken, and how
		args = append([]string{katas.ValidArguments}, f.Violate...)
		for _, k := range slices.Sorted(maps.Keys(f.Set)) {
			args = append(args, k+"="+jsonText(f.Set[k]))
		}
		keys = nil
	}
	for _, k := range keys {
		kind := "literal"
		if s, ok := f.Arguments[k].(string); ok && strings.Contains(s, "{") {
			kind = s
		}
		if _, present := dr.args[k]; !present {
			kind = "absent"
		}
		args = append(args, k+"="+kind)
	}
	b := "no request"
	if beh := dr.beh; beh != nil {
		b = string(beh.kind)
		if beh.status != 0 {
			b += fmt.Sprintf(" status %d", beh.status)
		}
		if beh.status == 429 || (beh.status == 503 && beh.delay != 0) {
			form := beh.retryAfter
			if form == "" {
				form = katas.RetryAfterSeconds
			}
			b += " Retry-After " + string(form)
		}
		if beh.slowPage > 0 {
			b += " slow later page"
		}
		if beh.failPage > 0 {
			b += " failing later page"
		}
	} else if f.Backend.Kind == katas.BackendRefused {
		b = "refused"
	}
	return fmt.Sprintf("%s(%s) %s", f.Tool, strings.Join(args, ", "), b)
}
