package class

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/kata-mcp/kata/grader"
	"github.com/kata-mcp/kata/grader/references"
	"github.com/kata-mcp/kata/katas"
)

// refsRoot is the repository's reference submissions (testdata/references/README.md).
var refsRoot = filepath.Join("..", "..", "testdata", "references")

// refClass builds a class folder: each learner's workspace from a reference ("kata/lang/ref"),
// or an empty folder for "".
func refClass(t *testing.T, lib *katas.Library, learners map[string]string) string {
	t.Helper()
	class := filepath.Join(t.TempDir(), "class")
	for name, ref := range learners {
		dir := filepath.Join(class, name)
		if ref == "" {
			if err := os.MkdirAll(dir, 0o755); err != nil {
				t.Fatal(err)
			}
			continue
		}
		parts := strings.SplitN(ref, "/", 3)
		p, ok := lib.Get(parts[0])
		if !ok {
			t.Fatalf("no kata %s", parts[0])
		}
		if err := references.Workspace(p, parts[1], filepath.Join(refsRoot, ref), dir); err != nil {
			t.Fatal(err)
		}
	}
	return class
}

// processesUnder lists the processes whose working directory is dir or inside it (Linux).
func processesUnder(dir string) []string {
	procs, err := os.ReadDir("/proc")
	if err != nil {
		return nil
	}
	real, _ := filepath.EvalSymlinks(dir)
	var out []string
	for _, p := range procs {
		cwd, err := os.Readlink(filepath.Join("/proc", p.Name(), "cwd"))
		if err != nil {
			continue
		}
		for _, d := range []string{dir, real} {
			if d != "" && (cwd == d || strings.HasPrefix(cwd, d+"/")) {
				cmd, _ := os.ReadFile(filepath.Join("/proc", p.Name(), "cmdline"))
				out = append(out, p.Name()+" "+strings.ReplaceAll(string(cmd), "\x00", " ")+" in "+cwd)
				break
			}
		}
	}
	return out
}

// TestGradeARealClass grades five real submissions three at a time, each with its own
// processes and Orders API: a correct one, a broken one, one that escapes with setsid (its
// reap must not touch the others'), one whose server never answers, and an empty folder. Each
// gets its own verdict, the broken one's rules head the report, and no learner process
// survives the batch.
func TestGradeARealClass(t *testing.T) {
	for _, tool := range []string{"python3", "node"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("%s is not installed (.ci/run installs it)", tool)
		}
	}
	lib := library(t)
	class := refClass(t, lib, map[string]string{
		"ana": "mcp-structured-errors/python/correct",
		"ben": "mcp-structured-errors/node/broken-retry-after-string",
		"cy":  "mcp-structured-errors/python/hostile-setsid-child",
		"dee": "mcp-structured-errors/python/hostile-never-answers",
		"eve": "",
	})
	learners, err := Discover([]string{class})
	if err != nil {
		t.Fatal(err)
	}
	store, err := OpenStore(filepath.Join(t.TempDir(), StoreFile))
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	b, err := Run(context.Background(), lib, store, learners, Options{NoIsolation: true, Jobs: 3, Seed: 1, SeedSet: true})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"ana": grader.StatusPass, "ben": grader.StatusFail, "cy": grader.StatusPass, "dee": grader.StatusError, "eve": grader.StatusError}
	for _, r := range b.Results {
		if r.Report.Status != want[r.Name] {
			t.Errorf("%s: status %s, want %s (%s; failing %v)", r.Name, r.Report.Status, want[r.Name], r.Report.Message, references.Failing(r.Report))
		}
		if r.Report.Seed != 1 {
			t.Errorf("%s was graded with seed %d", r.Name, r.Report.Seed)
		}
	}
	if left := processesUnder(class); len(left) > 0 {
		t.Errorf("learner processes outlived the batch:\n%s", strings.Join(left, "\n"))
	}
	// ben's broken reference fails exactly its expect.json's tests, graded beside the others.
	exp, err := references.ReadExpectation(filepath.Join(refsRoot, "mcp-structured-errors/node/broken-retry-after-string"))
	if err != nil {
		t.Fatal(err)
	}
	r := BuildReport(lib, b, BuildOptions{})
	for _, row := range r.Learners {
		if row.Name == "ben" && !slices.Equal(references.Failing(row.report), exp.Fail) {
			t.Errorf("ben fails %v, want %v", references.Failing(row.report), exp.Fail)
		}
	}
	if len(r.Rules) == 0 || r.Rules[0].Rule != grader.RuleFieldType || r.Rules[0].Learners != 1 || !strings.Contains(r.Rules[0].Example, "retryAfterSeconds") {
		t.Errorf("the rules the class fails most: %+v", r.Rules)
	}
	for _, row := range r.Learners {
		switch row.Name {
		case "dee":
			if !strings.Contains(row.Message, "did not answer initialize") {
				t.Errorf("dee: %q", row.Message)
			}
		case "eve":
			if !strings.Contains(row.Message, "kata.json") {
				t.Errorf("eve: %q", row.Message)
			}
		}
	}
	if n, _ := store.Count(); n != 5 {
		t.Errorf("%d results stored, want 5", n)
	}
}

// TestEachLearnerGetsItsOwnRow: a build that fails, a server that crashes before the
// handshake and one that floods stdout each get their own verdict beside the others, and no
// process of theirs survives.
func TestEachLearnerGetsItsOwnRow(t *testing.T) {
	if _, err := exec.LookPath("python3"); err != nil {
		t.Skip("python3 is not installed (.ci/run installs it)")
	}
	lib := library(t)
	class := refClass(t, lib, map[string]string{
		"build":  "mcp-structured-errors/python/correct",
		"crash":  "mcp-structured-errors/python/hostile-exits-at-once",
		"floods": "mcp-structured-errors/python/hostile-floods-stdout",
	})
	kj := filepath.Join(class, "build", "kata.json")
	mkfile(t, kj, `{"kata": "mcp-structured-errors", "language": "python", "build": {"command": "false"},
 "client": {"command": "python3", "args": ["client.py"]}}`)
	learners, err := Discover([]string{class})
	if err != nil {
		t.Fatal(err)
	}
	store, err := OpenStore(filepath.Join(t.TempDir(), StoreFile))
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	b, err := Run(context.Background(), lib, store, learners, Options{NoIsolation: true, Jobs: 3})
	if err != nil {
		t.Fatal(err)
	}
	r := BuildReport(lib, b, BuildOptions{})
	want := map[string]string{"build": "build `false` failed", "crash": "exited with code 3"}
	for _, row := range r.Learners {
		switch row.Name {
		case "floods":
			if row.Status != grader.StatusFail || !slices.Equal(row.FailedRules, []grader.RuleID{grader.RuleStdoutProtocol}) {
				t.Errorf("floods: %s, rules %v (%s)", row.Status, row.FailedRules, row.Message)
			}
		default:
			if !row.CannotGrade() || !strings.Contains(row.Message, want[row.Name]) {
				t.Errorf("%s: %s, %q; want cannot grade: …%s…", row.Name, row.Status, row.Message, want[row.Name])
			}
		}
	}
	if left := processesUnder(class); len(left) > 0 {
		t.Errorf("learner processes outlived the batch:\n%s", strings.Join(left, "\n"))
	}
}
