package grader

// The server phase: the tools/list check, every server fixture on one or more instances of
// the learner's server, and the run-wide stdout rule (docs/grading.md#tools).

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/kata-mcp/kata/grader/sandbox"
	"github.com/kata-mcp/kata/internal/i18n"
	"github.com/kata-mcp/kata/katas"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// hasRefusedFixture reports whether a server fixture needs an Orders API that refuses.
func (r *run) hasRefusedFixture() bool {
	if set := r.packet.Fixtures["server"]; set != nil {
		for _, f := range set.Fixtures {
			if f.Backend.Kind == katas.BackendRefused {
				return true
			}
		}
	}
	return false
}

// closedPortURL returns a loopback URL where nothing listens, and a func that releases it.
// The port is held by a socket that is bound but never listens: connections to it are refused
// (RST), and no other listener (another grading run's Orders API) can take the port meanwhile.
func closedPortURL() (string, func(), error) {
	fd, err := syscall.Socket(syscall.AF_INET, syscall.SOCK_STREAM, 0)
	if err != nil {
		return "", nil, fmt.Errorf("reserving a closed port: %w", err)
	}
	release := func() { syscall.Close(fd) }
	if err := syscall.Bind(fd, &syscall.SockaddrInet4{Addr: [4]byte{127, 0, 0, 1}}); err != nil {
		release()
		return "", nil, fmt.Errorf("reserving a closed port: %w", err)
	}
	sa, err := syscall.Getsockname(fd)
	in4, ok := sa.(*syscall.SockaddrInet4)
	if err != nil || !ok {
		release()
		return "", nil, fmt.Errorf("reserving a closed port: %v", err)
	}
	return fmt.Sprintf("http://127.0.0.1:%d", in4.Port), release, nil
}

// worker is one server instance and the tests it runs, one at a time.
type worker struct {
	conn *serverConn
	// spec launches (and relaunches) the worker's server.
	spec launchSpec
	// lastProc is the server killed by the last restart, for its stderr tail.
	lastProc *sandbox.Process
}

// stop ends the worker's server.
func (w *worker) stop() {
	if w.conn != nil {
		w.conn.close()
		w.conn = nil
	}
}

// mustWait reports whether a fixture spends most of its time waiting for a timeout.
func mustWait(f katas.Fixture) bool {
	return f.Backend.Kind == katas.BackendSlow || f.Backend.SlowPage
}

// onExtraWorker reports whether a fixture runs on a server instance other than the main one:
// one whose Orders API refuses connections (on the instance started with the closed port's
// URL), or, unless the grade is one of a batch (Options.Batch), one that must wait for a
// timeout (on an instance of its own).
func (r *run) onExtraWorker(f katas.Fixture) bool {
	return f.Backend.Kind == katas.BackendRefused || (mustWait(f) && !r.opts.Batch)
}

// runServerPhase launches the learner's server and runs the tools/list check, every server
// fixture, and the stdout check. Fixtures that must wait for a timeout each run on an extra
// server instance, concurrently with the rest, so a full grade costs about one slow fixture
// plus start-up, not their sum; fixtures whose Orders API refuses connections share one more
// instance, started with a closed port's URL. Every instance starts at once, and all have
// started before any fixture runs, so start-up load never eats into a timed call. In a batch
// (Options.Batch) the fixtures that must wait run on the main instance instead, after every
// other fixture, in file order: two instances at most, the main one and the refused one
// (docs/grading.md#instances). Values are drawn in fixture order before anything runs, so a
// seed repeats exactly. A main server that cannot be started is the error returned (the
// submission cannot be graded).
func (r *run) runServerPhase(ctx context.Context) error {
	set := r.packet.Fixtures["server"]
	d := newDrawer(r.rep.Seed)
	d.defs = r.packet.ToolDefinitions
	cases := make([][]drawn, len(set.Fixtures))
	for i, f := range set.Fixtures {
		cases[i] = d.drawCases(f)
	}
	// Spare ids for re-running a case that looks like load, not a fault (see suspectLoad),
	// drawn after every case so the cases' own values do not depend on them.
	spares := d.spareDrawer(r.rep.Seed)
	for i, f := range set.Fixtures {
		for j := range cases[i] {
			sp := spares.draw(f, cases[i][j].spec)
			cases[i][j].spare = &sp
		}
	}
	type job struct {
		w   *worker
		idx []int
	}
	var jobs []*job
	var refused *job
	for i, f := range set.Fixtures {
		switch {
		case f.Backend.Kind == katas.BackendRefused:
			if refused == nil {
				refused = &job{w: &worker{spec: r.refusedSpec}}
				jobs = append(jobs, refused)
			}
			refused.idx = append(refused.idx, i)
		case r.onExtraWorker(f):
			jobs = append(jobs, &job{w: &worker{spec: r.spec}, idx: []int{i}})
		}
	}
	var started sync.WaitGroup
	for _, j := range jobs {
		started.Add(1)
		go func() {
			defer started.Done()
			// A failed start is retried, and reported, by the job's first fixture.
			if conn, err := launchServer(ctx, j.w.spec, r.viol); err == nil {
				j.w.conn = conn
			}
		}()
	}
	launched := time.Now()
	conn, err := launchServer(ctx, r.spec, r.viol)
	r.rep.Timings.ServerStart = time.Since(launched)
	if err != nil {
		started.Wait()
		for _, j := range jobs {
			j.w.stop()
		}
		return err
	}
	main := &worker{conn: conn, spec: r.spec}
	defer main.stop()
	r.runToolsList(ctx, main)
	started.Wait()
	results := make([]TestResult, len(set.Fixtures))
	var wg sync.WaitGroup
	for _, j := range jobs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer j.w.stop()
			for _, i := range j.idx {
				results[i] = r.runFixture(ctx, j.w, set.Fixtures[i], cases[i])
			}
		}()
	}
	// On the main instance: every fixture that needs no other, those that failed last time first
	// (Options.First), then, in a batch, those that must wait (their instances' share of the
	// work, done one after another).
	var waiting []int
	for _, i := range failedFirst(set.Fixtures, r.opts.First) {
		switch f := set.Fixtures[i]; {
		case r.onExtraWorker(f):
		case mustWait(f):
			waiting = append(waiting, i)
		default:
			results[i] = r.runFixture(ctx, main, f, cases[i])
		}
	}
	for _, i := range waiting {
		results[i] = r.runFixture(ctx, main, set.Fixtures[i], cases[i])
	}
	wg.Wait()
	r.mu.Lock()
	r.rep.Tests = append(r.rep.Tests, results...)
	r.mu.Unlock()
	r.runStdoutCheck()
	return nil
}

// failedFirst is the order the main process runs fixtures in: those named in first (the
// tests that failed last time) in their usual order, then the rest in theirs.
func failedFirst(fs []katas.Fixture, first []string) []int {
	order := make([]int, 0, len(fs))
	for pass := range 2 {
		for i, f := range fs {
			if slices.Contains(first, f.ID) == (pass == 0) {
				order = append(order, i)
			}
		}
	}
	return order
}

func (r *run) runToolsList(ctx context.Context, w *worker) {
	name, rule, _ := runWideTest("tools-list", r.packet, nil)
	r.announceStart("tools-list", name)
	t := TestResult{ID: "tools-list", Name: name, Step: 1, Rule: rule, OutputOf: "server"}
	mark := w.conn.proc.Stderr.Mark()
	cctx, cancel := context.WithTimeout(ctx, callSlack)
	defer cancel()
	res, err := w.conn.session.ListTools(cctx, nil)
	var probs problems
	if err != nil {
		probs.say(RuleToolsList, i18n.M("harness.tools_list.failed", "Error", learnerJSONError(err.Error())))
	} else {
		have := map[string]*mcp.Tool{}
		for _, tool := range res.Tools {
			have[tool.Name] = tool
		}
		for _, want := range r.packet.Tools {
			tool, ok := have[want]
			if !ok {
				probs.say(RuleToolsList, i18n.M("harness.tools_list.not_listed", "Tool", strconv.Quote(want), "Listed", toolNames(res.Tools)))
				continue
			}
			if typ := schemaType(tool.InputSchema); typ != "object" {
				probs.say(RuleToolsList, i18n.M("harness.tools_list.schema_type", "Tool", strconv.Quote(want), "Type", schemaTypeMsg(typ)))
			} else if missing := declaredSchemaGaps(tool.InputSchema, r.packet.Definition(want)); len(missing) > 0 {
				probs.say(RuleToolsList, i18n.M("harness.tools_list.declared_missing", "Tool", strconv.Quote(want), "Missing", strings.Join(missing, ", ")))
			}
		}
	}
	t.Output = w.conn.proc.Stderr.Since(mark, outputCap)
	r.recordVerdict(t, probs, i18n.Msg{})
}

// toolNames lists the tools' names for a message, or says there are none.
func toolNames(tools []*mcp.Tool) i18n.Msg {
	var names []string
	for _, t := range tools {
		names = append(names, t.Name)
	}
	if len(names) == 0 {
		return i18n.M("harness.none")
	}
	return i18n.Raw(strings.Join(names, ", "))
}

// schemaTypeMsg is schemaType's answer for a message: the type as sent, or "(none)" in the
// reader's language.
func schemaTypeMsg(typ string) i18n.Msg {
	if typ == schemaTypeNone {
		return i18n.M("harness.tools_list.no_type")
	}
	return i18n.Raw(typ)
}

// callDeadline is the per-call deadline of docs/grading.md#api-timeout: timeout × pages + 5 s.
func callDeadline(dr drawn) time.Duration {
	pages := 1
	if dr.beh != nil && len(dr.beh.pages) > 1 {
		pages = len(dr.beh.pages)
	}
	return time.Duration(pages)*apiTimeout + callSlack
}

// caseResult is what one call of a fixture produced.
type caseResult struct {
	probs problems
	// notes are what a call that passed is worth knowing for (TestResult.Note).
	notes  []i18n.Msg
	detail i18n.Msg
	output string
	// errored: the call could not be graded (the phase's budget ran out, or the run was
	// interrupted), so the test is an error rather than a failure.
	errored bool
	// suspect: the failure may be the machine's load rather than the server (suspectLoad).
	suspect bool
}

// suspectLoad reports whether a failed call looks like load rather than a fault: the Orders
// API answers this fixture at once (no hold, no drop, no refusal), yet the server reported a
// category the contract calls retryable (a timeout, typically) where another was expected;
// or, for a search whose later page is held or fails, the server gave up before it ever asked
// for that page (its timeout fired on a page the API answered at once).
func suspectLoad(f katas.Fixture, dr drawn, out callOutcome, c katas.Contract) bool {
	switch f.Backend.Kind {
	case katas.BackendOK, katas.BackendStatus, katas.BackendPages, katas.BackendEmpty:
	default:
		return false
	}
	if out.err != nil || out.res == nil {
		return false
	}
	if f.Backend.SlowPage {
		return dr.beh != nil && len(out.requests) < dr.beh.slowPage
	}
	if f.Backend.FailPage && dr.beh != nil && len(out.requests) < dr.beh.failPage {
		// It never asked for the failing page: its timeout fired on an earlier page, which
		// the API answered at once (partial results then come back empty).
		return true
	}
	payload, _, _ := payloadOf(out.res)
	name, _, _ := c.Field(katas.RoleCategory)
	got, _ := payload[name].(string)
	return got != "" && got != f.Expect.Category && c.Retryable(got)
}

// runFixture makes a fixture's calls (one per case: each status of its list, each malformed
// form) on the worker's server and checks them; a server that hangs or dies fails the test
// and is restarted for the next call. Cases that fail with the same problems are reported
// together. The result is announced as done and returned; the caller records it in order.
func (r *run) runFixture(ctx context.Context, w *worker, f katas.Fixture, cases []drawn) TestResult {
	r.announceStart(f.ID, f.Name)
	started := time.Now()
	t := TestResult{ID: f.ID, Name: f.Name, Step: f.Task, Rule: f.Rule, OutputOf: "server"}
	var groups []i18n.Msg           // problems, in order of first appearance
	labels := map[string][]string{} // problem text (English) → labels of the cases that had it
	var broken problems             // every problem of every case, for the rules broken
	var notes []i18n.Msg            // the cases' notes, each once
	var detail i18n.Msg
	var output string
	for _, dr := range cases {
		if ctx.Err() != nil {
			t.Status = StatusError
			msg := r.stoppedMsg(r.serverPhase, notRun)
			if len(cases) > 1 && len(groups) > 0 {
				msg = r.stoppedMsg(r.serverPhase, remainingCuts)
			}
			groups = append(groups, msg)
			break
		}
		cr := r.runCase(ctx, w, f, dr)
		if cr.suspect && dr.spare != nil && ctx.Err() == nil {
			// The server answered with a retryable category although the Orders API had
			// answered at once: on a loaded machine the learner's 0.5 s timeout can fire on a
			// prompt answer. Run the case once more with fresh ids; a real fault fails again.
			again := r.runCase(ctx, w, f, *dr.spare)
			again.output = cr.output + again.output
			if len(again.probs) == 0 {
				cr = again
			}
		}
		if cr.output != "" {
			output += cr.output
		}
		for _, n := range cr.notes {
			if !slices.ContainsFunc(notes, func(m i18n.Msg) bool { return m.English() == n.English() }) {
				notes = append(notes, n)
			}
		}
		if cr.errored {
			t.Status = StatusError
		}
		if len(cr.probs) == 0 {
			continue
		}
		broken = append(broken, cr.probs...)
		found := i18n.Lines(cr.probs.messages()...)
		key := found.English()
		if _, seen := labels[key]; !seen {
			groups = append(groups, found)
		}
		labels[key] = append(labels[key], dr.label)
		if detail.IsZero() {
			detail = cr.detail
		}
	}
	var probs []i18n.Msg
	for _, g := range groups {
		if ls := labels[g.English()]; len(cases) > 1 && len(ls) > 0 {
			g = i18n.M("harness.fixture.with_cases", "Cases", strings.Join(ls, ", "), "Problems", g)
		}
		probs = append(probs, g)
	}
	if len(cases) > 1 && len(probs) > 0 && t.Status == "" {
		n := 0
		for _, ls := range labels {
			n += len(ls)
		}
		probs = append(probs, i18n.MN("harness.fixture.calls_failed", len(cases), "Failed", n))
	}
	t.Output = clipTail(output, outputCap)
	t.FailedRules = broken.rules()
	if len(notes) > 0 {
		t.setNote(notes...)
	}
	t.Duration = time.Since(started)
	return r.announceDone(withVerdict(t, probs, detail))
}

// runCase makes one call of a fixture and checks it.
func (r *run) runCase(ctx context.Context, w *worker, f katas.Fixture, dr drawn) caseResult {
	var cr caseResult
	if w.conn == nil {
		conn, err := launchServer(ctx, w.spec, r.viol)
		if err != nil {
			cr.errored = true
			if ctx.Err() != nil {
				cr.probs = problems{{msg: r.stoppedMsg(r.serverPhase, noRestart)}}
			} else {
				cr.probs.say(RuleStaysUp, i18n.M("harness.fixture.no_restart", "Error", errText(err)))
			}
			return cr
		}
		w.conn = conn
	}
	if dr.beh != nil {
		if f.Tool == "search_orders" {
			r.api.setCustomer(dr.id, dr.beh)
		} else {
			r.api.setOrder(dr.id, dr.beh)
		}
	}
	w.conn.label.set(f.ID) // the stdout check names the test in the reader's words
	mark := w.conn.proc.Stderr.Mark()
	before := r.api.strayRequests()
	deadline := callDeadline(dr)
	cctx, cancel := context.WithTimeout(ctx, deadline)
	res, err := w.conn.session.CallTool(cctx, &mcp.CallToolParams{Name: f.Tool, Arguments: dr.args})
	returned := time.Now()
	cancel()
	out := callOutcome{res: res, err: err, strayRequests: r.api.strayRequests() - before}
	if dr.id != "" {
		out.requests = r.api.requestsFor(dr.id)
		out.retryAfterSent, out.hasRetryAfterSent = r.api.retryAfterSent(dr.id)
		out.sent = r.api.sentFor(dr.id)
		if late := r.api.answeredLateFor(dr.id); !late.IsZero() && !late.After(returned) {
			out.waitedPastTimeout = true
		}
	}
	var rpc *jsonrpc.Error
	switch {
	case err != nil && cctx.Err() != nil && ctx.Err() != nil:
		cr.errored = true
		cr.probs = problems{{msg: r.stoppedMsg(r.serverPhase, callCut)}}
		w.restart()
	case err != nil && errors.Is(cctx.Err(), context.DeadlineExceeded):
		cr.probs.say(RuleAnswers, i18n.M("harness.fixture.hung", "Deadline", deadline.String(), "Timeout", fmt.Sprintf("%.1f", apiTimeout.Seconds())))
		w.restart()
	case err != nil && !errors.As(err, &rpc) && w.serverDied():
		_, how := w.conn.proc.Exited()
		p := []i18n.Msg{i18n.M("harness.fixture.died", "How", how)}
		if tail := lastLines(w.conn.proc.Stderr.Since(mark, sandbox.StderrCap), tailLines); tail != "" {
			p = append(p, i18n.M("harness.fixture.stderr_tail", "Tail", indent(tail, "  ")))
		}
		cr.probs.say(RuleStaysUp, i18n.Lines(p...))
		w.restart()
	default:
		out.token = r.token()
		all := checkCall(f, dr, out, r.packet.Contract)
		if f.Repair {
			all = append(all, r.repair(ctx, w, f, dr, res)...)
		}
		cr.probs, cr.notes = all.failures(), all.noteMessages()
		cr.suspect = len(cr.probs) > 0 && suspectLoad(f, dr, out, r.packet.Contract)
	}
	if w.conn != nil {
		cr.output = w.conn.proc.Stderr.Since(mark, outputCap)
	} else if w.lastProc != nil {
		cr.output = w.lastProc.Stderr.Since(mark, outputCap)
	}
	if len(cr.probs) > 0 {
		cr.detail = r.failureDetail(f, dr, res, err)
	}
	return cr
}

// serverDied reports whether the worker's server ended, waiting briefly for it to be reaped.
func (w *worker) serverDied() bool {
	select {
	case <-w.conn.proc.Done():
		return true
	case <-time.After(time.Second):
		return false
	}
}

// restart kills the worker's server; its next test launches a fresh one.
func (w *worker) restart() {
	if w.conn != nil {
		w.lastProc = w.conn.proc
		w.conn.close()
		w.conn = nil
	}
}

// protocolStep is the task step the run-wide stdout rule reports under: the step of the
// fixture that expects a JSON-RPC error (the task's "keep the protocol clean" step), else the
// last step any server fixture grades, so the test never lands under a step the task lacks.
func protocolStep(set *katas.FixtureSet) int {
	if set == nil {
		return 1
	}
	last := 1
	for _, f := range set.Fixtures {
		if f.Expect.ProtocolError != 0 {
			return f.Task
		}
		last = max(last, f.Task)
	}
	return last
}

// runStdoutCheck is the run-wide rule: nothing but JSON-RPC on stdout.
func (r *run) runStdoutCheck() {
	name, rule, _ := runWideTest("stdout-protocol-only", r.packet, nil)
	r.announceStart("stdout-protocol-only", name)
	t := TestResult{ID: "stdout-protocol-only", Name: name, Step: protocolStep(r.packet.Fixtures["server"]), Rule: rule}
	var probs problems
	v := r.viol.all()
	if len(v) > 0 {
		p := []i18n.Msg{i18n.MN("harness.stdout.not_jsonrpc", r.viol.count())}
		for i, x := range v {
			if i == 3 {
				break
			}
			during := i18n.M("harness.stdout.at_startup")
			if x.Test != "" {
				name := x.Test
				if words, ok := r.packet.TestText(x.Test); ok {
					name = words.Name
				}
				during = i18n.M("harness.stdout.during", "Test", testName(x.Test, name))
			}
			p = append(p, i18n.M("harness.stdout.line", "When", during, "Line", strconv.Quote(x.Line)))
		}
		probs.say(RuleStdoutProtocol, i18n.Lines(p...))
	}
	r.recordVerdict(t, probs, i18n.Msg{})
}

// schemaTypeNone is what schemaType says of a schema without a "type".
const schemaTypeNone = "(none)"

// schemaType is the "type" of a tool's inputSchema as the learner sent it, quoted, or
// "(none)" (schemaTypeNone) when it has none.
func schemaType(schema any) string {
	b, _ := json.Marshal(schema)
	var s struct {
		Type any `json:"type"`
	}
	if json.Unmarshal(b, &s) != nil || s.Type == nil {
		return schemaTypeNone
	}
	if t, ok := s.Type.(string); ok && t == "object" {
		return t
	}
	return jsonText(s.Type)
}
