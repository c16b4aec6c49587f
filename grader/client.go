package grader

// The client phase: the learner's client process, the JSON-lines harness protocol it speaks,
// and the run of every hidden scenario through it (docs/grading.md#client-harness).

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/kata-mcp/kata/grader/sandbox"
	"github.com/kata-mcp/kata/internal/i18n"
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

// clientProc is the learner's running client and its stdout lines.
type clientProc struct {
	proc  *sandbox.Process
	lines chan clientLine
	// fresh is true until the client's first message was read.
	fresh bool
}

type clientLine struct {
	text string
	err  error
}

func startClient(spec launchSpec) (*clientProc, error) {
	p, err := spec.start()
	if err != nil {
		return nil, err
	}
	c := &clientProc{proc: p, lines: make(chan clientLine, 16), fresh: true}
	go func() {
		br := bufio.NewReaderSize(p.Stdout, 64<<10)
		for {
			line, tooLong, err := readLine(br, maxMessage)
			if tooLong {
				c.lines <- clientLine{err: i18n.Err("harness.client.too_large", "Max", maxMessage)}
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
	_, err := c.proc.Stdin.Write(append(b, '\n'))
	return err
}

// clientMsg is any message from the client (docs/grading.md#client-messages).
type clientMsg struct {
	Type     string          `json:"type"`
	ID       string          `json:"id"`
	Request  map[string]any  `json:"request"`
	Feedback json.RawMessage `json:"feedback"`
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

// playScenario runs one case of a scenario against the client and records its decisions.
func playScenario(ctx context.Context, c *clientProc, d drawnScenario, cs scenarioCase) scenarioResult {
	var r scenarioResult
	failRule := func(broken bool, rule RuleID, m i18n.Msg) scenarioResult {
		r.problems.say(rule, m)
		r.broken = r.broken || broken
		return r
	}
	fail := func(broken bool, m i18n.Msg) scenarioResult { return failRule(broken, RuleClientProtocol, m) }
	if err := c.send(map[string]any{"type": "scenario", "id": d.ID, "request": d.request, "policy": scenarioPolicy(d)}); err != nil {
		return fail(true, i18n.M("harness.client.not_reading", "Error", err.Error()))
	}
	invokes := 0
	rp := newRepairPlay(d)
	limit := rp.invokeLimit()
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
			return fail(true, i18n.M("harness.client.silent", "Wait", wait.String(), "After", describeLast(r.trace)))
		case <-ctx.Done():
			r.stopped = true
			return fail(true, scenarioCut)
		}
		timer.Stop()
		if !ok {
			select {
			case <-c.proc.Done():
			case <-time.After(time.Second):
			}
			_, how := c.proc.Exited()
			if how.IsZero() {
				how = i18n.M("harness.exit.closed_stdout")
			}
			if len(r.trace) == 0 { // nothing decided: the client likely failed to load or start
				return fail(true, i18n.M("harness.client.ended_at_start", "How", how))
			}
			return fail(true, i18n.M("harness.client.ended", "How", how, "After", describeLast(r.trace)))
		}
		if line.err != nil {
			return fail(true, i18n.M("harness.client.sent", "What", errText(line.err)))
		}
		var m clientMsg
		if err := json.Unmarshal([]byte(line.text), &m); err != nil || m.Type == "" {
			return fail(true, i18n.M("harness.client.not_protocol", "Line", strconv.Quote(clipText(line.text, 200))))
		}
		switch m.Type {
		case "invoke":
			if rule, msg, ok := rp.checkInvoke(m.Request); !ok {
				return failRule(true, rule, msg)
			}
			invokes++
			r.trace = append(r.trace, traceEvent{Type: "invoke"})
			if invokes > limit {
				r.broken = true
				r.problems.say(RuleClientBounded, i18n.MN("harness.client.never_stops", invokes, "MaxRetries", *d.policy.MaxRetries))
				return r
			}
			pl := cs.payloads[min(invokes-1, len(cs.payloads)-1)]
			rp.invoked(pl)
			if err := c.send(map[string]any{"type": "result", "result": pl}); err != nil {
				return fail(true, i18n.M("harness.client.stopped_reading", "Error", err.Error()))
			}
		case "propose":
			if !d.repair() {
				return fail(true, i18n.M("harness.client.unknown_type", "Type", strconv.Quote(m.Type)))
			}
			r.trace = append(r.trace, traceEvent{Type: "propose"})
			reply, rule, msg, broken := rp.propose(m)
			if reply == nil {
				return failRule(broken, rule, msg)
			}
			if err := c.send(reply); err != nil {
				return fail(true, i18n.M("harness.client.stopped_reading", "Error", err.Error()))
			}
		case "sleep":
			var secs float64
			if err := json.Unmarshal(m.Seconds, &secs); err != nil {
				return fail(true, i18n.M("harness.client.sleep_seconds", "Got", string(m.Seconds)))
			}
			r.trace = append(r.trace, traceEvent{Type: "sleep", Seconds: secs})
			if err := c.send(map[string]any{"type": "slept"}); err != nil {
				return fail(true, i18n.M("harness.client.stopped_reading", "Error", err.Error()))
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
					// The learner's raw JSON, quoted and clipped: it may be a megabyte, or hold
					// newlines between its values that would stand as lines of the report.
					return fail(false, i18n.M("harness.client.outcome_category", "Got", strconv.Quote(clipText(string(m.Category), 120))))
				}
				cat = &s
			}
			ev.Category = cat
			r.trace = append(r.trace, ev)
			if m.ID != d.ID {
				r.problems.say(RuleClientProtocol, i18n.M("harness.client.outcome_id", "Got", strconv.Quote(m.ID), "Want", strconv.Quote(d.ID)))
			}
			if len(m.Result) > 0 {
				json.Unmarshal(m.Result, &r.result)
			}
			return r
		default:
			return fail(true, i18n.M("harness.client.unknown_type", "Type", strconv.Quote(m.Type)))
		}
	}
}

// runClientTests plays every hidden scenario against the learner's client, one process for
// all of them; a client that crashes, hangs or loops fails that scenario and is restarted.
func (r *run) runClientTests(ctx context.Context) {
	scs := drawScenarios(r.packet.Scenarios, r.packet.Contract, r.rep.Seed)
	var c *clientProc
	stop := func() {
		if c != nil {
			c.proc.Kill(time.Second)
			c = nil
		}
	}
	defer stop()
	type pairSeen struct {
		id    string
		trace []traceEvent
	}
	pairs := map[string]pairSeen{}
	witnesses := map[string]*proseWitness{}
	// lastTail and lastTailOf are the stderr tail last shown for a crash and its scenario's
	// name: a client that crashes the same way on every scenario shows it once in full.
	var lastTail, lastTailOf string
	// sameCrash counts the scenarios, from the first, on which the client crashed the same way
	// before deciding anything (an unwritten call_with_retry, a syntax error); -1 once any
	// scenario went otherwise. Past sameCrashLimit the rest are not started: each would only
	// crash again, and the budget is better not spent on it.
	sameCrash := 0
	for _, d := range scs {
		r.announceStart(d.ID, d.Name)
		t := TestResult{ID: d.ID, Name: d.Name, Step: d.Task, Rule: d.Rule, OutputOf: "client"}
		if sameCrash >= sameCrashLimit {
			t.Status = StatusFail
			t.setMessage(i18n.MN("harness.client.skipped", sameCrash, "Test", strconv.Quote(lastTailOf)))
			r.record(t)
			continue
		}
		if ctx.Err() != nil {
			t.Status = StatusError
			t.setMessage(r.stoppedMsg(r.clientPhase, notRun))
			r.record(t)
			continue
		}
		var probs problems
		var output string
		crashedAtStart := false
		witness := newProseWitness(d, witnesses)
		for k, cs := range d.cases {
			if c == nil {
				var err error
				if c, err = startClient(r.clientSpec); err != nil {
					t.Status = StatusError
					probs = problems{{msg: i18n.M("harness.client.start_failed", "Error", errText(err))}}
					break
				}
			}
			mark := c.proc.Stderr.Mark()
			res := playScenario(ctx, c, d, cs)
			cp := checkScenario(d, cs, res)
			if d.Pair != "" {
				key := fmt.Sprintf("%s#%d", d.Pair, k)
				if prev, ok := pairs[key]; ok {
					if len(res.problems) == 0 && !sameTrace(prev.trace, res.trace) {
						rule, msg := proseCheck(d)
						cp.say(rule, i18n.M(msg, "Other", strconv.Quote(prev.id), "Here", traceString(res.trace), "There", traceString(prev.trace)))
					}
				} else {
					pairs[key] = pairSeen{id: d.ID, trace: res.trace}
				}
			}
			proc := c.proc
			if res.stopped {
				t.Status = StatusError
				probs = problems{{msg: r.stoppedMsg(r.clientPhase, scenarioCut)}}
				stop()
				output += proc.Stderr.Since(mark, outputCap)
				break
			}
			if res.broken {
				stop()
				cp.say("", i18n.M("harness.client.restarted"))
				// A client that crashed or hung says why on its stderr: show the tail.
				switch tail := lastLines(proc.Stderr.Since(mark, sandbox.StderrCap), tailLines); {
				case tail == "":
				case tail == lastTail:
					cp.say("", i18n.M("harness.client.stderr_same", "Test", strconv.Quote(lastTailOf)))
					crashedAtStart = k == 0 && len(res.trace) == 0
				default:
					cp.say("", i18n.M("harness.client.stderr_tail", "Tail", indent(tail, "  ")))
					crashedAtStart = k == 0 && len(res.trace) == 0 && sameCrash == 0
					lastTail, lastTailOf = tail, d.Name
				}
			}
			output += proc.Stderr.Since(mark, outputCap)
			if len(d.cases) > 1 {
				for i := range cp {
					cp[i].msg = i18n.M("harness.fixture.with_cases", "Cases", cs.variant, "Problems", cp[i].msg)
				}
			}
			witness.observe(cs, res, cp, len(probs))
			probs = append(probs, cp...)
			if res.broken {
				// The scenario has failed; a client that hung would only hang again on each
				// further case, and the phase's budget is better spent on the next scenarios.
				if rest := len(d.cases) - k - 1; rest > 0 {
					probs.say("", i18n.MN("harness.client.cases_skipped", rest))
				}
				break
			}
		}
		witness.relabel(probs)
		switch {
		case sameCrash < 0:
		case crashedAtStart:
			sameCrash++
		default:
			sameCrash = -1
		}
		t.Output = clipTail(output, outputCap)
		r.recordVerdict(t, probs, i18n.Msg{})
	}
	if c != nil {
		c.proc.Stdin.Close()
		select {
		case <-c.proc.Done():
		case <-time.After(2 * time.Second):
		}
	}
}
