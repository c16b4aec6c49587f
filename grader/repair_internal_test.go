package grader

import (
	"encoding/json"
	"testing"

	"github.com/kata-mcp/kata/katas"
)

// TestRepairOracleFollowsTheRules pins the repair loop's oracle on hand-written cases of
// docs/grading.md#repair-client.
func TestRepairOracleFollowsTheRules(t *testing.T) {
	two, one, twoF, zero := 2, 1.0, 2.0, 0
	pol := katas.Policy{MaxRetries: &two, BaseDelaySeconds: &one, Multiplier: &twoF, MaxRepairs: &two,
		Categories: map[string]bool{"validation": false, "not_found": false, "business": false, "auth": false, "transient": true}}
	noRepairs := pol
	noRepairs.MaxRepairs = &zero
	request := map[string]any{"tool": "create_return", "arguments": map[string]any{"quantity": 12.0}}
	val := map[string]any{"isError": true, "errorCategory": "validation", "isRetryable": false}
	valRetryable := map[string]any{"isError": true, "errorCategory": "validation", "isRetryable": true}
	tr := map[string]any{"isError": true, "errorCategory": "transient", "isRetryable": true}
	biz := map[string]any{"isError": true, "errorCategory": "business", "isRetryable": false}
	ok := map[string]any{"isError": false}
	fix := func(q float64) katas.ModelStep { return katas.ModelStep{Arguments: map[string]any{"quantity": q}} }
	same := katas.ModelStep{Arguments: katas.ModelSame}
	cases := []struct {
		name     string
		policy   katas.Policy
		payloads []map[string]any
		model    []katas.ModelStep
		want     string
	}{
		{"success", pol, []map[string]any{ok}, nil, `invoke → outcome success (category null)`},
		{"fixed in one", pol, []map[string]any{val, ok}, []katas.ModelStep{fix(2)}, `invoke → propose → invoke → outcome success (category null)`},
		{"fixed in two", pol, []map[string]any{val, val, ok}, []katas.ModelStep{fix(11), fix(2)}, `invoke → propose → invoke → propose → invoke → outcome success (category null)`},
		{"stuck", pol, []map[string]any{val}, []katas.ModelStep{same}, `invoke → propose → outcome abort (category "validation")`},
		{"stuck on a literal copy", pol, []map[string]any{val}, []katas.ModelStep{fix(12)}, `invoke → propose → outcome abort (category "validation")`},
		{"stuck after a change", pol, []map[string]any{val}, []katas.ModelStep{fix(3), same}, `invoke → propose → invoke → propose → outcome abort (category "validation")`},
		{"budget zero", noRepairs, []map[string]any{val}, []katas.ModelStep{fix(2)}, `invoke → outcome exhausted (category "validation")`},
		{"budget spent", pol, []map[string]any{val}, []katas.ModelStep{fix(11), fix(13)}, `invoke → propose → invoke → propose → invoke → outcome exhausted (category "validation")`},
		{"isRetryable plays no part in a repair", pol, []map[string]any{valRetryable, ok}, []katas.ModelStep{fix(2)}, `invoke → propose → invoke → outcome success (category null)`},
		{"final mid-loop", pol, []map[string]any{val, biz}, []katas.ModelStep{fix(2)}, `invoke → propose → invoke → outcome abort (category "business")`},
		{"transient mid-loop", pol, []map[string]any{val, tr, ok}, []katas.ModelStep{fix(2)}, `invoke → propose → invoke → sleep 1 → invoke → outcome success (category null)`},
		{"budgets apart", pol, []map[string]any{val, tr, val, tr, tr}, []katas.ModelStep{fix(2), fix(3)}, `invoke → propose → invoke → sleep 1 → invoke → propose → invoke → sleep 2 → invoke → outcome exhausted (category "transient")`},
		{"retry-after", pol, []map[string]any{{"isError": true, "errorCategory": "transient", "isRetryable": true, "retryAfterSeconds": 7.0}, ok}, nil, `invoke → sleep 7 → invoke → outcome success (category null)`},
		{"unknown", pol, []map[string]any{{"isError": true, "errorCategory": "Validation"}}, nil, `invoke → log unknown → outcome abort (category "unknown")`},
		{"malformed isError", pol, []map[string]any{{"isError": "true", "errorCategory": "validation"}}, []katas.ModelStep{fix(2)}, `invoke → log unknown → outcome abort (category "unknown")`},
		{"non-retryable transient", pol, []map[string]any{{"isError": true, "errorCategory": "transient", "isRetryable": false}}, nil, `invoke → outcome abort (category "transient")`},
	}
	for _, c := range cases {
		if got := traceString(expectedRepairTrace(c.policy, c.payloads, c.model, request)); got != c.want {
			t.Errorf("%s:\n got  %s\n want %s", c.name, got, c.want)
		}
	}
}

// TestRepairProposeChecks: the harness answers a propose with the scripted model's proposal
// (the arguments sent again for "{same}") and makes it the request the next invoke must carry;
// a propose before any invoke, with another request or other feedback, is refused under rule
// repair-3, and a retry scenario has no propose at all.
func TestRepairProposeChecks(t *testing.T) {
	two, one := 2, 1.0
	request := map[string]any{"tool": "create_return", "arguments": map[string]any{"quantity": 12.0}}
	d := drawnScenario{
		Scenario: katas.Scenario{ID: "s", Tool: "create_return", Model: []katas.ModelStep{{Arguments: map[string]any{"quantity": 2.0}}, {Arguments: katas.ModelSame}}},
		request:  request,
		policy:   katas.Policy{MaxRetries: &two, MaxRepairs: &two, BaseDelaySeconds: &one, Multiplier: &one},
	}
	payload := map[string]any{"isError": true, "errorCategory": "validation"}
	msg := func(req, feedback any) clientMsg {
		b, _ := json.Marshal(feedback)
		m := clientMsg{Type: "propose", Feedback: b}
		json.Unmarshal(must(json.Marshal(req)), &m.Request)
		return m
	}
	rp := newRepairPlay(d)
	if _, rule, _, _ := rp.propose(msg(request, payload)); rule != RuleRepairValidation {
		t.Errorf("a propose before any invoke: rule %q", rule)
	}
	rp.invoked(payload)
	if _, rule, _, _ := rp.propose(msg(map[string]any{"tool": "create_return", "arguments": map[string]any{}}, payload)); rule != RuleRepairValidation {
		t.Errorf("a propose of another request: rule %q", rule)
	}
	if _, rule, _, _ := rp.propose(msg(request, map[string]any{"isError": true})); rule != RuleRepairValidation {
		t.Errorf("a propose with other feedback: rule %q", rule)
	}
	reply, _, _, _ := rp.propose(msg(request, payload))
	if !sameJSON(reply, map[string]any{"type": "proposal", "arguments": map[string]any{"quantity": 2}}) {
		t.Errorf("first proposal %v", reply)
	}
	if _, _, ok := rp.checkInvoke(request); ok {
		t.Error("after a proposal, an invoke of the old arguments passed")
	}
	next := map[string]any{"tool": "create_return", "arguments": map[string]any{"quantity": 2}}
	if rule, _, ok := rp.checkInvoke(next); !ok {
		t.Errorf("an invoke of the proposal failed under %s", rule)
	}
	rp.invoked(payload)
	if reply, _, _, _ := rp.propose(msg(next, payload)); !sameJSON(reply["arguments"], map[string]any{"quantity": 2}) {
		t.Errorf("{same} proposed %v", reply)
	}
	if (drawnScenario{Scenario: katas.Scenario{}, policy: katas.Policy{}}).repair() {
		t.Error("a scenario without maxRepairs or a model plays the repair loop")
	}
}

func must(b []byte, err error) []byte {
	if err != nil {
		panic(err)
	}
	return b
}
