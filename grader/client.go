package grader

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"time"

	"github.com/kata-mcp/kata/katas"
)

// scenarioTimeout bounds how long the grader waits for each client message; the clock the
// client sees is virtual, so a correct client answers in milliseconds.
const scenarioTimeout = 5 * time.Second

// clientStartAllowance is added to the wait for a freshly started client's first message:
// starting a runtime (Node, Python) on a loaded machine can take seconds, and that is not the
// client hanging.
const clientStartAllowance = handshakeTimeout

// sameCrashLimit is how many scenarios in a row, from the first, a client may crash the same
// way before deciding anything before the rest are skipped.
const sameCrashLimit = 3

// maxExtraInvokes is how many invokes past the policy's limit are tolerated before a client is
// declared to retry forever and is restarted.
const maxExtraInvokes = 5

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
	unknownCategories = []string{"quota_exceeded", "internal", "Transient", "RATE_LIMIT", "", "<missing>", "<null>"}
)

// drawnScenario is a scenario with its payload sequence and policy fixed for this run.
type drawnScenario struct {
	katas.Scenario
	request  map[string]any
	policy   katas.Policy
	payloads []map[string]any
}

// drawScenarios fixes every scenario's random parts from the seed. Scenarios of one
// metamorphic pair draw from the same stream, so only their prose differs.
func drawScenarios(set *katas.ScenarioSet, contract katas.Contract, seed int64) []drawnScenario {
	var out []drawnScenario
	for i, s := range set.Scenarios {
		stream := uint64(i) + 1
		if s.Pair != "" {
			stream = hashString(s.Pair)
		}
		rng := rand.New(rand.NewPCG(uint64(seed), stream))
		prose := rand.New(rand.NewPCG(uint64(seed), uint64(i)+1000))
		d := drawnScenario{Scenario: s, policy: s.Policy.Merge(set.Policy)}
		if d.policy.Categories == nil {
			d.policy.Categories = contract.Categories
		}
		d.request = map[string]any{"tool": s.Tool, "arguments": s.Arguments}
		for _, step := range s.Results {
			n := 1
			if len(step.Repeat) == 2 {
				n = step.Repeat[0] + rng.IntN(step.Repeat[1]-step.Repeat[0]+1)
			}
			pl := fillPayload(step.Payload, d.policy, rng, prose)
			for j := 0; j < n; j++ {
				d.payloads = append(d.payloads, pl)
			}
		}
		out = append(out, d)
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

// fillPayload replaces a payload's placeholders (katas.ResultStep) with drawn values.
func fillPayload(tmpl map[string]any, p katas.Policy, rng, prose *rand.Rand) map[string]any {
	var retryable, final []string
	for _, c := range slices.Sorted(maps.Keys(p.Categories)) {
		switch {
		case slices.Contains(p.Escalate, c):
		case p.Categories[c]:
			retryable = append(retryable, c)
		default:
			final = append(final, c)
		}
	}
	pick := func(list []string) string {
		if len(list) == 0 {
			return "unknown"
		}
		return list[rng.IntN(len(list))]
	}
	out := map[string]any{}
	for _, k := range slices.Sorted(maps.Keys(tmpl)) {
		v := tmpl[k]
		s, ok := v.(string)
		if !ok {
			out[k] = v
			continue
		}
		switch s {
		case "{order}":
			out[k] = map[string]any{"order_id": fmt.Sprintf("ORD-%d", 1000+rng.IntN(9000)), "customer_id": "C-1042", "status": "shipped", "total": 129.5}
		case "{retry_after}":
			out[k] = float64(1 + rng.IntN(120))
		case "{retryable_category}":
			out[k] = pick(retryable)
		case "{final_category}":
			out[k] = pick(final)
		case "{escalated_category}":
			out[k] = pick(p.Escalate)
		case "{unknown_category}":
			switch u := unknownCategories[rng.IntN(len(unknownCategories))]; u {
			case "<missing>":
			case "<null>":
				out[k] = nil
			default:
				out[k] = u
			}
		case "{prose:retry}":
			out[k] = proseRetry[prose.IntN(len(proseRetry))]
		case "{prose:stop}":
			out[k] = proseStop[prose.IntN(len(proseStop))]
		default:
			out[k] = s
		}
	}
	return out
}

// clientProc is the learner's running client and its stdout lines.
type clientProc struct {
	proc  *process
	lines chan clientLine
	// fresh is true until the client's first message was read.
	fresh bool
}

type clientLine struct {
	text string
	err  error
}

func startClient(spec launchSpec) (*clientProc, error) {
	p, err := startProcess(spec.dir, spec.command, spec.args, spec.env)
	if err != nil {
		return nil, err
	}
	c := &clientProc{proc: p, lines: make(chan clientLine, 16), fresh: true}
	go func() {
		br := bufio.NewReaderSize(p.stdout, 64<<10)
		for {
			line, tooLong, err := readLine(br, maxMessage)
			if tooLong {
				c.lines <- clientLine{err: fmt.Errorf("a message larger than %d bytes", maxMessage)}
			} else if t := strings.TrimSpace(string(line)); t != "" {
				c.lines <- clientLine{text: t}
			}
			if err != nil {
				close(c.lines)
				return
			}
		}
	}()
	return c, nil
}

func (c *clientProc) send(v any) error {
	b, _ := json.Marshal(v)
	_, err := c.proc.stdin.Write(append(b, '\n'))
	return err
}

// clientMsg is any message from the client (docs/grading.md#client-messages).
type clientMsg struct {
	Type     string          `json:"type"`
	ID       string          `json:"id"`
	Request  map[string]any  `json:"request"`
	Seconds  json.RawMessage `json:"seconds"`
	Category json.RawMessage `json:"category"`
	Message  string          `json:"message"`
	Action   string          `json:"action"`
	Result   json.RawMessage `json:"result"`
}

// scenarioResult is what the client did in one scenario.
type scenarioResult struct {
	trace    []traceEvent
	result   any
	problems problems
	// broken means the client must be restarted (it hung, crashed or looped).
	broken bool
	// stopped: the phase's budget ran out or the run was interrupted during the scenario.
	stopped bool
}

// playScenario runs one scenario against the client and records its decisions.
func playScenario(ctx context.Context, c *clientProc, d drawnScenario) scenarioResult {
	var r scenarioResult
	fail := func(broken bool, format string, args ...any) scenarioResult {
		r.problems.add(RuleClientProtocol, format, args...)
		r.broken = r.broken || broken
		return r
	}
	policy := map[string]any{
		"maxRetries": *d.policy.MaxRetries, "baseDelaySeconds": *d.policy.BaseDelaySeconds,
		"multiplier": *d.policy.Multiplier, "categories": d.policy.Categories, "escalate": d.policy.Escalate,
	}
	if policy["escalate"] == nil {
		policy["escalate"] = []string{}
	}
	if err := c.send(map[string]any{"type": "scenario", "id": d.ID, "request": d.request, "policy": policy}); err != nil {
		return fail(true, "the client is not reading its stdin (%v)", err)
	}
	invokes := 0
	limit := *d.policy.MaxRetries + 1 + maxExtraInvokes
	for {
		var line clientLine
		var ok bool
		wait := scenarioTimeout
		if c.fresh {
			wait += clientStartAllowance
		}
		timer := time.NewTimer(wait)
		select {
		case line, ok = <-c.lines:
			c.fresh = false
		case <-timer.C:
			return fail(true, "the client sent nothing for %s (after %s); a client on a virtual clock answers at once", wait, describeLast(r.trace))
		case <-ctx.Done():
			r.stopped = true
			return fail(true, "this scenario was cut short")
		}
		timer.Stop()
		if !ok {
			select {
			case <-c.proc.done:
			case <-time.After(time.Second):
			}
			_, how := c.proc.exited()
			if how == "" {
				how = "closed its stdout"
			}
			return fail(true, "the client %s in the middle of this scenario (after %s)", how, describeLast(r.trace))
		}
		if line.err != nil {
			return fail(true, "the client sent %v", line.err)
		}
		var m clientMsg
		if err := json.Unmarshal([]byte(line.text), &m); err != nil || m.Type == "" {
			return fail(true, "the client wrote a line that is not a protocol message: %q (print to stderr instead)", clipText(line.text, 200))
		}
		switch m.Type {
		case "invoke":
			if !sameJSON(m.Request, d.request) {
				return fail(true, "invoke sent request %s; it must be the scenario's request unchanged, %s", jsonText(m.Request), jsonText(d.request))
			}
			invokes++
			r.trace = append(r.trace, traceEvent{Type: "invoke"})
			if invokes > limit {
				r.broken = true
				r.problems.add(RuleClientBounded, "the client invoked %d times although maxRetries is %d: it never stops retrying", invokes, *d.policy.MaxRetries)
				return r
			}
			pl := d.payloads[min(invokes-1, len(d.payloads)-1)]
			if err := c.send(map[string]any{"type": "result", "result": pl}); err != nil {
				return fail(true, "the client stopped reading: %v", err)
			}
		case "sleep":
			var secs float64
			if err := json.Unmarshal(m.Seconds, &secs); err != nil {
				return fail(true, "sleep.seconds must be a JSON number, got %s", string(m.Seconds))
			}
			r.trace = append(r.trace, traceEvent{Type: "sleep", Seconds: secs})
			if err := c.send(map[string]any{"type": "slept"}); err != nil {
				return fail(true, "the client stopped reading: %v", err)
			}
		case "log":
			var cat string
			if json.Unmarshal(m.Category, &cat) == nil && cat == "unknown" {
				r.trace = append(r.trace, traceEvent{Type: "log"})
			}
		case "outcome":
			ev := traceEvent{Type: "outcome", Action: m.Action, Invoke: invokes}
			var cat *string
			if len(m.Category) > 0 && string(m.Category) != "null" {
				var s string
				if err := json.Unmarshal(m.Category, &s); err != nil {
					return fail(false, "outcome.category must be a string or null, got %s", string(m.Category))
				}
				cat = &s
			}
			ev.Category = cat
			r.trace = append(r.trace, ev)
			if m.ID != d.ID {
				r.problems.add(RuleClientProtocol, "outcome.id was %q; expected the scenario's id %q", m.ID, d.ID)
			}
			if len(m.Result) > 0 {
				json.Unmarshal(m.Result, &r.result)
			}
			return r
		default:
			return fail(true, "unknown message type %q from the client", m.Type)
		}
	}
}

func describeLast(t []traceEvent) string {
	if len(t) == 0 {
		return "the scenario was sent"
	}
	return traceString(t)
}

// checkScenario compares the client's decisions with the oracle's.
func checkScenario(d drawnScenario, got scenarioResult) problems {
	probs := append(problems(nil), got.problems...)
	want := expectedTrace(d.policy, d.payloads)
	if len(probs) == 0 {
		if !sameTrace(got.trace, want) {
			r, msg := explainDivergence(d, got.trace, want)
			probs.add(r, "%s", msg)
		} else if last := d.payloads[min(want[len(want)-1].Invoke-1, len(d.payloads)-1)]; !sameJSON(got.result, last) {
			probs.add(RuleClientProtocol, "outcome.result was %s; expected the last payload, %s", jsonText(got.result), jsonText(last))
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
func explainDivergence(d drawnScenario, got, want []traceEvent) (RuleID, string) {
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
	pl := d.payloads[min(max(invokes-1, 0), len(d.payloads)-1)]
	var b strings.Builder
	switch {
	case i < len(want) && i < len(got):
		fmt.Fprintf(&b, "decision %d was %q; expected %q", i+1, got[i], want[i])
	case i < len(want):
		fmt.Fprintf(&b, "the client stopped after %d decisions; expected next %q", len(got), want[i])
	default:
		fmt.Fprintf(&b, "decision %d was %q; a correct client had already finished", i+1, got[i])
	}
	broken := want[len(want)-1].rule
	if i < len(want) {
		broken = want[i].rule
		fmt.Fprintf(&b, " (%s)", ruleText(want[i], d.policy))
	}
	fmt.Fprintf(&b, "\npayload at that point: %s", jsonText(pl))
	fmt.Fprintf(&b, "\npolicy: maxRetries %d, baseDelaySeconds %s, multiplier %s, escalate %v", *d.policy.MaxRetries, fmtSeconds(*d.policy.BaseDelaySeconds), fmtSeconds(*d.policy.Multiplier), d.policy.Escalate)
	fmt.Fprintf(&b, "\nexpected: %s\ngot:      %s", traceString(want), traceString(got))
	return broken, b.String()
}

// runClientTests plays every hidden scenario against the learner's client, one process for
// all of them; a client that crashes, hangs or loops fails that scenario and is restarted.
func (r *run) runClientTests(ctx context.Context) {
	scs := drawScenarios(r.packet.Scenarios, r.packet.Contract, r.rep.Seed)
	var c *clientProc
	stop := func() {
		if c != nil {
			c.proc.kill(time.Second)
			c = nil
		}
	}
	defer stop()
	type pairSeen struct {
		id    string
		trace []traceEvent
	}
	pairs := map[string]pairSeen{}
	// lastTail and lastTailOf are the stderr tail last shown for a crash and its scenario's
	// name: a client that crashes the same way on every scenario shows it once in full.
	var lastTail, lastTailOf string
	// sameCrash counts the scenarios, from the first, on which the client crashed the same way
	// before deciding anything (an unwritten call_with_retry, a syntax error); -1 once any
	// scenario went otherwise. Past sameCrashLimit the rest are not started: each would only
	// crash again, and the budget is better not spent on it.
	sameCrash := 0
	for _, d := range scs {
		r.announceStart(d.Name)
		t := TestResult{ID: d.ID, Name: d.Name, TaskID: d.Task, Rule: d.Rule, OutputOf: "client"}
		if sameCrash >= sameCrashLimit {
			t.Status, t.Message = StatusFail, fmt.Sprintf("skipped: the client crashed the same way, before any decision, on each of the first %d scenarios (see %q); fix that crash first", sameCrash, lastTailOf)
			r.record(t)
			continue
		}
		if ctx.Err() != nil {
			t.Status, t.Message = StatusError, r.stoppedMsg(r.clientPhase, "not run")
			r.record(t)
			continue
		}
		if c == nil {
			var err error
			if c, err = startClient(r.clientSpec); err != nil {
				t.Status, t.Message = StatusError, "the client could not be started: "+err.Error()
				r.record(t)
				continue
			}
		}
		mark := c.proc.stderr.mark()
		res := playScenario(ctx, c, d)
		probs := checkScenario(d, res)
		if d.Pair != "" {
			if prev, ok := pairs[d.Pair]; ok {
				if len(res.problems) == 0 && !sameTrace(prev.trace, res.trace) {
					probs.add(RuleClientProse, "scenario %q had the same flags and a different explanation, and the client decided differently (%s here, %s there): explanation text must take no part in control logic (rule 7)", prev.id, traceString(res.trace), traceString(prev.trace))
				}
			} else {
				pairs[d.Pair] = pairSeen{id: d.ID, trace: res.trace}
			}
		}
		proc := c.proc
		if res.stopped {
			t.Status = StatusError
			probs = problems{{text: r.stoppedMsg(r.clientPhase, "this scenario was cut short")}}
		}
		crashedAtStart := false
		if res.broken {
			stop()
			if !res.stopped {
				probs.add("", "the client was restarted for the next scenario")
				// A client that crashed or hung says why on its stderr: show the tail.
				switch tail := lastLines(proc.stderr.since(mark, stderrCap), tailLines); {
				case tail == "":
				case tail == lastTail:
					probs.add("", "client stderr: the same last lines as under %q", lastTailOf)
					crashedAtStart = len(res.trace) == 0
				default:
					probs.add("", "client stderr (last lines):\n%s", indent(tail, "  "))
					crashedAtStart = len(res.trace) == 0 && sameCrash == 0
					lastTail, lastTailOf = tail, d.Name
				}
			}
		}
		switch {
		case sameCrash < 0:
		case crashedAtStart:
			sameCrash++
		default:
			sameCrash = -1
		}
		t.Output = proc.stderr.since(mark, outputCap)
		r.recordVerdict(t, probs, "")
	}
	if c != nil {
		c.proc.stdin.Close()
		select {
		case <-c.proc.done:
		case <-time.After(2 * time.Second):
		}
	}
}
