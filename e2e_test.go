package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// tmuxSession drives the built binary in a private tmux server, as a learner would.
type tmuxSession struct {
	t    *testing.T
	sock string
}

func (s *tmuxSession) tmux(args ...string) string {
	s.t.Helper()
	out, err := exec.Command("tmux", append([]string{"-S", s.sock, "-f", "/dev/null"}, args...)...).CombinedOutput()
	if err != nil {
		s.t.Fatalf("tmux %v: %v\n%s", args, err, out)
	}
	return string(out)
}

func (s *tmuxSession) screen() string { return s.tmux("capture-pane", "-p", "-t", "kata") }

// send types keys and waits until the screen shows want (polling with a deadline).
func (s *tmuxSession) send(want string, keys ...string) string {
	s.t.Helper()
	if len(keys) > 0 {
		s.tmux(append([]string{"send-keys", "-t", "kata"}, keys...)...)
	}
	deadline := time.Now().Add(20 * time.Second)
	for {
		scr := s.screen()
		if strings.Contains(scr, want) {
			return scr
		}
		if time.Now().After(deadline) {
			s.t.Fatalf("after keys %v the screen never showed %q; it shows:\n%s", keys, want, scr)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// TestEndToEndInTmux walks the main path in a real terminal: catalog → knowledge layer →
// examples layer → an exam item answered → trap table at 80 columns → task screen → workspace
// created → graded with a correct server → every test passes.
func TestEndToEndInTmux(t *testing.T) {
	if _, err := exec.LookPath("tmux"); err != nil {
		t.Skip("tmux is not installed (.ci/run installs it)")
	}
	if testing.Short() {
		t.Skip("end-to-end test skipped in -short mode")
	}
	tmp := t.TempDir()
	bin := filepath.Join(tmp, "kata")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	data := filepath.Join(tmp, "data")
	s := &tmuxSession{t: t, sock: filepath.Join(tmp, "tmux.sock")}
	env := []string{"env", "TERM=xterm-256color", "HOME=" + tmp, "XDG_DATA_HOME=" + data, "XDG_STATE_HOME=" + filepath.Join(tmp, "state"), "NO_COLOR=1", "PATH=" + os.Getenv("PATH")}
	s.tmux(append([]string{"new-session", "-d", "-s", "kata", "-x", "80", "-y", "24"}, append(env, bin)...)...)
	t.Cleanup(func() { exec.Command("tmux", "-S", s.sock, "kill-server").Run() })

	s.send("Structured errors in MCP")
	// The catalog is sorted by id: mcp-engineering, mcp-error-responses, mcp-structured-errors.
	s.send("> Error responses", "Down")
	s.send("> Structured errors", "Down")
	s.send("The mental model", "Enter")              // knowledge layer
	scr := s.send("Good payloads", "Right", "Right") // examples layer replaces knowledge
	if strings.Contains(scr, "The mental model") {
		t.Errorf("the knowledge layer is still on screen after switching to examples:\n%s", scr)
	}
	s.send("se-01", "x") // exam
	scr = s.send("[key]", "a")
	if !strings.Contains(scr, "orrect") {
		t.Errorf("answering showed no verdict:\n%s", scr)
	}
	s.send("1 knowledge", "Escape") // back to the kata screen (Escape alone, or it pairs with the next key as alt+key)
	s.send("Why it fails", "t")     // trap table
	for _, line := range strings.Split(s.screen(), "\n") {
		if w := len([]rune(line)); w > 80 {
			t.Errorf("trap table line is %d columns wide: %q", w, line)
		}
	}
	ws := filepath.Join(data, "kata", "workspaces", "mcp-structured-errors")
	s.send("1 knowledge", "Escape")
	s.send("press i to create it", "w") // task screen: the workspace does not exist yet
	s.send("Created from the python template", "i")
	ref := filepath.Join("testdata", "references", "mcp-structured-errors", "python", "correct")
	for _, f := range []string{"server.py", "client.py"} {
		b, err := os.ReadFile(filepath.Join(ref, f))
		if err != nil {
			t.Fatal(err)
		}
		os.WriteFile(filepath.Join(ws, f), b, 0o644)
	}
	s.send("0 failed", "g")
	s.tmux("send-keys", "-t", "kata", "q")
}
