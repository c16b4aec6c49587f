package grader

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/kata-mcp/kata/grader/sandbox"
	"github.com/kata-mcp/kata/internal/i18n"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// ProtocolVersion is the MCP revision the grader speaks. It is pinned: from go-sdk v1.7 the
// default is the 2026-07-28 revision, which probes with server/discover first, and a minimal
// learner loop would hang on it (docs/grading.md#protocol-version).
const ProtocolVersion = "2025-11-25"

// maxMessage bounds one protocol message on the learner's stdout (docs/grading.md#output-caps).
const maxMessage = 1 << 20

// handshakeTimeout bounds the initialize exchange.
const handshakeTimeout = 10 * time.Second

// violation is a line on the server's stdout that is not a JSON-RPC message.
type violation struct {
	Line string
	Test string
}

// violationLog collects stdout violations over every server instance of a run.
type violationLog struct {
	mu   sync.Mutex
	list []violation
	// dropped counts violations past maxViolations, which are counted but not kept.
	dropped int
}

// maxViolations bounds how many stdout violations a run keeps.
const maxViolations = 100

func (v *violationLog) add(line, test string) {
	v.mu.Lock()
	defer v.mu.Unlock()
	if len(v.list) >= maxViolations {
		v.dropped++
		return
	}
	v.list = append(v.list, violation{Line: clipText(line, 200), Test: test})
}

// testLabel is the name of the test a server instance is running, for attributing stdout
// violations when several instances run at once.
type testLabel struct {
	mu   sync.Mutex
	name string
}

func (l *testLabel) set(name string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.name = name
}

func (l *testLabel) get() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.name
}

// count is the number of violations seen, kept or not.
func (v *violationLog) count() int {
	v.mu.Lock()
	defer v.mu.Unlock()
	return len(v.list) + v.dropped
}

func (v *violationLog) all() []violation {
	v.mu.Lock()
	defer v.mu.Unlock()
	return append([]violation(nil), v.list...)
}

// serverConn is a running learner server and the grader's MCP session with it.
type serverConn struct {
	proc    *sandbox.Process
	session *mcp.ClientSession
	label   *testLabel
}

// launchSpec is everything needed to (re)start a learner's server or client.
type launchSpec struct {
	// dir is the workspace; cwd the working directory inside it ("" for dir itself).
	dir, cwd string
	command  string
	args     []string
	env      []string
	// box is the run's sandbox (nil in the grader's own tests: a plain process group).
	box *sandbox.Box
	// hidden is a path of the command line outside what the sandbox shows ("" for none): a
	// failed start then says that only the workspace and system folders are visible.
	hidden string
	// handshake, when set, replaces handshakeTimeout (Options.handshake: the grader's own tests).
	handshake time.Duration
	// api gives the process the run's Orders API (sandbox.Spec.API): the server's spec, not
	// the client's, nor that of a server whose Orders API must refuse.
	api bool
	// started, when set, counts every process started from the spec (Timings.Processes).
	started *atomic.Int32
}

// handshakeWait is how long launchServer waits for the initialize exchange.
func (spec launchSpec) handshakeWait() time.Duration {
	if spec.handshake > 0 {
		return spec.handshake
	}
	return handshakeTimeout
}

// hiddenPath returns the first of command and args that names a host path the sandbox box does
// not show (absolute, or relative to the working directory with ".."), or "".
func hiddenPath(box *sandbox.Box, dir, cwd, command string, args []string) string {
	if cwd == "" {
		cwd = dir
	}
	for _, a := range append([]string{command}, args...) {
		p := a
		if !filepath.IsAbs(p) {
			if !strings.HasPrefix(p, "..") {
				continue
			}
			p = filepath.Join(cwd, p)
		}
		if !box.Shows(p) {
			return a
		}
	}
	return ""
}

// start starts the process spec describes, with the memory limit of a server or client.
func (spec launchSpec) start() (*sandbox.Process, error) {
	if spec.started != nil {
		spec.started.Add(1)
	}
	return sandbox.Start(spec.box, sandbox.Spec{WS: spec.dir, Cwd: spec.cwd, Command: spec.command, Args: spec.args, Env: spec.env, Limits: sandbox.Limits{Data: sandbox.MemoryLimit}, API: spec.api})
}

// launchServer starts the server and completes the MCP handshake at ProtocolVersion. Any
// line on stdout that is not JSON-RPC is logged as a violation and dropped, so one stray
// debug print is reported clearly instead of killing the session.
func launchServer(ctx context.Context, spec launchSpec, viol *violationLog) (*serverConn, error) {
	proc, err := spec.start()
	if err != nil {
		return nil, err
	}
	pr, pw := io.Pipe()
	label := &testLabel{}
	go filterStdout(proc.Stdout, pw, viol, label)
	client := mcp.NewClient(&mcp.Implementation{Name: "kata-grader", Version: "1"}, nil)
	transport := &mcp.IOTransport{Reader: pr, Writer: proc.Stdin, MaxLineLength: maxMessage + 1024}
	hctx, cancel := context.WithTimeout(ctx, handshakeTimeout)
	defer cancel()
	session, err := client.Connect(hctx, transport, &mcp.ClientSessionOptions{ProtocolVersion: ProtocolVersion})
	if err != nil {
		// Give an exiting process a moment to be reaped so the message can say how it ended:
		// its pipes may stay open for up to WaitDelay while a descendant dies.
		select {
		case <-proc.Done():
		case <-time.After(sandbox.WaitDelay + 500*time.Millisecond):
		}
		exited, how := proc.Exited()
		proc.Kill(time.Second)
		tail := proc.Stderr.Since(0, 2048)
		var msg i18n.Msg
		switch {
		case exited:
			msg = i18n.M("harness.handshake.exited", "How", how)
		case errors.Is(hctx.Err(), context.DeadlineExceeded):
			msg = i18n.M("harness.handshake.timeout", "Timeout", spec.handshakeWait().String())
		default:
			msg = i18n.M("harness.handshake.failed", "Error", learnerJSONError(err.Error()))
		}
		if v := viol.all(); len(v) > 0 {
			msg = i18n.M("harness.handshake.stdout", "Problem", msg, "Line", strconv.Quote(v[0].Line))
		}
		if tail != "" {
			msg = i18n.Lines(msg, i18n.M("harness.handshake.stderr"), i18n.Raw(tail))
		}
		if spec.hidden != "" {
			msg = i18n.Lines(msg, i18n.M("harness.handshake.hidden", "Path", strconv.Quote(spec.hidden)))
		}
		return nil, sayErr("", 0, msg)
	}
	return &serverConn{proc: proc, session: session, label: label}, nil
}

// close ends the session and the server's whole process group.
func (c *serverConn) close() {
	c.proc.Stdin.Close()
	done := make(chan struct{})
	go func() { c.session.Close(); close(done) }()
	select {
	case <-done:
	case <-time.After(2 * time.Second):
	}
	c.proc.Kill(time.Second)
}

// filterStdout copies JSON-RPC lines from the server's stdout to w and records every other
// line as a violation. A line over maxMessage is a violation too and is discarded.
func filterStdout(r io.Reader, w *io.PipeWriter, viol *violationLog, label *testLabel) {
	br := bufio.NewReaderSize(r, 64<<10)
	for {
		line, tooLong, err := readLine(br, maxMessage)
		if tooLong {
			viol.add(fmt.Sprintf("a message larger than %d bytes (%s…)", maxMessage, clipText(string(line), 60)), label.get())
		} else if t := bytes.TrimSpace(line); len(t) > 0 {
			if isJSONRPC(t) {
				if _, werr := w.Write(append(t, '\n')); werr != nil {
					return
				}
			} else {
				viol.add(string(t), label.get())
			}
		}
		if err != nil {
			w.CloseWithError(io.EOF)
			return
		}
	}
}

// readLine reads one line, keeping at most limit bytes of it; tooLong reports a longer line.
func readLine(br *bufio.Reader, limit int) (line []byte, tooLong bool, err error) {
	for {
		chunk, isPrefix, err := br.ReadLine()
		if len(line) <= limit {
			line = append(line, chunk...)
		}
		if len(line) > limit {
			tooLong = true
		}
		if err != nil || !isPrefix {
			return line, tooLong, err
		}
	}
}

// isJSONRPC reports whether b is a JSON object carrying "jsonrpc": "2.0" (or a batch array).
func isJSONRPC(b []byte) bool {
	if !json.Valid(b) {
		return false
	}
	if b[0] == '[' {
		return true
	}
	var m struct {
		JSONRPC string `json:"jsonrpc"`
	}
	return b[0] == '{' && json.Unmarshal(b, &m) == nil && m.JSONRPC == "2.0"
}
