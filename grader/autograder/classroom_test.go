package autograder

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/kata-mcp/kata/grader"
	"github.com/kata-mcp/kata/katas"
	"github.com/kata-mcp/kata/packets"
)

// TestClassroomWorkflowIsPinnedCachedAndChecked: the exported workflow installs the version it
// was given, keeps the build in the Actions cache, and carries its own hash, which the grade
// checks: the workflow as exported passes, one whose seed a learner edited is reported.
func TestClassroomWorkflowIsPinnedCachedAndChecked(t *testing.T) {
	lib, err := katas.Discover(packets.FS, "embedded")
	if err != nil {
		t.Fatal(err)
	}
	p, _ := lib.Get("mcp-structured-errors")
	dir := filepath.Join(t.TempDir(), "starter")
	if _, err := ExportClassroom(p, "python", dir, ClassroomOptions{Module: "example.org/kata", Version: "v1.2.3", Go: "1.26", Seed: 5}); err != nil {
		t.Fatal(err)
	}
	wf := filepath.Join(dir, filepath.FromSlash(ClassroomWorkflow))
	src, _ := os.ReadFile(wf)
	m := regexp.MustCompile(`--workflow ([0-9a-f]{64})`).FindSubmatch(src)
	if m == nil || strings.Contains(string(src), WorkflowHashMark) {
		t.Fatalf("the workflow carries no hash:\n%s", src)
	}
	hash := string(m[1])
	for _, want := range []string{"go install example.org/kata@v1.2.3", "uses: actions/cache@v4", "key: kata-v1.2.3-", "if: steps.cache-kata.outputs.cache-hit != 'true'", "--kata-version"} {
		if !strings.Contains(string(src), want) {
			t.Errorf("the workflow lacks %q", want)
		}
	}
	if problem := CheckWorkflow(dir, hash); problem != "" {
		t.Errorf("the workflow as exported: %s", problem)
	}
	os.WriteFile(wf, []byte(strings.Replace(string(src), "--seed 5", "--seed 6", 1)), 0o644)
	problem := CheckWorkflow(dir, hash)
	if !strings.Contains(problem, "differs from the workflow exported") {
		t.Errorf("an edited workflow: %q", problem)
	}
	b, err := ClassroomResult(p, &grader.Report{Status: grader.StatusPass, Kata: p.ID}, problem)
	if err != nil {
		t.Fatal(err)
	}
	var res classroomResult
	json.Unmarshal(b, &res)
	if len(res.Tests) != 1 || res.Tests[0].Status != grader.StatusFail || res.Tests[0].Score != 0 || !strings.Contains(res.Tests[0].Message, "differs") {
		t.Errorf("the Classroom result of an edited workflow: %+v", res.Tests)
	}
	if CheckWorkflow(t.TempDir(), hash) == "" {
		t.Error("a repository without the workflow passes the check")
	}
}
