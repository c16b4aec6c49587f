package sandbox

import (
	"bufio"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"
)

// TestStderrSettlesBeforeTheAnswer: what a process writes to stderr before it answers on
// stdout is in the tail buffer as soon as the answer has been read, and credited to that
// exchange, not to the next (docs/grading.md#output-caps). The process answers 300 times in a
// row, so an asynchronous copy of stderr would lose the race on some of them.
func TestStderrSettlesBeforeTheAnswer(t *testing.T) {
	script := `while read -r x; do echo "err $x" >&2; echo "out $x"; done`
	p, err := Start(nil, Spec{WS: t.TempDir(), Command: "sh", Args: []string{"-c", script}, Env: []string{"PATH=" + os.Getenv("PATH")}})
	if err != nil {
		t.Skipf("no sh: %v", err)
	}
	defer p.Kill(time.Second)
	lines := bufio.NewScanner(p.Stdout)
	for i := range 300 {
		mark := p.Stderr.Mark()
		if _, err := fmt.Fprintf(p.Stdin, "%d\n", i); err != nil {
			t.Fatal(err)
		}
		if !lines.Scan() || lines.Text() != fmt.Sprintf("out %d", i) {
			t.Fatalf("exchange %d: stdout %q (%v)", i, lines.Text(), lines.Err())
		}
		if got, want := p.Stderr.Since(mark, 4<<10), fmt.Sprintf("err %d\n", i); got != want {
			t.Fatalf("exchange %d: stderr since the mark is %q, want %q", i, got, want)
		}
	}
	p.Stdin.Close()
	select {
	case <-p.done:
	case <-time.After(5 * time.Second):
		t.Fatal("the process did not end after its stdin closed")
	}
	if got := p.Stderr.Since(0, StderrCap); !strings.HasPrefix(got, "err 0\n") || !strings.HasSuffix(got, "err 299\n") {
		t.Errorf("the whole stderr is not kept in order: %q … %q", got[:min(len(got), 20)], got[max(0, len(got)-20):])
	}
}

// TestNoticeSaysWhatNetworkLearnerCodeGets: the isolation line says when learner code shares
// the machine's network and loopback — without isolation, or under a bwrap that cannot make a
// network namespace — and that the other grades' Orders APIs still refuse it uncounted; a
// sandbox with a network and a memory cgroup of its own needs no line.
func TestNoticeSaysWhatNetworkLearnerCodeGets(t *testing.T) {
	none := Isolation{Kind: IsolationNone, Reason: "bwrap (bubblewrap) is not installed"}.Notice()
	shared := Isolation{Kind: IsolationBwrap, NetShared: true, NetReason: "bwrap cannot make a network namespace here: EPERM", Memory: "cgroup v1"}.Notice()
	for _, n := range []string{none, shared} {
		if !strings.Contains(n, "loopback") || !strings.Contains(n, "refuse it, uncounted") {
			t.Errorf("the isolation line does not say what network learner code gets: %q", n)
		}
	}
	if !strings.Contains(shared, "EPERM") {
		t.Errorf("the isolation line does not say why there is no network namespace: %q", shared)
	}
	if n := (Isolation{Kind: IsolationBwrap, Memory: "cgroup v1"}).Notice(); n != "" {
		t.Errorf("a fully isolated run has an isolation line: %q", n)
	}
}
