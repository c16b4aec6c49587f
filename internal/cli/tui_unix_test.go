//go:build unix

package cli

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestTUIWithoutTerminal runs `kata exam` in a new session with stdin from /dev/null, so there
// is no terminal at all: it must fail at once with an error saying what to use instead, not
// hang or print a library's TTY error.
func TestTUIWithoutTerminal(t *testing.T) {
	if os.Getenv("KATA_TEST_NO_TTY") == "1" {
		root := newRootCmd(os.Stdout, os.Stderr)
		root.SetArgs([]string{"exam"})
		err := root.Execute()
		fmt.Fprintf(os.Stderr, "ERR: %v\n", err)
		os.Exit(0)
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestTUIWithoutTerminal$")
	cmd.Env = append(os.Environ(), "KATA_TEST_NO_TTY=1", "KATA_STATE="+filepath.Join(t.TempDir(), "p.db"))
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	if !strings.Contains(string(out), "ERR: the terminal UI needs a terminal") || !strings.Contains(string(out), "kata list, show, init, grade or stats") {
		t.Errorf("output %q", out)
	}
}
