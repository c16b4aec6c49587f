//go:build linux

package sandbox

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"syscall"
	"testing"
)

// TestReapEscapeesTakesOnlyItsOwnRun: the subreaper is process-wide, so when several runs
// grade at once (kata class grade) the children of this process include other runs' servers
// and escapees. A run's reap kills the processes whose working directory is inside its own
// workspace or whose environment carries its own token, and no other: not one in a workspace
// whose path merely starts with the same letters (alice2 beside alice), not one of another
// run's token.
func TestReapEscapeesTakesOnlyItsOwnRun(t *testing.T) {
	root := t.TempDir()
	dirs := map[string]string{}
	for _, name := range []string{"alice", "alice2", "bob"} {
		dirs[name] = filepath.Join(root, name)
		if err := os.Mkdir(dirs[name], 0o755); err != nil {
			t.Fatal(err)
		}
	}
	sleep, err := exec.LookPath("sleep")
	if err != nil {
		t.Skip("no sleep binary")
	}
	// start runs `sleep 600` as a direct child of this process (as every learner process
	// is), in dir with env, and is never waited for by anyone but the reap or the cleanup.
	start := func(dir string, env ...string) int {
		p, err := os.StartProcess(sleep, []string{"sleep", "600"}, &os.ProcAttr{Dir: dir, Env: env,
			Sys: &syscall.SysProcAttr{Setpgid: true}})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() {
			_ = syscall.Kill(p.Pid, syscall.SIGKILL)
			var ws syscall.WaitStatus
			_, _ = syscall.Wait4(p.Pid, &ws, 0, nil)
		})
		return p.Pid
	}
	const tokenA, tokenB = "aaaa1111", "bbbb2222"
	inAlice := start(dirs["alice"])
	aliceToken := start("/", "ORDERS_API_TOKEN="+tokenA) // left the workspace, kept the token
	inAlice2 := start(dirs["alice2"])
	bobs := start(dirs["bob"], "ORDERS_API_TOKEN="+tokenB)
	bobElsewhere := start("/", "ORDERS_API_TOKEN="+tokenB)

	if n := ReapEscapees(dirs["alice"], tokenA, 0); n != 2 {
		t.Errorf("alice's reap killed %d processes, want 2 (hers)", n)
	}
	for _, pid := range []int{inAlice, aliceToken} {
		if alive(pid) {
			t.Errorf("alice's process %d survived her reap", pid)
		}
	}
	for _, pid := range []int{inAlice2, bobs, bobElsewhere} {
		if !alive(pid) {
			t.Errorf("process %d, not alice's, was killed by her reap", pid)
		}
	}
	if n := ReapEscapees(dirs["bob"], tokenB, 0); n != 2 {
		t.Errorf("bob's reap killed %d processes, want 2", n)
	}
	if !alive(inAlice2) {
		t.Error("alice2's process was killed by bob's reap")
	}
}

// alive reports whether pid is a running process: /proc has it and its state is not zombie.
// The reap waits for what it kills, so a killed process is gone by the time it returns.
func alive(pid int) bool {
	b, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "stat"))
	if err != nil {
		return false
	}
	i := bytes.LastIndexByte(b, ')')
	return i >= 0 && i+2 < len(b) && b[i+2] != 'Z'
}
