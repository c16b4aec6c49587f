//go:build linux

package sandbox

import (
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// canary makes a folder outside every workspace holding a secret file and a program, as a
// user's ~/.ssh or another learner's folder would be, and returns the folder and the secret.
// It is not under /tmp, which a sandbox replaces with its own: in /var/tmp, else the user's
// cache folder.
func canary(t *testing.T) (dir, secret string) {
	t.Helper()
	base := "/var/tmp"
	if fi, err := os.Stat(base); err != nil || !fi.IsDir() {
		base, _ = os.UserCacheDir()
	}
	dir, err := os.MkdirTemp(base, "kata-canary-")
	if err != nil {
		t.Skipf("no folder outside /tmp for the canary: %v", err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	secret = "canary-" + filepath.Base(dir)
	if err := os.WriteFile(filepath.Join(dir, "id_rsa"), []byte(secret), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "tool"), []byte("#!/bin/sh\necho tool\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	return dir, secret
}

// runIn runs command with args in a bwrap sandbox of ws whose environment is Env(entries), and
// returns what it wrote.
func runIn(t *testing.T, ws string, entries map[string]string, command string, args ...string) string {
	t.Helper()
	box, err := New(ws, false)
	if err != nil {
		t.Fatal(err)
	}
	defer box.Close()
	out := NewTail(1 << 16)
	p, err := Start(box, Spec{WS: ws, Command: command, Args: args, Env: box.Env(entries), Output: out})
	if err != nil {
		return "start: " + err.Error()
	}
	p.Stdin.Close()
	<-p.Done()
	return out.Since(0, 1<<16)
}

func needBwrap(t *testing.T) {
	t.Helper()
	if !DetectIsolation().Isolated() {
		t.Skip("bwrap is not available: " + DetectIsolation().Reason)
	}
}

// TestHostileLearnerPATHBindsNothing: a learner's PATH (the env block of .mcp.json) naming a
// folder outside the workspace does not make that folder visible in the sandbox: the folders
// shown are decided by kata alone.
func TestHostileLearnerPATHBindsNothing(t *testing.T) {
	needBwrap(t)
	dir, secret := canary(t)
	ws := t.TempDir()
	got := runIn(t, ws, map[string]string{"PATH": dir + ":/usr/bin:/bin"},
		"sh", "-c", "cat "+filepath.Join(dir, "id_rsa")+"; ls "+dir+"; echo done")
	if strings.Contains(got, secret) || strings.Contains(got, "tool\n") {
		t.Fatalf("the learner's PATH showed a host folder in the sandbox:\n%s", got)
	}
	if !strings.Contains(got, "done") {
		t.Fatalf("the script did not run: %s", got)
	}
}

// TestHostileShebangBindsNothing: neither a "#!" line naming a program outside the workspace,
// nor one crafted so that Go's whitespace rules and the kernel's (space and tab only) read
// different interpreters, makes a host folder visible; and a workspace symlink to a host
// program adds nothing.
func TestHostileShebangBindsNothing(t *testing.T) {
	needBwrap(t)
	dir, secret := canary(t)
	ws := t.TempDir()
	read := "cat " + filepath.Join(dir, "id_rsa") + "; ls " + dir + "; echo done\n"
	// the kernel runs ws/evil\v/x (the learner's own script); Go's Fields read ws/evil, a
	// symlink to the canary's program
	if err := os.Symlink(filepath.Join(dir, "tool"), filepath.Join(ws, "evil")); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(filepath.Join(ws, "evil\v"), 0o755); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(ws, "evil\v", "x"), []byte("#!/bin/sh\n"+read), 0o755)
	os.WriteFile(filepath.Join(ws, "crafted"), []byte("#!"+filepath.Join(ws, "evil")+"\v/x\n"), 0o755)
	// a plain "#!" naming the canary's program, and a symlink to it
	os.WriteFile(filepath.Join(ws, "direct"), []byte("#!"+filepath.Join(dir, "tool")+"\n"), 0o755)
	os.Symlink(filepath.Join(dir, "tool"), filepath.Join(ws, "link"))
	for _, cmd := range []string{"./crafted", "./direct", "./link"} {
		got := runIn(t, ws, nil, cmd)
		if strings.Contains(got, secret) || strings.Contains(got, "\nid_rsa") || strings.Contains(got, "tool\n") {
			t.Errorf("%s showed the host folder %s in the sandbox:\n%s", cmd, dir, got)
		}
	}
}

// TestShebangParsedAsTheKernelDoes: the interpreter line is split on space and tab only, within
// the kernel's 256 bytes, and yields the interpreter and its one optional argument.
func TestShebangParsedAsTheKernelDoes(t *testing.T) {
	cases := []struct {
		line   string
		interp string
		arg    string
		ok     bool
	}{
		{"#!/bin/sh\n", "/bin/sh", "", true},
		{"#! /usr/bin/env  node --flag \n", "/usr/bin/env", "node --flag", true},
		{"#!/ws/evil\v/x\n", "/ws/evil\v/x", "", true},
		{"#!/a\u00a0b c\n", "/a\u00a0b", "c", true},
		{"#!\t/bin/sh\t-e\n", "/bin/sh", "-e", true},
		{"#!   \n", "", "", false},
		{"no shebang\n", "", "", false},
		{"#!/" + strings.Repeat("x", 300) + "\n", "", "", false},
		{"#!/bin/sh " + strings.Repeat("y", 300), "/bin/sh", strings.Repeat("y", 256-len("#!/bin/sh ")-1), true},
	}
	for _, c := range cases {
		interp, arg, ok := parseShebang([]byte(c.line))
		if interp != c.interp || arg != c.arg || ok != c.ok {
			t.Errorf("parseShebang(%q) = %q, %q, %v; want %q, %q, %v", c.line, interp, arg, ok, c.interp, c.arg, c.ok)
		}
	}
}

// TestHostileSharedMemoryIsBounded: RLIMIT_DATA does not count shared mappings, so a server
// could hold 3 GiB with mmap(MAP_SHARED|MAP_ANONYMOUS), memfd or tmpfs files. Where kata can
// make a memory cgroup per grade, the process is killed before it holds that much; where it
// cannot, the isolation line says so.
func TestHostileSharedMemoryIsBounded(t *testing.T) {
	needBwrap(t)
	if _, err := exec.LookPath("python3"); err != nil {
		t.Skip("no python3")
	}
	iso := DetectIsolation()
	if iso.Memory == "" {
		if n := iso.Notice(); !strings.Contains(n, "shared memory") {
			t.Errorf("no memory cgroup here (%s), and the isolation line does not say so: %q", iso.MemoryReason, n)
		}
		t.Skipf("no memory cgroup kata can create here: %s", iso.MemoryReason)
	}
	hold := `import mmap, os, sys
kind = sys.argv[1]
size = 3 << 30
if kind == "shared":
    m = mmap.mmap(-1, size, flags=mmap.MAP_SHARED)
elif kind == "memfd":
    fd = os.memfd_create("x")
    os.ftruncate(fd, size)
    m = mmap.mmap(fd, size, flags=mmap.MAP_SHARED)
else:
    fd = os.open("/dev/shm/x", os.O_RDWR | os.O_CREAT)
    os.ftruncate(fd, size)
    m = mmap.mmap(fd, size, flags=mmap.MAP_SHARED)
for i in range(0, size, 4096):
    m[i] = 1
print("held 3 GiB")
`
	ws := t.TempDir()
	for _, kind := range []string{"shared", "memfd", "shm"} {
		got := runIn(t, ws, nil, "python3", "-c", hold, kind)
		if strings.Contains(got, "held 3 GiB") {
			t.Errorf("a %s mapping held 3 GiB in the sandbox (memory bounded by %s)", kind, iso.Memory)
		}
	}
}

// TestHostileNetworkReachesOnlyItsOwnAPI: learner code in a sandbox reaches no service on the
// machine's loopback — here a canary listener of the test's own — while a server (Spec.API)
// still reaches the run's Orders API at the URL ListenAPI gave, through its forwarder; a
// process without the API (a client) reaches nothing at all.
func TestHostileNetworkReachesOnlyItsOwnAPI(t *testing.T) {
	needBwrap(t)
	if !DetectIsolation().PrivateNetwork() {
		t.Skipf("no network namespace here: %s", DetectIsolation().NetReason)
	}
	if _, err := exec.LookPath("python3"); err != nil {
		t.Skip("no python3")
	}
	canaryLn, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer canaryLn.Close()
	reached := make(chan struct{}, 16)
	go func() {
		for {
			c, err := canaryLn.Accept()
			if err != nil {
				return
			}
			reached <- struct{}{}
			c.Close()
		}
	}()
	ws := t.TempDir()
	box, err := New(ws, false)
	if err != nil {
		t.Fatal(err)
	}
	defer box.Close()
	apiLn, url, err := box.ListenAPI()
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "orders api") })}
	go srv.Serve(apiLn)
	defer srv.Close()
	probe := `import socket, sys, urllib.request
try:
    socket.create_connection(("127.0.0.1", int(sys.argv[1])), timeout=2).close()
    print("canary reached")
except Exception as e:
    print("canary unreachable:", e)
try:
    print("api says", urllib.request.urlopen(sys.argv[2], timeout=5).read().decode())
except Exception as e:
    print("api unreachable:", e)
`
	port := strconv.Itoa(canaryLn.Addr().(*net.TCPAddr).Port)
	for _, api := range []bool{true, false} {
		out := NewTail(1 << 16)
		p, err := Start(box, Spec{WS: ws, Command: "python3", Args: []string{"-c", probe, port, url}, Env: box.Env(nil), Output: out, API: api})
		if err != nil {
			t.Fatal(err)
		}
		p.Stdin.Close()
		<-p.Done()
		got := out.Since(0, 1<<16)
		if strings.Contains(got, "canary reached") || len(reached) > 0 {
			t.Errorf("API %v: learner code reached a service on the machine's loopback:\n%s", api, got)
		}
		if !strings.Contains(got, "canary unreachable") {
			t.Errorf("API %v: the probe did not run:\n%s", api, got)
		}
		if want := "api says orders api"; api != strings.Contains(got, want) {
			t.Errorf("API %v: reached the Orders API = %v, want %v:\n%s", api, !api, api, got)
		}
		if !p.Success() {
			t.Errorf("API %v: the probe %s", api, p.ExitMsg().English())
		}
	}
}

// TestHostileLearnerCannotEndTheShim: the sandbox's PID 1 is kata's shim, which ends the
// sandbox once kata is gone; learner code sending it SIGKILL, SIGSTOP or any other signal, or
// reading its memory, changes nothing: the program runs on and its exit status is reported.
func TestHostileLearnerCannotEndTheShim(t *testing.T) {
	needBwrap(t)
	ws := t.TempDir()
	script := `for s in KILL STOP TERM INT HUP QUIT SEGV USR1; do kill -$s 1 2>/dev/null; done
[ "$(cut -d' ' -f3 /proc/1/stat)" = S ] || echo "shim state $(cut -d' ' -f3 /proc/1/stat)"
head -c1 /proc/1/mem 2>/dev/null && echo "read the shim's memory"
echo alive; exit 7`
	box, err := New(ws, false)
	if err != nil {
		t.Fatal(err)
	}
	defer box.Close()
	out := NewTail(1 << 16)
	p, err := Start(box, Spec{WS: ws, Command: "sh", Args: []string{"-c", script}, Env: box.Env(nil), Output: out})
	if err != nil {
		t.Fatal(err)
	}
	p.Stdin.Close()
	<-p.Done()
	if got := out.Since(0, 1<<16); strings.TrimSpace(got) != "alive" {
		t.Errorf("learner code reached the shim:\n%s", got)
	}
	if got := p.ExitMsg().English(); got != "exited with code 7" {
		t.Errorf("the program %s, want exited with code 7", got)
	}
}
