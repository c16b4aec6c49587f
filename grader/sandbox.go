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
	// stderr goes through a pipe the tail buffer reads itself, so that a test can settle it:
	// take in whatever the process wrote before its answer, and credit it to that test
	// (docs/grading.md#output-caps).
	errR, errW, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	cmd.Stderr = errW
	// A descendant that inherited stdout would keep Wait waiting for the copy to finish:
	// once the process itself has exited, give its output a moment, then close the pipes.
	cmd.WaitDelay = time.Second
	err = cmd.Start()
	errW.Close() // the child holds its own copy
	if err != nil {
		errR.Close()
		var pe *exec.Error
		if errors.As(err, &pe) {
			return nil, fmt.Errorf("cannot start %q: %v", command, pe.Err)
		}
		return nil, fmt.Errorf("cannot start %q: %v", command, err)
	}
	limitMemory(cmd.Process.Pid)
	following := p.stderr.follow(errR)
	go func() {
		p.waitErr = cmd.Wait()
		// Likewise for stderr: a descendant may hold it open after the process exited.
		select {
		case <-following:
		case <-time.After(cmd.WaitDelay):
			errR.Close()
		}
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
// test can ask for "what was written since mark". Bytes come from Write, or from a pipe the
// buffer follows (follow), which mark and since first settle.
type tailBuffer struct {
	mu    sync.Mutex
	cap   int
	buf   []byte
	total int64
	// pipe is the read end follow reads, nil for a buffer filled with Write; scratch is the
	// buffer settle reads into.
	pipe    syscall.RawConn
	scratch []byte
}

// Write appends b, keeping only the newest cap bytes (the stderr tail of docs/grading.md#output-caps); it never fails.
func (t *tailBuffer) Write(b []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.appendLocked(b)
	return len(b), nil
}

func (t *tailBuffer) appendLocked(b []byte) {
	t.total += int64(len(b))
	t.buf = append(t.buf, b...)
	if over := len(t.buf) - t.cap; over > 0 {
		t.buf = append(t.buf[:0], t.buf[over:]...)
	}
}

// follow reads the pipe f into the buffer until its writers close it or f is closed; the
// channel is closed when it stops. Every read is a non-blocking read(2) made with t.mu held, so
// settle can take what waits in the pipe at any moment and the bytes stay in order.
func (t *tailBuffer) follow(f *os.File) <-chan struct{} {
	stopped := make(chan struct{})
	raw, err := f.SyscallConn()
	if err != nil {
		close(stopped)
		return stopped
	}
	t.mu.Lock()
	t.pipe, t.scratch = raw, make([]byte, 32<<10)
	t.mu.Unlock()
	go func() {
		defer close(stopped)
		buf := make([]byte, 32<<10)
		for {
			var n int
			var rerr error
			err := raw.Read(func(fd uintptr) bool {
				t.mu.Lock()
				defer t.mu.Unlock()
				n, rerr = syscall.Read(int(fd), buf)
				if rerr == syscall.EAGAIN || rerr == syscall.EINTR {
					return false // nothing yet: wait until the pipe is readable
				}
				if n > 0 {
					t.appendLocked(buf[:n])
				}
				return true
			})
			if err != nil || rerr != nil || n <= 0 {
				return // f was closed, the read failed, or every writer closed the pipe
			}
		}
	}()
	return stopped
}

// settleMax bounds what one settle reads, so a process that floods its stderr cannot keep
// settle reading forever; it is more than a pipe holds (64 KiB on Linux, at most 1 MiB).
const settleMax = 2 << 20

// settleLocked takes in what is already waiting in the followed pipe. A process writes its
// stderr before the answer that ends a test, so after settling, that stderr is in the buffer.
func (t *tailBuffer) settleLocked() {
	if t.pipe == nil {
		return
	}
	_ = t.pipe.Control(func(fd uintptr) {
		for read := 0; read < settleMax; {
			n, err := syscall.Read(int(fd), t.scratch)
			if err == syscall.EINTR {
				continue
			}
			if err != nil || n <= 0 {
				return
			}
			t.appendLocked(t.scratch[:n])
			read += n
		}
	})
}

// mark returns the count of bytes written so far.
func (t *tailBuffer) mark() int64 {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.settleLocked()
	return t.total
}

// since returns what was written after mark (as much as is still kept), capped to the last
// max bytes.
func (t *tailBuffer) since(mark int64, max int) string {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.settleLocked()
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
