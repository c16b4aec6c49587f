package katas

import (
	"strings"
	"testing"
)

// repairManifest is a manifest whose contract has the repair loop's categories.
func repairManifest() *Manifest {
	return &Manifest{Contract: Contract{Categories: map[string]bool{
		"validation": false, "not_found": false, "business": false, "auth": false, "transient": true}}}
}

// TestRepairScenariosParse: a repair scenario's model list and maxRepairs are read, the
// default policy's maxRepairs reaches a scenario, and a scenario without either stays a retry
// scenario.
func TestRepairScenariosParse(t *testing.T) {
	src := `{"part": "client",
  "policy": {"maxRetries": 2, "baseDelaySeconds": 1, "multiplier": 2},
  "scenarios": [
    {"id": "fixed", "name": "fixed in one repair", "task": 6, "rule": "r", "tool": "create_return",
     "arguments": {"quantity": 12}, "policy": {"maxRepairs": 2},
     "model": [{"arguments": {"quantity": 2}}, {"arguments": "{same}"}],
     "results": [{"payload": {"isError": true, "errorCategory": "validation", "isRetryable": false}}, {"payload": {"isError": false}}]},
    {"id": "plain", "name": "a retry scenario", "task": 6, "rule": "r", "tool": "create_return",
     "arguments": {}, "results": [{"payload": {"isError": false}}]}
  ]}`
	set, err := ParseScenarios("client.json", []byte(src), repairManifest())
	if err != nil {
		t.Fatal(err)
	}
	fixed, plain := set.Scenarios[0], set.Scenarios[1]
	p := fixed.Policy.Merge(set.Policy)
	if !fixed.IsRepair(p) || *p.MaxRepairs != 2 || len(fixed.Model) != 2 {
		t.Errorf("fixed: repair %v, policy %+v, model %v", fixed.IsRepair(p), p, fixed.Model)
	}
	sent := map[string]any{"quantity": 12.0}
	if got := fixed.Model[0].Proposal(sent); got["quantity"] != 2.0 {
		t.Errorf("model 1 proposes %v", got)
	}
	if !fixed.Model[1].Same() || fixed.Model[1].Proposal(sent)["quantity"] != 12.0 {
		t.Errorf("model 2 (%v) does not propose the arguments sent", fixed.Model[1])
	}
	if plain.IsRepair(plain.Policy.Merge(set.Policy)) {
		t.Error("a scenario without maxRepairs or a model is a repair scenario")
	}
}

// TestRepairScenarioProblems: each malformed repair scenario is reported with its id and line.
func TestRepairScenarioProblems(t *testing.T) {
	scenario := func(extra string) string {
		return `{"part": "client", "policy": {"maxRetries": 2, "baseDelaySeconds": 1, "multiplier": 2},
  "scenarios": [
    {"id": "bad-one", "name": "n", "task": 6, "rule": "r", "tool": "create_return", "arguments": {},
     "results": [{"payload": {"isError": true, "errorCategory": "validation", "isRetryable": false}}]` + extra + `}]}`
	}
	cases := []struct{ name, src, want string }{
		{"model without maxRepairs", scenario(`, "model": [{"arguments": {}}]`), "needs policy.maxRepairs"},
		{"negative maxRepairs", scenario(`, "policy": {"maxRepairs": -1}, "model": [{"arguments": {}}]`), "maxRepairs must be an integer ≥ 0"},
		{"fractional maxRepairs", scenario(`, "policy": {"maxRepairs": 1.5}`), `"scenarios.policy.maxRepairs"`},
		{"string arguments", scenario(`, "policy": {"maxRepairs": 1}, "model": [{"arguments": "same"}]`), `model 1: arguments is the string "same"`},
		{"array arguments", scenario(`, "policy": {"maxRepairs": 1}, "model": [{"arguments": [1]}]`), "model 1: arguments must be an object"},
		{"missing arguments", scenario(`, "policy": {"maxRepairs": 1}, "model": [{}]`), "model 1: arguments must be an object"},
		{"unknown model key", scenario(`, "policy": {"maxRepairs": 1}, "model": [{"args": {}}]`), `unknown field "args"`},
		{"no model to ask", scenario(`, "policy": {"maxRepairs": 1}`), "needs a model list"},
		{"escalate", scenario(`, "policy": {"maxRepairs": 1, "escalate": ["auth"]}, "model": [{"arguments": {}}]`), "has no escalate"},
	}
	for _, c := range cases {
		_, err := ParseScenarios("client.json", []byte(c.src), repairManifest())
		if err == nil {
			t.Errorf("%s: accepted", c.name)
			continue
		}
		if !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v; want %q", c.name, err, c.want)
		}
		if !strings.Contains(err.Error(), "client.json:") || (!strings.Contains(c.want, `"`) && !strings.Contains(err.Error(), `"bad-one"`)) {
			t.Errorf("%s: %v does not name the file, line and scenario", c.name, err)
		}
	}
	noValidation := &Manifest{Contract: Contract{Categories: map[string]bool{"transient": true}}}
	src := `{"part": "client", "policy": {"maxRetries": 2, "baseDelaySeconds": 1, "multiplier": 2, "maxRepairs": 0},
  "scenarios": [{"id": "s", "name": "n", "task": 1, "rule": "r", "tool": "t", "arguments": {}, "results": [{"payload": {"isError": false}}]}]}`
	if _, err := ParseScenarios("client.json", []byte(src), noValidation); err == nil || !strings.Contains(err.Error(), `needs the category "validation"`) {
		t.Errorf("a contract without validation: %v", err)
	}
}
