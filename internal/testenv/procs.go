package testenv

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// ProcessesOf lists, as "PID (command line)", the live processes (Linux; none elsewhere) whose
// working directory is dir, or whose command line or environment contains dir's path. A
// learner process that changed folder and emptied its environment still has its command line,
// where the hostile references put the workspace's path. The calling process is never listed.
func ProcessesOf(dir string) []string {
	var out []string
	for _, pid := range pidsOf(dir) {
		cmd, _ := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "cmdline"))
		out = append(out, fmt.Sprintf("%d (%s)", pid, strings.TrimSpace(strings.ReplaceAll(string(cmd), "\x00", " "))))
	}
	return out
}

// SurvivorsOf polls ProcessesOf(dir) until it is empty or wait has passed, and returns what
// is left then.
func SurvivorsOf(dir string, wait time.Duration) []string {
	deadline := time.Now().Add(wait)
	for {
		left := ProcessesOf(dir)
		if len(left) == 0 || time.Now().After(deadline) {
			return left
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// KillProcessesOf kills (SIGKILL) the processes ProcessesOf lists, so a failed test leaves
// nothing running.
func KillProcessesOf(dir string) {
	for _, pid := range pidsOf(dir) {
		syscall.Kill(pid, syscall.SIGKILL)
	}
}

func pidsOf(dir string) []int {
	names := [][]byte{[]byte(dir)}
	real, _ := filepath.EvalSymlinks(dir)
	if real != "" && real != dir {
		names = append(names, []byte(real))
	}
	procs, err := os.ReadDir("/proc")
	if err != nil {
		return nil
	}
	var pids []int
	for _, p := range procs {
		pid, err := strconv.Atoi(p.Name())
		if err != nil || pid == os.Getpid() {
			continue
		}
		base := filepath.Join("/proc", p.Name())
		hit := false
		if cwd, err := os.Readlink(filepath.Join(base, "cwd")); err == nil && (cwd == dir || cwd == real) {
			hit = true
		}
		for _, f := range []string{"cmdline", "environ"} {
			b, _ := os.ReadFile(filepath.Join(base, f))
			for _, n := range names {
				hit = hit || bytes.Contains(b, n)
			}
		}
		if hit {
			pids = append(pids, pid)
		}
	}
	return pids
}
