package cli

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/kata-mcp/kata/grader/sandbox"
)

// zombiesOf lists the children of pid that have ended and not been reaped (state Z).
func zombiesOf(pid int) []int {
	var out []int
	procs, _ := os.ReadDir("/proc")
	for _, p := range procs {
		child, err := strconv.Atoi(p.Name())
		if err != nil {
			continue
		}
		b, err := os.ReadFile(filepath.Join("/proc", p.Name(), "stat"))
		if err != nil {
			continue
		}
		i := bytes.LastIndexByte(b, ')')
		if i < 0 {
			continue
		}
		f := strings.Fields(string(b[i+1:]))
		if len(f) >= 2 && f[0] == "Z" && f[1] == strconv.Itoa(pid) {
			out = append(out, child)
		}
	}
	return out
}

// TestClassGradeLeavesNoZombies: `kata class grade` reaps its children as they end: during a
// batch under bwrap, the ended and unreaped children of kata never outnumber the jobs (each
// grade's last process may be ending at the moment it is looked at), where sandboxes used to
// pile up as zombies, about five per learner; and once the batch has exited, no learner
// process is left.
func TestClassGradeLeavesNoZombies(t *testing.T) {
	t.Parallel() // runs its own kata binary in folders of its own: nothing shared with other tests
	if testing.Short() {
		t.Skip("grades a class in a subprocess")
	}
	if !sandbox.DetectIsolation().Isolated() {
		t.Skip("bwrap is not available: " + sandbox.DetectIsolation().Reason)
	}
	for _, tool := range []string{"python3", "node"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("%s is not installed (.ci/run installs it)", tool)
		}
	}
	bin := buildKata(t, t.TempDir())
	dir := classOf(t, map[string]string{
		"a-ana": "mcp-structured-errors/python/correct",
		"b-ben": "mcp-structured-errors/node/broken-retry-after-string",
		"c-cy":  "mcp-structured-errors/python/hostile-never-answers",
		"d-dee": "mcp-structured-errors/node/correct",
		"e-eve": "mcp-structured-errors/python/broken-generic-error",
		"f-fay": "mcp-structured-errors/node/hostile-never-answers",
	})
	const jobs = 2
	cmd := exec.Command(bin, "class", "grade", dir, "--out", filepath.Join(t.TempDir(), "out"), "--jobs", strconv.Itoa(jobs), "--seed", "7")
	cmd.Env = append(os.Environ(), "KATA_STATE="+filepath.Join(t.TempDir(), "progress.db"))
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	most, looks := 0, 0
	for running := true; running; {
		select {
		case err := <-done:
			if err != nil {
				t.Logf("kata class grade: %v", err)
			}
			running = false
		default:
			z := zombiesOf(cmd.Process.Pid)
			looks++
			if len(z) > most {
				most = len(z)
				var names []string
				for _, pid := range z {
					comm, _ := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "comm"))
					names = append(names, strings.TrimSpace(string(comm)))
				}
				t.Logf("%d zombies: %s", len(z), strings.Join(names, " "))
			}
		}
	}
	if most > jobs {
		t.Errorf("during the batch, up to %d ended children of kata were left unreaped (over %d looks); want at most %d, the jobs", most, looks, jobs)
	}
	if left := survivorsUnder(t, dir); left > 0 {
		t.Errorf("%d learner processes outlived the batch", left)
	}
}
