package grader

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	mrand "math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/kata-mcp/kata/katas"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Grading constants from exercise-orders.md §2 and §7.
const (
	// apiTimeout is ORDERS_API_TIMEOUT_SECONDS as the grader hands it to the server.
	apiTimeout = 500 * time.Millisecond
	// callSlack is added to apiTimeout × pages for each call's deadline.
	callSlack = 5 * time.Second
	// runDeadline bounds a whole grading run.
	runDeadline = 60 * time.Second
	// outputCap bounds a test's stderr output in the report.
	outputCap = 4 << 10
	// gotCap bounds the "what came back" part of a failure message (2 KiB, §6).
	gotCap = 2 << 10
)

// serverName is the .mcp.json entry the grader launches (exercise-orders.md §1).
const serverName = "orders"

// run is the state of one grading run.
type run struct {
	packet *katas.Packet
	spec   launchSpec
	api    *ordersAPI
	viol   *violationLog
	rep    *Report
	opts   Options
	total  int
	start  time.Time
	// mu guards rep.Tests, done and progress calls: fixtures run concurrently.
	mu   sync.Mutex
	done int
	// clientSpec launches the learner's client (kata.json "client").
	clientSpec launchSpec
	// mcp is the workspace's .mcp.json, for the config rules.
	mcp *MCPConfig
}

func grade(ctx context.Context, lib *katas.Library, dir string, opts Options) *Report {
	r := &run{rep: &Report{Version: 3, Tests: []TestResult{}}, opts: opts, start: time.Now(), viol: &violationLog{}}
	r.rep.Seed = opts.Seed
	if !opts.SeedSet {
		r.rep.Seed = mrand.Int64N(1_000_000_000)
	}
	if abs, err := filepath.Abs(dir); err == nil {
		dir = abs
	}
	r.rep.Workspace = dir
	becomeSubreaper()
	defer func() { reapEscapees(dir, r.token()) }()
	if err := r.prepare(ctx, lib, dir); err != nil {
		return r.finishError(err)
	}
	if r.api != nil {
		defer r.api.close()
	}
	ctx, cancel := context.WithTimeout(ctx, runDeadline)
	defer cancel()
	r.total = r.countTests()
	if r.grades("config") && r.packet.ConfigRules != nil {
		r.runConfigTests()
	}
	if r.grades("server") {
		r.info("starting the server")
		conn, err := launchServer(ctx, r.spec, r.viol)
		if err != nil {
			return r.finishError(err)
		}
		main := &worker{conn: conn}
		r.runServerTests(ctx, main)
		main.stop()
	}
	if r.grades("client") {
		r.runClientTests(ctx)
	}
	return r.finish()
}

// grades reports whether the kata grades the given part.
func (r *run) grades(part string) bool { return contains(r.packet.Graded, part) }

// countTests is the number of tests the run will report.
func (r *run) countTests() int {
	n := 0
	if set := r.packet.Fixtures["server"]; set != nil && r.grades("server") {
		n += len(set.Fixtures) + 2
	}
	if r.packet.Scenarios != nil && r.grades("client") {
		n += len(r.packet.Scenarios.Scenarios)
	}
	if r.packet.ConfigRules != nil && r.grades("config") {
		n += len(r.packet.ConfigRules.Rules)
	}
	return n
}

// prepare reads the workspace, checks the graded parts, starts the Orders API and expands the
// server's configuration. Every error is a *SubmissionError.
func (r *run) prepare(ctx context.Context, lib *katas.Library, dir string) error {
	if st, err := os.Stat(dir); err != nil || !st.IsDir() {
		return submissionErr(dir, 0, "not a workspace folder (create one with `kata init KATA DIR`)")
	}
	kc, err := LoadKataConfig(dir)
	if err != nil {
		return err
	}
	p, ok := lib.Get(kc.Kata)
	if !ok {
		return submissionErr("kata.json", 0, "kata %q is not a known kata (known: %s)", kc.Kata, strings.Join(lib.IDs(), ", "))
	}
	r.packet = p
	r.rep.Kata = p.ID
	if contains(p.Graded, "client") {
		if kc.Client == nil {
			return submissionErr("kata.json", 0, `kata %s grades a client, but kata.json has no "client" command (for Python: "client": {"command": "python3", "args": ["client.py"]})`, p.ID)
		}
		r.clientSpec = launchSpec{dir: dir, command: kc.Client.Command, args: kc.Client.Args, env: processEnv(nil)}
	}
	if !contains(p.Graded, "server") {
		if contains(p.Graded, "config") {
			if r.mcp, err = LoadMCPConfig(dir); err != nil {
				return err
			}
		}
		return r.build(ctx, dir, kc)
	}
	mc, err := LoadMCPConfig(dir)
	if err != nil {
		return err
	}
	r.mcp = mc
	entry, ok := mc.Servers[serverName]
	if !ok {
		return submissionErr(".mcp.json", keyLine(mc.raw, "mcpServers"), "no server named %q (found: %s); the grader launches the server named %q", serverName, strings.Join(mc.ServerNames(), ", "), serverName)
	}
	if entry.Command == "" {
		return submissionErr(".mcp.json", keyLine(mc.raw, serverName), "server %q has no command: the kata's server is a stdio server launched with command and args", serverName)
	}
	token := make([]byte, 16)
	rand.Read(token)
	api, err := startOrdersAPI(hex.EncodeToString(token))
	if err != nil {
		return err
	}
	vars := map[string]string{
		"ORDERS_API_URL":             api.URL,
		"ORDERS_API_TOKEN":           api.token,
		"ORDERS_API_TIMEOUT_SECONDS": fmt.Sprint(apiTimeout.Seconds()),
	}
	exp, err := mc.expandEntry(entry, lookupEnv(vars))
	if err != nil {
		api.close()
		return err
	}
	r.api = api
	r.spec = launchSpec{dir: dir, command: exp.Command, args: exp.Args, env: processEnv(exp.Env)}
	if err := r.build(ctx, dir, kc); err != nil {
		api.close()
		r.api = nil
		return err
	}
	return nil
}

// build runs kata.json's build command, once per grade, when there is one.
func (r *run) build(ctx context.Context, dir string, kc *KataConfig) error {
	if kc.Build == nil {
		return nil
	}
	r.info("building")
	return runBuild(ctx, dir, kc.Build, processEnv(nil))
}

// runBuild runs kata.json's build command once, in its own process group, within the run
// deadline; a failure is a submission error carrying the build's output tail.
func runBuild(ctx context.Context, dir string, b *Command, env []string) error {
	ctx, cancel := context.WithTimeout(ctx, runDeadline)
	defer cancel()
	cmd := exec.CommandContext(ctx, resolveCommand(dir, b.Command), b.Args...)
	cmd.Dir, cmd.Env = dir, env
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	out := &tailBuffer{cap: stderrCap}
	cmd.Stdout, cmd.Stderr = out, out
	if err := cmd.Run(); err != nil {
		return submissionErr("kata.json", 0, "build `%s %s` failed: %v\n%s", b.Command, strings.Join(b.Args, " "), err, out.since(0, 4096))
	}
	return nil
}

// worker is one server instance and the tests it runs, one at a time.
type worker struct {
	conn *serverConn
	// lastProc is the server killed by the last restart, for its stderr tail.
	lastProc *process
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

// runServerTests runs the tools/list check, every server fixture, and the stdout check.
// Fixtures that must wait for a timeout each run on an extra server instance, concurrently
// with the rest, so a full grade costs about one slow fixture plus start-up, not their sum.
// Values are drawn in fixture order before anything runs, so a seed repeats exactly.
func (r *run) runServerTests(ctx context.Context, main *worker) {
	set := r.packet.Fixtures["server"]
	r.runToolsList(ctx, main)
	d := newDrawer(r.rep.Seed)
	draws := make([]drawn, len(set.Fixtures))
	for i, f := range set.Fixtures {
		draws[i] = d.draw(f)
	}
	results := make([]TestResult, len(set.Fixtures))
	var wg sync.WaitGroup
	for i, f := range set.Fixtures {
		if mustWait(f) {
			wg.Add(1)
			go func() {
				defer wg.Done()
				w := &worker{}
				defer w.stop()
				results[i] = r.runFixture(ctx, w, f, draws[i])
			}()
		}
	}
	for i, f := range set.Fixtures {
		if !mustWait(f) {
			results[i] = r.runFixture(ctx, main, f, draws[i])
		}
	}
	wg.Wait()
	r.mu.Lock()
	r.rep.Tests = append(r.rep.Tests, results...)
	r.mu.Unlock()
	r.runStdoutCheck()
}

func (r *run) runToolsList(ctx context.Context, w *worker) {
	name := "tools/list: declares " + strings.Join(r.packet.Tools, " and ")
	r.begin(name)
	t := TestResult{ID: "tools-list", Name: name, TaskID: 1, Rule: "the server lists every tool the kata calls, each with an object input schema"}
	mark := w.conn.proc.stderr.mark()
	cctx, cancel := context.WithTimeout(ctx, callSlack)
	defer cancel()
	res, err := w.conn.session.ListTools(cctx, nil)
	var probs []string
	if err != nil {
		probs = append(probs, fmt.Sprintf("tools/list failed: %v", err))
	} else {
		have := map[string]*mcp.Tool{}
		for _, tool := range res.Tools {
			have[tool.Name] = tool
		}
		for _, want := range r.packet.Tools {
			if _, ok := have[want]; !ok {
				probs = append(probs, fmt.Sprintf("tool %q is not listed (listed: %s)", want, toolNames(res.Tools)))
			}
		}
	}
	t.Output = w.conn.proc.stderr.since(mark, outputCap)
	r.end(t, probs, "")
}

func toolNames(tools []*mcp.Tool) string {
	var names []string
	for _, t := range tools {
		names = append(names, t.Name)
	}
	if len(names) == 0 {
		return "none"
	}
	return strings.Join(names, ", ")
}

// callDeadline is the per-call deadline of exercise-orders.md §2: timeout × pages + 5 s.
func callDeadline(dr drawn) time.Duration {
	pages := 1
	if dr.beh != nil && len(dr.beh.pages) > 1 {
		pages = len(dr.beh.pages)
	}
	return time.Duration(pages)*apiTimeout + callSlack
}

// runFixture makes one fixture's call on the worker's server and checks it; a server that
// hangs or dies fails the test and is restarted for the worker's next one. The result is
// announced as done and returned; the caller records it in order.
func (r *run) runFixture(ctx context.Context, w *worker, f katas.Fixture, dr drawn) TestResult {
	r.begin(f.Name)
	started := time.Now()
	t := TestResult{ID: f.ID, Name: f.Name, TaskID: f.Task, Rule: f.Rule}
	defer func() { t.Duration = time.Since(started) }()
	if ctx.Err() != nil {
		t.Status, t.Message = StatusError, fmt.Sprintf("not run: the grading run's %s deadline passed", runDeadline)
		return r.announce(t)
	}
	if w.conn == nil {
		conn, err := launchServer(ctx, r.spec, r.viol)
		if err != nil {
			t.Status, t.Message = StatusError, "the server could not be (re)started: "+err.Error()
			return r.announce(t)
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
	w.conn.label.set(f.Name)
	mark := w.conn.proc.stderr.mark()
	before := r.api.strayRequests()
	deadline := callDeadline(dr)
	cctx, cancel := context.WithTimeout(ctx, deadline)
	res, err := w.conn.session.CallTool(cctx, &mcp.CallToolParams{Name: f.Tool, Arguments: dr.args})
	cancel()
	out := callOutcome{res: res, err: err, strayRequests: r.api.strayRequests() - before}
	if dr.id != "" {
		out.requests = r.api.requestsFor(dr.id)
		out.retryAfterSent, out.hasRetryAfterSent = r.api.retryAfterSent(dr.id)
	}
	var probs []string
	var rpc *jsonrpc.Error
	switch {
	case err != nil && cctx.Err() != nil && ctx.Err() != nil:
		t.Status = StatusError
		probs = []string{fmt.Sprintf("the grading run's %s deadline passed during this call", runDeadline)}
		w.restart()
	case err != nil && errors.Is(cctx.Err(), context.DeadlineExceeded):
		probs = []string{fmt.Sprintf("no answer within %s: the server hung on this call (an HTTP request without a timeout? ORDERS_API_TIMEOUT_SECONDS is %.1f s); it was restarted", deadline, apiTimeout.Seconds())}
		w.restart()
	case err != nil && !errors.As(err, &rpc) && w.serverDied():
		_, how := w.conn.proc.exited()
		probs = []string{fmt.Sprintf("the server %s during this call; it was restarted for the next test", how)}
		w.restart()
	default:
		probs = checkCall(f, dr, out, r.packet.Contract)
	}
	if w.conn != nil {
		t.Output = w.conn.proc.stderr.since(mark, outputCap)
	} else if w.lastProc != nil {
		t.Output = w.lastProc.stderr.since(mark, outputCap)
	}
	t.Duration = time.Since(started)
	return r.announce(finish(t, probs, r.failureDetail(f, dr, res, err)))
}

// serverDied reports whether the worker's server ended, waiting briefly for it to be reaped.
func (w *worker) serverDied() bool {
	select {
	case <-w.conn.proc.done:
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

// failureDetail shows the call sent, how the Orders API behaved and what came back.
func (r *run) failureDetail(f katas.Fixture, dr drawn, res *mcp.CallToolResult, err error) string {
	args, _ := json.Marshal(dr.args)
	var b strings.Builder
	fmt.Fprintf(&b, "call: tools/call %s %s\n", f.Tool, args)
	if dr.beh != nil {
		fmt.Fprintf(&b, "Orders API: %s\n", describeBehaviour(dr.beh))
	}
	switch {
	case err != nil:
		fmt.Fprintf(&b, "got: error: %s", clipText(err.Error(), gotCap))
	case res != nil:
		got, _ := json.Marshal(res)
		fmt.Fprintf(&b, "got: %s", clipText(string(got), gotCap))
	}
	return b.String()
}

func describeBehaviour(b *behaviour) string {
	switch b.kind {
	case katas.BackendOK:
		return "answered 200 with the order"
	case katas.BackendStatus:
		s := fmt.Sprintf("answered %d", b.status)
		if b.status == 429 {
			switch b.retryAfter {
			case "seconds":
				s += fmt.Sprintf(" with Retry-After: %d", b.delay)
			case "http-date":
				s += fmt.Sprintf(" with Retry-After as an HTTP-date %d s ahead", b.delay)
			default:
				s += " without a Retry-After header"
			}
		}
		return s
	case katas.BackendSlow:
		return fmt.Sprintf("held the request longer than the %.1f s timeout", apiTimeout.Seconds())
	case katas.BackendDrop:
		return "closed the connection without answering"
	case katas.BackendEmpty:
		return `answered 200 {"orders": [], "next_page": null}`
	case katas.BackendPages:
		n := 0
		for _, p := range b.pages {
			n += len(p)
		}
		s := fmt.Sprintf("had %d orders over %d pages", n, len(b.pages))
		if b.slowPage > 0 {
			s += fmt.Sprintf("; page %d held the request past the timeout", b.slowPage)
		}
		return s
	}
	return b.kind
}

// runStdoutCheck is the run-wide rule: nothing but JSON-RPC on stdout.
func (r *run) runStdoutCheck() {
	name := "stdout carries only JSON-RPC messages"
	r.begin(name)
	t := TestResult{ID: "stdout-protocol-only", Name: name, TaskID: 5, Rule: "stdout is the protocol channel; logs go to stderr (MCP spec, stdio transport)"}
	var probs []string
	v := r.viol.all()
	if len(v) > 0 {
		p := fmt.Sprintf("%d line(s) on stdout were not JSON-RPC messages; write logs to stderr. First ones:", r.viol.count())
		for i, x := range v {
			if i == 3 {
				break
			}
			during := "at start-up"
			if x.Test != "" {
				during = fmt.Sprintf("during %q", x.Test)
			}
			p += fmt.Sprintf("\n  %s: %q", during, x.Line)
		}
		probs = append(probs, p)
	}
	r.end(t, probs, "")
}

// begin announces a test.
func (r *run) begin(name string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.opts.Progress != nil {
		r.opts.Progress(Event{Phase: PhaseStart, Test: name, Done: r.done, Total: r.total})
	}
}

func (r *run) info(msg string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.opts.Progress != nil {
		r.opts.Progress(Event{Phase: PhaseInfo, Message: msg, Done: r.done, Total: r.total})
	}
}

// finish sets a test's status from its problems (none is a pass) and its message.
func finish(t TestResult, probs []string, detail string) TestResult {
	if t.Status == "" {
		t.Status = StatusPass
		if len(probs) > 0 {
			t.Status = StatusFail
		}
	}
	if len(probs) > 0 {
		t.Message = strings.Join(probs, "\n")
		if detail != "" {
			t.Message += "\n" + detail
		}
	}
	return t
}

// end records a test from its problems.
func (r *run) end(t TestResult, probs []string, detail string) {
	r.record(finish(t, probs, detail))
}

// announce reports a finished test to the progress callback without recording it.
func (r *run) announce(t TestResult) TestResult {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.done++
	if r.opts.Progress != nil {
		tc := t
		r.opts.Progress(Event{Phase: PhaseDone, Test: t.Name, Result: &tc, Done: r.done, Total: r.total})
	}
	return t
}

// record announces a test and appends it to the report.
func (r *run) record(t TestResult) {
	r.announce(t)
	r.mu.Lock()
	defer r.mu.Unlock()
	r.rep.Tests = append(r.rep.Tests, t)
}

func (r *run) finish() *Report {
	r.rep.Status = StatusPass
	for _, t := range r.rep.Tests {
		if t.Status != StatusPass {
			r.rep.Status = StatusFail
		}
	}
	r.rep.DurationMS = time.Since(r.start).Milliseconds()
	return r.rep
}

func (r *run) finishError(err error) *Report {
	r.rep.Status = StatusError
	r.rep.Message = err.Error()
	r.rep.Tests = []TestResult{}
	r.rep.DurationMS = time.Since(r.start).Milliseconds()
	return r.rep
}

// StepTitles maps task step numbers to titles for a report's kata, for grouping output.
func StepTitles(p *katas.Packet) map[int]string {
	m := map[int]string{}
	for _, s := range p.Task.Steps {
		m[s.Number] = s.Title
	}
	return m
}

// sortedSteps returns the task ids present in tests, ascending.
func sortedSteps(tests []TestResult) []int {
	seen := map[int]bool{}
	var ids []int
	for _, t := range tests {
		if !seen[t.TaskID] {
			seen[t.TaskID] = true
			ids = append(ids, t.TaskID)
		}
	}
	sort.Ints(ids)
	return ids
}

// token is the run's Orders API token, "" before the API started.
func (r *run) token() string {
	if r.api == nil {
		return ""
	}
	return r.api.token
}
