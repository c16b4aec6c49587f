package grader_test

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/kata-mcp/kata/grader"
	"github.com/kata-mcp/kata/grader/internal/faultdiff"
	"github.com/kata-mcp/kata/grader/sandbox"
)

// evasions are the ways hostile-daemons' daemons leave the server's process group; each writes
// .kata/started-<evasion> when it runs.
var evasions = []string{"setsid", "double-fork", "chdir", "empty-env", "exec"}

// daemonsRef is the hostile reference that starts one daemon per evasion.
var daemonsRef = filepath.Join("..", "testdata", "references", "mcp-structured-errors", "python", "hostile-daemons")

// sandboxModes are the sandboxes a test runs under: bwrap where this machine has it, and the
// fallback always (Options.NoIsolation).
func sandboxModes(t *testing.T) map[string]bool {
	modes := map[string]bool{"fallback": true}
	if sandbox.DetectIsolation().Isolated() {
		modes["bwrap"] = false
	} else {
		t.Logf("bwrap is not available (%s): testing the fallback only", sandbox.DetectIsolation().Reason)
	}
	return modes
}

// startedEvasions lists the evasions whose daemon wrote its started file in dir.
func startedEvasions(dir string) []string {
	var started []string
	for _, e := range evasions {
		if _, err := os.Stat(filepath.Join(dir, ".kata", "started-"+e)); err == nil {
			started = append(started, e)
		}
	}
	return started
}

// TestNoDaemonSurvivesAGrade: whatever way a grade ends — every test passing, some failing, an
// ungradeable server (it exits before the handshake), or interrupted mid-run — no daemon of hostile-daemons outlives it, in either sandbox: not the
// one in a new session, the double-forked one, the one that left the workspace, the one that
// emptied its environment, nor the one that did all of it and exec'd a shell.
func TestNoDaemonSurvivesAGrade(t *testing.T) {
	lib := library(t)
	for mode, noIsolation := range sandboxModes(t) {
		for _, end := range []string{"pass", "fail", "error", "interrupted"} {
			t.Run(mode+"/"+end, func(t *testing.T) {
				if !noIsolation {
					// without bwrap each Python start is slow enough on a loaded machine that
					// several grades at once miss the handshake's deadline: one at a time
					t.Parallel()
				}
				dir := workspace(t, lib, "mcp-structured-errors", "python", daemonsRef)
				switch end {
				case "fail":
					// the correct server's fault of broken-http-date, under the daemons
					diff, err := os.ReadFile(filepath.Join(filepath.Dir(daemonsRef), "broken-http-date", "fault.diff"))
					if err == nil {
						err = faultdiff.Apply(dir, string(diff))
					}
					if err != nil {
						t.Fatal(err)
					}
				case "error":
					// the server exits right after starting its daemons
					if err := os.WriteFile(filepath.Join(dir, "server.py"), []byte("import sys\nsys.exit(3)\n"), 0o644); err != nil {
						t.Fatal(err)
					}
				}
				ctx, cancel := context.WithCancel(context.Background())
				defer cancel()
				if end == "interrupted" {
					go func() {
						// interrupt once every daemon runs, as ctrl-c or SIGTERM would
						deadline := time.Now().Add(30 * time.Second)
						for len(startedEvasions(dir)) < len(evasions) && time.Now().Before(deadline) {
							time.Sleep(20 * time.Millisecond)
						}
						cancel()
					}()
				}
				rep := grader.Grade(ctx, lib, dir, grader.Options{Seed: 1, SeedSet: true, NoIsolation: noIsolation})
				switch end {
				case "pass":
					if rep.ExitCode() != 0 {
						t.Errorf("exit %d, want 0: %s", rep.ExitCode(), rep.Message)
					}
				case "fail":
					if rep.ExitCode() != 1 {
						t.Errorf("exit %d, want 1: %s", rep.ExitCode(), rep.Message)
					}
				case "error":
					if rep.ExitCode() != 2 || !strings.Contains(rep.Message, "exited with code 3") {
						t.Errorf("exit %d (%s), want 2 and the server's exit code", rep.ExitCode(), rep.Message)
					}
				case "interrupted":
					if !strings.Contains(rep.Message, "interrupted") {
						t.Errorf("an interrupted run says %q", rep.Message)
					}
				}
				if got := startedEvasions(dir); !slices.Equal(got, evasions) {
					t.Fatalf("only these daemons started: %v (want all of %v): the test proves nothing", got, evasions)
				}
				assertNoProcessesIn(t, dir)
				if want := map[string]string{"bwrap": "bwrap", "fallback": "none"}[mode]; rep.Isolation != want {
					t.Errorf("the report says isolation %q, want %q", rep.Isolation, want)
				}
			})
		}
	}
}
