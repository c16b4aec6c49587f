//go:build linux

package sandbox

import (
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"

	"golang.org/x/sys/unix"
)

var subreaperOnce sync.Once

// BecomeSubreaper makes this process a child subreaper (prctl PR_SET_CHILD_SUBREAPER), so a
// learner's descendant that escaped its process group with setsid is re-parented to the
// grader when its parent dies, where ReapEscapees can find it (docs/grading.md#process-groups).
func BecomeSubreaper() {
	subreaperOnce.Do(func() { _ = unix.Prctl(unix.PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) })
}

// ReapEscapees kills and reaps every process re-parented to the grader that belongs to this
// run: its working directory is the workspace, its environment carries the run's token, or it
// carries the run's marker (sandbox.marker, which survives a change of folder, an emptied
// environment and exec). It repeats until none is left, since killing one may orphan its own
// children. Under bwrap nothing can be re-parented to the grader: a sandbox's processes die
// with its PID namespace.
func ReapEscapees(dir, token string, marker uint64) int {
	self := os.Getpid()
	killed := 0
	for round := 0; round < 10; round++ {
		found := 0
		entries, _ := os.ReadDir("/proc")
		for _, e := range entries {
			pid, err := strconv.Atoi(e.Name())
			if err != nil || pid == self || parentOf(pid) != self {
				continue
			}
			if !belongsToRun(pid, dir, token, marker) {
				continue
			}
			_ = syscall.Kill(pid, syscall.SIGKILL)
			var ws syscall.WaitStatus
			_, _ = syscall.Wait4(pid, &ws, 0, nil)
			found++
		}
		killed += found
		if found == 0 {
			break
		}
	}
	return killed
}

// parentOf reads the parent pid from /proc/<pid>/stat (field 4, after the parenthesised name).
func parentOf(pid int) int {
	b, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "stat"))
	if err != nil {
		return -1
	}
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return -1
	}
	f := strings.Fields(string(b[i+1:]))
	if len(f) < 2 {
		return -1
	}
	ppid, _ := strconv.Atoi(f[1])
	return ppid
}

func belongsToRun(pid int, dir, token string, marker uint64) bool {
	if marker != 0 && msgqueueLimit(pid) == marker {
		return true
	}
	proc := filepath.Join("/proc", strconv.Itoa(pid))
	if cwd, err := os.Readlink(filepath.Join(proc, "cwd")); err == nil && dir != "" {
		if cwd == dir || strings.HasPrefix(cwd, dir+"/") {
			return true
		}
	}
	if token == "" {
		return false
	}
	env, err := os.ReadFile(filepath.Join(proc, "environ"))
	return err == nil && bytes.Contains(env, []byte("ORDERS_API_TOKEN="+token))
}
