package grader

import (
	"fmt"
	"math"
	"slices"
	"strings"

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
		c := "null"
		if e.Category != nil {
			c = fmt.Sprintf("%q", *e.Category)
		}
		return fmt.Sprintf("outcome %s (category %s)", e.Action, c)
	}
	return e.Type
}

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
		if pl["isError"] != true {
			return outcome(RuleClientSuccess, ActionSuccess, nil, k+1)
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
func ruleText(e traceEvent, p katas.Policy) string {
	r := rule(e.rule)
	s := fmt.Sprintf("rule %s: %s", strings.TrimPrefix(string(r.ID), "client-"), r.Statement)
	if r.ID == RuleClientBounded {
		s += fmt.Sprintf(" (maxRetries is %d)", *p.MaxRetries)
	}
	return s
}
