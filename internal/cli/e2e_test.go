package cli

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
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
	return s.sendAll([]string{want}, keys...)
}

// sendAll types keys and waits until the screen shows every string of want at once.
func (s *tmuxSession) sendAll(want []string, keys ...string) string {
	s.t.Helper()
	if len(keys) > 0 {
		s.tmux(append([]string{"send-keys", "-t", "kata"}, keys...)...)
	}
	deadline := time.Now().Add(20 * time.Second)
	for {
		scr := s.screen()
		all := true
		for _, w := range want {
			all = all && strings.Contains(scr, w)
		}
		if all {
			return scr
		}
		if time.Now().After(deadline) {
			s.t.Fatalf("after keys %v the screen never showed %q; it shows:\n%s", keys, want, scr)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// waitEnded waits until the app has quit and its session ended (the session's only window runs
// the app, so quitting ends the session, and tmux's server with it). A kill-server here would
// race that exit: it fails with "no server running" when the app was quicker.
func (s *tmuxSession) waitEnded() {
	s.t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for exec.Command("tmux", "-S", s.sock, "-f", "/dev/null", "has-session", "-t", "kata").Run() == nil {
		if time.Now().After(deadline) {
			s.t.Fatalf("the app did not quit after q; it shows:\n%s", s.screen())
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// start opens a session running the command line in env, 80×24. Right after an earlier
// session ended, its tmux server may still be shutting down and refuse the new session
// ("server exited unexpectedly"): start retries until a deadline.
func (s *tmuxSession) start(env []string, cmd ...string) {
	s.t.Helper()
	args := append([]string{"-S", s.sock, "-f", "/dev/null", "new-session", "-d", "-s", "kata", "-x", "80", "-y", "24"}, append(env, cmd...)...)
	deadline := time.Now().Add(20 * time.Second)
	for {
		out, err := exec.Command("tmux", args...).CombinedOutput()
		if err == nil {
			return
		}
		if time.Now().After(deadline) {
			s.t.Fatalf("tmux new-session: %v\n%s", err, out)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// kataBuild is the kata binary the tests run: built once per test binary, on first use
// (TestMain removes it).
var kataBuild struct {
	once     sync.Once
	dir, bin string
	err      error
}

// buildKata puts the kata binary into dir and returns its path. The binary is built once
// (kataBuild) and linked, or else copied, into each test's dir, so every test still runs a
// binary under a path of its own.
func buildKata(t *testing.T, dir string) string {
	t.Helper()
	kataBuild.once.Do(func() {
		if kataBuild.dir, kataBuild.err = os.MkdirTemp("", "kata-test-build-"); kataBuild.err != nil {
			return
		}
		kataBuild.bin = filepath.Join(kataBuild.dir, "kata")
		if out, err := exec.Command("go", "build", "-o", kataBuild.bin, "../..").CombinedOutput(); err != nil {
			kataBuild.err = fmt.Errorf("go build: %v\n%s", err, out)
		}
	})
	if kataBuild.err != nil {
		t.Fatal(kataBuild.err)
	}
	bin := filepath.Join(dir, "kata")
	if err := os.Link(kataBuild.bin, bin); err != nil {
		raw, err := os.ReadFile(kataBuild.bin)
		if err == nil {
			err = os.WriteFile(bin, raw, 0o755)
		}
		if err != nil {
			t.Fatalf("copying the kata binary into %s: %v", dir, err)
		}
	}
	return bin
}

// TestEndToEndInTmux walks the main path in a real terminal: catalog → knowledge layer →
// examples layer → a quiz item (enter with nothing marked answers nothing) answered → trap
// table at 80 columns → task screen → workspace created → graded with a correct server →
// every test passes → a save grades again and the status returns to ready → after a restart
// the task screen shows the last grade.
func TestEndToEndInTmux(t *testing.T) {
	t.Parallel() // runs its own kata binary in folders of its own: nothing shared with other tests
	if _, err := exec.LookPath("tmux"); err != nil {
		t.Skip("tmux is not installed (.ci/run installs it)")
	}
	if testing.Short() {
		t.Skip("end-to-end test skipped in -short mode")
	}
	tmp := t.TempDir()
	bin := buildKata(t, tmp)
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
	s.send("se-01", "x")                     // the quiz
	s.send("Nothing is marked yet", "Enter") // enter with nothing marked answers nothing …
	s.send("(x) a)", "a")                    // … a letter marks an option …
	scr = s.send("correct", "Enter")         // … and enter answers
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
	ref := filepath.Join("..", "..", "testdata", "references", "mcp-structured-errors", "python", "correct")
	for _, f := range []string{"server.py", "client.py"} {
		b, err := os.ReadFile(filepath.Join(ref, f))
		if err != nil {
			t.Fatal(err)
		}
		os.WriteFile(filepath.Join(ws, f), b, 0o644)
	}
	s.send("0 failed", "g")
	// A save grades again, and the status comes back to ready once that grade is in.
	server := filepath.Join(ws, "server.py")
	b, err := os.ReadFile(server)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(server, append(b, "\n# saved again\n"...), 0o644); err != nil {
		t.Fatal(err)
	}
	// The second grade is the one that says what changed since the first.
	s.sendAll([]string{"Since the last grade", "Ready. Edit the files there"})
	// The app remembers: after a restart the task screen opens on the last grade.
	s.tmux("send-keys", "-t", "kata", "q")
	s.waitEnded()
	s.start(env, bin)
	s.send("> MCP engineering")
	s.send("> Structured errors", "Down", "Down")
	s.send("1 knowledge", "Enter")
	s.sendAll([]string{"Last grade", "0 failed"}, "w")
	s.tmux("send-keys", "-t", "kata", "q")
}

// TestPracticeInTmux walks issue 5's acceptance path with the built binary and a progress
// store in a temp dir: a 10-item exam is started, two answers are given, the app is killed
// with SIGKILL, restarted and resumed with both answers still chosen; the exam runs to a
// scaled score and a review of every item; a trap drill runs; `kata stats` counts it all.
func TestPracticeInTmux(t *testing.T) {
	t.Parallel() // runs its own kata binary in folders of its own: nothing shared with other tests
	if _, err := exec.LookPath("tmux"); err != nil {
		t.Skip("tmux is not installed (.ci/run installs it)")
	}
	if testing.Short() {
		t.Skip("end-to-end test skipped in -short mode")
	}
	tmp := t.TempDir()
	bin := buildKata(t, tmp)
	state := filepath.Join(tmp, "state", "progress.db")
	s := &tmuxSession{t: t, sock: filepath.Join(tmp, "tmux.sock")}
	// The "editor" notes the folder it was opened on, outside the workspace (no re-grade).
	editor := filepath.Join(tmp, "editor.sh")
	edited := filepath.Join(tmp, "edited")
	if err := os.WriteFile(editor, []byte("#!/bin/sh\necho \"$1\" > "+edited+"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	env := []string{"env", "TERM=xterm-256color", "HOME=" + tmp, "KATA_STATE=" + state, "NO_COLOR=1", "PATH=" + os.Getenv("PATH"),
		"EDITOR=" + editor, "XDG_DATA_HOME=" + filepath.Join(tmp, "data")}
	t.Cleanup(func() { exec.Command("tmux", "-S", s.sock, "kill-server").Run() })

	s.start(env, bin, "exam", "--items", "10", "--seed", "42")
	s.sendAll([]string{"Mock exam · item 1 of 10", "0 answered", "left 20:00"})
	// Two answers, each confirmed saved before the next key.
	picks := []string{"a", "b"}
	for i, letter := range picks {
		s.mark(letter)
		s.sendAll([]string{fmt.Sprintf("%d answered", i+1), "saved"})
		s.send(fmt.Sprintf("item %d of 10", i+2), "n")
	}
	// SIGKILL the app mid-exam.
	pid := strings.TrimSpace(s.tmux("display-message", "-p", "-t", "kata", "#{pane_pid}"))
	if out, err := exec.Command("kill", "-9", pid).CombinedOutput(); err != nil {
		t.Fatalf("kill -9 %s: %v %s", pid, err, out)
	}
	s.waitGone()

	s.start(env, bin, "exam", "--items", "10")
	s.sendAll([]string{"An unfinished mock exam", "10 items · 2 answered so far"})
	s.sendAll([]string{"Resumed", "item 1 of 10", "2 answered"}, "r")
	for i, letter := range picks {
		scr := s.send(fmt.Sprintf("item %d of 10", i+1))
		if !strings.Contains(scr, "(x) "+letter+")") && !strings.Contains(scr, "[x] "+letter+")") {
			t.Fatalf("item %d lost its answer %s after SIGKILL:\n%s", i+1, letter, scr)
		}
		s.send(fmt.Sprintf("item %d of 10", i+2), "n")
	}
	for i := 3; i <= 10; i++ {
		s.mark("a")
		s.sendAll([]string{fmt.Sprintf("%d answered", i), "saved"})
		if i < 10 {
			s.send(fmt.Sprintf("item %d of 10", i+1), "n")
		}
	}
	s.send("10 of 10 items answered", "s")
	scr := s.sendAll([]string{"Scaled score", "pass mark 720", "of 10 items right", "Our approximation, not the official scaling", "By kata", "By scenario"}, "y")
	if !strings.Contains(scr, "PASS") && !strings.Contains(scr, "FAIL") {
		t.Errorf("the result says neither PASS nor FAIL:\n%s", scr)
	}
	s.sendAll([]string{"Mock exam review · item 1 of 10", "correct"}, "r")
	s.send("Mock exam review · item 2 of 10", "Right")
	s.send("Scaled score", "Escape")
	s.send("best mock exam", "Escape") // the catalog shows the mock exam

	// A trap drill from the first kata's screen.
	s.send("1 knowledge", "Enter")
	s.sendAll([]string{"Trap 1 of", "Which pattern avoids this trap?"}, "d")
	s.send("(x) a)", "a")
	s.sendAll([]string{"Why it fails:", "[key]"}, "Enter")
	s.send("Trap 2 of", "n")

	// A prompt copied through OSC 52 lands in tmux's paste buffer (set-clipboard on).
	s.tmux("set-option", "-g", "set-clipboard", "on")
	s.send("1 knowledge", "Escape")
	s.send("c copy a prompt", "2")
	s.send("Copy which prompt to the clipboard?", "c")
	s.send("to the clipboard (OSC 52", "a")
	prompt, err := os.ReadFile(filepath.Join("..", "..", "packets", "mcp-engineering", "prompts", "01-write-the-server-config.md"))
	if err != nil {
		t.Fatal(err)
	}
	// The status line and the OSC 52 write are separate outputs of the app: the screen may say
	// "copied" before tmux has read the sequence, so wait for the buffer itself.
	holdsPrompt := func(buf string) bool {
		return len(buf) >= 100 && !strings.Contains(buf, "```") && strings.Contains(string(prompt), strings.TrimSpace(buf))
	}
	buf := ""
	for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		out, _ := exec.Command("tmux", "-S", s.sock, "show-buffer").CombinedOutput()
		if buf = string(out); holdsPrompt(buf) || time.Now().After(deadline) {
			break
		}
	}
	if !holdsPrompt(buf) {
		t.Errorf("the paste buffer does not hold the prompt's code block:\n%s", buf)
	}

	// e on the task screen hands the terminal to $EDITOR on the workspace and comes back.
	s.send("press i to create it", "w")
	s.send("Created from the python template", "i")
	s.send("Back from the editor.", "e")
	ws := filepath.Join(tmp, "data", "kata", "workspaces", "mcp-engineering")
	if b, err := os.ReadFile(edited); err != nil || strings.TrimSpace(string(b)) != ws {
		t.Errorf("the editor ran on %q (%v), want %s", b, err, ws)
	}
	s.tmux("send-keys", "-t", "kata", "q")
	s.waitGone()

	cmd := exec.Command(bin, "stats")
	cmd.Env = append(os.Environ(), "KATA_STATE="+state, "NO_COLOR=1")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("kata stats: %v\n%s", err, out)
	}
	// Ten exam answers and one trap drill answer.
	for _, want := range []string{"exams 1 finished, 0 open", "11 answers"} {
		if !strings.Contains(string(out), want) {
			t.Errorf("kata stats lacks %q:\n%s", want, out)
		}
	}
}

// mark marks letter on the exam item on show, and the next letter too when the item asks to
// choose two; it waits for the mark to show.
func (s *tmuxSession) mark(letter string) {
	s.t.Helper()
	scr := s.screen()
	s.tmux("send-keys", "-t", "kata", letter)
	if strings.Contains(scr, "Choose 2.") {
		s.send("(1 marked)")
		s.tmux("send-keys", "-t", "kata", string(rune(letter[0]+1)))
		s.send("(2 marked)")
		return
	}
	s.send("(x) " + letter + ")")
}

// waitGone waits until the session's app has exited (the session ends with it).
func (s *tmuxSession) waitGone() {
	s.t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		err := exec.Command("tmux", "-S", s.sock, "-f", "/dev/null", "has-session", "-t", "kata").Run()
		if err != nil {
			return
		}
		if time.Now().After(deadline) {
			s.t.Fatal("the app did not exit")
		}
		time.Sleep(50 * time.Millisecond)
	}
}
