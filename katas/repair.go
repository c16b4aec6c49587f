package katas

// Repair scenarios of fixtures/client.json: the client's repair loop against a scripted model
// (docs/grading.md#repair-client, docs/packets.md "fixtures/client.json").

import "encoding/json"

// ModelSame is the value of a model step's arguments that stands for "the arguments just
// sent": the scripted model proposes them again (a model that is stuck).
const ModelSame = "{same}"

// RepairCategory is the category the repair loop repairs: a validation error, whose feedback
// the client hands back to the model (docs/grading.md#repair-rule-3).
const RepairCategory = "validation"

// ModelStep is one proposal of a scenario's scripted model: Arguments is a JSON object (the
// arguments proposed) or the string ModelSame.
type ModelStep struct {
	Arguments any `json:"arguments"`
}

// Same reports whether the step proposes the arguments just sent again (ModelSame).
func (m ModelStep) Same() bool { return m.Arguments == ModelSame }

// Proposal returns the arguments the step proposes after sent, the arguments just sent: sent
// itself for ModelSame, else the step's own object.
func (m ModelStep) Proposal(sent map[string]any) map[string]any {
	if obj, ok := m.Arguments.(map[string]any); ok && !m.Same() {
		return obj
	}
	return sent
}

// IsRepair reports whether the scenario, under p (its policy merged with the set's default),
// plays the repair loop rather than the retry loop: its policy has maxRepairs or its data has
// a model.
func (s Scenario) IsRepair(p Policy) bool { return p.MaxRepairs != nil || len(s.Model) > 0 }

// checkRepairScenario reports, through bad (which names the scenario), what a repair scenario
// needs and lacks: maxRepairs (an integer ≥ 0, from the scenario or the set), no escalate (the
// repair loop hands nothing to a person), the category validation in the contract, model steps
// whose arguments are an object or "{same}", and a model to ask when a validation result can
// be repaired. A retry scenario may not carry a model.
func checkRepairScenario(s Scenario, def Policy, m *Manifest, bad func(format string, args ...any)) {
	p := s.Policy.Merge(def)
	if !s.IsRepair(p) {
		return
	}
	if p.MaxRepairs == nil {
		bad("a scenario with a model list is a repair scenario and needs policy.maxRepairs (in the scenario or the default policy)")
	} else if *p.MaxRepairs < 0 {
		bad("policy.maxRepairs must be an integer ≥ 0, got %d", *p.MaxRepairs)
	}
	if len(p.Escalate) > 0 {
		bad("a repair scenario has no escalate (the repair loop's rules hand nothing to a person)")
	}
	if _, ok := m.Contract.Categories[RepairCategory]; !ok {
		bad("a repair scenario needs the category %q in the contract", RepairCategory)
	}
	for i, step := range s.Model {
		switch a := step.Arguments.(type) {
		case map[string]any:
		case string:
			if a != ModelSame {
				bad("model %d: arguments is the string %q; it must be an object or %q", i+1, a, ModelSame)
			}
		default:
			b, _ := json.Marshal(a)
			bad("model %d: arguments must be an object or %q, got %s", i+1, ModelSame, clip(string(b), 80))
		}
	}
	repairable := p.MaxRepairs != nil && *p.MaxRepairs > 0
	for _, r := range s.Results {
		if c, _ := r.Payload["errorCategory"].(string); c == RepairCategory && r.Payload["isError"] == true && repairable && len(s.Model) == 0 {
			bad("a validation result with maxRepairs %d needs a model list to answer the client's propose", *p.MaxRepairs)
			break
		}
	}
}
