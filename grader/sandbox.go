package grader

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"
)

// stderrCap is how much of a learner process's stderr is kept (docs/grading.md#output-caps).
const stderrCap = 64 << 10

// passEnv are the only variables of the caller's environment a learner process inherits
// (docs/grading.md#environment), so learner code never sees the user's own secrets.
var passEnv = []string{"PATH", "HOME", "LANG", "TMPDIR"}

// lookupEnv is the variable lookup for .mcp.json expansion: the grader's own variables, then
// HOME, PATH, USER, LANG, TMPDIR from the caller's environment (docs/grading.md#expansion).
func lookupEnv(grader map[string]string) func(string) (string, bool) {
	return func(name string) (string, bool) {
		if v, ok := grader[name]; ok {
			return v, true
		}
		switch name {
		case "HOME", "PATH", "USER", "LANG", "TMPDIR":
			return os.LookupEnv(name)
		}
		return "", false
	}
}

// processEnv builds a learner process's environment: the configured entries plus passEnv.
func processEnv(entries map[string]string) []string {
	var env []string
	for _, k := range passEnv {
		if _, set := entries[k]; set {
			continue
		}
		if v, ok := os.LookupEnv(k); ok {
			env = append(env, k+"="+v)
		}
	}
	for k, v := range entries {
		env = append(env, k+"="+v)
	}
	return env
}

// process is one learner process in its own process group, with its stderr tail kept.
type process struct {
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	stdout io.ReadCloser
	stderr *tailBuffer

	done    chan struct{}
	waitErr error
}

// resolveCommand makes a relative command path (one with a slash) relative to dir, as an MCP
// host resolves .mcp.json commands against the project folder.
func resolveCommand(dir, command string) string {
	if strings.ContainsRune(command, '/') && !filepath.IsAbs(command) {
		return filepath.Join(dir, command)
	}
	return command
}

// startProcess launches command in dir with env, in a new process group, with pipes on stdin
// and stdout and stderr captured.
func startProcess(dir, command string, args, env []string) (*process, error) {
	cmd := exec.Command(resolveCommand(dir, command), args...)
	cmd.Dir = dir
	cmd.Env = env
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	p := &process{cmd: cmd, stderr: &tailBuffer{cap: stderrCap}, done: make(chan struct{})}
	var err error
	if p.stdin, err = cmd.StdinPipe(); err != nil {
		return nil, err
	}
	if p.stdout, err = cmd.StdoutPipe(); err != nil {
		return nil, err
	}
	cmd.Stderr = p.stderr
	// A descendant that inherited stderr would keep Wait waiting for the copy to finish:
	// once the process itself has exited, give its output a moment, then close the pipes.
	cmd.WaitDelay = time.Second
	if err := cmd.Start(); err != nil {
		var pe *exec.Error
		if errors.As(err, &pe) {
			return nil, fmt.Errorf("cannot start %q: %v", command, pe.Err)
		}
		return nil, fmt.Errorf("cannot start %q: %v", command, err)
	}
	limitMemory(cmd.Process.Pid)
	go func() {
		p.waitErr = cmd.Wait()
		close(p.done)
	}()
	return p, nil
}

// exited reports whether the process has ended, and how.
func (p *process) exited() (bool, string) {
	select {
	case <-p.done:
		return true, describeExit(p.cmd.ProcessState)
	default:
		return false, ""
	}
}

func describeExit(st *os.ProcessState) string {
	if st == nil {
		return "exited"
	}
	if ws, ok := st.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return fmt.Sprintf("was killed by signal %v", ws.Signal())
	}
	return fmt.Sprintf("exited with code %d", st.ExitCode())
}

// kill ends the whole process group: stdin is closed, then SIGTERM, then SIGKILL after grace
// (MCP stdio shutdown order). It waits for the leader to be reaped.
func (p *process) kill(grace time.Duration) {
	p.stdin.Close()
	pgid := p.cmd.Process.Pid
	select {
	case <-p.done:
	case <-time.After(grace / 2):
	}
	_ = syscall.Kill(-pgid, syscall.SIGTERM)
	select {
	case <-p.done:
	case <-time.After(grace):
	}
	_ = syscall.Kill(-pgid, syscall.SIGKILL)
	<-p.done
}

// tailBuffer keeps the last cap bytes written to it and counts all bytes ever written, so a
// test can ask for "what was written since mark".
type tailBuffer struct {
	mu    sync.Mutex
	cap   int
	buf   []byte
	total int64
}

// Write appends b, keeping only the newest cap bytes (the stderr tail of docs/grading.md#output-caps); it never fails.
func (t *tailBuffer) Write(b []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.total += int64(len(b))
	t.buf = append(t.buf, b...)
	if over := len(t.buf) - t.cap; over > 0 {
		t.buf = append(t.buf[:0], t.buf[over:]...)
	}
	return len(b), nil
}

// mark returns the count of bytes written so far.
func (t *tailBuffer) mark() int64 {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.total
}

// since returns what was written after mark (as much as is still kept), capped to the last
// max bytes.
func (t *tailBuffer) since(mark int64, max int) string {
	t.mu.Lock()
	defer t.mu.Unlock()
	n := t.total - mark
	if n <= 0 {
		return ""
	}
	if n > int64(len(t.buf)) {
		n = int64(len(t.buf))
	}
	out := t.buf[len(t.buf)-int(n):]
	if len(out) > max {
		return "…" + string(out[len(out)-max:])
	}
	return string(out)
}
