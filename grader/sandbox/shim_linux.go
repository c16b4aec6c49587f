//go:build linux

package sandbox

// The shim: the first program of every sandbox, kata's own binary re-executed. It runs the
// learner's program as its child and ends the sandbox the moment kata is gone, whatever bwrap
// was doing then; for a server in a network namespace of its own it is also the Orders API's
// forwarder: it listens on 127.0.0.1:PORT there and passes every connection to the grade's
// Orders API, which listens on a Unix socket bound into the sandbox
// (docs/grading.md#sandbox-network).

import (
	"fmt"
	"io"
	"net"
	"os"
	"os/signal"
	"path/filepath"
	"runtime/debug"
	"strconv"
	"sync"

	"golang.org/x/sys/unix"
)

// shimArg is the first argument that turns any binary linking this package — kata, and the
// test binaries of every package that grades — into the shim: the package's init runs shimMain
// and exits before anything else of the program runs.
const shimArg = "__kata-sandbox-shim__"

// Where a sandbox shows the shim's program, and a server's sandbox the folder holding the
// grade's Orders API socket (read-only both).
const (
	sandboxShim   = "/run/kata-shim"
	sandboxAPIDir = "/run/kata-api"
)

// lifelineFD is the descriptor on which the shim finds the read end of kata's lifeline: a pipe
// whose only write end kata holds, never writes to, and never passes on (lifeline). It reads
// end of file once kata is gone, SIGKILL included.
const lifelineFD = 5

func init() {
	if len(os.Args) > 1 && os.Args[1] == shimArg {
		os.Exit(shimMain(os.Args[2:]))
	}
}

// shimMain is the shim, the sandbox's PID 1: args are [--forward PORT SOCKET] -- PROGRAM
// ARGS…. It refuses to run PROGRAM once kata is gone (the lifeline reads end of file), forwards
// 127.0.0.1:PORT to the Unix socket SOCKET when asked, runs PROGRAM with ARGS (its environment
// and standard streams are the shim's own), reaps every process orphaned in the sandbox, and
// exits as soon as kata is gone or PROGRAM has ended: with PROGRAM's exit code, or 128+N when
// signal N killed it, as bwrap reports its program's end. Its exit ends the PID namespace: the
// kernel kills every process left in it.
//
// The learner's program runs as the same user in the same namespaces, but cannot end or stop
// the shim: a namespace's PID 1 gets no signal from inside it that it does not handle (the shim
// handles every signal it can, and none ends it), and the shim is not dumpable, so it cannot be
// traced. Nor does the shim hold anything the program lacks — no descriptor of kata's but the
// lifeline's read end, no privilege, no other network — only the same socket to its own
// grade's Orders API.
func shimMain(args []string) int {
	var port, socket string
	if len(args) >= 3 && args[0] == "--forward" {
		port, socket, args = args[1], args[2], args[3:]
	}
	if len(args) < 2 || args[0] != "--" {
		fmt.Fprintln(os.Stderr, "kata sandbox shim: usage: [--forward PORT SOCKET] -- PROGRAM ARGS…")
		return 127
	}
	program, progArgs := args[1], args[2:]
	_ = unix.Prctl(unix.PR_SET_DUMPABLE, 0, 0, 0, 0)
	// Every signal the shim can catch is caught and dropped: kata's shutdown sends SIGTERM to
	// the program and everything it started, and the learner's code may send anything. Caught,
	// not ignored: the program gets the default dispositions back when it starts.
	signal.Notify(make(chan os.Signal, 64))
	// kata's other packages have run their init (the binary is all of kata): give back the
	// heap they built, which counts against the grade's memory cgroup
	debug.FreeOSMemory()
	if kataGone(0) {
		// kata died while the sandbox was starting: run nothing, and the sandbox ends with
		// the shim
		return 1
	}
	go func() {
		kataGone(-1)
		os.Exit(1)
	}()
	if port != "" {
		ln, err := net.Listen("tcp", net.JoinHostPort("127.0.0.1", port))
		if err != nil {
			fmt.Fprintf(os.Stderr, "kata sandbox shim: the Orders API's address: %v\n", err)
			return 127
		}
		go serveForward(ln, socket)
	}
	// descriptors bwrap passed on (the lifeline's and the info pipe's read ends) are not the
	// program's
	closeOnExecFrom(3)
	proc, err := os.StartProcess(program, append([]string{program}, progArgs...), &os.ProcAttr{
		Env: os.Environ(), Files: []*os.File{os.Stdin, os.Stdout, os.Stderr}})
	if err != nil {
		// as bwrap words a program it cannot run
		fmt.Fprintf(os.Stderr, "bwrap: execvp %s: %v\n", program, unwrapPathErr(err))
		return 1
	}
	// the program has its own copies of stdin and stdout: the shim keeps none open
	if null, err := os.OpenFile(os.DevNull, os.O_RDWR, 0); err == nil {
		_ = unix.Dup2(int(null.Fd()), 0)
		_ = unix.Dup2(int(null.Fd()), 1)
		null.Close()
	}
	// reap every child, the program's orphans included, until the program itself has ended
	for {
		var ws unix.WaitStatus
		pid, err := unix.Wait4(-1, &ws, 0, nil)
		switch {
		case err == unix.EINTR:
		case err != nil:
			return 1
		case pid == proc.Pid && ws.Signaled():
			return 128 + int(ws.Signal())
		case pid == proc.Pid && ws.Exited():
			return ws.ExitStatus()
		}
	}
}

// kataGone waits up to timeout milliseconds (-1: for ever) for the lifeline to read end of
// file, and reports whether it did (or the lifeline is missing): kata is gone.
func kataGone(timeout int) bool {
	fds := []unix.PollFd{{Fd: lifelineFD, Events: unix.POLLIN}}
	for {
		n, err := unix.Poll(fds, timeout)
		if err == unix.EINTR {
			continue
		}
		return err != nil || (n > 0 && fds[0].Revents != 0)
	}
}

// closeOnExecFrom marks every open descriptor from fd up close-on-exec.
func closeOnExecFrom(fd int) {
	entries, _ := os.ReadDir("/proc/self/fd")
	for _, e := range entries {
		if n, err := strconv.Atoi(e.Name()); err == nil && n >= fd {
			unix.CloseOnExec(n)
		}
	}
}

// serveForward passes every connection ln accepts to the Unix socket socket, until ln fails.
func serveForward(ln net.Listener, socket string) {
	for {
		c, err := ln.Accept()
		if err != nil {
			return
		}
		go forwardConn(c, socket)
	}
}

// forwardConn copies between the connection c and a new connection to socket, both ways; the
// end of one direction is passed on as a half-close (so the Orders API sees a caller that gave
// up), and both are closed once both directions ended.
func forwardConn(c net.Conn, socket string) {
	defer c.Close()
	u, err := net.Dial("unix", socket)
	if err != nil {
		return // the caller sees its connection closed, as a service gone away
	}
	defer u.Close()
	var wg sync.WaitGroup
	pipe := func(dst, src net.Conn) {
		defer wg.Done()
		_, _ = io.Copy(dst, src)
		if cw, ok := dst.(interface{ CloseWrite() error }); ok {
			_ = cw.CloseWrite()
		}
	}
	wg.Add(2)
	go pipe(u, c)
	go pipe(c, u)
	wg.Wait()
}

var (
	executableOnce sync.Once
	executablePath string
	executableErr  error
)

// shimProgram is kata's own executable on the host, resolved once: the shim's program.
func shimProgram() (string, error) {
	executableOnce.Do(func() {
		p, err := os.Executable()
		if err == nil {
			p, err = filepath.EvalSymlinks(p)
		}
		executablePath, executableErr = p, err
	})
	return executablePath, executableErr
}
