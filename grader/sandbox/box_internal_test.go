package sandbox

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestBwrapView: under bwrap a learner process sees the system read-only, the workspace
// read-write, an empty HOME and a private /tmp, none of the user's own files (only the tool
// folders PATH needs), and no other process; the language runtimes still run.
func TestBwrapView(t *testing.T) {
	if !DetectIsolation().Isolated() {
		t.Skip("bwrap is not available: " + DetectIsolation().Reason)
	}
	ws := t.TempDir()
	outside := filepath.Join(t.TempDir(), "outside.txt")
	os.WriteFile(outside, []byte("not for learners"), 0o644)
	box, err := New(ws, false)
	if err != nil {
		t.Fatal(err)
	}
	defer box.Close()
	home, _ := os.UserHomeDir()
	var private []string
	for _, name := range []string{".ssh", ".aws", ".bash_history", ".bashrc", ".profile", ".gitconfig", ".config", ".netrc", ".npmrc", ".local"} {
		if _, err := os.Lstat(filepath.Join(home, name)); err == nil {
			private = append(private, filepath.Join(home, name))
		}
	}
	script := `set -u
fail() { echo "FAIL: $*"; exit 1; }
[ -z "$(ls -A "$HOME")" ] || fail "HOME $HOME is not empty"
[ "$HOME" = /tmp/home ] || fail "HOME is $HOME"
[ ! -e ` + outside + ` ] || fail "a file outside the workspace is visible"
for p in ` + strings.Join(private, " ") + `; do [ ! -e "$p" ] || fail "the user's $p is visible"; done
touch /usr/kata-test 2>/dev/null && fail "/usr is writable"
echo ok > written.txt || fail "the workspace is not writable"
echo ok > /tmp/scratch || fail "/tmp is not writable"
[ ! -e /etc/shadow ] || fail "/etc/shadow is visible"
[ "$(cat /proc/1/comm)" = kata-shim ] || fail "PID 1 is $(cat /proc/1/comm), not the sandbox's own shim"
[ "$(ls /proc | grep -c '^[0-9]')" -lt 20 ] || fail "other processes are visible"
python3 -c 'import json, http.client' || fail "python3 does not run"
node -e 'require("http")' || fail "node does not run"
go version >/dev/null || fail "go does not run"
echo all-checked`
	out := NewTail(1 << 16)
	p, err := Start(box, Spec{WS: ws, Command: "sh", Args: []string{"-c", script}, Env: box.Env(nil), Output: out})
	if err != nil {
		t.Fatal(err)
	}
	p.Stdin.Close()
	<-p.Done()
	if got := out.Since(0, 1<<16); !strings.Contains(got, "all-checked") {
		t.Errorf("the sandbox's view is wrong:\n%s", got)
	}
	if b, _ := os.ReadFile(filepath.Join(ws, "written.txt")); string(b) != "ok\n" {
		t.Error("a file written in the sandbox's workspace is not in the workspace")
	}
}

// TestStaleSandboxFoldersAreRemoved: a fallback run's temporary folder left by a grader that
// was killed (its PID no longer runs) is removed by the next run; one of a running grader is
// kept.
func TestStaleSandboxFoldersAreRemoved(t *testing.T) {
	t.Setenv("TMPDIR", t.TempDir())
	stale := filepath.Join(os.TempDir(), sandboxPrefix+"999999999-1")
	live := filepath.Join(os.TempDir(), fmt.Sprintf("%s%d-1", sandboxPrefix, os.Getppid()))
	for _, d := range []string{stale, live} {
		if err := os.MkdirAll(filepath.Join(d, "home", "ro"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	os.Chmod(filepath.Join(stale, "home"), 0o500) // as Go's module cache leaves its folders
	box, err := New(t.TempDir(), true)
	if err != nil {
		t.Fatal(err)
	}
	box.Close()
	if _, err := os.Stat(stale); err == nil {
		t.Error("the folder of a grader that is gone was kept")
	}
	if _, err := os.Stat(live); err != nil {
		t.Error("the folder of a running grader was removed")
	}
	if _, err := os.Stat(box.hostTemp); err == nil {
		t.Error("close kept the run's own folder")
	}
}

// TestGoCacheStampGrantsTheFirstBuildTime: kata's Go build cache counts as new — the build
// gets the longer deadline of a fresh cache — until a go build has succeeded in it and stamped it, and again
// when the stamp names another go command (a Go upgrade) or `go clean -cache` removed the
// cache's subfolders; a cache that merely has files (builds killed halfway) is still new.
func TestGoCacheStampGrantsTheFirstBuildTime(t *testing.T) {
	if goToolchain() == "" {
		t.Skip("no go command on PATH")
	}
	cache := t.TempDir()
	t.Setenv(EnvGoCache, cache)
	fresh := func() bool {
		t.Helper()
		box, err := New(t.TempDir(), true)
		if err != nil {
			t.Fatal(err)
		}
		defer box.Close()
		return box.goCacheFresh
	}
	if !fresh() {
		t.Fatal("an empty cache is not new")
	}
	os.MkdirAll(filepath.Join(cache, "0a"), 0o700)
	os.WriteFile(filepath.Join(cache, "0a", "0a1b-a"), []byte("x"), 0o600)
	if !fresh() {
		t.Fatal("a cache that no go build finished in is not new")
	}
	box, err := New(t.TempDir(), true)
	if err != nil {
		t.Fatal(err)
	}
	box.BuiltWith("python3")
	if !fresh() {
		t.Fatal("a build that is not a go build stamped the Go cache")
	}
	box.BuiltWith("go")
	box.Close()
	if fresh() {
		t.Fatal("after a go build finished, the cache is still new")
	}
	os.WriteFile(filepath.Join(cache, goCacheStamp), []byte("/opt/go1.20/bin/go 1 1\n"), 0o600)
	if !fresh() {
		t.Fatal("a cache stamped by another go command is not new")
	}
	os.WriteFile(filepath.Join(cache, goCacheStamp), []byte(goToolchain()), 0o600)
	os.RemoveAll(filepath.Join(cache, "0a"))
	if !fresh() {
		t.Fatal("a cache emptied by go clean -cache (the stamp left) is not new")
	}
}
