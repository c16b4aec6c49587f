//go:build linux

package sandbox

import (
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"
)

// TestCgroupCandidates: the cgroup v2 hierarchy's root and a folder beside kata's own cgroup
// come first, cgroup v1's memory hierarchy last, read from mountinfo as the kernel writes it.
func TestCgroupCandidates(t *testing.T) {
	mountinfo := `25 1 0:23 / /sys rw,nosuid - sysfs sysfs rw
30 25 0:26 / /sys/fs/cgroup rw,nosuid,nodev,noexec - cgroup2 cgroup2 rw,nsdelegate
31 25 0:27 / /sys/fs/cgroup/memory rw,nosuid - cgroup cgroup rw,memory
32 25 0:28 / /sys/fs/cgroup/cpu rw,nosuid - cgroup cgroup rw,cpu
`
	own := ownCgroupV2("1:name=systemd:/x\n0::/user.slice/user-1000.slice/session-2.scope\n")
	got := cgroupCandidatesFrom(mountinfo, own, 1000)
	want := []cgroupParent{
		{dir: "/sys/fs/cgroup/kata", v2: true},
		{dir: "/sys/fs/cgroup/user.slice/user-1000.slice/kata-1000", v2: true},
		{dir: "/sys/fs/cgroup/memory/kata"},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("candidates = %+v, want %+v", got, want)
	}
	if got := cgroupCandidatesFrom("32 25 0:28 / /sys/fs/cgroup/cpu rw - cgroup cgroup rw,cpu\n", "", 0); len(got) != 0 {
		t.Errorf("no memory controller anywhere, yet candidates %+v", got)
	}
}

// fakeCgroupV2 makes a folder standing for a cgroup v2 hierarchy's root, whose controllers are
// controllers, and has removeDir remove a cgroup folder with the files the code wrote in it.
func fakeCgroupV2(t *testing.T, controllers string) string {
	t.Helper()
	root := t.TempDir()
	if err := os.WriteFile(filepath.Join(root, "cgroup.controllers"), []byte(controllers+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	removeDir = os.RemoveAll
	t.Cleanup(func() { removeDir = os.Remove })
	return root
}

func readTrim(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return strings.TrimSpace(string(b))
}

// TestCgroupV2OnAFakeRoot: on cgroup v2 kata hands the memory controller down to its "kata"
// folder, makes each grade's cgroup with memory.max at GradeMemory and no swap, moves processes
// in through cgroup.procs, ends a cgroup with cgroup.kill, and removes the cgroups of graders
// that are gone but not its own. The kernel's files are ordinary files here.
func TestCgroupV2OnAFakeRoot(t *testing.T) {
	root := fakeCgroupV2(t, "cpuset cpu io memory pids")
	c := cgroupParent{dir: filepath.Join(root, "kata"), v2: true}
	if err := tryCgroupParent(c); err != nil {
		t.Fatal(err)
	}
	for _, dir := range []string{root, c.dir} {
		if got := readTrim(t, filepath.Join(dir, "cgroup.subtree_control")); got != "+memory" {
			t.Errorf("%s/cgroup.subtree_control = %q, want +memory", dir, got)
		}
	}
	if entries, _ := os.ReadDir(c.dir); len(entries) != 1 {
		t.Errorf("the trial cgroup is left: %v", entries)
	}
	g, err := newCgroup(c, strconv.Itoa(os.Getpid())+"-1", GradeMemory)
	if err != nil {
		t.Fatal(err)
	}
	if got := readTrim(t, filepath.Join(g.dir, "memory.max")); got != strconv.Itoa(GradeMemory) {
		t.Errorf("memory.max = %q, want %d", got, GradeMemory)
	}
	if got := readTrim(t, filepath.Join(g.dir, "memory.swap.max")); got != "0" {
		t.Errorf("memory.swap.max = %q, want 0", got)
	}
	if _, err := os.Stat(filepath.Join(g.dir, "memory.limit_in_bytes")); err == nil {
		t.Error("a cgroup v2 got cgroup v1's memory.limit_in_bytes")
	}
	// a process of the test's own: remove kills what cgroup.procs lists
	member := exec.Command("sleep", "60")
	if err := member.Start(); err != nil {
		t.Fatal(err)
	}
	defer member.Process.Kill()
	if err := g.add(member.Process.Pid); err != nil {
		t.Fatal(err)
	}
	if got := readTrim(t, filepath.Join(g.dir, "cgroup.procs")); got != strconv.Itoa(member.Process.Pid) {
		t.Errorf("cgroup.procs = %q, want %d", got, member.Process.Pid)
	}
	// a grader that is gone left a cgroup; the live one's stays
	dead := exec.Command("true")
	if err := dead.Run(); err != nil {
		t.Fatal(err)
	}
	stale := filepath.Join(c.dir, strconv.Itoa(dead.Process.Pid)+"-3")
	os.Mkdir(stale, 0o755)
	var killed string
	removeDir = func(dir string) error {
		if dir == stale {
			b, _ := os.ReadFile(filepath.Join(dir, "cgroup.kill"))
			killed = string(b)
		}
		return os.RemoveAll(dir)
	}
	removeStaleCgroups(c)
	if _, err := os.Stat(stale); err == nil {
		t.Error("the cgroup of a grader that is gone was not removed")
	}
	if killed != "1" {
		t.Errorf("the stale cgroup was removed without cgroup.kill (wrote %q)", killed)
	}
	if _, err := os.Stat(g.dir); err != nil {
		t.Errorf("this grader's own cgroup was removed: %v", err)
	}
	g.remove()
	if _, err := os.Stat(g.dir); err == nil {
		t.Error("remove left the grade's cgroup")
	}
	if err := member.Wait(); err == nil || !strings.Contains(err.Error(), "killed") {
		t.Errorf("the cgroup's process was not killed: %v", err)
	}
}

// TestCgroupV2WithoutMemoryController: a cgroup v2 hierarchy without the memory controller is
// no place for a grade's cgroup, and the reason says so.
func TestCgroupV2WithoutMemoryController(t *testing.T) {
	root := fakeCgroupV2(t, "cpu io pids")
	err := tryCgroupParent(cgroupParent{dir: filepath.Join(root, "kata"), v2: true})
	if err == nil || !strings.Contains(err.Error(), "no memory controller") {
		t.Errorf("tryCgroupParent = %v, want no memory controller", err)
	}
}
