//go:build linux

package sandbox

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"github.com/kata-mcp/kata/internal/i18n"
)

// howToIsolate says how to get bwrap on Linux.
func howToIsolate() i18n.Msg { return i18n.M("harness.isolation.install_bwrap") }

// detectIsolation looks for bwrap on PATH and starts a trial sandbox with the options every
// learner process gets, so a kernel without unprivileged user namespaces is found before any
// grading starts. Where a sandbox cannot have a network namespace of its own (a container that
// forbids it) but can run otherwise, learner code runs under bwrap on the machine's network,
// and the isolation line says so.
func detectIsolation() Isolation {
	tool, err := exec.LookPath("bwrap")
	if err != nil {
		return Isolation{Kind: IsolationNone, Reason: "bwrap (bubblewrap) is not installed"}
	}
	netWhy := trialSandbox(tool, false)
	if netWhy == "" {
		return Isolation{Kind: IsolationBwrap, Tool: tool}
	}
	if why := trialSandbox(tool, true); why != "" {
		return Isolation{Kind: IsolationNone, Reason: "bwrap cannot run here: " + why}
	}
	return Isolation{Kind: IsolationBwrap, Tool: tool, NetShared: true, NetReason: "bwrap cannot make a network namespace here: " + netWhy}
}

// trialSandbox runs "true" in a sandbox with bwrapBase's options, and returns why it failed
// (the first line bwrap wrote), or "".
func trialSandbox(tool string, shareNet bool) string {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	args := append(bwrapBase(shareNet), "--", "true")
	cmd := exec.CommandContext(ctx, tool, args...)
	cmd.Env = []string{"PATH=/usr/bin:/bin"}
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		why := strings.TrimSpace(strings.SplitN(out.String(), "\n", 2)[0])
		if why == "" {
			why = err.Error()
		}
		return why
	}
	return ""
}

// systemDirs are the folders a sandbox sees read-only at their own paths, when they exist:
// programs, libraries and their data. A merged-/usr system's /bin, /lib … are symlinks into
// /usr and stay symlinks.
var systemDirs = []string{"/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", "/opt", "/nix"}

// etcFiles are the parts of /etc a sandbox sees read-only: name resolution, users and groups
// (no passwords: not shadow), the dynamic linker's cache, time zones, certificates and
// Debian's alternatives (python3, node … often resolve through /etc/alternatives).
var etcFiles = []string{
	"passwd", "group", "hosts", "host.conf", "resolv.conf", "nsswitch.conf", "gai.conf",
	"services", "protocols", "localtime", "timezone", "ld.so.cache", "ld.so.conf", "ld.so.conf.d",
	"alternatives", "ssl", "ca-certificates", "pki", "crypto-policies", "mime.types", "os-release",
}

// sandboxTmpSize bounds the sandbox's /tmp (HOME is in it): 512 MiB; sandboxShmSize its
// /dev/shm (POSIX shared memory), 64 MiB. Both are tmpfs: what is written there is memory,
// which the grade's memory cgroup counts as well.
const (
	sandboxTmpSize = 512 << 20
	sandboxShmSize = 64 << 20
)

// bwrapBase are the options of every sandbox: new user, PID, IPC, UTS, cgroup and network
// namespaces (shareNet keeps the machine's network instead), no capabilities, a new session (no
// TIOCSTI into the caller's terminal), a fresh /proc, /dev and /tmp, and the system folders
// read-only. A new network namespace holds only its own loopback, which bwrap brings up. Not
// --die-with-parent: bwrap would then die with kata before it has let its sandbox go, which
// then waits for ever (see startBwrap); the sandbox's shim ends it with kata instead.
func bwrapBase(shareNet bool) []string {
	args := []string{"--unshare-all"}
	if shareNet {
		args = append(args, "--share-net")
	}
	args = append(args, "--cap-drop", "ALL",
		"--new-session",
		"--proc", "/proc", "--dev", "/dev",
		"--size", strconv.Itoa(sandboxTmpSize), "--tmpfs", "/tmp",
		"--size", strconv.Itoa(sandboxShmSize), "--tmpfs", "/dev/shm",
	)
	for _, d := range systemDirs {
		fi, err := os.Lstat(d)
		switch {
		case err != nil:
		case fi.Mode()&os.ModeSymlink != 0:
			if target, err := os.Readlink(d); err == nil {
				args = append(args, "--symlink", target, d)
			}
		case fi.IsDir():
			args = append(args, "--ro-bind", d, d)
		}
	}
	for _, name := range etcFiles {
		p := filepath.Join("/etc", name)
		args = append(args, "--ro-bind-try", p, p)
	}
	if matches, _ := filepath.Glob("/etc/python3*"); len(matches) > 0 {
		for _, m := range matches {
			args = append(args, "--ro-bind-try", m, m)
		}
	}
	return args
}

// underAny reports whether path is one of roots or inside one.
func underAny(path string, roots []string) bool {
	for _, r := range roots {
		if path == r || strings.HasPrefix(path, r+"/") {
			return true
		}
	}
	return false
}

// toolRoot is the folder to show read-only for a program folder dir outside the system
// folders: the installation it belongs to when dir is its bin, sbin or shims folder (so
// ~/.pyenv for ~/.pyenv/shims: the shim runs ~/.pyenv/libexec/pyenv, which runs
// ~/.pyenv/versions/…), else dir itself. It is never the home folder, a folder above it, or
// ~/.local or ~/.config, which hold other programs' data (ok is false when dir itself is one).
func toolRoot(dir, home string) (root string, ok bool) {
	forbidden := func(p string) bool {
		if p == "/" || (home != "" && (p == home || strings.HasPrefix(home, p+"/"))) {
			return true
		}
		return home != "" && (p == filepath.Join(home, ".local") || p == filepath.Join(home, ".config"))
	}
	if forbidden(dir) {
		return "", false
	}
	switch filepath.Base(dir) {
	case "bin", "sbin", "shims":
		if parent := filepath.Dir(dir); !forbidden(parent) {
			return parent, true
		}
	}
	return dir, true
}

// maskedNames are credential files hidden (replaced by an empty file) where they sit at the top
// of a tool folder the sandbox shows: cargo keeps its registry token in ~/.cargo/credentials.toml.
var maskedNames = []string{"credentials", "credentials.toml", ".credentials.json", ".netrc", ".git-credentials", ".npmrc", ".pypirc"}

// runtimes are the programs whose installations every sandbox shows, found on kata's own PATH
// (not the learner's): the language runtimes kata grades, so that a server or build that runs
// one through sh, npx or a script still finds it.
var runtimes = []string{"go", "node", "npm", "npx", "python3", "python"}

// toolRoots lists the read-only tool folders a sandbox shows, decided by kata alone
// (docs/grading.md#sandbox): the installations of the runtimes and of the program about to run,
// each found on kata's own PATH, and of the interpreter a workspace script's "#!" line names
// when that is a program kata's own PATH finds as well. Nothing the learner writes — the env of
// .mcp.json, a "#!" line, a symbolic link, a file name — adds a folder of its own choosing. The
// order is one where a folder comes before any folder inside it.
func toolRoots(b *Box, command, program string) []string {
	ws := b.ws
	onKataPath := b.onKataPath
	kataProgram := b.kataProgram
	home := os.Getenv("HOME")
	if home != "" {
		if h, err := filepath.EvalSymlinks(home); err == nil {
			home = h
		}
	}
	var roots []string
	add := func(prog string) {
		real, err := filepath.EvalSymlinks(prog)
		if err != nil || !filepath.IsAbs(real) {
			return
		}
		dir := filepath.Dir(real)
		if underAny(dir, systemDirs) || underAny(dir, []string{"/etc", "/proc", "/dev", "/tmp", ws}) {
			return
		}
		if r, ok := toolRoot(dir, home); ok && !slices.Contains(roots, r) {
			roots = append(roots, r)
		}
	}
	for _, name := range runtimes {
		if p, ok := onKataPath(name); ok {
			add(p)
		}
	}
	if !strings.ContainsRune(command, '/') {
		// a bare name: found on kata's own PATH, as Start resolved it
		add(program)
	}
	if interp, arg, ok := readShebang(program); ok {
		if p, ok := kataProgram(interp); ok {
			add(p)
		}
		if filepath.Base(interp) == "env" {
			// #!/usr/bin/env NAME: NAME as found on kata's own PATH
			for _, f := range strings.FieldsFunc(arg, func(r rune) bool { return r == ' ' || r == '\t' }) {
				if strings.HasPrefix(f, "-") || strings.Contains(f, "=") {
					continue
				}
				if p, ok := onKataPath(f); ok {
					add(p)
				}
				break
			}
		}
	}
	// drop folders inside another one shown, and sort parents first
	slices.Sort(roots)
	var out []string
	for _, r := range roots {
		if !underAny(r, out) {
			out = append(out, r)
		}
	}
	return out
}

// shows reports whether a bwrap sandbox of the workspace ws shows the host path path.
func shows(b *Box, path string) bool {
	ws := b.ws
	path = filepath.Clean(path)
	if underAny(path, []string{ws, "/tmp", "/dev", "/proc"}) || underAny(path, systemDirs) {
		return true
	}
	if real, err := filepath.EvalSymlinks(path); err == nil {
		path = real
		if underAny(path, []string{ws}) || underAny(path, systemDirs) {
			return true
		}
	}
	for _, name := range etcFiles {
		if underAny(path, []string{filepath.Join("/etc", name)}) {
			return true
		}
	}
	return underAny(path, toolRoots(b, "sh", ""))
}

// onKataPath finds the program name (a bare name, no slash) on kata's own PATH, once per run
// (the box's first answer stands for the rest of the run).
func (b *Box) onKataPath(name string) (string, bool) {
	if name == "" || strings.ContainsRune(name, '/') {
		return "", false
	}
	if v, ok := b.lookups.Load(name); ok {
		p := v.(string)
		return p, p != ""
	}
	p, err := exec.LookPath(name)
	if err != nil || !filepath.IsAbs(p) {
		p = ""
	}
	b.lookups.Store(name, p)
	return p, p != ""
}

// kataProgram reports whether the absolute path interp is the very program kata's own PATH
// finds under its name (same file once links are resolved), and returns it; an interpreter
// anywhere else is not shown.
func (b *Box) kataProgram(interp string) (string, bool) {
	if !filepath.IsAbs(interp) {
		return "", false
	}
	p, ok := b.onKataPath(filepath.Base(interp))
	if !ok {
		return "", false
	}
	found, err1 := filepath.EvalSymlinks(p)
	named, err2 := filepath.EvalSymlinks(interp)
	return p, err1 == nil && err2 == nil && found == named
}

// shebangMax is the kernel's BINPRM_BUF_SIZE: how much of a file binfmt_script reads.
const shebangMax = 256

// readShebang reads the "#!" line of the file program as the kernel would (parseShebang).
func readShebang(program string) (interp, arg string, ok bool) {
	f, err := os.Open(program)
	if err != nil {
		return "", "", false
	}
	defer f.Close()
	head := make([]byte, shebangMax)
	n, _ := io.ReadFull(f, head)
	return parseShebang(head[:n])
}

// parseShebang parses an interpreter line exactly as Linux's binfmt_script does: within the
// first 256 bytes, up to the first newline (or, without one, to the end of those bytes provided
// the interpreter's name ends in them), split on space and tab only (and NUL), into the
// interpreter and at most one argument, the rest of the line with its outer spaces and tabs
// trimmed. ok is false where the kernel refuses the file (ENOEXEC).
func parseShebang(head []byte) (interp, arg string, ok bool) {
	buf := make([]byte, shebangMax) // the kernel's buffer: the file's bytes, then zeros
	copy(buf, head)
	if buf[0] != '#' || buf[1] != '!' {
		return "", "", false
	}
	spacetab := func(c byte) bool { return c == ' ' || c == '\t' }
	nonSpacetab := func(first, last int) int {
		for ; first <= last; first++ {
			if !spacetab(buf[first]) {
				return first
			}
		}
		return -1
	}
	terminator := func(first, last int) int {
		for ; first <= last; first++ {
			if spacetab(buf[first]) || buf[first] == 0 {
				return first
			}
		}
		return -1
	}
	bufEnd := shebangMax - 1
	end := bytes.IndexByte(buf, '\n')
	if end < 0 {
		end = nonSpacetab(2, bufEnd)
		if end < 0 || terminator(end, bufEnd) < 0 {
			return "", "", false // all blank, or the interpreter's name is cut off
		}
		end = bufEnd
	}
	for spacetab(buf[end-1]) {
		end--
	}
	name := nonSpacetab(2, end)
	if name < 0 || name == end {
		return "", "", false
	}
	sep := terminator(name, end)
	argAt := -1
	if sep >= 0 && buf[sep] != 0 {
		argAt = nonSpacetab(sep, end)
	}
	cstr := func(b []byte) string {
		if i := bytes.IndexByte(b, 0); i >= 0 {
			b = b[:i]
		}
		return string(b)
	}
	if sep < 0 || sep > end {
		sep = end
	}
	interp = cstr(buf[name:sep])
	if argAt >= 0 && argAt < end {
		arg = cstr(buf[argAt:end])
	}
	return interp, arg, true
}

// bwrapArgs are the options of one learner process's sandbox: bwrapBase, the tool folders
// read-only, kata's Go build cache and the workspace read-write, an empty HOME, the working
// directory, and the info and block descriptors (3 and 4). The sandbox's program, and its PID 1
// (--as-pid-1), is the shim (shimMain: kata's executable, shown read-only), which runs
// program; a process given the
// Orders API (Spec.API) in a network namespace of its own also gets the folder of the API's
// socket, read-only, and its shim forwards 127.0.0.1:apiPort there.
func bwrapArgs(b *Box, s Spec, program string) ([]string, error) {
	shareNet := s.Network || !b.iso.PrivateNetwork()
	args := bwrapBase(shareNet)
	for _, r := range toolRoots(b, s.Command, program) {
		args = append(args, "--ro-bind", r, r)
		for _, name := range maskedNames {
			if p := filepath.Join(r, name); fileExists(p) {
				args = append(args, "--ro-bind", "/dev/null", p)
			}
		}
	}
	exe, err := shimProgram()
	if err != nil {
		return nil, fmt.Errorf("kata's own program, for the sandbox's shim: %w", err)
	}
	args = append(args,
		"--dir", b.home,
		"--bind", b.goCache, b.goCache,
		"--bind", b.ws, b.ws,
		"--ro-bind", exe, sandboxShim,
		"--chdir", s.Cwd,
		"--info-fd", "3", "--block-fd", "4", "--as-pid-1")
	shim := []string{"--", sandboxShim, shimArg}
	if s.API && !shareNet {
		args = append(args, "--ro-bind", b.hostTemp, sandboxAPIDir)
		shim = append(shim, "--forward", strconv.Itoa(b.apiPort), filepath.Join(sandboxAPIDir, apiSocketName))
	}
	args = append(append(args, shim...), "--", program)
	return append(args, s.Args...), nil
}

var (
	lifelineOnce sync.Once
	// lifelineEnds are the lifeline's read and write ends, kept open for the life of the
	// process (an *os.File nobody holds would be closed by the garbage collector).
	lifelineEnds [2]*os.File
	lifelineErr  error
)

// lifeline returns the read end of kata's lifeline, made once per process: a pipe whose write
// end kata keeps open, unwritten, until it exits, and passes to no process (both ends are
// close-on-exec; a sandbox gets the read end as lifelineFD). Its read end reads end of file
// once kata is gone, however it died, and the sandbox's shim ends the sandbox then.
func lifeline() (*os.File, error) {
	lifelineOnce.Do(func() {
		r, w, err := os.Pipe()
		lifelineEnds, lifelineErr = [2]*os.File{r, w}, err
	})
	return lifelineEnds[0], lifelineErr
}

func fileExists(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && !fi.IsDir()
}

// bwrapInfo is what bwrap writes on its info descriptor once the sandbox exists.
type bwrapInfo struct {
	ChildPID     int    `json:"child-pid"`
	PIDNamespace uint64 `json:"pid-namespace"`
}

// startBwrap starts program in a bwrap sandbox. bwrap is told to wait (--block-fd) until the
// grader has read the sandbox's init PID (--info-fd) and set its resource limits, which the
// learner's program, forked from that init, then inherits.
func startBwrap(b *Box, s Spec, program string, p *Process) error {
	infoR, infoW, err := os.Pipe()
	if err != nil {
		return err
	}
	defer infoR.Close()
	blockR, blockW, err := os.Pipe()
	if err != nil {
		infoW.Close()
		return err
	}
	defer blockW.Close()
	life, err := lifeline()
	if err != nil {
		infoW.Close()
		blockR.Close()
		return err
	}
	args, err := bwrapArgs(b, s, program)
	if err != nil {
		infoW.Close()
		blockR.Close()
		return startError(s.Command, err)
	}
	cmd := exec.Command(b.iso.Tool, args...)
	// bwrap's own environment is the learner's: inside the sandbox it is PID 1, and its
	// /proc/1/environ is readable there
	cmd.Env = s.Env
	cmd.Dir = "/"
	// Ending the sandbox with kata, SIGKILL included, is the shim's job, the sandbox's PID 1:
	// it reads end of file on kata's lifeline (descriptor 5) the moment kata is gone, and the
	// whole PID namespace ends with it. Neither bwrap nor its sandbox gets a parent-death
	// signal: bwrap's own (--die-with-parent, or one of kata's) is in force before bwrap has
	// let its sandbox go on (an eventfd it writes after the info descriptor), so a kata killed
	// while a sandbox started took bwrap with it and left the sandbox waiting there for ever,
	// where no program of kata's runs yet. bwrap now outlives kata just long enough to let the
	// sandbox go; the sandbox then reads end of file on the block descriptor too, starts the
	// shim, and the shim, finding kata gone, runs nothing and ends. bwrap also holds a read end
	// of the info pipe (descriptor 6), so that writing its info after kata died does not kill it
	// with SIGPIPE at the same spot.
	cmd.ExtraFiles = []*os.File{infoW, blockR, life, infoR}
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := p.wire(cmd, s); err != nil {
		infoW.Close()
		blockR.Close()
		return err
	}
	err = cmd.Start()
	infoW.Close()
	blockR.Close()
	if err != nil {
		return startError(s.Command, err)
	}
	// bwrap joins the grade's memory cgroup at once, so the sandbox it makes is in it from the
	// start: should kata die before it lets the sandbox go, the next run finds it there
	// (removeStaleCgroups); the sandbox's init is added again below, in case bwrap was faster
	_ = b.mem.add(cmd.Process.Pid)
	var info bwrapInfo
	raw, _ := io.ReadAll(io.LimitReader(infoR, 64<<10))
	if json.Unmarshal(raw, &info) != nil || info.ChildPID <= 0 {
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		cmd.Wait()
		return i18n.Err("harness.start_failed_bwrap", "Command", strconv.Quote(s.Command), "Output", strings.TrimSpace(p.Stderr.Since(0, 1024)))
	}
	p.nsInit, p.pidNS = info.ChildPID, info.PIDNamespace
	p.pinSandbox(info)
	setLimits(info.ChildPID, s.Limits, 0)
	// the sandbox's init joins the grade's memory cgroup before it starts the program
	_ = b.mem.add(info.ChildPID)
	if beforeRelease != nil {
		beforeRelease(info.ChildPID)
	}
	blockW.Write([]byte{1})
	return nil
}

// pinSandbox takes hold of the sandbox whose init bwrap reported in info, while that init still
// waits on the block descriptor: a pidfd names that very process, however soon its PID is
// reused after it ends, and an open descriptor of its PID namespace keeps the namespace's
// inode number from going to another sandbox's namespace while kata may still signal by it
// (signalNamespace; the kernel reuses those numbers at once). Both are let go, under sigMu,
// once the sandbox has ended and its init was reaped (afterWait); signals sent after that
// reach nothing.
func (p *Process) pinSandbox(info bwrapInfo) {
	var mu sync.Mutex
	initFD, _ := unix.PidfdOpen(info.ChildPID, 0)
	ns, err := os.Open(fmt.Sprintf("/proc/%d/ns/pid", info.ChildPID))
	if err == nil {
		var st unix.Stat_t
		if unix.Fstat(int(ns.Fd()), &st) != nil || st.Ino != info.PIDNamespace {
			ns.Close()
			ns = nil
		}
	} else {
		ns = nil
	}
	p.signalSandbox = func(sig syscall.Signal) {
		mu.Lock()
		defer mu.Unlock()
		switch {
		case sig == syscall.SIGKILL && initFD >= 0:
			_ = unix.PidfdSendSignal(initFD, unix.SIGKILL, nil, 0)
		case sig != syscall.SIGKILL && ns != nil:
			signalNamespace(p.pidNS, p.nsInit, sig)
		}
	}
	p.afterWait = func() {
		mu.Lock()
		defer mu.Unlock()
		if initFD >= 0 {
			reapInit(initFD)
			initFD = -1
		}
		if ns != nil {
			ns.Close()
			ns = nil
		}
	}
}

// beforeRelease, when set (tests only), runs just before kata lets a sandbox whose init is
// initPID go on: the moment a killed kata leaves a sandbox still starting.
var beforeRelease func(initPID int)

// reapInit kills the sandbox's init named by the pidfd fd — bwrap has exited, so the sandbox
// must end, even had something killed bwrap first — and waits for it when it has become kata's
// child, then closes fd. bwrap exits as soon as its sandbox reports the program's exit status, while
// the sandbox's init is still ending; that init is then re-parented to its nearest subreaper —
// kata itself during a grade (BecomeSubreaper) — and, unless kata waits for it, stays a zombie:
// one per sandbox, thousands over a class. Called once bwrap has been reaped, so the init is
// by then either reaped by bwrap (ECHILD) or kata's own child, about to end or ended.
func reapInit(fd int) {
	defer unix.Close(fd)
	_ = unix.PidfdSendSignal(fd, unix.SIGKILL, nil, 0)
	var info unix.Siginfo
	for {
		err := unix.Waitid(unix.P_PIDFD, fd, &info, unix.WEXITED, nil)
		if err != unix.EINTR {
			return
		}
	}
}

var dumpableOnce sync.Once

// startPlain starts program without namespaces: in its own process group, killed with SIGKILL
// if the grader dies (PDEATHSIG), with the run's limits and marker set just after it starts.
// The grader makes itself non-dumpable first, so learner code cannot read its environment
// from /proc/<pid>/environ.
func startPlain(b *Box, s Spec, program string, p *Process) error {
	dumpableOnce.Do(func() { _ = unix.Prctl(unix.PR_SET_DUMPABLE, 0, 0, 0, 0) })
	cmd := exec.Command(program, s.Args...)
	cmd.Args[0] = s.Command
	cmd.Dir = s.Cwd
	cmd.Env = s.Env
	// Pdeathsig fires when the OS thread that started the child ends; the Go runtime does not
	// end threads it has not locked, so that is when the grader's process ends
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	if err := p.wire(cmd, s); err != nil {
		return err
	}
	if err := cmd.Start(); err != nil {
		return startError(s.Command, err)
	}
	var marker uint64
	if b != nil {
		marker = b.marker
		_ = b.mem.add(cmd.Process.Pid)
	}
	setLimits(cmd.Process.Pid, s.Limits, marker)
	return nil
}

// Resource limits of every learner process (docs/grading.md#memory-limit).
const (
	// cpuLimit is RLIMIT_CPU in seconds: far above what a run's deadlines allow one process.
	cpuLimit = 600
	// fileLimit is RLIMIT_FSIZE: the largest file a learner process may write, 1 GiB.
	fileLimit = 1 << 30
)

// setLimits applies a learner process's resource limits with prlimit: RLIMIT_DATA when
// limits.Data is set, no core files, RLIMIT_FSIZE and RLIMIT_CPU, and the run's marker as
// RLIMIT_MSGQUEUE when marker is not 0. Processes it starts later inherit them.
func setLimits(pid int, limits Limits, marker uint64) {
	set := func(res int, v uint64) {
		lim := unix.Rlimit{Cur: v, Max: v}
		_ = unix.Prlimit(pid, res, &lim, nil)
	}
	if limits.Data > 0 {
		set(unix.RLIMIT_DATA, limits.Data)
	}
	set(unix.RLIMIT_CORE, 0)
	set(unix.RLIMIT_FSIZE, fileLimit)
	set(unix.RLIMIT_CPU, cpuLimit)
	if marker != 0 {
		set(unix.RLIMIT_MSGQUEUE, marker)
	}
}

// runMarker is the RLIMIT_MSGQUEUE value marking run seq's processes: below the grader's own
// hard limit (a process cannot raise it), different for each run of this process, and left
// alone by programs that do not use POSIX message queues.
func runMarker(seq uint64) uint64 {
	var own unix.Rlimit
	if unix.Getrlimit(unix.RLIMIT_MSGQUEUE, &own) != nil {
		return 0
	}
	top := own.Max
	if top == unix.RLIM_INFINITY || top > 1<<30 {
		top = 1 << 30
	}
	off := 1 + seq%(1<<16)
	if top <= off {
		return 0
	}
	return top - off
}

// msgqueueLimit reads the hard RLIMIT_MSGQUEUE of pid from /proc/<pid>/limits, or 0.
func msgqueueLimit(pid int) uint64 {
	b, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "limits"))
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		if rest, ok := strings.CutPrefix(line, "Max msgqueue size"); ok {
			f := strings.Fields(rest)
			if len(f) >= 2 {
				v, _ := strconv.ParseUint(f[1], 10, 64)
				return v
			}
		}
	}
	return 0
}

// signalNamespace sends sig to every process in the PID namespace ns but its init.
func signalNamespace(ns uint64, init int, sig syscall.Signal) {
	want := fmt.Sprintf("pid:[%d]", ns)
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid == init {
			continue
		}
		if link, err := os.Readlink(filepath.Join("/proc", e.Name(), "ns", "pid")); err == nil && link == want {
			_ = syscall.Kill(pid, sig)
		}
	}
}
