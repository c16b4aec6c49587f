package grader

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
	p, err := startProcess(nil, startSpec{ws: t.TempDir(), command: "sh", args: []string{"-c", script}, env: []string{"PATH=" + os.Getenv("PATH")}})
	if err != nil {
		t.Skipf("no sh: %v", err)
	}
	defer p.kill(time.Second)
	lines := bufio.NewScanner(p.stdout)
	for i := range 300 {
		mark := p.stderr.mark()
		if _, err := fmt.Fprintf(p.stdin, "%d\n", i); err != nil {
			t.Fatal(err)
		}
		if !lines.Scan() || lines.Text() != fmt.Sprintf("out %d", i) {
			t.Fatalf("exchange %d: stdout %q (%v)", i, lines.Text(), lines.Err())
		}
		if got, want := p.stderr.since(mark, outputCap), fmt.Sprintf("err %d\n", i); got != want {
			t.Fatalf("exchange %d: stderr since the mark is %q, want %q", i, got, want)
		}
	}
	p.stdin.Close()
	select {
	case <-p.done:
	case <-time.After(5 * time.Second):
		t.Fatal("the process did not end after its stdin closed")
	}
	if got := p.stderr.since(0, stderrCap); !strings.HasPrefix(got, "err 0\n") || !strings.HasSuffix(got, "err 299\n") {
		t.Errorf("the whole stderr is not kept in order: %q … %q", clipText(got, 20), clipTail(got, 20))
	}
}
