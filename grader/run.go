package grader

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	mrand "math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/kata-mcp/kata/grader/sandbox"
	"github.com/kata-mcp/kata/internal/i18n"
	"github.com/kata-mcp/kata/katas"
)

// Grading constants from docs/grading.md#deadlines.
const (
	// apiTimeout is ORDERS_API_TIMEOUT_SECONDS as the grader hands it to the server.
	apiTimeout = 500 * time.Millisecond
	// callSlack is added to apiTimeout × pages for each call's deadline.
	callSlack = 5 * time.Second
	// runDeadline bounds a whole grading run (docs/grading.md#deadlines). When a kata grades both a
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
	// gotCap bounds the "what came back" part of a failure message (2 KiB, docs/grading.md#failure-messages).
	gotCap = 2 << 10
)

// serverName is the .mcp.json entry the grader launches (docs/grading.md#mcp-json).
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
	// serverPhase and clientPhase name the two phases and their budgets, for "not run"
	// messages; the phases run at the same time.
	serverPhase, clientPhase phase
	// box confines every learner process of the run (nil until prepare made it).
	box *sandbox.Box
	// clientTime is the client phase's wall time, set by its goroutine before it is done.
	clientTime time.Duration
	// procs counts the learner processes started (Timings.Processes).
	procs atomic.Int32
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

// stoppedMsg says why a test of the phase was not run or a call was cut short (what, a
// message of the harness catalog such as "not run"): the run was interrupted, or the phase's
// budget was used up.
func (r *run) stoppedMsg(ph phase, what i18n.Msg) i18n.Msg {
	if r.interrupted() {
		return i18n.M("harness.stopped.interrupted", "What", what)
	}
	if ph.name == "client" {
		return i18n.M("harness.stopped.budget_client", "What", what, "Budget", ph.budget.String())
	}
	return i18n.M("harness.stopped.budget_server", "What", what, "Budget", ph.budget.String())
}

// What stoppedMsg says was stopped: a test, the rest of a test's calls, a restart, a call, a
// scenario.
var (
	notRun        = i18n.M("harness.stopped.not_run")
	remainingCuts = i18n.M("harness.stopped.remaining_calls")
	noRestart     = i18n.M("harness.stopped.no_restart")
	callCut       = i18n.M("harness.stopped.call_cut")
	scenarioCut   = i18n.M("harness.stopped.scenario_cut")
)

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
	defer func() { r.rep.Timings.Processes = int(r.procs.Load()) }()
	sandbox.BecomeSubreaper()
	defer func() {
		sandbox.ReapEscapees(dir, r.token(), r.box.Marker())
		r.box.Close()
	}()
	r.parent = ctx
	defer func() {
		if r.releasePort != nil {
			r.releasePort()
		}
	}()
	err := r.prepare(ctx, lib, dir)
	r.rep.Timings.Prepare = time.Since(r.start)
	if err != nil {
		return r.errorReport(r.interruptedErr(err))
	}
	if r.api != nil {
		defer r.api.close()
	}
	r.total = r.countTests()
	if r.grades("config") && r.packet.ConfigRules != nil {
		r.runConfigTests()
	}
	serverBudget, clientBudget := r.budgets()
	r.serverPhase, r.clientPhase = phase{"server", serverBudget}, phase{"client", clientBudget}
	// The client phase plays a virtual clock and needs no server: it runs while the server
	// phase waits on its timeouts, so a grade costs the longer of the two, not their sum.
	var client sync.WaitGroup
	clientCtx, stopClient := context.WithTimeout(ctx, clientBudget)
	defer stopClient()
	if r.grades("client") {
		client.Add(1)
		go func() {
			defer client.Done()
			start := time.Now()
			r.runClientTests(clientCtx)
			r.clientTime = time.Since(start)
		}()
	}
	if r.grades("server") {
		sctx, cancel := context.WithTimeout(ctx, serverBudget)
		r.info(i18n.M("harness.progress.starting_server"))
		start := time.Now()
		err := r.runServerPhase(sctx)
		r.rep.Timings.ServerPhase = time.Since(start)
		if err != nil {
			cancel()
			stopClient()
			client.Wait()
			return r.errorReport(r.interruptedErr(err))
		}
		cancel()
	}
	client.Wait()
	r.rep.Timings.ClientPhase = r.clientTime
	r.sortTests()
	rep := r.report()
	if r.interrupted() {
		why := i18n.M("harness.interrupted.partly")
		rep.Message, rep.Why = why.English(), &why
		if rep.Status == StatusPass {
			rep.Status = StatusError
		}
	}
	return rep
}

// interruptedErr replaces err with a plain "interrupted" when the caller cancelled the run.
func (r *run) interruptedErr(err error) error {
	if r.interrupted() {
		return sayErr("", 0, i18n.M("harness.interrupted.before_any"))
	}
	return err
}

// grades reports whether the kata grades the given part.
func (r *run) grades(part string) bool { return slices.Contains(r.packet.Graded, part) }

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
func clientExample(lang string) i18n.Msg {
	examples := map[string]i18n.Msg{
		"python": i18n.M("harness.client_example", "Language", "Python", "Entry", `"client": {"command": "python3", "args": ["client.py"]}`),
		"node":   i18n.M("harness.client_example", "Language", "Node.js", "Entry", `"client": {"command": "node", "args": ["client.mjs"]}`),
		"go":     i18n.M("harness.client_example", "Language", "Go", "Entry", `"client": {"command": ".kata/bin/client"}`),
	}
	if e, ok := examples[lang]; ok {
		return e
	}
	return i18n.M("harness.client_examples", "Python", examples["python"], "Node", examples["node"], "Go", examples["go"])
}

// prepare reads the workspace, checks the graded parts, starts the Orders API and expands the
// server's configuration. Every error is a *SubmissionError.
func (r *run) prepare(ctx context.Context, lib *katas.Library, dir string) error {
	switch st, err := os.Stat(dir); {
	case errors.Is(err, fs.ErrNotExist):
		return sayErr(dir, 0, i18n.M("harness.workspace.missing"))
	case err != nil:
		return sayErr(dir, 0, i18n.M("harness.workspace.unreadable", "Error", err.Error()))
	case !st.IsDir():
		return sayErr(dir, 0, i18n.M("harness.workspace.a_file"))
	}
	kc, err := LoadKataConfig(dir)
	if err != nil {
		return err
	}
	p, ok := lib.Get(kc.Kata)
	if !ok {
		return sayErr("kata.json", 0, i18n.M("harness.kata_json.unknown_kata", "Kata", strconv.Quote(kc.Kata), "Known", strings.Join(lib.IDs(), ", ")))
	}
	r.packet = p
	r.rep.Kata = p.ID
	if kc.Language != "" && !slices.Contains(p.Languages, kc.Language) {
		return sayErr("kata.json", keyLine(kc.raw, "language"), i18n.M("harness.kata_json.unknown_language", "Language", strconv.Quote(kc.Language), "Kata", p.ID, "Languages", strings.Join(p.Languages, ", ")))
	}
	box, err := sandbox.New(dir, r.opts.NoIsolation)
	if err != nil {
		return &SubmissionError{Msg: err.Error()}
	}
	r.box = box
	r.rep.Isolation = string(box.Isolation().Kind)
	if slices.Contains(p.Graded, "client") {
		if kc.Client == nil {
			return sayErr("kata.json", 0, i18n.M("harness.kata_json.no_client", "Kata", p.ID, "Example", clientExample(kc.Language)))
		}
		r.clientSpec = launchSpec{dir: dir, command: kc.Client.Command, args: kc.Client.Args, env: box.Env(nil), box: box, started: &r.procs}
	}
	if !slices.Contains(p.Graded, "server") {
		if slices.Contains(p.Graded, "config") {
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
		return sayErr(".mcp.json", keyLine(mc.raw, "mcpServers"), i18n.M("harness.mcp_json.no_orders", "Server", strconv.Quote(serverName), "Found", strings.Join(mc.ServerNames(), ", ")))
	}
	if entry.Command == "" {
		return sayErr(".mcp.json", keyLine(mc.raw, serverName), i18n.M("harness.mcp_json.no_command", "Server", strconv.Quote(serverName)))
	}
	cwd, err := mc.serverCwd(dir, entry)
	if err != nil {
		return err
	}
	token := make([]byte, 16)
	rand.Read(token)
	api, err := startOrdersAPIIn(r.box, hex.EncodeToString(token))
	if err != nil {
		return err
	}
	vars := map[string]string{
		"ORDERS_API_URL":             api.URL,
		"ORDERS_API_TOKEN":           api.token,
		"ORDERS_API_TIMEOUT_SECONDS": fmt.Sprint(apiTimeout.Seconds()),
	}
	exp, err := mc.expandEntry(entry, r.box.LookupEnv(vars))
	if err != nil {
		api.close()
		return err
	}
	r.api = api
	api.declare(r.packet.ToolDefinitions)
	r.spec = launchSpec{dir: dir, cwd: cwd, command: exp.Command, args: exp.Args, env: r.box.Env(exp.Env), box: r.box,
		hidden: hiddenPath(r.box, dir, cwd, exp.Command, exp.Args), handshake: r.opts.handshake, api: true, started: &r.procs}
	if r.hasRefusedFixture() {
		closed, ok := r.box.ClosedAPIURL()
		if !ok {
			var release func()
			if closed, release, err = closedPortURL(); err != nil {
				api.close()
				r.api = nil
				return err
			}
			r.releasePort = release
		}
		vars["ORDERS_API_URL"] = closed
		ref, err := mc.expandEntry(entry, r.box.LookupEnv(vars))
		if err != nil {
			api.close()
			r.api = nil
			return err
		}
		r.refusedSpec = launchSpec{dir: dir, cwd: cwd, command: ref.Command, args: ref.Args, env: r.box.Env(ref.Env), box: r.box,
			hidden: hiddenPath(r.box, dir, cwd, ref.Command, ref.Args), handshake: r.opts.handshake, started: &r.procs}
	}
	if err := r.build(ctx, dir, kc); err != nil {
		api.close()
		r.api = nil
		return err
	}
	return nil
}

// checkClientCommand makes sure kata.json's client command can be started: a missing program
// is a submission error (exit 2, docs/grading.md#exit-codes), not a failure of every client test.
func checkClientCommand(dir string, c *Command, raw []byte) error {
	path := sandbox.ResolveCommand(dir, c.Command)
	if _, err := exec.LookPath(path); err != nil {
		cmd := strconv.Quote(c.Command)
		how := i18n.M("harness.client_command.not_on_path", "Command", cmd)
		if strings.ContainsRune(c.Command, '/') {
			how = i18n.M("harness.client_command.not_executable", "Command", cmd)
			if _, serr := os.Stat(path); serr != nil {
				how = i18n.M("harness.client_command.missing", "Command", cmd)
			}
		}
		return sayErr("kata.json", keyLine(raw, "client"), how)
	}
	return nil
}

// build runs kata.json's build command, once per grade, when there is one; then checks that
// the client command, when the kata grades a client, can be started.
func (r *run) build(ctx context.Context, dir string, kc *KataConfig) error {
	limit := buildDeadline
	if r.box.GoCacheFresh() {
		limit = freshCacheDeadline
	}
	if needsModuleDownload(r.box) {
		r.info(i18n.M("harness.progress.building"))
		r.procs.Add(1)
		if err := runBuild(ctx, r.box, moduleDownload, limit, true); err != nil {
			return err
		}
	}
	if kc.Build != nil {
		r.info(i18n.M("harness.progress.building"))
		r.procs.Add(1)
		if err := runBuild(ctx, r.box, kc.Build, limit, false); err != nil {
			return err
		}
		r.box.BuiltWith(kc.Build.Command)
	}
	if r.grades("client") && kc.Client != nil {
		return checkClientCommand(dir, kc.Client, kc.raw)
	}
	return nil
}

// moduleDownload is the one step kata runs with the machine's network, before the build, in a
// sandbox whose network is otherwise its own (docs/grading.md#kata-json): it downloads the
// Go modules the workspace's go.sum pins into its GOPATH (.kata/go), so that the build, the
// server and the client, which get no network, find them there.
var moduleDownload = &Command{Command: "go", Args: []string{"mod", "download"}}

// needsModuleDownload reports whether the run needs moduleDownload: its learner processes get no
// network (sandbox.Isolation.PrivateNetwork) and its workspace has a go.sum.
func needsModuleDownload(b *sandbox.Box) bool {
	if !b.Isolation().PrivateNetwork() {
		return false
	}
	_, err := os.Stat(filepath.Join(b.Workspace(), "go.sum"))
	return err == nil
}

// buildDeadline bounds the build (docs/grading.md#deadlines); freshCacheDeadline replaces it
// until a Go build has finished in kata's Go build cache (goCacheStamp), since a first Go
// build compiles the standard library.
const (
	buildDeadline      = runDeadline
	freshCacheDeadline = 5 * time.Minute
)

// runBuild runs kata.json's build command (or moduleDownload, with network) once, in the
// sandbox, within limit; a failure is a submission error carrying the build's output tail, and
// a build still running at limit is killed and says so, naming the limit.
func runBuild(ctx context.Context, b *sandbox.Box, c *Command, limit time.Duration, network bool) error {
	out := sandbox.NewTail(sandbox.StderrCap)
	p, err := sandbox.Start(b, sandbox.Spec{WS: b.Workspace(), Command: c.Command, Args: c.Args, Env: b.Env(nil), Output: out, Network: network})
	if err != nil {
		return sayErr("kata.json", 0, i18n.M("harness.build.start_failed", "Command", commandLine(c), "Error", errText(err)))
	}
	p.Stdin.Close()
	timer := time.NewTimer(limit)
	defer timer.Stop()
	select {
	case <-p.Done():
	case <-ctx.Done():
		p.Kill(0)
		return sayErr("kata.json", 0, i18n.M("harness.build.interrupted", "Command", commandLine(c)))
	case <-timer.C:
		p.Kill(0)
		return sayErr("kata.json", 0, i18n.M("harness.build.timeout", "Command", commandLine(c), "Limit", limit.String(), "Output", outputTail(out)))
	}
	if !p.Success() {
		return sayErr("kata.json", 0, i18n.M("harness.build.failed", "Command", commandLine(c), "How", p.ExitMsg(), "Output", outputTail(out)))
	}
	return nil
}

// outputTail is the last 4 KiB of a build's output on lines of their own after the message,
// without trailing blank lines; "" when the build wrote nothing, so the message ends on its
// own line (a CSV cell or a summary row carries no empty line).
func outputTail(out *sandbox.Tail) string {
	tail := strings.TrimRight(out.Since(0, 4096), " \t\r\n")
	if tail == "" {
		return ""
	}
	return "\n" + tail
}

// commandLine is c as one line: the command and its arguments.
func commandLine(c *Command) string {
	return strings.TrimSpace(c.Command + " " + strings.Join(c.Args, " "))
}

// token is the run's Orders API token, "" before the API started.
func (r *run) token() string {
	if r.api == nil {
		return ""
	}
	return r.api.token
}
