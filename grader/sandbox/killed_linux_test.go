//go:build linux

package sandbox

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// envHalfStart makes TestKilledWhileStartingLeavesNothing's test binary the kata that is
// killed: it starts a sandbox of the workspace this names, says the sandbox's init PID, and
// waits to be killed before it lets the sandbox go.
const envHalfStart = "KATA_TEST_HALF_START"

// TestKilledWhileStartingLeavesNothing: a kata killed with SIGKILL while a sandbox is starting
// (bwrap has not yet let the sandbox go on, or the sandbox waits on its block descriptor) leaves no
// process behind, not even an idle one, and the learner's program never runs.
func TestKilledWhileStartingLeavesNothing(t *testing.T) {
	if ws := os.Getenv(envHalfStart); ws != "" {
		halfStart(ws)
		return
	}
	needBwrap(t)
	ws := t.TempDir()
	cmd := exec.Command(os.Args[0], "-test.run=^TestKilledWhileStartingLeavesNothing$")
	cmd.Env = append(os.Environ(), envHalfStart+"="+ws)
	cmd.Stderr = os.Stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var init int
	sc := bufio.NewScanner(out)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), "init "); ok {
			init, _ = strconv.Atoi(v)
			break
		}
	}
	if init <= 0 {
		cmd.Process.Kill()
		cmd.Wait()
		t.Fatal("the half-started kata named no sandbox")
	}
	ns, err := os.Readlink(fmt.Sprintf("/proc/%d/ns/pid", init))
	if err != nil {
		t.Fatal(err)
	}
	cmd.Process.Kill()
	cmd.Wait()
	deadline := time.Now().Add(20 * time.Second)
	for left := inNamespace(ns); len(left) > 0; left = inNamespace(ns) {
		if time.Now().After(deadline) {
			t.Fatalf("the sandbox's processes %v are still there after kata was killed", left)
		}
		time.Sleep(20 * time.Millisecond)
	}
	if _, err := os.Stat(filepath.Join(ws, "ran")); err == nil {
		t.Error("the learner's program ran after kata was killed")
	}
}

// halfStart is the kata of TestKilledWhileStartingLeavesNothing.
func halfStart(ws string) {
	box, err := New(ws, false)
	if err != nil {
		fmt.Println("box:", err)
		os.Exit(1)
	}
	// no memory cgroup: the next run's removal of stale cgroups (any kata on the machine) would
	// end a sandbox left in one, and hide what this test looks for
	box.mem.remove()
	box.mem = nil
	beforeRelease = func(init int) {
		fmt.Printf("init %d\n", init)
		select {}
	}
	Start(box, Spec{WS: ws, Command: "sh", Args: []string{"-c", "echo ran > ran"}, Env: box.Env(nil)})
}

// inNamespace lists the live processes (not zombies) whose PID namespace is ns.
func inNamespace(ns string) []int {
	var pids []int
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if link, err := os.Readlink(filepath.Join("/proc", e.Name(), "ns", "pid")); err != nil || link != ns {
			continue
		}
		if stat, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat")); err == nil {
			if i := strings.LastIndexByte(string(stat), ')'); i > 0 && strings.HasPrefix(string(stat[i:]), ") Z") {
				continue
			}
		}
		pids = append(pids, pid)
	}
	return pids
}

// TestKillOfAnEndedSandboxSparesTheNext: the kernel gives a new PID namespace the inode number
// of one that just ended, so stopping a sandbox that has already ended must not signal by that
// number: it would reach the next sandbox, another server of the grade or another learner's.
// The test makes the reuse certain: the ended sandbox's number is set to the next one's.
func TestKillOfAnEndedSandboxSparesTheNext(t *testing.T) {
	needBwrap(t)
	ws := t.TempDir()
	box, err := New(ws, false)
	if err != nil {
		t.Fatal(err)
	}
	defer box.Close()
	ended, err := Start(box, Spec{WS: ws, Command: "true", Env: box.Env(nil)})
	if err != nil {
		t.Fatal(err)
	}
	<-ended.Done()
	next, err := Start(box, Spec{WS: ws, Command: "sh", Args: []string{"-c", "echo started; read x; echo survived"}, Env: box.Env(nil)})
	if err != nil {
		t.Fatal(err)
	}
	defer next.Kill(0)
	lines := bufio.NewScanner(next.Stdout)
	if !lines.Scan() || lines.Text() != "started" {
		t.Fatalf("the next sandbox did not start: %q", lines.Text())
	}
	ended.pidNS = next.pidNS
	ended.Kill(0)
	fmt.Fprintln(next.Stdin, "go on")
	if !lines.Scan() || lines.Text() != "survived" {
		t.Errorf("stopping an ended sandbox reached the next one (%s)", next.ExitMsg().English())
	}
}
