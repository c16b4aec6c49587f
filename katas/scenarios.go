package katas

import (
	"maps"
	"slices"
	"strings"
)

// ScenarioSet is fixtures/client.json: the hidden scenarios the client harness plays against
// a learner's retry policy (docs/grading.md#client-harness).
type ScenarioSet struct {
	Part string `json:"part"`
	// Policy is the default policy sent with every scenario; a scenario may override fields.
	Policy    Policy     `json:"policy"`
	Scenarios []Scenario `json:"scenarios"`
}

// Policy is the retry policy handed to the client with a scenario (docs/grading.md#client-messages).
// Nil fields inherit the set's default. Categories defaults to the contract's categories.
type Policy struct {
	MaxRetries       *int            `json:"maxRetries,omitempty"`
	BaseDelaySeconds *float64        `json:"baseDelaySeconds,omitempty"`
	Multiplier       *float64        `json:"multiplier,omitempty"`
	Categories       map[string]bool `json:"categories,omitempty"`
	Escalate         []string        `json:"escalate,omitempty"`
	// MaxRepairs, when set, makes the scenarios it applies to repair scenarios: how many times
	// the client may ask the model for corrected arguments (docs/grading.md#repair-client).
	MaxRepairs *int `json:"maxRepairs,omitempty"`
	// From, in the set's default policy only, names an asset (e.g. assets/client-retry.json)
	// that supplies the fields left unset here.
	From string `json:"from,omitempty"`
}

// Merge returns p with every unset field taken from def.
func (p Policy) Merge(def Policy) Policy {
	if p.MaxRetries == nil {
		p.MaxRetries = def.MaxRetries
	}
	if p.BaseDelaySeconds == nil {
		p.BaseDelaySeconds = def.BaseDelaySeconds
	}
	if p.Multiplier == nil {
		p.Multiplier = def.Multiplier
	}
	if p.Categories == nil {
		p.Categories = def.Categories
	}
	if p.Escalate == nil {
		p.Escalate = def.Escalate
	}
	if p.MaxRepairs == nil {
		p.MaxRepairs = def.MaxRepairs
	}
	return p
}

// Scenario is one hidden client scenario: the request, the policy, and the tool results the
// grader plays back on each invoke.
type Scenario struct {
	ID        string         `json:"id"`
	Name      string         `json:"name"`
	Task      int            `json:"task"`
	Rule      string         `json:"rule"`
	Tool      string         `json:"tool"`
	Arguments map[string]any `json:"arguments"`
	Policy    Policy         `json:"policy"`
	// Results are played in order; a step with Repeat [min, max] is played a seed-drawn number
	// of times; the last step repeats for any further invoke.
	Results []ResultStep `json:"results"`
	// Pair names a metamorphic pair: scenarios with the same Pair get the same draws and
	// must produce the same decisions, since only their prose differs.
	Pair string `json:"pair,omitempty"`
	// Model is the scripted model of a repair scenario: the proposals it returns, in order
	// (the last repeats), one per propose (docs/grading.md#repair-client).
	Model []ModelStep `json:"model,omitempty"`
}

// ResultStep is one tool-result payload of a scenario. String values that are placeholders
// are drawn from the seed: "{order}" (an order object), "{retry_after}" (whole seconds),
// "{retryable_category}", "{final_category}" (neither retryable nor escalated),
// "{escalated_category}", "{unknown_category}" (a category not in the vocabulary),
// "{prose:retry}" and "{prose:stop}" (explanations that urge the opposite of the flags).
type ResultStep struct {
	Repeat  []int          `json:"repeat,omitempty"`
	Payload map[string]any `json:"payload"`
}

// ParseScenarios decodes fixtures/client.json and checks it against the manifest: known
// categories, at least one result per scenario, a valid repeat range. Every problem is
// reported (the error, when not nil, is Problems).
func ParseScenarios(file string, src []byte, m *Manifest) (*ScenarioSet, error) {
	return collect(func(ps *Problems) *ScenarioSet { return parseScenarios(file, src, m, ps) })
}

// parseScenarios decodes and checks a scenario set, recording every problem in ps; nil when
// the JSON cannot be decoded.
func parseScenarios(file string, src []byte, m *Manifest, ps *Problems) *ScenarioSet {
	var set ScenarioSet
	if err := decodeStrict(file, src, &set); err != nil {
		ps.addErr(file, err)
		return nil
	}
	if len(set.Scenarios) == 0 {
		ps.add(file, 1, "no scenarios")
	}
	if set.Policy.From == "" && (set.Policy.MaxRetries == nil || set.Policy.BaseDelaySeconds == nil || set.Policy.Multiplier == nil) {
		ps.add(file, jsonKeyLine(src, "policy"), "the default policy needs maxRetries, baseDelaySeconds and multiplier (or \"from\": an asset)")
	}
	for _, e := range set.Policy.Escalate {
		if _, ok := m.Contract.Categories[e]; !ok {
			ps.add(file, jsonKeyLine(src, "escalate"), "escalate names %q, which is not in the contract (%s)", e, strings.Join(m.Contract.CategoryNames(), ", "))
		}
	}
	if r := set.Policy.MaxRepairs; r != nil && *r < 0 {
		ps.add(file, jsonKeyLine(src, "maxRepairs"), "policy: maxRepairs must be an integer ≥ 0, got %d", *r)
	}
	seen := map[string]bool{}
	for i, s := range set.Scenarios {
		bad := checkEntry(ps, file, src, "scenario", i, s.ID, s.Name, s.Task, seen)
		if len(s.Results) == 0 {
			bad("no results to play")
		}
		seen[s.ID] = true
		for _, r := range s.Results {
			if r.Repeat != nil && (len(r.Repeat) != 2 || r.Repeat[0] < 1 || r.Repeat[1] < r.Repeat[0]) {
				bad("repeat must be [min, max] with 1 ≤ min ≤ max")
			}
			if c, ok := r.Payload["errorCategory"].(string); ok && !strings.HasPrefix(c, "{") {
				if _, known := m.Contract.Categories[c]; !known {
					bad("category %q is not in the contract (%s); use \"{unknown_category}\" to test an unknown one", c, strings.Join(m.Contract.CategoryNames(), ", "))
				}
			}
		}
		for _, c := range slices.Sorted(maps.Keys(s.Policy.Categories)) {
			if _, known := m.Contract.Categories[c]; !known {
				bad("policy category %q is not in the contract", c)
			}
		}
		checkRepairScenario(s, set.Policy, m, bad)
	}
	return &set
}
