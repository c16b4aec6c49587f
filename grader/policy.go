package grader

import (
	"fmt"
	"math"
	"strings"

	"github.com/kata-mcp/kata/katas"
)

// Client outcome actions (exercise-orders.md §5).
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
}

// String is the event as the client harness protocol writes it, e.g. "sleep 17" (§5).
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
// payloads under its policy, following the seven rules of exercise-orders.md §5. payloads[k]
// answers invoke k (the last repeats).
func expectedTrace(p katas.Policy, payloads []map[string]any) []traceEvent {
	var t []traceEvent
	str := func(s string) *string { return &s }
	retries := 0
	for k := 0; ; k++ {
		t = append(t, traceEvent{Type: "invoke"})
		pl := payloads[min(k, len(payloads)-1)]
		// Rule 1: anything but JSON true is a success.
		if pl["isError"] != true {
			return append(t, traceEvent{Type: "outcome", Action: ActionSuccess, Invoke: k + 1})
		}
		cat, isStr := pl["errorCategory"].(string)
		// Rule 2: escalate at once.
		if isStr && contains(p.Escalate, cat) {
			return append(t, traceEvent{Type: "outcome", Action: ActionEscalate, Category: str(cat), Invoke: k + 1})
		}
		// Rule 3: an unknown or missing category is logged and aborted.
		def, known := p.Categories[cat]
		if !isStr || !known {
			return append(t, traceEvent{Type: "log"}, traceEvent{Type: "outcome", Action: ActionAbort, Category: str("unknown"), Invoke: k + 1})
		}
		// Rule 4: retry only when the server's flag and the policy both say so.
		if pl["isRetryable"] != true || !def {
			return append(t, traceEvent{Type: "outcome", Action: ActionAbort, Category: str(cat), Invoke: k + 1})
		}
		// Rule 6: at most maxRetries retries.
		if retries >= *p.MaxRetries {
			return append(t, traceEvent{Type: "outcome", Action: ActionExhausted, Category: str(cat), Invoke: k + 1})
		}
		retries++
		// Rule 5: retryAfterSeconds when it is a number, else exponential backoff.
		if ra, ok := pl["retryAfterSeconds"].(float64); ok {
			t = append(t, traceEvent{Type: "sleep", Seconds: ra})
		} else {
			t = append(t, traceEvent{Type: "sleep", Seconds: *p.BaseDelaySeconds * math.Pow(*p.Multiplier, float64(retries-1))})
		}
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
