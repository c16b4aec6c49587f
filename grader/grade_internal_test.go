package grader

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/kata-mcp/kata/katas"
)

// hangingServer answers the handshake and tools/list, then hangs on every tools/call.
const hangingServer = `import time
from mcp_shim import Server

server = Server("orders", "1")
SCHEMA = {"type": "object", "properties": {}}


@server.tool("lookup_order", "hangs", SCHEMA)
def lookup_order(arguments):
    time.sleep(3600)


@server.tool("search_orders", "hangs", SCHEMA)
def search_orders(arguments):
    time.sleep(3600)


server.run()
`

// pythonWorkspace writes the mcp-structured-errors Python template into a temp dir, with the
// correct reference client and the given server source ("" keeps the correct server).
func pythonWorkspace(t *testing.T, lib *katas.Library, server, client string) string {
	t.Helper()
	if _, err := exec.LookPath("python3"); err != nil {
		t.Skip("python3 not installed")
	}
	p, _ := lib.Get("mcp-structured-errors")
	dir := filepath.Join(t.TempDir(), "ws")
	if err := p.Init(dir, "python"); err != nil {
		t.Fatal(err)
	}
	ref := filepath.Join("..", "testdata", "references", "mcp-structured-errors", "python", "correct")
	copyFile(t, filepath.Join(ref, "client.py"), filepath.Join(dir, "client.py"))
	copyFile(t, filepath.Join(ref, "server.py"), filepath.Join(dir, "server.py"))
	for name, src := range map[string]string{"server.py": server, "client.py": client} {
		if src != "" {
			if err := os.WriteFile(filepath.Join(dir, name), []byte(src), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	return dir
}

// noProcessIn fails when a process still runs with dir as its working directory (Linux).
func noProcessIn(t *testing.T, dir string) {
	t.Helper()
	procs, err := os.ReadDir("/proc")
	if err != nil {
		return
	}
	for _, p := range procs {
		if cwd, err := os.Readlink(filepath.Join("/proc", p.Name(), "cwd")); err == nil && cwd == dir {
			t.Errorf("process %s outlived the grading run", p.Name())
		}
	}
}

// TestHungServerLeavesTheClientPhaseItsBudget: a server that hangs on every call uses up the
// server phase's budget, and the client tests still run (and pass with a correct client)
// instead of ending "not run". Before, one 60 s budget was shared and the client got nothing.
func TestHungServerLeavesTheClientPhaseItsBudget(t *testing.T) {
	t.Parallel()
	lib := embeddedLibrary(t)
	dir := pythonWorkspace(t, lib, hangingServer, "")
	rep := grade(context.Background(), lib, dir, Options{Seed: 1, SeedSet: true, serverBudget: 4 * time.Second})
	if rep.Status == StatusError {
		t.Fatalf("status error: %s", rep.Message)
	}
	clients, budget := 0, 0
	for _, tr := range rep.Tests {
		switch {
		case strings.HasPrefix(tr.ID, "client-"):
			clients++
			if tr.Status != StatusPass {
				t.Errorf("%s: %s %s; the client phase has a budget of its own", tr.ID, tr.Status, tr.Message)
			}
		case tr.Status == StatusError:
			if strings.Contains(tr.Message, "interrupted") || !strings.Contains(tr.Message, "server tests' 4s budget was used up") {
				t.Errorf("%s: message %q; want the server phase's budget named", tr.ID, tr.Message)
			}
			budget++
		}
	}
	if clients == 0 || budget == 0 {
		t.Errorf("%d client tests, %d server tests stopped by the budget; want both > 0", clients, budget)
	}
	noProcessIn(t, dir)
}

// TestInterruptedRunSaysInterrupted: cancelling the run (ctrl-c, SIGTERM) mid-call says
// "interrupted", never "deadline passed" or "budget".
func TestInterruptedRunSaysInterrupted(t *testing.T) {
	t.Parallel()
	lib := embeddedLibrary(t)
	dir := pythonWorkspace(t, lib, hangingServer, "")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	calls := 0
	opts := Options{Seed: 1, SeedSet: true, OnEvent: func(e Event) {
		if e.Kind == EventTestStarted && strings.HasPrefix(e.Test, "lookup_order") {
			calls++
			if calls == 2 { // the first call hangs; cancel while the run waits on it
				cancel()
			}
		}
	}}
	rep := grade(ctx, lib, dir, opts)
	if !strings.Contains(rep.Message, "interrupted") {
		t.Errorf("report message %q; want it to say interrupted", rep.Message)
	}
	stopped := 0
	for _, tr := range rep.Tests {
		if tr.Status != StatusError {
			continue
		}
		stopped++
		if !strings.Contains(tr.Message, "interrupted") || strings.Contains(tr.Message, "deadline") || strings.Contains(tr.Message, "budget") {
			t.Errorf("%s: message %q; want interrupted, no deadline", tr.ID, tr.Message)
		}
	}
	if stopped == 0 {
		t.Error("no test was marked as stopped by the interruption")
	}
	if rep.ExitCode() == 0 {
		t.Error("an interrupted run passed")
	}
	var text strings.Builder
	WriteText(&text, rep, TextOptions{})
	if !strings.Contains(text.String(), "grading was interrupted") {
		t.Errorf("the text report does not say the run was interrupted:\n%s", text.String())
	}
	noProcessIn(t, dir)
}

// TestCrashingClientShowsItsStderr: a client that crashes gets the tail of its own stderr in
// the failure message, without -v, labelled as the client's.
func TestCrashingClientShowsItsStderr(t *testing.T) {
	t.Parallel()
	lib := embeddedLibrary(t)
	crash := "import sys\nsys.stderr.write('Traceback: the client fell over at line 7\\n')\nsys.exit(3)\n"
	dir := pythonWorkspace(t, lib, "", crash)
	rep := grade(context.Background(), lib, dir, Options{Seed: 1, SeedSet: true})
	var first *TestResult
	for i, tr := range rep.Tests {
		if strings.HasPrefix(tr.ID, "client-") && tr.Status != StatusPass {
			first = &rep.Tests[i]
			break
		}
	}
	if first == nil {
		t.Fatal("the crashing client failed no test")
	}
	if !strings.Contains(first.Message, "client stderr (last lines):") || !strings.Contains(first.Message, "the client fell over at line 7") {
		t.Errorf("message does not show the client's stderr tail:\n%s", first.Message)
	}
	// The same crash on the next scenario refers to the first instead of repeating its lines.
	var later []string
	for _, tr := range rep.Tests {
		if strings.HasPrefix(tr.ID, "client-") && tr.ID != first.ID && tr.Status != StatusPass {
			later = append(later, tr.Message)
		}
	}
	if len(later) == 0 || !strings.Contains(later[0], fmt.Sprintf("client stderr: the same last lines as under %q", first.Name)) || strings.Contains(later[0], "fell over") {
		t.Errorf("a repeated crash repeats its stderr instead of pointing at %q:\n%v", first.Name, later)
	}
	if strings.Contains(first.Message, "server stderr") || first.OutputOf != "client" {
		t.Errorf("the client's stderr is labelled as the server's (OutputOf %q):\n%s", first.OutputOf, first.Message)
	}
	noProcessIn(t, dir)
}

// TestNodeShimWarmsUpFetch: importing each packet's Node protocol shim calls fetch once
// before the learner's code runs, so the first real request does not pay for loading Node's
// HTTP client out of its 0.5 s timeout.
func TestNodeShimWarmsUpFetch(t *testing.T) {
	if _, err := exec.LookPath("node"); err != nil {
		t.Skip("node not installed")
	}
	t.Parallel()
	lib := embeddedLibrary(t)
	for _, id := range lib.IDs() {
		p, _ := lib.Get(id)
		if !slices.Contains(p.Languages, "node") || p.Fixtures["server"] == nil {
			continue
		}
		dir := filepath.Join(t.TempDir(), id)
		if err := p.Init(dir, "node"); err != nil {
			t.Fatal(err)
		}
		probe := `let calls = 0;
const real = globalThis.fetch;
globalThis.fetch = (...args) => { calls++; return real(...args); };
await import("./mcp_shim.mjs");
process.stdout.write(String(calls));
`
		if err := os.WriteFile(filepath.Join(dir, "probe.mjs"), []byte(probe), 0o644); err != nil {
			t.Fatal(err)
		}
		cmd := exec.Command("node", "probe.mjs")
		cmd.Dir = dir
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("%s: %v", id, err)
		}
		if strings.TrimSpace(string(out)) == "0" {
			t.Errorf("%s: importing mcp_shim.mjs made no fetch call: fetch is not warmed up", id)
		}
	}
}
