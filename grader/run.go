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
	// runDeadline bounds a whole grading run (exercise-orders.md §7). When a kata grades both a
	// server and a client, the run's time is split into serverBudget and clientBudget, so a
	// server that hangs on every call cannot leave the client tests "not run".
	runDeadline = 60 * time.Second
	// serverBudget and clientBudget are the server and client phases' shares of runDeadline.
	serverBudget = 40 * time.Second
	clientBudget = 20 * time.Second
	// tailLines is how many of a crashed process's last stderr lines a failure message shows.
	tailLines = 20
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
	// refusedSpec launches the server with ORDERS_API_URL at a closed port, for fixtures whose
	// Orders API refuses the connection.
	refusedSpec launchSpec
	// releasePort frees the closed port of refusedSpec (nil when there is none).
	releasePort func()
	// parent is the caller's context: when it ends the run was interrupted (ctrl-c, SIGTERM).
	parent context.Context
	// phase names the running phase and its budget, for "not run" messages.
	phase phase
}

// phase is a part of the run with a time budget of its own.
type phase struct {
	name   string // "server" or "client"
	budget time.Duration
}

// budgets returns the server and client phases' budgets: serverBudget and clientBudget when
// the kata grades both, else the whole runDeadline for the one graded (opts may shorten
// them, for tests).
func (r *run) budgets() (server, client time.Duration) {
	server, client = runDeadline, runDeadline
	if r.grades("server") && r.grades("client") {
		server, client = serverBudget, clientBudget
	}
	if r.opts.serverBudget > 0 {
		server = r.opts.serverBudget
	}
	if r.opts.clientBudget > 0 {
		client = r.opts.clientBudget
	}
	return server, client
}

// interrupted reports whether the caller cancelled the run (ctrl-c, SIGTERM).
func (r *run) interrupted() bool { return r.parent != nil && r.parent.Err() != nil }

// stoppedMsg says why a test was not run or a call was cut short: the run was interrupted,
// or the phase's budget was used up.
func (r *run) stoppedMsg(what string) string {
	if r.interrupted() {
		return what + ": grading was interrupted (ctrl-c or SIGTERM)"
	}
	return fmt.Sprintf("%s: the %s tests' %s budget was used up (a %s that hangs costs each test its whole deadline)", what, r.phase.name, r.phase.budget, r.phase.name)
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
	r.parent = ctx
	defer func() {
		if r.releasePort != nil {
			r.releasePort()
		}
	}()
	if err := r.prepare(ctx, lib, dir); err != nil {
		return r.finishError(r.interruptedErr(err))
	}
	if r.api != nil {
		defer r.api.close()
	}
	r.total = r.countTests()
	if r.grades("config") && r.packet.ConfigRules != nil {
		r.runConfigTests()
	}
	serverBudget, clientBudget := r.budgets()
	if r.grades("server") {
		r.phase = phase{"server", serverBudget}
		sctx, cancel := context.WithTimeout(ctx, serverBudget)
		r.info("starting the server")
		conn, err := launchServer(sctx, r.spec, r.viol)
		if err != nil {
			cancel()
			return r.finishError(r.interruptedErr(err))
		}
		main := &worker{conn: conn, spec: r.spec}
		r.runServerTests(sctx, main)
		main.stop()
		cancel()
	}
	if r.grades("client") {
		r.phase = phase{"client", clientBudget}
		cctx, cancel := context.WithTimeout(ctx, clientBudget)
		r.runClientTests(cctx)
		cancel()
	}
	rep := r.finish()
	if r.interrupted() {
		rep.Message = "grading was interrupted (ctrl-c or SIGTERM) before every test ran"
		if rep.Status == StatusPass {
			rep.Status = StatusError
		}
	}
	return rep
}

// interruptedErr replaces err with a plain "interrupted" when the caller cancelled the run.
func (r *run) interruptedErr(err error) error {
	if r.interrupted() {
		return &SubmissionError{Msg: "grading was interrupted (ctrl-c or SIGTERM) before any test ran"}
	}
	return err
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

// clientExample is the "client" entry of the shipped templates for lang, as a hint for a
// kata.json that lacks one; every language's when lang is not one of them.
func clientExample(lang string) string {
	examples := map[string]string{
		"python": `for Python: "client": {"command": "python3", "args": ["client.py"]}`,
		"node":   `for Node.js: "client": {"command": "node", "args": ["client.mjs"]}`,
		"go":     `for Go: "client": {"command": ".kata/bin/client"}`,
	}
	if e, ok := examples[lang]; ok {
		return e
	}
	return examples["python"] + "; " + examples["node"] + "; " + examples["go"]
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
		return submissionErr("kata.json", 0, "kata %q is not a known kata (known: %s); a kata from your own packets needs --packets DIR or KATA_PATH", kc.Kata, strings.Join(lib.IDs(), ", "))
	}
	r.packet = p
	r.rep.Kata = p.ID
	if contains(p.Graded, "client") {
		if kc.Client == nil {
			return submissionErr("kata.json", 0, `kata %s grades a client, but kata.json has no "client" command (%s)`, p.ID, clientExample(kc.Language))
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
	if r.hasRefusedFixture() {
		closed, release, err := closedPortURL()
		if err != nil {
			api.close()
			r.api = nil
			return err
		}
		r.releasePort = release
		vars["ORDERS_API_URL"] = closed
		ref, err := mc.expandEntry(entry, lookupEnv(vars))
		if err != nil {
			api.close()
			r.api = nil
			return err
		}
		r.refusedSpec = launchSpec{dir: dir, command: ref.Command, args: ref.Args, env: processEnv(ref.Env)}
	}
	if err := r.build(ctx, dir, kc); err != nil {
		api.close()
		r.api = nil
		return err
	}
	return nil
}

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

// checkClientCommand makes sure kata.json's client command can be started: a missing program
// is a submission error (exit 2, exercise-orders.md §6), not a failure of every client test.
func checkClientCommand(dir string, c *Command, raw []byte) error {
	path := resolveCommand(dir, c.Command)
	if _, err := exec.LookPath(path); err != nil {
		how := "was not found on PATH"
		if strings.ContainsRune(c.Command, '/') {
			how = "is not an executable file in the workspace"
			if _, serr := os.Stat(path); serr != nil {
				how = "does not exist in the workspace"
			}
		}
		return submissionErr("kata.json", keyLine(raw, "client"), "the client command %q %s; fix \"client\" in kata.json (for a compiled client, the build must create it)", c.Command, how)
	}
	return nil
}

// build runs kata.json's build command, once per grade, when there is one; then checks that
// the client command, when the kata grades a client, can be started.
func (r *run) build(ctx context.Context, dir string, kc *KataConfig) error {
	if kc.Build != nil {
		r.info("building")
		if err := runBuild(ctx, dir, kc.Build, processEnv(nil)); err != nil {
			return err
		}
	}
	if r.grades("client") && kc.Client != nil {
		return checkClientCommand(dir, kc.Client, kc.raw)
	}
	return nil
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
	// spec launches (and relaunches) the worker's server.
	spec launchSpec
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

// onExtraWorker reports whether a fixture runs on a server instance of its own: one that must
// wait for a timeout, or one whose Orders API refuses connections.
func onExtraWorker(f katas.Fixture) bool {
	return mustWait(f) || f.Backend.Kind == katas.BackendRefused
}

// runServerTests runs the tools/list check, every server fixture, and the stdout check.
// Fixtures that must wait for a timeout each run on an extra server instance, concurrently
// with the rest, so a full grade costs about one slow fixture plus start-up, not their sum;
// fixtures whose Orders API refuses connections share one more instance, started with a closed
// port's URL. The extra instances are started (in parallel) before any fixture runs, so their
// start-up load never eats into a timed call. Values are drawn in fixture order before
// anything runs, so a seed repeats exactly.
func (r *run) runServerTests(ctx context.Context, main *worker) {
	set := r.packet.Fixtures["server"]
	r.runToolsList(ctx, main)
	d := newDrawer(r.rep.Seed)
	cases := make([][]drawn, len(set.Fixtures))
	for i, f := range set.Fixtures {
		cases[i] = d.drawCases(f)
	}
	// Spare ids for re-running a case that looks like load, not a fault (see suspectLoad),
	// drawn after every case so the cases' own values do not depend on them.
	spares := d.spareDrawer(r.rep.Seed)
	for i, f := range set.Fixtures {
		for j := range cases[i] {
			status := 0
			if b := cases[i][j].beh; b != nil {
				status = b.status
			}
			sp := spares.draw(f, status, "")
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
		case mustWait(f):
			jobs = append(jobs, &job{w: &worker{spec: r.spec}, idx: []int{i}})
		}
	}
	var wg sync.WaitGroup
	for _, j := range jobs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			// A failed start is retried, and reported, by the job's first fixture.
			if conn, err := launchServer(ctx, j.w.spec, r.viol); err == nil {
				j.w.conn = conn
			}
		}()
	}
	wg.Wait()
	results := make([]TestResult, len(set.Fixtures))
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
	for i, f := range set.Fixtures {
		if !onExtraWorker(f) {
			results[i] = r.runFixture(ctx, main, f, cases[i])
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
	t := TestResult{ID: "tools-list", Name: name, TaskID: 1, Rule: "the server lists every tool the kata calls, each with an object input schema", OutputOf: "server"}
	mark := w.conn.proc.stderr.mark()
	cctx, cancel := context.WithTimeout(ctx, callSlack)
	defer cancel()
	res, err := w.conn.session.ListTools(cctx, nil)
	var probs []string
	if err != nil {
		probs = append(probs, fmt.Sprintf("tools/list failed: %s", learnerJSONError(err.Error())))
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

// caseResult is what one call of a fixture produced.
type caseResult struct {
	probs  []string
	detail string
	output string
	// errored: the call could not be graded (the phase's budget ran out, or the run was
	// interrupted), so the test is an error rather than a failure.
	errored bool
	// suspect: the failure may be the machine's load rather than the server (suspectLoad).
	suspect bool
}

// suspectLoad reports whether a failed call looks like load rather than a fault: the Orders
// API answers this fixture at once (no hold, no drop, no refusal), yet the server reported a
// category the contract calls retryable (a timeout, typically) where another was expected.
func suspectLoad(f katas.Fixture, out callOutcome, c katas.Contract) bool {
	switch f.Backend.Kind {
	case katas.BackendOK, katas.BackendStatus, katas.BackendPages, katas.BackendEmpty:
	default:
		return false
	}
	if f.Backend.SlowPage || out.err != nil || out.res == nil {
		return false
	}
	payload, _, _ := payloadOf(out.res)
	got, _ := payload["errorCategory"].(string)
	return got != "" && got != f.Expect.Category && c.Categories[got]
}

// runFixture makes a fixture's calls (one per case: each status of its list, each malformed
// form) on the worker's server and checks them; a server that hangs or dies fails the test
// and is restarted for the next call. Cases that fail with the same problems are reported
// together. The result is announced as done and returned; the caller records it in order.
func (r *run) runFixture(ctx context.Context, w *worker, f katas.Fixture, cases []drawn) TestResult {
	r.begin(f.Name)
	started := time.Now()
	t := TestResult{ID: f.ID, Name: f.Name, TaskID: f.Task, Rule: f.Rule, OutputOf: "server"}
	var groups []string             // problem texts, in order of first appearance
	labels := map[string][]string{} // problem text → labels of the cases that had it
	var detail, output string
	for _, dr := range cases {
		if ctx.Err() != nil {
			t.Status = StatusError
			msg := r.stoppedMsg("not run")
			if len(cases) > 1 && len(groups) > 0 {
				msg = r.stoppedMsg("the remaining calls were not made")
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
		if cr.errored {
			t.Status = StatusError
		}
		if len(cr.probs) == 0 {
			continue
		}
		key := strings.Join(cr.probs, "\n")
		if _, seen := labels[key]; !seen {
			groups = append(groups, key)
		}
		labels[key] = append(labels[key], dr.label)
		if detail == "" {
			detail = cr.detail
		}
	}
	var probs []string
	for _, g := range groups {
		if ls := labels[g]; len(cases) > 1 && len(ls) > 0 {
			g = fmt.Sprintf("with %s: %s", strings.Join(ls, ", "), g)
		}
		probs = append(probs, g)
	}
	if len(cases) > 1 && len(probs) > 0 && t.Status == "" {
		n := 0
		for _, ls := range labels {
			n += len(ls)
		}
		probs = append(probs, fmt.Sprintf("(%d of the %d calls of this test failed; the call below is the first that did)", n, len(cases)))
	}
	t.Output = clipTail(output, outputCap)
	t.Duration = time.Since(started)
	return r.announce(finish(t, probs, detail))
}

// runCase makes one call of a fixture and checks it.
func (r *run) runCase(ctx context.Context, w *worker, f katas.Fixture, dr drawn) caseResult {
	var cr caseResult
	if w.conn == nil {
		conn, err := launchServer(ctx, w.spec, r.viol)
		if err != nil {
			cr.errored = true
			if ctx.Err() != nil {
				cr.probs = []string{r.stoppedMsg("the server could not be restarted")}
			} else {
				cr.probs = []string{"the server could not be (re)started: " + err.Error()}
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
	w.conn.label.set(f.Name)
	mark := w.conn.proc.stderr.mark()
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
		if late := r.api.answeredLateFor(dr.id); !late.IsZero() && !late.After(returned) {
			out.waitedPastTimeout = true
		}
	}
	var rpc *jsonrpc.Error
	switch {
	case err != nil && cctx.Err() != nil && ctx.Err() != nil:
		cr.errored = true
		cr.probs = []string{r.stoppedMsg("this call was cut short")}
		w.restart()
	case err != nil && errors.Is(cctx.Err(), context.DeadlineExceeded):
		cr.probs = []string{fmt.Sprintf("no answer within %s: the server hung on this call (an HTTP request without a timeout? ORDERS_API_TIMEOUT_SECONDS is %.1f s); it was restarted", deadline, apiTimeout.Seconds())}
		w.restart()
	case err != nil && !errors.As(err, &rpc) && w.serverDied():
		_, how := w.conn.proc.exited()
		p := fmt.Sprintf("the server %s during this call; it was restarted for the next test", how)
		if tail := lastLines(w.conn.proc.stderr.since(mark, stderrCap), tailLines); tail != "" {
			p += fmt.Sprintf("\nserver stderr (last lines):\n%s", indent(tail, "  "))
		}
		cr.probs = []string{p}
		w.restart()
	default:
		cr.probs = checkCall(f, dr, out, r.packet.Contract)
		cr.suspect = len(cr.probs) > 0 && suspectLoad(f, out, r.packet.Contract)
	}
	if w.conn != nil {
		cr.output = w.conn.proc.stderr.since(mark, outputCap)
	} else if w.lastProc != nil {
		cr.output = w.lastProc.stderr.since(mark, outputCap)
	}
	if len(cr.probs) > 0 {
		cr.detail = r.failureDetail(f, dr, res, err)
	}
	return cr
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

// lastLines returns the last n lines of s, without a trailing newline.
func lastLines(s string, n int) string {
	s = strings.TrimRight(s, "\n")
	if s == "" {
		return ""
	}
	lines := strings.Split(s, "\n")
	if len(lines) > n {
		lines = append([]string{"…"}, lines[len(lines)-n:]...)
	}
	return strings.Join(lines, "\n")
}

// clipTail keeps the last n bytes of s.
func clipTail(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return "…" + s[len(s)-n:]
}

// failureDetail shows the call sent, how the Orders API behaved and what came back.
func (r *run) failureDetail(f katas.Fixture, dr drawn, res *mcp.CallToolResult, err error) string {
	args, _ := json.Marshal(dr.args)
	var b strings.Builder
	fmt.Fprintf(&b, "call: tools/call %s %s\n", f.Tool, args)
	switch {
	case f.Backend.Kind == katas.BackendRefused:
		fmt.Fprintf(&b, "Orders API: nothing listening at ORDERS_API_URL (connection refused)\n")
	case dr.beh != nil:
		fmt.Fprintf(&b, "Orders API: %s\n", describeBehaviour(dr.beh))
	}
	switch {
	case err != nil:
		fmt.Fprintf(&b, "got: error: %s", clipText(learnerJSONError(err.Error()), gotCap))
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
			case katas.RetryAfterSeconds:
				s += fmt.Sprintf(" with Retry-After: %d", b.delay)
			case katas.RetryAfterHTTPDate:
				s += fmt.Sprintf(" with Retry-After as an HTTP-date %d s ahead", b.delay)
			case katas.RetryAfterHTTPDatePast:
				s += fmt.Sprintf(" with Retry-After as an HTTP-date %d s in the past", -b.delay)
			default:
				s += " without a Retry-After header"
			}
		}
		return s
	case katas.BackendSlow:
		return fmt.Sprintf("held the request for %.1f s, longer than the %.1f s timeout, then answered 200", slowHold.Seconds(), apiTimeout.Seconds())
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
			s += fmt.Sprintf("; page %d held the request for %.1f s, past the %.1f s timeout", b.slowPage, slowHold.Seconds(), apiTimeout.Seconds())
		}
		if b.failPage > 0 {
			s += fmt.Sprintf("; page %d answered %d", b.failPage, b.status)
		}
		return s
	}
	return string(b.kind)
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
	name := "stdout carries only JSON-RPC messages"
	r.begin(name)
	t := TestResult{ID: "stdout-protocol-only", Name: name, TaskID: protocolStep(r.packet.Fixtures["server"]), Rule: "stdout is the protocol channel; logs go to stderr (MCP spec, stdio transport)"}
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
