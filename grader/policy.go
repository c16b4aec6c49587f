package grader

// The client rules: the oracle of the decisions a correct client makes (expectedTrace), and
// the check of a client's decisions against it, naming the rule behind the first that
// differs (docs/grading.md#client-rules).

import (
	"fmt"
	"math"
	"reflect"
	"slices"
	"strconv"
	"strings"

	"github.com/kata-mcp/kata/internal/i18n"
	"github.com/kata-mcp/kata/katas"
)

// Client outcome actions (docs/grading.md#client-messages).
const (
	ActionSuccess   = "success"
	ActionEscalate  = "escalate"
	ActionAbort     = "abort"
	ActionExhausted = "exhausted"
)

// traceEvent is one decision a client makes: invoke, sleep, log (category unknown only) or
// the outcome.
type traceEvent struct {
	Type     string  // "invoke", "sleep", "log", "outcome"
	Seconds  float64 // sleep
	Action   string  // outcome
	Category *string // outcome (nil = JSON null)
	Invoke   int     // for outcome: how many invokes preceded it
	// rule is the client rule that made the decision (set by the oracle only).
	rule RuleID
}

// String is the event as the client harness protocol writes it, e.g. "sleep 17" (docs/grading.md#client-messages).
func (e traceEvent) String() string {
	switch e.Type {
	case "sleep":
		return fmt.Sprintf("sleep %s", fmtSeconds(e.Seconds))
	case "log":
		return "log unknown"
	case "outcome":
		// Action and category are the learner's words: an action the protocol does not have
		// is quoted, and both are clipped, so neither can add a line to a report or fill it.
		c := "null"
		if e.Category != nil {
			c = strconv.Quote(clipText(*e.Category, 120))
		}
		a := e.Action
		if !slices.Contains(outcomeActions, a) {
			a = strconv.Quote(clipText(a, 120))
		}
		return fmt.Sprintf("outcome %s (category %s)", a, c)
	}
	return e.Type
}

// outcomeActions are the actions an outcome message may carry (docs/grading.md#client-messages
// and #repair-client).
var outcomeActions = []string{ActionSuccess, ActionEscalate, ActionAbort, ActionExhausted}

func fmtSeconds(s float64) string {
	if s == math.Trunc(s) {
		return fmt.Sprintf("%.0f", s)
	}
	return fmt.Sprintf("%g", s)
}

func traceString(t []traceEvent) string {
	parts := make([]string, len(t))
	for i, e := range t {
		parts[i] = e.String()
	}
	return strings.Join(parts, " → ")
}

// expectedTrace is the oracle: the exact decisions a correct client makes for a scenario's
// payloads under its policy, following the seven client rules in order (rules.go,
// docs/grading.md#client-harness); each decision carries the rule that made it. payloads[k]
// answers invoke k (the last repeats).
func expectedTrace(p katas.Policy, payloads []map[string]any) []traceEvent {
	var t []traceEvent
	str := func(s string) *string { return &s }
	outcome := func(rule RuleID, action string, cat *string, invokes int) []traceEvent {
		return append(t, traceEvent{Type: "outcome", Action: action, Category: cat, Invoke: invokes, rule: rule})
	}
	retries := 0
	for k := 0; ; k++ {
		// An invoke after the first is a retry that client-4 allowed.
		t = append(t, traceEvent{Type: "invoke", rule: RuleClientRetryBoth})
		pl := payloads[min(k, len(payloads)-1)]
		switch isErr, present := pl["isError"]; {
		case !present || isErr == false:
			return outcome(RuleClientSuccess, ActionSuccess, nil, k+1)
		case isErr != true:
			// Neither a boolean nor absent: a malformed result, never read as a success.
			t = append(t, traceEvent{Type: "log", rule: RuleClientSuccess})
			return outcome(RuleClientSuccess, ActionAbort, str("unknown"), k+1)
		}
		cat, isStr := pl["errorCategory"].(string)
		if isStr && slices.Contains(p.Escalate, cat) {
			return outcome(RuleClientEscalate, ActionEscalate, str(cat), k+1)
		}
		def, known := p.Categories[cat]
		if !isStr || !known {
			t = append(t, traceEvent{Type: "log", rule: RuleClientUnknown})
			return outcome(RuleClientUnknown, ActionAbort, str("unknown"), k+1)
		}
		if pl["isRetryable"] != true || !def {
			return outcome(RuleClientRetryBoth, ActionAbort, str(cat), k+1)
		}
		if retries >= *p.MaxRetries {
			return outcome(RuleClientBounded, ActionExhausted, str(cat), k+1)
		}
		retries++
		if ra, ok := pl["retryAfterSeconds"].(float64); ok {
			t = append(t, traceEvent{Type: "sleep", Seconds: ra, rule: RuleClientSleep})
		} else {
			t = append(t, traceEvent{Type: "sleep", Seconds: *p.BaseDelaySeconds * math.Pow(*p.Multiplier, float64(retries-1)), rule: RuleClientSleep})
		}
	}
}

// ruleText names the rule behind an expected decision for a failure message: "rule 5: …".
// The rule's statement is the catalog's (grader.rule.<id>, the same as rules.go's in English).
func ruleText(e traceEvent, p katas.Policy) i18n.Msg {
	r := rule(e.rule)
	n := strings.TrimPrefix(strings.TrimPrefix(string(r.ID), "client-"), "repair-")
	switch r.ID {
	case RuleClientBounded:
		return i18n.M("harness.policy.rule_bounded", "N", n, "Statement", i18n.M(ruleMessageID(r.ID)), "MaxRetries", *p.MaxRetries)
	case RuleRepairValidation, RuleRepairTransient:
		return i18n.M("harness.repair.rule_budgets", "N", n, "Statement", i18n.M(ruleMessageID(r.ID)), "MaxRepairs", *p.MaxRepairs, "MaxRetries", *p.MaxRetries)
	}
	return i18n.M("harness.policy.rule", "N", n, "Statement", i18n.M(ruleMessageID(r.ID)))
}

// describeLast is what the client last did, for a message: its decisions so far, or that the
// scenario was sent.
func describeLast(t []traceEvent) i18n.Msg {
	if len(t) == 0 {
		return i18n.M("harness.client.scenario_sent")
	}
	return i18n.Raw(traceString(t))
}

// checkScenario compares the client's decisions in one case of a scenario with the oracle's.
func checkScenario(d drawnScenario, cs scenarioCase, got scenarioResult) problems {
	probs := append(problems(nil), got.problems...)
	want := scenarioOracle(d, cs)
	if len(probs) == 0 {
		if !sameTrace(got.trace, want) {
			probs.say(explainDivergence(d, cs, got.trace, want))
		} else if last := cs.payloads[min(want[len(want)-1].Invoke-1, len(cs.payloads)-1)]; !sameJSON(got.result, last) {
			probs.say(RuleClientProtocol, i18n.M("harness.client.outcome_result", "Got", jsonText(got.result), "Want", jsonText(last)))
		}
	}
	return probs
}

func sameTrace(a, b []traceEvent) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		x, y := a[i], b[i]
		if x.Type != y.Type || x.Action != y.Action || !reflect.DeepEqual(x.Category, y.Category) {
			return false
		}
		if x.Type == "sleep" && x.Seconds != y.Seconds {
			return false
		}
	}
	return true
}

// explainDivergence names the first decision that differs and the rule behind the expected
// one, and returns that rule (the last decision's when the client went on past the end).
func explainDivergence(d drawnScenario, cs scenarioCase, got, want []traceEvent) (RuleID, i18n.Msg) {
	i := 0
	for i < len(got) && i < len(want) && sameTrace(got[i:i+1], want[i:i+1]) {
		i++
	}
	invokes := 0
	for _, e := range want[:min(i+1, len(want))] {
		if e.Type == "invoke" {
			invokes++
		}
	}
	pl := cs.payloads[min(max(invokes-1, 0), len(cs.payloads)-1)]
	quote := func(e traceEvent) string { return strconv.Quote(e.String()) }
	var first i18n.Msg
	switch {
	case i < len(want) && i < len(got):
		first = i18n.M("harness.policy.decision", "N", i+1, "Got", quote(got[i]), "Want", quote(want[i]))
	case i < len(want):
		first = i18n.MN("harness.policy.stopped_after", len(got), "Want", quote(want[i]))
	default:
		first = i18n.M("harness.policy.went_on", "N", i+1, "Got", quote(got[i]))
	}
	broken := want[len(want)-1].rule
	if i < len(want) {
		broken = want[i].rule
		first = i18n.M("harness.policy.because", "Decision", first, "Rule", ruleText(want[i], d.policy))
	}
	policy := i18n.M("harness.policy.policy", "MaxRetries", *d.policy.MaxRetries, "BaseDelaySeconds", fmtSeconds(*d.policy.BaseDelaySeconds),
		"Multiplier", fmtSeconds(*d.policy.Multiplier), "Escalate", fmt.Sprint(d.policy.Escalate))
	if d.repair() {
		policy = i18n.M("harness.repair.policy", "MaxRepairs", *d.policy.MaxRepairs, "MaxRetries", *d.policy.MaxRetries,
			"BaseDelaySeconds", fmtSeconds(*d.policy.BaseDelaySeconds), "Multiplier", fmtSeconds(*d.policy.Multiplier))
	}
	return broken, i18n.Lines(first,
		i18n.M("harness.policy.payload", "Payload", jsonText(pl)),
		policy,
		i18n.M("harness.policy.expected", "Trace", traceString(want)),
		i18n.M("harness.policy.got", "Trace", traceString(got)))
}
