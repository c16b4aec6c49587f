package grader

// The repair-loop client (docs/grading.md#repair-client): a scenario whose policy has
// maxRepairs, or whose data has a model list, is played as a repair loop. The client may send
// `propose` with the last request and its feedback, and the grader answers as a scripted
// model; the oracle computes the one correct sequence of decisions from rules repair-1 …
// repair-6.

import (
	"bytes"
	"encoding/json"
	"maps"
	"math"
	"slices"

	"github.com/kata-mcp/kata/internal/i18n"
	"github.com/kata-mcp/kata/katas"
)

// repair reports whether the scenario plays the repair loop.
func (d drawnScenario) repair() bool { return d.IsRepair(d.policy) }

// scenarioPolicy is the policy sent with a scenario (docs/grading.md#client-messages): a
// repair scenario's carries maxRepairs and no escalate (docs/grading.md#repair-client).
func scenarioPolicy(d drawnScenario) map[string]any {
	policy := map[string]any{
		"maxRetries": *d.policy.MaxRetries, "baseDelaySeconds": *d.policy.BaseDelaySeconds,
		"multiplier": *d.policy.Multiplier, "categories": d.policy.Categories,
	}
	switch {
	case d.repair():
		policy["maxRepairs"] = *d.policy.MaxRepairs
	case d.policy.Escalate == nil:
		policy["escalate"] = []string{}
	default:
		policy["escalate"] = d.policy.Escalate
	}
	return policy
}

// repairPlay is the harness's side of one case of a scenario: the request the next invoke must
// carry (the scenario's, or after a proposal the proposed arguments), and for a repair
// scenario the last request invoked, the last payload and the proposals made.
type repairPlay struct {
	d drawnScenario
	// request is what the next invoke must carry.
	request map[string]any
	// sent and payload are the last invoke's request and the payload that answered it (nil
	// before the first invoke).
	sent    map[string]any
	payload map[string]any
	// proposals counts the proposes answered.
	proposals int
}

func newRepairPlay(d drawnScenario) *repairPlay { return &repairPlay{d: d, request: d.request} }

// invokeLimit is how many invokes make a client one that never stops: the policy's bound
// (retries, repairs and the first invoke) plus maxExtraInvokes.
func (rp *repairPlay) invokeLimit() int {
	n := *rp.d.policy.MaxRetries + 1 + maxExtraInvokes
	if rp.d.repair() {
		n += *rp.d.policy.MaxRepairs
	}
	return n
}

// checkInvoke checks an invoke's request; on a difference it returns the rule broken and
// what to say.
func (rp *repairPlay) checkInvoke(got map[string]any) (RuleID, i18n.Msg, bool) {
	if sameJSON(got, rp.request) {
		return "", i18n.Msg{}, true
	}
	if !rp.d.repair() {
		return RuleClientProtocol, i18n.M("harness.client.request_changed", "Got", jsonText(got), "Want", jsonText(rp.request)), false
	}
	rule := RuleClientProtocol
	if rp.proposals > 0 {
		rule = RuleRepairValidation
	}
	return rule, i18n.M("harness.repair.request_changed", "Got", jsonText(got), "Want", jsonText(rp.request)), false
}

// invoked records an invoke of the expected request answered with pl.
func (rp *repairPlay) invoked(pl map[string]any) {
	rp.sent, rp.payload = rp.request, pl
}

// propose answers a propose message with the scripted model's next proposal and makes it the
// request the next invoke must carry. A propose before any invoke, with another request than
// the last invoked or other feedback than the last payload, or past the repair budget by more
// than maxExtraInvokes, is a failure: the rule and what to say, and whether the client must be
// restarted.
func (rp *repairPlay) propose(m clientMsg) (reply map[string]any, rule RuleID, msg i18n.Msg, broken bool) {
	switch {
	case rp.sent == nil:
		return nil, RuleRepairValidation, i18n.M("harness.repair.propose_first"), true
	case !sameJSON(m.Request, rp.sent):
		return nil, RuleRepairValidation, i18n.M("harness.repair.propose_request", "Got", jsonText(m.Request), "Want", jsonText(rp.sent)), true
	case !sameJSON(m.Feedback, rp.payload):
		return nil, RuleRepairValidation, i18n.M("harness.repair.propose_feedback", "Got", jsonText(m.Feedback), "Want", jsonText(rp.payload)), true
	}
	rp.proposals++
	if rp.proposals > *rp.d.policy.MaxRepairs+maxExtraInvokes {
		return nil, RuleRepairValidation, i18n.MN("harness.repair.never_stops", rp.proposals, "MaxRepairs", *rp.d.policy.MaxRepairs), true
	}
	args := modelProposal(rp.d.Model, rp.proposals, rp.sent)
	rp.request = map[string]any{"tool": rp.d.Tool, "arguments": args}
	return map[string]any{"type": "proposal", "arguments": keysReversed(args)}, "", i18n.Msg{}, false
}

// keysReversed writes a proposal's arguments with their keys in reverse order of the request's
// (encoding/json writes a map's keys sorted): a JSON object's members have no order, so a client
// that compares arguments as text ("{same}" against what it sent) takes the same arguments for
// new ones, and rule repair-3 catches it. A value that does not encode is written as null.
func keysReversed(args map[string]any) json.RawMessage {
	if args == nil {
		return json.RawMessage("null")
	}
	keys := slices.Sorted(maps.Keys(args))
	slices.Reverse(keys)
	var b bytes.Buffer
	b.WriteByte('{')
	for i, k := range keys {
		if i > 0 {
			b.WriteByte(',')
		}
		kb, _ := json.Marshal(k)
		vb, err := json.Marshal(args[k])
		if err != nil {
			vb = []byte("null")
		}
		b.Write(kb)
		b.WriteByte(':')
		b.Write(vb)
	}
	b.WriteByte('}')
	return b.Bytes()
}

// modelProposal is the scripted model's n-th proposal (1-based; the last step repeats, no
// step proposes the same) after the request sent.
func modelProposal(model []katas.ModelStep, n int, sent map[string]any) map[string]any {
	args, _ := sent["arguments"].(map[string]any)
	if len(model) == 0 {
		return args
	}
	return model[min(n, len(model))-1].Proposal(args)
}

// expectedRepairTrace is the repair loop's oracle: the exact decisions a correct client makes
// for a scenario's payloads and scripted model under its policy, following rules repair-1 …
// repair-5 after each invoke (docs/grading.md#repair-client); each decision carries the rule
// that made it. payloads[k] answers invoke k (the last repeats).
func expectedRepairTrace(p katas.Policy, payloads []map[string]any, model []katas.ModelStep, request map[string]any) []traceEvent {
	var t []traceEvent
	str := func(s string) *string { return &s }
	outcome := func(rule RuleID, action string, cat *string, invokes int) []traceEvent {
		return append(t, traceEvent{Type: "outcome", Action: action, Category: cat, Invoke: invokes, rule: rule})
	}
	sent := request
	repairs, retries := 0, 0
	next := RuleRepairSuccess // the rule that makes the next invoke
	for k := 0; ; k++ {
		t = append(t, traceEvent{Type: "invoke", rule: next})
		pl := payloads[min(k, len(payloads)-1)]
		switch isErr, present := pl["isError"]; {
		case !present || isErr == false:
			return outcome(RuleRepairSuccess, ActionSuccess, nil, k+1)
		case isErr != true:
			t = append(t, traceEvent{Type: "log", rule: RuleRepairSuccess})
			return outcome(RuleRepairSuccess, ActionAbort, str("unknown"), k+1)
		}
		cat, isStr := pl["errorCategory"].(string)
		if def, known := p.Categories[cat]; !isStr || !known {
			t = append(t, traceEvent{Type: "log", rule: RuleRepairUnknown})
			return outcome(RuleRepairUnknown, ActionAbort, str("unknown"), k+1)
		} else if cat == katas.RepairCategory {
			if repairs >= *p.MaxRepairs {
				return outcome(RuleRepairValidation, ActionExhausted, str(cat), k+1)
			}
			repairs++
			t = append(t, traceEvent{Type: "propose", rule: RuleRepairValidation})
			args := modelProposal(model, repairs, sent)
			if sameJSON(args, sent["arguments"]) {
				return outcome(RuleRepairValidation, ActionAbort, str(cat), k+1)
			}
			sent = map[string]any{"tool": sent["tool"], "arguments": args}
			next = RuleRepairValidation
			continue
		} else if pl["isRetryable"] != true || !def {
			return outcome(RuleRepairStop, ActionAbort, str(cat), k+1)
		}
		if retries >= *p.MaxRetries {
			return outcome(RuleRepairTransient, ActionExhausted, str(cat), k+1)
		}
		retries++
		secs, ok := pl["retryAfterSeconds"].(float64)
		if !ok {
			secs = *p.BaseDelaySeconds * math.Pow(*p.Multiplier, float64(retries-1))
		}
		t = append(t, traceEvent{Type: "sleep", Seconds: secs, rule: RuleRepairTransient})
		next = RuleRepairTransient
	}
}

// scenarioOracle is the oracle for a scenario's kind: the repair loop's or the retry loop's.
func scenarioOracle(d drawnScenario, cs scenarioCase) []traceEvent {
	if d.repair() {
		return expectedRepairTrace(d.policy, cs.payloads, d.Model, d.request)
	}
	return expectedTrace(d.policy, cs.payloads)
}

// proseCheck is the rule a metamorphic prose pair checks for the scenario's kind, and the
// catalog id of the failure's words.
func proseCheck(d drawnScenario) (RuleID, string) {
	if d.repair() {
		return RuleRepairProse, "harness.repair.prose"
	}
	return RuleClientProse, "harness.client.prose"
}

// proseWitness finds, for a repair scenario and the scenarios of its pair, the cases that the
// prose decided: a case whose decisions differ from the oracle's while another case with the
// same flags (its payloads but for the prose placeholders' fields) made the oracle's decisions
// was led by its message text, so its failure is rule repair-6's, whichever rule the first
// differing decision belongs to (docs/grading.md#repair-rule-6).
type proseWitness struct {
	// passed holds the flags of the cases, of this scenario and its pair, that made the
	// oracle's decisions.
	passed map[string]bool
	// failed maps the flags of this scenario's cases that did not to the indexes of their
	// divergence in the scenario's problems.
	failed map[string][]int
}

// newProseWitness returns the witness of a repair scenario, shared with its pair's earlier
// scenarios through seen (keyed by pair, else the scenario's id); nil for a retry scenario.
func newProseWitness(d drawnScenario, seen map[string]*proseWitness) *proseWitness {
	if !d.repair() {
		return nil
	}
	key := d.ID
	if d.Pair != "" {
		key = "pair " + d.Pair
	}
	w := seen[key]
	if w == nil {
		w = &proseWitness{passed: map[string]bool{}}
		seen[key] = w
	}
	w.failed = map[string][]int{}
	return w
}

// observe records a played case whose problems cp were appended to the scenario's problems at
// index at.
func (w *proseWitness) observe(cs scenarioCase, res scenarioResult, cp problems, at int) {
	if w == nil || len(res.problems) > 0 {
		return
	}
	flags := caseFlags(cs)
	if len(cp) == 0 {
		w.passed[flags] = true
		return
	}
	for i, p := range cp {
		if p.rule != RuleClientProtocol && p.rule != RuleRepairProse {
			w.failed[flags] = append(w.failed[flags], at+i)
		}
	}
}

// relabel gives the problems of the cases the prose decided to rule repair-6.
func (w *proseWitness) relabel(probs problems) {
	if w == nil {
		return
	}
	for flags, at := range w.failed {
		if !w.passed[flags] {
			continue
		}
		for _, i := range at {
			probs[i] = problem{rule: RuleRepairProse, msg: i18n.M("harness.repair.prose_decided", "Problem", probs[i].msg)}
		}
	}
}

// caseFlags is a case's payloads as JSON without the fields that hold a prose variant's text.
func caseFlags(cs scenarioCase) string {
	var out []map[string]any
	for _, pl := range cs.payloads {
		flags := map[string]any{}
		for k, v := range pl {
			if s, ok := v.(string); !ok || !slices.Contains(proseRetry, s) && !slices.Contains(proseStop, s) {
				flags[k] = v
			}
		}
		out = append(out, flags)
	}
	b, _ := json.Marshal(out)
	return string(b)
}
