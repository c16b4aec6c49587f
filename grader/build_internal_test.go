package grader

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/kata-mcp/kata/grader/sandbox"
)

// TestBuildTimeLimit: a build still running at its time limit is killed, and the message says
// it timed out and names the limit (not "signal: killed"); a failing build says how it ended
// and quotes its output; in both sandboxes.
func TestBuildTimeLimit(t *testing.T) {
	for _, noIsolation := range []bool{false, true} {
		ws := t.TempDir()
		box, err := sandbox.New(ws, noIsolation)
		if err != nil {
			t.Fatal(err)
		}
		defer box.Close()
		err = runBuild(context.Background(), box, &Command{Command: "sh", Args: []string{"-c", "echo compiling; sleep 60"}}, 300*time.Millisecond, false)
		msg := ""
		if err != nil {
			msg = err.Error()
		}
		for _, want := range []string{"did not finish within its time limit of 300ms", "compiling"} {
			if !strings.Contains(msg, want) {
				t.Errorf("isolation %s: a build past its limit says %q; want %q", box.Isolation().Kind, msg, want)
			}
		}
		if strings.Contains(msg, "signal: killed") {
			t.Errorf("isolation %s: %q", box.Isolation().Kind, msg)
		}
		err = runBuild(context.Background(), box, &Command{Command: "sh", Args: []string{"-c", "echo oops >&2; exit 3"}}, time.Minute, false)
		if err == nil || !strings.Contains(err.Error(), "exited with code 3") || !strings.Contains(err.Error(), "oops") {
			t.Errorf("isolation %s: a failing build says %v", box.Isolation().Kind, err)
		}
		// a build that wrote nothing leaves no empty line at the end of the message (a CSV cell)
		err = runBuild(context.Background(), box, &Command{Command: "sh", Args: []string{"-c", "exec sleep 60"}}, 300*time.Millisecond, false)
		if err == nil || !strings.HasSuffix(err.Error(), "was killed") {
			t.Errorf("isolation %s: a silent build past its limit says %q; want it to end with \"was killed\"", box.Isolation().Kind, err)
		}
		err = runBuild(context.Background(), box, &Command{Command: "sh", Args: []string{"-c", "echo oops; echo; exit 3"}}, time.Minute, false)
		if err == nil || !strings.HasSuffix(err.Error(), "exited with code 3\noops") {
			t.Errorf("isolation %s: a failing build says %q; want its output after the message, no trailing blank line", box.Isolation().Kind, err)
		}
		// the build runs in the workspace, and may write there
		if err := runBuild(context.Background(), box, &Command{Command: "sh", Args: []string{"-c", "mkdir -p .kata/bin && echo built > .kata/bin/out"}}, time.Minute, false); err != nil {
			t.Errorf("isolation %s: %v", box.Isolation().Kind, err)
		}
		if b, _ := os.ReadFile(filepath.Join(ws, ".kata", "bin", "out")); string(b) != "built\n" {
			t.Errorf("isolation %s: the build's output file holds %q", box.Isolation().Kind, b)
		}
	}
}

// TestFreshCacheDeadlineIsLonger: the build of a fresh Go build cache (sandbox.Box.GoCacheFresh)
// gets more time than any other build, since it compiles the standard library.
func TestFreshCacheDeadlineIsLonger(t *testing.T) {
	if freshCacheDeadline <= buildDeadline {
		t.Fatalf("freshCacheDeadline %s is no longer than buildDeadline %s", freshCacheDeadline, buildDeadline)
	}
}
