// Package sandbox confines the learner processes the grader starts (docs/grading.md#sandbox):
// it detects the isolation a machine offers (bubblewrap namespaces on Linux, else the fallback
// guards of docs/grading.md#not-isolated), builds each process's environment and view of the
// file system, starts processes with their resource limits and captured stderr, and ends and
// reaps them and everything they started.
package sandbox

import (
	cryptorand "crypto/rand"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/kata-mcp/kata/internal/i18n"
)

// StderrCap is how much of a learner process's stderr is kept (docs/grading.md#output-caps).
const StderrCap = 64 << 10

// passEnv are the only variables of the caller's environment a learner process inherits
// (docs/grading.md#environment), so learner code never sees the user's own secrets. HOME and
// TMPDIR are not among them: a learner process gets the sandbox's own (sandbox.home, .tmp).
var passEnv = []string{"PATH", "LANG"}

// IsolationKind names how learner processes are confined (docs/grading.md#sandbox).
type IsolationKind string

// The kinds of isolation.
const (
	// IsolationBwrap: every learner process runs under bubblewrap (bwrap) in its own user, PID,
	// IPC, UTS, mount and (unless Isolation.NetShared) network namespaces, seeing only system
	// folders (read-only), the tool folders kata finds on its own PATH (read-only), the
	// workspace (read-write) and an empty HOME, /tmp and /dev/shm, and reaching no network but
	// its own grade's Orders API.
	IsolationBwrap IsolationKind = "bwrap"
	// IsolationNone: no namespaces; the fallback guards of docs/grading.md#not-isolated only
	// (process groups, a temporary HOME, rlimits, and on Linux PDEATHSIG, a non-dumpable grader
	// and the subreaper).
	IsolationNone IsolationKind = "none"
)

// Isolation is the sandbox grading uses: its kind, the bwrap program when it is IsolationBwrap,
// and, when it is IsolationNone, why.
type Isolation struct {
	Kind IsolationKind
	// Tool is the path of bwrap (IsolationBwrap only).
	Tool string
	// Reason says why there is no isolation: bwrap is missing, cannot run here, or was turned
	// off (IsolationNone only).
	Reason string
	// Memory names how a grade's memory is bounded as a whole, shared memory included: "cgroup
	// v2" or "cgroup v1" (a memory cgroup per grade, GradeMemory), or "" where kata can create
	// no memory cgroup, and then MemoryReason says why: only the per-process RLIMIT_DATA holds,
	// which shared mappings, memfd and tmpfs files escape (docs/grading.md#memory-limit).
	Memory       string
	MemoryReason string
	// NetShared is true when bwrap runs but cannot give a sandbox a network namespace of its
	// own, and NetReason then says why: learner code shares the machine's network, loopback
	// services included (IsolationBwrap only; without isolation the network is always shared).
	NetShared bool
	NetReason string
}

// Isolated reports whether learner processes run in namespaces (IsolationBwrap).
func (i Isolation) Isolated() bool { return i.Kind == IsolationBwrap }

// PrivateNetwork reports whether learner processes run in network namespaces of their own
// (docs/grading.md#sandbox-network): a server reaches its own grade's Orders API and nothing
// else, a client and a build reach nothing.
func (i Isolation) PrivateNetwork() bool { return i.Isolated() && !i.NetShared }

// Notice is the one line to show when learner code runs without isolation: why, what is not
// isolated, and how to get bwrap; when it is isolated but a grade's memory cannot be bounded as
// a whole (no memory cgroup), that; else "".
func (i Isolation) Notice() string { return i.NoticeIn(nil) }

// NoticeIn is Notice in loc's language (nil: English); the reason stays as detected.
func (i Isolation) NoticeIn(loc *i18n.Localizer) string {
	if i.Isolated() {
		var lines []string
		if i.NetShared {
			lines = append(lines, loc.T("harness.isolation.network_shared", "Reason", i.NetReason))
		}
		if i.Memory == "" && i.MemoryReason != "" {
			lines = append(lines, loc.T("harness.isolation.memory_unbounded", "Reason", i.MemoryReason))
		}
		return strings.Join(lines, "; ")
	}
	how := loc.Say(howToIsolate())
	if strings.Contains(i.Reason, EnvIsolation) || strings.Contains(i.Reason, "turned off") {
		how = loc.T("harness.isolation.unset", "Env", EnvIsolation)
	}
	return loc.T("harness.isolation.notice", "Reason", i.Reason, "How", how)
}

// EnvIsolation is the environment variable that turns isolation off when set to "off"
// (docs/grading.md#sandbox): for debugging learner code, and for testing the fallback.
const EnvIsolation = "KATA_ISOLATION"

var (
	isolationOnce sync.Once
	isolation     Isolation
)

// DetectIsolation reports the isolation grading uses on this machine: IsolationBwrap when bwrap
// is on PATH and a trial sandbox starts, else IsolationNone with the reason. KATA_ISOLATION=off
// forces IsolationNone. The trial runs once per process; later calls return its result.
func DetectIsolation() Isolation {
	isolationOnce.Do(func() {
		if os.Getenv(EnvIsolation) == "off" {
			isolation = Isolation{Kind: IsolationNone, Reason: EnvIsolation + "=off"}
		} else {
			isolation = detectIsolation()
		}
		isolation.Memory, isolation.MemoryReason = memoryBound()
	})
	return isolation
}

// runSeq numbers the grading runs of this process, for each fallback run's marker.
var runSeq atomic.Uint64

// Box is one grading run's confinement of its learner processes: the isolation in effect,
// the workspace, and the HOME, TMPDIR and Go caches learner processes get.
type Box struct {
	iso Isolation
	// ws is the workspace, absolute; the only folder learner code may write to (with bwrap).
	ws string
	// home and tmp are HOME and TMPDIR as learner processes see them.
	home, tmp string
	// hostTemp is the run's temporary folder on the host, removed by Close: HOME and TMPDIR
	// without isolation; under bwrap with a private network, the folder of the Orders API's
	// socket (ListenAPI).
	hostTemp string
	// apiPort is the port of 127.0.0.1 where a server's sandbox reaches the Orders API through
	// its forwarder (private network only).
	apiPort int
	// goCache is GOCACHE, kata's own Go build cache; goCacheFresh is true until a Go build has
	// finished in it (goCacheStamp): a first Go build compiles the standard library, which
	// buildDeadline does not allow for.
	goCache      string
	goCacheFresh bool
	// lookups caches what kata's own PATH resolves a program name to ("" for nothing), so the
	// tool folders are decided once per run.
	lookups sync.Map
	// mem is the grade's memory cgroup (nil where there is none, docs/grading.md#memory-limit).
	mem *cgroup
	// marker is the hard RLIMIT_MSGQUEUE given to this run's processes without isolation, so
	// the reaper finds them after they changed folder and environment (Linux only; 0 when unset).
	marker uint64
}

// EnvGoCache names the environment variable that replaces kata's own Go build cache folder
// (docs/grading.md#environment).
const EnvGoCache = "KATA_GO_CACHE"

// GoPath is GOPATH for the learner processes of the workspace ws: .kata/go inside it, so the
// modules a build downloads stay with the workspace (docs/grading.md#environment).
func GoPath(ws string) string { return filepath.Join(ws, ".kata", "go") }

// GoCacheDir is GOCACHE for learner builds: $KATA_GO_CACHE, else kata's own folder in the user
// cache folder (os.UserCacheDir()/kata/go-build) — never the user's own Go cache, which a
// hostile build could otherwise fill with objects the user's own later builds would link.
func GoCacheDir() string {
	if d := os.Getenv(EnvGoCache); d != "" {
		return d
	}
	base, err := os.UserCacheDir()
	if err != nil {
		base = os.TempDir()
	}
	return filepath.Join(base, "kata", "go-build")
}

// goCacheStamp is the file kata writes into its Go build cache once a Go build there has
// succeeded; it names the go command on PATH that built it (goToolchain). A cache without it,
// stamped by another go command, or emptied by `go clean -cache` (which removes the cache's
// subfolders, not this file) may still lack the standard library: a first build, builds
// killed halfway, a Go upgrade. Until the stamp is there, builds get freshCacheDeadline.
const goCacheStamp = "kata-toolchain"

// goToolchain identifies the go command a build on PATH runs: its resolved path, size and
// modification time (an upgrade changes them), or "" when there is none.
func goToolchain() string {
	path, err := exec.LookPath("go")
	if err != nil {
		return ""
	}
	if real, err := filepath.EvalSymlinks(path); err == nil {
		path = real
	}
	fi, err := os.Stat(path)
	if err != nil {
		return ""
	}
	return fmt.Sprintf("%s %d %d\n", path, fi.Size(), fi.ModTime().UnixNano())
}

// goCacheWarm reports whether the Go build cache dir holds a finished build by today's go
// command: the stamp names it, and the cache still has its subfolders.
func goCacheWarm(dir string) bool {
	want := goToolchain()
	if got, err := os.ReadFile(filepath.Join(dir, goCacheStamp)); err != nil || want == "" || string(got) != want {
		return false
	}
	entries, _ := os.ReadDir(dir)
	return slices.ContainsFunc(entries, fs.DirEntry.IsDir)
}

// BuiltWith records that a build running command succeeded in the sandbox: a go build stamps
// kata's Go build cache (goCacheStamp), so later builds get the usual deadline. Errors are
// ignored: a missing stamp only grants the next build the longer deadline.
func (b *Box) BuiltWith(command string) {
	if !b.goCacheFresh || filepath.Base(command) != "go" {
		return
	}
	id := goToolchain()
	if id == "" {
		return
	}
	tmp, err := os.CreateTemp(b.goCache, goCacheStamp+"-*")
	if err != nil {
		return
	}
	_, werr := tmp.WriteString(id)
	if cerr := tmp.Close(); werr != nil || cerr != nil || os.Rename(tmp.Name(), filepath.Join(b.goCache, goCacheStamp)) != nil {
		os.Remove(tmp.Name())
		return
	}
	b.goCacheFresh = false
}

// New prepares the sandbox of one run grading the workspace ws (absolute). noIsolation
// forces the fallback.
func New(ws string, noIsolation bool) (*Box, error) {
	b := &Box{iso: DetectIsolation(), ws: ws}
	if noIsolation && b.iso.Isolated() {
		b.iso = Isolation{Kind: IsolationNone, Reason: "isolation was turned off for this run"}
	}
	b.goCache = GoCacheDir()
	b.goCacheFresh = !goCacheWarm(b.goCache)
	if err := os.MkdirAll(b.goCache, 0o700); err != nil {
		return nil, fmt.Errorf("the Go build cache %s: %w", b.goCache, err)
	}
	b.mem = newGradeCgroup()
	if b.iso.Isolated() && b.iso.NetShared {
		// inside the sandbox /tmp is a fresh tmpfs, and HOME an empty folder in it
		b.home, b.tmp = sandboxHome, "/tmp"
		return b, nil
	}
	removeStaleSandboxes()
	tmp, err := hostTempDir()
	if err != nil {
		b.Close()
		return nil, fmt.Errorf("the sandbox's temporary folder: %w", err)
	}
	b.hostTemp = tmp
	if b.iso.Isolated() {
		b.home, b.tmp = sandboxHome, "/tmp"
		b.apiPort = randomPort()
		return b, nil
	}
	b.home, b.tmp = filepath.Join(tmp, "home"), filepath.Join(tmp, "tmp")
	for _, d := range []string{b.home, b.tmp} {
		if err := os.Mkdir(d, 0o700); err != nil {
			b.Close()
			return nil, fmt.Errorf("the sandbox's temporary folder: %w", err)
		}
	}
	b.marker = runMarker(runSeq.Add(1))
	return b, nil
}

// hostTempDir makes a run's temporary folder on the host (0700), named after kata's PID so that
// one left by a kata that was killed is found (removeStaleSandboxes): in the system's temporary
// folder, or in /tmp where that one's path is too long for a Unix socket inside it.
func hostTempDir() (string, error) {
	pattern := fmt.Sprintf("%s%d-", sandboxPrefix, os.Getpid())
	base := os.TempDir()
	if len(filepath.Join(base, pattern+"0000000000", apiSocketName)) > maxSocketPath {
		base = "/tmp"
	}
	return os.MkdirTemp(base, pattern)
}

// apiSocketName is the name of the Orders API's Unix socket in the run's temporary folder.
const apiSocketName = "api.sock"

// maxSocketPath is the longest path a Unix socket may have (sun_path, less its NUL).
const maxSocketPath = 107

// randomPort draws the port where a server's sandbox reaches the Orders API: any port will do
// in a network namespace of its own, and a different one each run keeps a server from
// hard-coding it instead of reading ORDERS_API_URL.
func randomPort() int {
	var b [2]byte
	_, _ = cryptorand.Read(b[:])
	return 20000 + (int(b[0])<<8|int(b[1]))%20000
}

// ListenAPI opens the listener of the run's Orders API and returns the URL learner servers
// reach it at (docs/grading.md#sandbox-network). Under bwrap with a private network it is a
// Unix socket in the run's temporary folder, which each server's sandbox shows and its
// forwarder reaches from http://127.0.0.1:PORT inside; otherwise (and for a nil box) a free
// port of the machine's loopback.
func (b *Box) ListenAPI() (net.Listener, string, error) {
	if b == nil || !b.iso.PrivateNetwork() {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return nil, "", err
		}
		return ln, "http://" + ln.Addr().String(), nil
	}
	ln, err := net.Listen("unix", filepath.Join(b.hostTemp, apiSocketName))
	if err != nil {
		return nil, "", err
	}
	return ln, fmt.Sprintf("http://127.0.0.1:%d", b.apiPort), nil
}

// ClosedAPIURL returns a URL where connections are refused inside a server's sandbox, for
// the fixtures whose Orders API refuses them, and true; false where the sandbox shares the
// machine's network, and the caller must hold a closed port of its own.
func (b *Box) ClosedAPIURL() (string, bool) {
	if b == nil || !b.iso.PrivateNetwork() {
		return "", false
	}
	// nothing listens in a sandbox's network namespace but its forwarder, on apiPort
	return fmt.Sprintf("http://127.0.0.1:%d", b.apiPort+1), true
}

// Isolation is the isolation in effect for the box's processes.
func (b *Box) Isolation() Isolation { return b.iso }

// Workspace is the workspace the box was made for (absolute).
func (b *Box) Workspace() string { return b.ws }

// GoCacheFresh reports whether kata's Go build cache has not yet seen a finished Go build
// (goCacheStamp): a first Go build compiles the standard library and needs a longer deadline.
func (b *Box) GoCacheFresh() bool { return b.goCacheFresh }

// Marker is the run's marker (the hard RLIMIT_MSGQUEUE of its processes without isolation,
// for ReapEscapees); 0 for a nil box, under bwrap, or outside Linux.
func (b *Box) Marker() uint64 {
	if b == nil {
		return 0
	}
	return b.marker
}

// Shows reports whether a learner process of the box sees the host path path (absolute): always
// without isolation; under bwrap when it is in the workspace, a system folder, the sandbox's
// own /tmp, /dev or /proc, or a runtime's installation kata shows (docs/grading.md#sandbox).
func (b *Box) Shows(path string) bool {
	if b == nil || !b.iso.Isolated() || !filepath.IsAbs(path) {
		return true
	}
	return shows(b, path)
}

// Done is closed once the process has ended and been reaped.
func (p *Process) Done() <-chan struct{} { return p.done }

// Success reports whether the ended process exited with code 0.
func (p *Process) Success() bool { return p.cmd.ProcessState != nil && p.cmd.ProcessState.Success() }

// sandboxPrefix starts the name of a fallback run's temporary folder, followed by the grader's
// PID, so a folder left by a grader that was killed can be told from one in use.
const sandboxPrefix = "kata-sandbox-"

// removeStaleSandboxes removes the temporary folders of fallback runs whose grader is no longer
// running (it was killed before it could remove them).
func removeStaleSandboxes() {
	matches, _ := filepath.Glob(filepath.Join(os.TempDir(), sandboxPrefix+"*-*"))
	for _, m := range matches {
		pid, err := strconv.Atoi(strings.SplitN(strings.TrimPrefix(filepath.Base(m), sandboxPrefix), "-", 2)[0])
		if err != nil || pid <= 0 || pid == os.Getpid() {
			continue
		}
		if err := syscall.Kill(pid, 0); errors.Is(err, syscall.ESRCH) {
			removeAllForce(m)
		}
	}
}

// sandboxHome is HOME inside a bwrap sandbox: an empty folder on its private /tmp.
const sandboxHome = "/tmp/home"

// Close removes the run's temporary folder (fallback), even where learner code left files
// without write permission in it (Go's module cache does).
func (b *Box) Close() {
	if b == nil {
		return
	}
	b.mem.remove()
	b.mem = nil
	if b.hostTemp != "" {
		removeAllForce(b.hostTemp)
	}
}

// removeAllForce removes dir and everything in it, first making every folder in it writable.
func removeAllForce(dir string) {
	if os.RemoveAll(dir) == nil {
		return
	}
	filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err == nil && d.IsDir() {
			os.Chmod(path, 0o700)
		}
		return nil
	})
	os.RemoveAll(dir)
}

// LookupEnv is the variable lookup for .mcp.json expansion: the grader's own variables, then
// HOME and TMPDIR as the sandbox sets them, then PATH, USER and LANG from the caller's
// environment (docs/grading.md#expansion).
func (b *Box) LookupEnv(grader map[string]string) func(string) (string, bool) {
	return func(name string) (string, bool) {
		if v, ok := grader[name]; ok {
			return v, true
		}
		switch name {
		case "HOME":
			return b.home, true
		case "TMPDIR":
			return b.tmp, true
		case "PATH", "USER", "LANG":
			return os.LookupEnv(name)
		}
		return "", false
	}
}

// Env builds a learner process's environment (docs/grading.md#environment): PATH and LANG from
// the caller, HOME and TMPDIR of the sandbox, Go's build settings, then the configured entries,
// which win over all of these.
func (b *Box) Env(entries map[string]string) []string {
	base := map[string]string{
		"HOME":   b.home,
		"TMPDIR": b.tmp,
		// Go: kata's own build cache; modules and installed tools in the workspace's .kata/;
		// no toolchain downloads (a go.mod asking for a newer Go fails instead); -trimpath, so
		// that no absolute path of the learner's machine lands in a binary or a stack trace,
		// and so that a module compiled for one workspace is a cache hit for the next (without
		// it, each workspace's own module folder makes another cache key)
		"GOCACHE":     b.goCache,
		"GOPATH":      GoPath(b.ws),
		"GOTOOLCHAIN": "local",
		"GOFLAGS":     "-trimpath",
	}
	for _, k := range passEnv {
		if v, ok := os.LookupEnv(k); ok {
			base[k] = v
		}
	}
	var env []string
	for k, v := range base {
		if _, set := entries[k]; !set {
			env = append(env, k+"="+v)
		}
	}
	for k, v := range entries {
		env = append(env, k+"="+v)
	}
	return env
}

// PlainEnv is a learner process's environment without a sandbox: the configured entries
// plus passEnv, HOME and TMPDIR from the caller (only the grader's own tests launch processes
// this way).
func PlainEnv(entries map[string]string) []string {
	var env []string
	for _, k := range append([]string{"HOME", "TMPDIR"}, passEnv...) {
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

// Process is one learner process with its stderr tail kept. Without isolation it leads a
// process group of its own; under bwrap, cmd is the bwrap process and nsInit the PID namespace's
// first process, whose death ends every process in the namespace.
type Process struct {
	cmd *exec.Cmd
	// Stdin and Stdout are the process's standard input and output (Stdout is empty when
	// Spec.Output took it).
	Stdin  io.WriteCloser
	Stdout io.ReadCloser
	// Stderr keeps the tail of its standard error (or is Spec.Output).
	Stderr *Tail

	// nsInit is the host PID of the sandbox's PID-namespace init, pidNS that namespace's inode
	// (bwrap only; 0 otherwise).
	nsInit int
	pidNS  uint64

	// errR and errW are the pipe stderr goes through (not for the build, whose output is one
	// buffer); following is closed when the tail buffer stops reading errR.
	errR, errW *os.File
	following  <-chan struct{}

	// signalSandbox, under bwrap, sends a signal into the sandbox while it exists (see
	// startBwrap); nil otherwise.
	signalSandbox func(syscall.Signal)

	// afterWait, when set, runs once the process has been reaped and before Done is closed:
	// under bwrap it reaps the sandbox's init if that was re-parented to kata (reapInit).
	afterWait func()

	done    chan struct{}
	waitErr error
}

// ResolveCommand makes a relative command path (one with a slash) relative to dir, as an MCP
// host resolves .mcp.json commands against the project folder.
func ResolveCommand(dir, command string) string {
	if strings.ContainsRune(command, '/') && !filepath.IsAbs(command) {
		return filepath.Join(dir, command)
	}
	return command
}

// MemoryLimit bounds a server's or client's data segment and private writable mappings
// (RLIMIT_DATA, Linux). RLIMIT_AS would break Node and Go, whose runtimes reserve large
// address ranges they never touch (docs/grading.md#memory-limit).
const MemoryLimit = 2 << 30

// Limits are the resource limits of a learner process (docs/grading.md#memory-limit).
type Limits struct {
	// Data is RLIMIT_DATA in bytes; 0 leaves it unset (the build).
	Data uint64
}

// Spec is one learner process to start.
type Spec struct {
	// WS is the workspace; Cwd the working directory (WS when empty), inside it.
	WS, Cwd string
	// Command is the program as configured: a name looked up on PATH, or a path (a relative
	// one is taken from WS); Args are its arguments.
	Command string
	Args    []string
	// Env is the process's whole environment (Box.Env).
	Env []string
	// Limits are its resource limits.
	Limits Limits
	// Output, when set, receives stdout and stderr together and stdin is empty (the build);
	// otherwise both are pipes and stderr's tail is kept.
	Output *Tail
	// API gives the process the run's Orders API at the URL ListenAPI returned: under bwrap
	// with a private network, through a forwarder started in its sandbox; otherwise the
	// machine's loopback is shared anyway. Without it (a client, a server whose Orders API
	// refuses), a private network holds nothing but an empty loopback.
	API bool
	// Network shares the machine's network with the process even under bwrap: only for a step
	// kata itself runs before the graded run to download a build's dependencies.
	Network bool
}

// Start launches a learner process in the sandbox b (nil: a plain process group, for
// the grader's own tests), with pipes on stdin and stdout and stderr captured.
func Start(b *Box, s Spec) (*Process, error) {
	if s.Cwd == "" {
		s.Cwd = s.WS
	}
	path := ResolveCommand(s.WS, s.Command)
	// resolve the program as the sandbox would, so a missing one is the same error either way
	resolved, err := exec.LookPath(path)
	if err != nil {
		return nil, startError(s.Command, err)
	}
	p := &Process{Stderr: NewTail(StderrCap), done: make(chan struct{})}
	if s.Output != nil {
		p.Stderr = s.Output
	}
	if b != nil && b.iso.Isolated() {
		err = startBwrap(b, s, resolved, p)
	} else {
		err = startPlain(b, s, resolved, p)
	}
	if p.errW != nil {
		p.errW.Close() // the child holds its own copy
	}
	if err != nil {
		if p.errR != nil {
			p.errR.Close()
		}
		return nil, err
	}
	go func() {
		p.waitErr = p.cmd.Wait()
		if p.afterWait != nil {
			p.afterWait()
		}
		// A descendant may hold stderr open after the process exited: give its output the
		// same moment Wait gives the other pipes (WaitDelay), then stop reading.
		if p.following != nil {
			select {
			case <-p.following:
			case <-time.After(p.cmd.WaitDelay):
				p.errR.Close()
			}
		}
		close(p.done)
	}()
	return p, nil
}

// WaitDelay is how long a process's output is still read after it exited, while a
// descendant that inherited it holds it open (exec.Cmd.WaitDelay).
const WaitDelay = time.Second

// wire sets up cmd's stdio for s: pipes, or one output buffer and an empty stdin.
func (p *Process) wire(cmd *exec.Cmd, s Spec) error {
	p.cmd = cmd
	var err error
	if p.Stdin, err = cmd.StdinPipe(); err != nil {
		return err
	}
	if s.Output != nil {
		cmd.Stdout, cmd.Stderr = s.Output, s.Output
		p.Stdout = io.NopCloser(strings.NewReader(""))
	} else {
		if p.Stdout, err = cmd.StdoutPipe(); err != nil {
			return err
		}
		// stderr goes through a pipe the tail buffer reads itself, so that a test can settle
		// it: take in whatever the process wrote before its answer, and credit it to that
		// test (docs/grading.md#output-caps). The caller closes errW once the child started.
		if p.errR, p.errW, err = os.Pipe(); err != nil {
			return err
		}
		cmd.Stderr = p.errW
		p.following = p.Stderr.follow(p.errR)
	}
	// A descendant that inherited stdout (or the build's output) would keep Wait waiting for
	// the copy to finish: once the process itself has exited, give its output a moment, then
	// close the pipes.
	cmd.WaitDelay = WaitDelay
	return nil
}

// startError words a failed start of command, as a catalog message (the operating system's
// reason stays as it said it).
func startError(command string, err error) error {
	var pe *exec.Error
	if errors.As(err, &pe) {
		err = pe.Err
	}
	return i18n.Err("harness.start_failed", "Command", strconv.Quote(command), "Error", err.Error())
}

// Exited reports whether the process has ended, and how (exitMsg; zero while it runs).
func (p *Process) Exited() (bool, i18n.Msg) {
	select {
	case <-p.done:
		return true, p.ExitMsg()
	default:
		return false, i18n.Msg{}
	}
}

// ExitMsg says how the ended process ended, to follow its name: "exited with code 1", "was
// killed by signal killed".
func (p *Process) ExitMsg() i18n.Msg {
	st := p.cmd.ProcessState
	if st == nil {
		return i18n.M("harness.exit.exited")
	}
	if ws, ok := st.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return i18n.M("harness.exit.signal", "Signal", ws.Signal().String())
	}
	// bwrap exits with 128+N when the program it ran was killed by signal N
	if code := st.ExitCode(); p.pidNS != 0 && code > 128 && code < 128+32 {
		return i18n.M("harness.exit.signal", "Signal", syscall.Signal(code-128).String())
	}
	return i18n.M("harness.exit.code", "Code", st.ExitCode())
}

// Kill ends the process and everything it started: stdin is closed, then SIGTERM, then
// SIGKILL after grace (MCP stdio shutdown order). Without isolation the signals go to the
// process group; under bwrap SIGTERM goes to every process in the sandbox's PID namespace and
// SIGKILL to the namespace's init, which ends them all. It waits for the process to be reaped.
func (p *Process) Kill(grace time.Duration) {
	p.Stdin.Close()
	select {
	case <-p.done:
	case <-time.After(grace / 2):
	}
	p.signalAll(syscall.SIGTERM)
	select {
	case <-p.done:
	case <-time.After(grace):
	}
	p.signalAll(syscall.SIGKILL)
	if p.pidNS != 0 {
		// bwrap exits once its sandbox's init is dead, and reaps it; kill bwrap only if not
		select {
		case <-p.done:
		case <-time.After(2 * time.Second):
		}
		_ = syscall.Kill(-p.cmd.Process.Pid, syscall.SIGKILL)
	}
	<-p.done
}

// signalAll sends sig to the process's group, or under bwrap into its PID namespace: SIGKILL to
// the namespace's init (the kernel then kills every process in it, and bwrap exits), other
// signals to every member but the init.
func (p *Process) signalAll(sig syscall.Signal) {
	switch {
	case p.signalSandbox != nil:
		p.signalSandbox(sig)
	case p.pidNS == 0:
		_ = syscall.Kill(-p.cmd.Process.Pid, sig)
	}
}

// Tail keeps the last cap bytes written to it and counts all bytes ever written, so a
// test can ask for "what was written since mark". Bytes come from Write, or from a pipe the
// buffer follows (follow), which mark and since first settle.
type Tail struct {
	mu    sync.Mutex
	cap   int
	buf   []byte
	total int64
	// pipe is the read end follow reads, nil for a buffer filled with Write; scratch is the
	// buffer settle reads into.
	pipe    syscall.RawConn
	scratch []byte
}

// NewTail returns an empty Tail that keeps the last cap bytes.
func NewTail(cap int) *Tail { return &Tail{cap: cap} }

// Write appends b, keeping only the newest cap bytes (the stderr tail of docs/grading.md#output-caps); it never fails.
func (t *Tail) Write(b []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.appendLocked(b)
	return len(b), nil
}

func (t *Tail) appendLocked(b []byte) {
	t.total += int64(len(b))
	t.buf = append(t.buf, b...)
	if over := len(t.buf) - t.cap; over > 0 {
		t.buf = append(t.buf[:0], t.buf[over:]...)
	}
}

// follow reads the pipe f into the buffer until its writers close it or f is closed; the
// channel is closed when it stops. Every read is a non-blocking read(2) made with t.mu held, so
// settle can take what waits in the pipe at any moment and the bytes stay in order.
func (t *Tail) follow(f *os.File) <-chan struct{} {
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
func (t *Tail) settleLocked() {
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

// Mark returns the count of bytes written so far.
func (t *Tail) Mark() int64 {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.settleLocked()
	return t.total
}

// Since returns what was written after mark (as much as is still kept), capped to the last
// max bytes.
func (t *Tail) Since(mark int64, max int) string {
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
