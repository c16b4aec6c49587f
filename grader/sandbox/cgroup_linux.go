//go:build linux

package sandbox

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

// GradeMemory is the memory one grade's processes may use together, counted by the kernel's
// memory cgroup: private memory and, unlike RLIMIT_DATA, shared mappings, memfd and files on
// the sandbox's tmpfs (docs/grading.md#memory-limit).
const GradeMemory = 2 << 30

// cgroupParent is where kata makes one memory cgroup per grade: a "kata" folder in a cgroup
// hierarchy kata may write to (as root, or in a delegated user slice), with the memory
// controller. Found once per process (memCgroupParent).
type cgroupParent struct {
	dir string
	v2  bool
}

var (
	memCgroupOnce sync.Once
	memCgroup     cgroupParent
	memCgroupWhy  string
	cgroupSeq     uint64
	cgroupSeqMu   sync.Mutex
)

// memCgroupParent finds where kata can make a memory cgroup per grade, trying cgroup v2 first
// (the root of its hierarchy, then the parent of kata's own cgroup, as a delegated user slice
// allows), then cgroup v1's memory hierarchy; ok is false, with why, when there is none.
func memCgroupParent() (cgroupParent, string, bool) {
	memCgroupOnce.Do(func() {
		var whys []string
		for _, c := range cgroupCandidates() {
			if err := tryCgroupParent(c); err != nil {
				whys = append(whys, err.Error())
				continue
			}
			memCgroup = c
			return
		}
		memCgroupWhy = "no memory cgroup kata can create"
		if len(whys) > 0 {
			memCgroupWhy += " (" + whys[0] + ")"
		}
	})
	return memCgroup, memCgroupWhy, memCgroup.dir != ""
}

// cgroupCandidates lists the folders to try for the "kata" cgroup, from /proc/self/mountinfo
// and /proc/self/cgroup.
func cgroupCandidates() []cgroupParent {
	mountinfo, _ := os.ReadFile("/proc/self/mountinfo")
	self, _ := os.ReadFile("/proc/self/cgroup")
	return cgroupCandidatesFrom(string(mountinfo), ownCgroupV2(string(self)), os.Getuid())
}

// cgroupCandidatesFrom lists the folders to try for the "kata" cgroup of user uid, given the
// text of /proc/self/mountinfo and this process's cgroup v2 path: the cgroup v2 hierarchy's
// root, then a folder beside this process's own cgroup, then cgroup v1's memory hierarchy.
func cgroupCandidatesFrom(mountinfo, own string, uid int) []cgroupParent {
	var v2mount, v1mount string
	for _, line := range strings.Split(mountinfo, "\n") {
		// id parent major:minor root mountpoint options ... - fstype source superoptions
		pre, post, ok := strings.Cut(line, " - ")
		fields, after := strings.Fields(pre), strings.Fields(post)
		if !ok || len(fields) < 5 || len(after) < 3 {
			continue
		}
		switch {
		case after[0] == "cgroup2" && v2mount == "":
			v2mount = fields[4]
		case after[0] == "cgroup" && v1mount == "" && slices.Contains(strings.Split(after[2], ","), "memory"):
			v1mount = fields[4]
		}
	}
	var out []cgroupParent
	if v2mount != "" {
		out = append(out, cgroupParent{dir: filepath.Join(v2mount, "kata"), v2: true})
		if own != "" && own != "/" {
			out = append(out, cgroupParent{dir: filepath.Join(v2mount, filepath.Dir(own), fmt.Sprintf("kata-%d", uid)), v2: true})
		}
	}
	if v1mount != "" {
		out = append(out, cgroupParent{dir: filepath.Join(v1mount, "kata")})
	}
	return out
}

// ownCgroupV2 is the cgroup v2 path ("0::/…") in the text of /proc/self/cgroup, or "".
func ownCgroupV2(self string) string {
	for _, line := range strings.Split(self, "\n") {
		if p, ok := strings.CutPrefix(line, "0::"); ok {
			return p
		}
	}
	return ""
}

// tryCgroupParent makes c's folder (with the memory controller on for its children) and a trial
// child with a memory limit, then removes the trial.
func tryCgroupParent(c cgroupParent) error {
	if c.v2 {
		ctrl, err := os.ReadFile(filepath.Join(filepath.Dir(c.dir), "cgroup.controllers"))
		if err != nil || !slices.Contains(strings.Fields(string(ctrl)), "memory") {
			return fmt.Errorf("cgroup v2 at %s has no memory controller", filepath.Dir(c.dir))
		}
		// the parent must hand the memory controller down to our folder
		_ = os.WriteFile(filepath.Join(filepath.Dir(c.dir), "cgroup.subtree_control"), []byte("+memory"), 0)
	}
	if err := os.Mkdir(c.dir, 0o755); err != nil && !errors.Is(err, os.ErrExist) {
		return fmt.Errorf("cannot create %s: %w", c.dir, unwrapPathErr(err))
	}
	if c.v2 {
		if err := os.WriteFile(filepath.Join(c.dir, "cgroup.subtree_control"), []byte("+memory"), 0); err != nil {
			return fmt.Errorf("cannot enable the memory controller in %s: %w", c.dir, unwrapPathErr(err))
		}
	}
	removeStaleCgroups(c)
	g, err := newCgroup(c, fmt.Sprintf("trial-%d", os.Getpid()), GradeMemory)
	if err != nil {
		return err
	}
	g.remove()
	return nil
}

func unwrapPathErr(err error) error {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// removeStaleCgroups removes the grade cgroups left by graders that are gone (named after their
// PID), killing what is still in them first: a sandbox that kata had just started when it was
// killed with SIGKILL (bwrap releases a sandbox waiting on its block descriptor when kata's end
// of it closes) is in its grade's cgroup already, and ends here, at the next run.
func removeStaleCgroups(c cgroupParent) {
	entries, _ := os.ReadDir(c.dir)
	for _, e := range entries {
		pid, err := strconv.Atoi(strings.SplitN(e.Name(), "-", 2)[0])
		if !e.IsDir() || err != nil || pid <= 0 || pid == os.Getpid() {
			continue
		}
		if syscall.Kill(pid, 0) == syscall.ESRCH {
			(&cgroup{dir: filepath.Join(c.dir, e.Name()), v2: c.v2}).remove()
		}
	}
}

// cgroup is one grade's memory cgroup.
type cgroup struct {
	dir string
	v2  bool
}

// newCgroup makes the cgroup name under c with a memory limit of limit bytes and no swap.
func newCgroup(c cgroupParent, name string, limit int64) (*cgroup, error) {
	dir := filepath.Join(c.dir, name)
	if err := os.Mkdir(dir, 0o755); err != nil && !errors.Is(err, os.ErrExist) {
		return nil, fmt.Errorf("cannot create %s: %w", dir, unwrapPathErr(err))
	}
	g := &cgroup{dir: dir, v2: c.v2}
	v := []byte(strconv.FormatInt(limit, 10))
	var err error
	if c.v2 {
		err = os.WriteFile(filepath.Join(dir, "memory.max"), v, 0)
		_ = os.WriteFile(filepath.Join(dir, "memory.swap.max"), []byte("0"), 0)
	} else {
		err = os.WriteFile(filepath.Join(dir, "memory.limit_in_bytes"), v, 0)
		_ = os.WriteFile(filepath.Join(dir, "memory.memsw.limit_in_bytes"), v, 0)
	}
	if err != nil {
		os.Remove(dir)
		return nil, fmt.Errorf("cannot set the memory limit of %s: %w", dir, unwrapPathErr(err))
	}
	return g, nil
}

// add moves the process pid (and the processes it starts later) into the cgroup; a nil cgroup
// (none could be made) does nothing.
func (g *cgroup) add(pid int) error {
	if g == nil {
		return nil
	}
	return os.WriteFile(filepath.Join(g.dir, "cgroup.procs"), []byte(strconv.Itoa(pid)), 0)
}

// remove kills whatever is still in the cgroup and removes it.
func (g *cgroup) remove() {
	if g == nil {
		return
	}
	for range 100 {
		if g.v2 {
			_ = os.WriteFile(filepath.Join(g.dir, "cgroup.kill"), []byte("1"), 0)
		}
		if b, err := os.ReadFile(filepath.Join(g.dir, "cgroup.procs")); err == nil {
			for _, f := range strings.Fields(string(b)) {
				if pid, err := strconv.Atoi(f); err == nil && pid > 0 {
					_ = syscall.Kill(pid, syscall.SIGKILL)
				}
			}
		}
		if err := removeDir(g.dir); err == nil || errors.Is(err, os.ErrNotExist) {
			return
		}
		waitBriefly()
	}
}

// removeDir removes a cgroup's folder (rmdir: a cgroup's folder holds only the kernel's own
// files); a test of the cgroup code on an ordinary folder replaces it.
var removeDir = os.Remove

// newGradeCgroup makes the memory cgroup of one grade, or returns nil when the machine has
// none kata can create.
func newGradeCgroup() *cgroup {
	c, _, ok := memCgroupParent()
	if !ok {
		return nil
	}
	cgroupSeqMu.Lock()
	cgroupSeq++
	name := fmt.Sprintf("%d-%d", os.Getpid(), cgroupSeq)
	cgroupSeqMu.Unlock()
	g, err := newCgroup(c, name, GradeMemory)
	if err != nil {
		return nil
	}
	return g
}

// memoryBound says how a grade's memory is bounded here: "cgroup v2", "cgroup v1", or "" with
// why not.
func memoryBound() (how, why string) {
	c, why, ok := memCgroupParent()
	switch {
	case !ok:
		return "", why
	case c.v2:
		return "cgroup v2", ""
	default:
		return "cgroup v1", ""
	}
}

// waitBriefly is the pause between two tries to remove a cgroup whose last processes are
// still being torn down by the kernel.
func waitBriefly() { time.Sleep(10 * time.Millisecond) }
