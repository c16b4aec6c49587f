//go:build linux

package sandbox

// The forwarder: the first program of a server's sandbox, kata's own binary re-executed. In a
// network namespace of its own the sandbox has nothing but its loopback; the forwarder listens
// on 127.0.0.1:PORT there, passes every connection to the grade's Orders API, which listens on
// a Unix socket bound into the sandbox, and runs the learner's program as its child
// (docs/grading.md#sandbox-network).

import (
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strconv"
	"sync"
	"syscall"

	"golang.org/x/sys/unix"
)

// forwardArg is the first argument that turns any binary linking this package — kata, and the
// test binaries of every package that grades — into the forwarder: the package's init runs
// forwardMain and exits before anything else of the program runs.
const forwardArg = "__kata-sandbox-forward__"

// Where a server's sandbox shows the forwarder's program and the folder holding the grade's
// Orders API socket (read-only both).
const (
	sandboxForwarder = "/run/kata-forward"
	sandboxAPIDir    = "/run/kata"
	apiSocketName    = "api.sock"
)

func init() {
	if len(os.Args) > 1 && os.Args[1] == forwardArg {
		os.Exit(forwardMain(os.Args[2:]))
	}
}

// forwardMain is the forwarder: args are PORT SOCKET -- PROGRAM ARGS…. It listens on
// 127.0.0.1:PORT, forwards each connection to the Unix socket SOCKET, runs PROGRAM with ARGS
// (its environment and standard streams are the forwarder's own), and exits as PROGRAM did: its
// exit code, or 128+N when signal N killed it, as bwrap reports its program's end. The
// sandbox's init ends the namespace when the forwarder ends, so the learner's program never
// outlives it.
//
// The learner's program runs as the same user in the same namespaces: it may kill the
// forwarder (which ends its own sandbox) or, where ptrace is allowed, take it over. Neither
// reaches outside: the forwarder holds nothing the program lacks — no descriptor of kata's, no
// privilege, no other network — only the same socket to its own grade's Orders API.
func forwardMain(args []string) int {
	if len(args) < 4 || args[2] != "--" {
		fmt.Fprintln(os.Stderr, "kata forwarder: usage: PORT SOCKET -- PROGRAM ARGS…")
		return 127
	}
	port, socket, program, progArgs := args[0], args[1], args[3], args[4:]
	// SIGTERM, SIGINT and SIGHUP are for the learner's program: kata's shutdown sends SIGTERM
	// to every process of the sandbox, and the forwarder must outlive the program's own
	// shutdown. Caught, not ignored: an ignored signal would stay ignored in the program.
	signal.Notify(make(chan os.Signal, 1), syscall.SIGTERM, syscall.SIGINT, syscall.SIGHUP)
	ln, err := net.Listen("tcp", net.JoinHostPort("127.0.0.1", port))
	if err != nil {
		fmt.Fprintf(os.Stderr, "kata forwarder: the Orders API's address: %v\n", err)
		return 127
	}
	go serveForward(ln, socket)
	// descriptors bwrap passed on (its block pipe's write end) are not the program's
	closeOnExecFrom(3)
	cmd := &exec.Cmd{Path: program, Args: append([]string{program}, progArgs...), Env: os.Environ(),
		Stdin: os.Stdin, Stdout: os.Stdout, Stderr: os.Stderr}
	if err := cmd.Start(); err != nil {
		// as bwrap words a program it cannot run
		fmt.Fprintf(os.Stderr, "bwrap: execvp %s: %v\n", program, unwrapPathErr(err))
		return 1
	}
	// the program has its own copies of stdin and stdout: the forwarder keeps none open
	if null, err := os.OpenFile(os.DevNull, os.O_RDWR, 0); err == nil {
		_ = unix.Dup2(int(null.Fd()), 0)
		_ = unix.Dup2(int(null.Fd()), 1)
		null.Close()
	}
	err = cmd.Wait()
	if ws, ok := cmd.ProcessState.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return 128 + int(ws.Signal())
	}
	if err != nil && cmd.ProcessState == nil {
		return 1
	}
	return cmd.ProcessState.ExitCode()
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

// forwarderProgram is kata's own executable on the host, resolved once: the forwarder's program.
func forwarderProgram() (string, error) {
	executableOnce.Do(func() {
		p, err := os.Executable()
		if err == nil {
			p, err = filepath.EvalSymlinks(p)
		}
		executablePath, executableErr = p, err
	})
	return executablePath, executableErr
}
