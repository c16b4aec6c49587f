package cli

import (
	"archive/zip"
	"encoding/base64"
	"encoding/json"
	"io"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"

	"github.com/kata-mcp/kata/grader/references"
	"github.com/kata-mcp/kata/katas"
	"github.com/kata-mcp/kata/packets"
)

func TestExportSkillCommand(t *testing.T) {
	dir := filepath.Join(t.TempDir(), ".claude")
	out, errOut, code := runKata(t, "export", "skill", "mcp-structured-errors", dir)
	if code != 0 || !strings.Contains(out, filepath.Join(dir, "skills", "mcp-structured-errors", "SKILL.md")) ||
		!strings.Contains(out, filepath.Join(dir, "agents", "error-contract-reviewer.md")) || errOut != "" {
		t.Errorf("exit %d\nstdout %s\nstderr %s", code, out, errOut)
	}
	other := t.TempDir()
	if _, errOut, code := runKata(t, "export", "skill", "mcp-structured-errors", other); code != 0 || !strings.Contains(errOut, "is not a .claude folder") {
		t.Errorf("exporting elsewhere: exit %d, stderr %q", code, errOut)
	}
	if _, errOut, code := runKata(t, "export", "skill", "nope", dir); code != 2 || !strings.Contains(errOut, `unknown kata "nope"`) {
		t.Errorf("an unknown kata: exit %d, stderr %q", code, errOut)
	}
	if out, _, code := runKata(t, "export"); code != 0 || !strings.Contains(out, "skill") {
		t.Errorf("kata export: exit %d, %s", code, out)
	}
	// Grading is pre-approved only on request.
	skill := filepath.Join(dir, "skills", "mcp-structured-errors", "SKILL.md")
	if b, _ := os.ReadFile(skill); strings.Contains(string(b), "kata grade *") {
		t.Errorf("SKILL.md pre-approves grading without --allow-grade")
	}
	if _, errOut, code := runKata(t, "export", "skill", "mcp-structured-errors", dir, "--allow-grade", "--force"); code != 0 {
		t.Errorf("--allow-grade: exit %d, %s", code, errOut)
	}
	if b, _ := os.ReadFile(skill); !strings.Contains(string(b), "Bash(kata grade *)") {
		t.Errorf("SKILL.md with --allow-grade:\n%s", b)
	}
}

// unzip extracts the zip into dir, keeping each file's mode.
func unzip(t *testing.T, zipPath, dir string) {
	t.Helper()
	zr, err := zip.OpenReader(zipPath)
	if err != nil {
		t.Fatal(err)
	}
	defer zr.Close()
	for _, f := range zr.File {
		dst := filepath.Join(dir, filepath.FromSlash(f.Name))
		if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
			t.Fatal(err)
		}
		src, err := f.Open()
		if err != nil {
			t.Fatal(err)
		}
		b, err := io.ReadAll(src)
		src.Close()
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(dst, b, f.Mode().Perm()); err != nil {
			t.Fatal(err)
		}
	}
}

// gradescopeResults is what the tests read of Gradescope's results.json.
type gradescopeResults struct {
	Score  float64 `json:"score"`
	Output string  `json:"output"`
	Tests  []struct {
		Name     string         `json:"name"`
		Score    float64        `json:"score"`
		MaxScore float64        `json:"max_score"`
		Status   string         `json:"status"`
		Output   string         `json:"output"`
		Tags     []string       `json:"tags"`
		Extra    map[string]any `json:"extra_data"`
	} `json:"tests"`
}

// TestExportGradescope unpacks the autograder into a folder laid out like Gradescope's
// /autograder (source/ holds the zip, run_autograder beside it, submission/ the learner's
// upload) and runs run_autograder on a correct reference, a broken one uploaded as a folder
// inside the submission, and an upload that is no workspace: results.json scores each as the
// grader does, test by test, with the step as a tag.
func TestExportGradescope(t *testing.T) {
	t.Parallel() // runs its own kata binary in folders of its own: nothing shared with other tests
	if testing.Short() {
		t.Skip("builds kata and grades")
	}
	for _, tool := range []string{"python3", "node", "bash"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("%s is not installed (.ci/run installs it)", tool)
		}
	}
	bin := buildKata(t, t.TempDir())
	zipPath := filepath.Join(t.TempDir(), "autograder.zip")
	if out, err := exec.Command(bin, "export", "gradescope", "mcp-structured-errors", "-o", zipPath, "--lang", "python,node", "--seed", "11").CombinedOutput(); err != nil {
		t.Fatalf("export: %v\n%s", err, out)
	}
	lib := library(t)
	p, _ := lib.Get("mcp-structured-errors")
	cases := []struct {
		name, lang, ref, sub string
		wantFail             []string
	}{
		{"correct", "python", "correct", "", nil},
		{"broken, uploaded as a folder", "node", "broken-retry-after-string", "my-workspace", nil},
		{"no workspace", "", "", "", nil},
	}
	want, err := references.ReadExpectation(filepath.Join("..", "..", "testdata", "references", "mcp-structured-errors", "node", "broken-retry-after-string"))
	if err != nil {
		t.Fatal(err)
	}
	cases[1].wantFail = want.Fail
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			root := t.TempDir()
			unzip(t, zipPath, filepath.Join(root, "source"))
			for _, f := range []string{"setup.sh", "run_autograder", "kata"} {
				if st, err := os.Stat(filepath.Join(root, "source", f)); err != nil || st.Mode().Perm()&0o100 == 0 {
					t.Fatalf("%s is not an executable file at the zip's root: %v", f, err)
				}
			}
			run, _ := os.ReadFile(filepath.Join(root, "source", "run_autograder"))
			os.WriteFile(filepath.Join(root, "run_autograder"), run, 0o755)
			sub := filepath.Join(root, "submission")
			os.MkdirAll(sub, 0o755)
			if c.lang != "" {
				if err := references.Workspace(p, c.lang, filepath.Join("..", "..", "testdata", "references", "mcp-structured-errors", c.lang, c.ref), filepath.Join(sub, c.sub)); err != nil {
					t.Fatal(err)
				}
			} else {
				os.WriteFile(filepath.Join(sub, "server.py"), []byte("print('only a file')\n"), 0o644)
			}
			cmd := exec.Command(filepath.Join(root, "run_autograder"))
			cmd.Dir = root
			cmd.Env = append(os.Environ(), "KATA_AUTOGRADER_ROOT="+root)
			out, err := cmd.CombinedOutput()
			if err != nil {
				t.Fatalf("run_autograder: %v\n%s", err, out)
			}
			b, err := os.ReadFile(filepath.Join(root, "results", "results.json"))
			if err != nil {
				t.Fatalf("no results.json: %v\n%s", err, out)
			}
			var res gradescopeResults
			if err := json.Unmarshal(b, &res); err != nil {
				t.Fatalf("results.json: %v\n%s", err, b)
			}
			var score, max float64
			var failed []string
			for _, tr := range res.Tests {
				score, max = score+tr.Score, max+tr.MaxScore
				if tr.Name == "" || len(tr.Tags) != 1 || (tr.Status != "passed" && tr.Status != "failed") {
					t.Errorf("test %+v", tr)
				}
				if tr.Status == "failed" {
					id, _ := tr.Extra["id"].(string)
					failed = append(failed, id)
					if tr.Score != 0 || tr.Output == "" {
						t.Errorf("failed test %q scores %v with output %q", tr.Name, tr.Score, tr.Output)
					}
				} else if tr.Score != tr.MaxScore || !strings.HasPrefix(tr.Tags[0], "step ") {
					t.Errorf("passed test %q: %v of %v, tags %v", tr.Name, tr.Score, tr.MaxScore, tr.Tags)
				}
			}
			if res.Score != round2(score) {
				t.Errorf("top-level score %v, the tests add up to %v", res.Score, score)
			}
			slices.Sort(failed)
			switch c.name {
			case "correct":
				if len(failed) > 0 || res.Score != max || max != 48 || !strings.Contains(res.Output, "seed 11") {
					t.Errorf("the correct reference: %v of %v, failed %v", res.Score, max, failed)
				}
			case "no workspace":
				if len(res.Tests) != 1 || res.Score != 0 || res.Tests[0].MaxScore != 48 || !strings.Contains(res.Tests[0].Output, "kata.json") {
					t.Errorf("an upload without a workspace: %+v", res)
				}
			default:
				if !slices.Equal(failed, c.wantFail) || res.Score >= max {
					t.Errorf("the broken reference fails %v (want %v), %v of %v", failed, c.wantFail, res.Score, max)
				}
			}
			if left := survivorsUnder(t, root); left > 0 {
				t.Errorf("%d processes outlived run_autograder", left)
			}
		})
	}
}

func round2(v float64) float64 { return math.Round(v*100) / 100 }

// classroomWorkflow is what the test reads of the Classroom workflow.
type classroomWorkflow struct {
	Name string   `yaml:"name"`
	On   []string `yaml:"on"`
	Jobs map[string]struct {
		Name   string `yaml:"name"`
		RunsOn string `yaml:"runs-on"`
		Steps  []struct {
			Name string            `yaml:"name"`
			ID   string            `yaml:"id"`
			Uses string            `yaml:"uses"`
			Run  string            `yaml:"run"`
			If   string            `yaml:"if"`
			Env  map[string]string `yaml:"env"`
			With map[string]string `yaml:"with"`
		} `yaml:"steps"`
	} `yaml:"jobs"`
}

// classroomScore runs the workflow's grade command in dir as the workflow would, and returns
// its exit code and the Classroom result it left in $GITHUB_OUTPUT.
func classroomScore(t *testing.T, bin, command, dir string) (int, map[string]any) {
	t.Helper()
	output := filepath.Join(t.TempDir(), "github_output")
	cmd := exec.Command("bash", "-c", command)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "PATH="+filepath.Dir(bin)+string(os.PathListSeparator)+os.Getenv("PATH"),
		"GITHUB_OUTPUT="+output, "KATA_STATE="+filepath.Join(t.TempDir(), "progress.db"))
	out, err := cmd.CombinedOutput()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatalf("%s: %v\n%s", command, err, out)
	}
	b, err := os.ReadFile(output)
	if err != nil {
		t.Fatalf("no step output: %v\n%s", err, out)
	}
	line := strings.TrimSpace(string(b))
	if !strings.HasPrefix(line, "result=") || strings.Count(line, "\n") > 0 {
		t.Fatalf("step output %q is not one line result=…", line)
	}
	raw, err := base64.StdEncoding.DecodeString(strings.TrimPrefix(line, "result="))
	if err != nil {
		t.Fatal(err)
	}
	var res map[string]any
	if err := json.Unmarshal(raw, &res); err != nil {
		t.Fatalf("result: %v\n%s", err, raw)
	}
	return code, res
}

// TestExportClassroom: the starter repository's workflow is valid YAML wired the way GitHub
// Classroom's autograding reporter reads results, and the command it runs grades the starter
// as failing and a correct reference as passing, with the points the reporter adds up.
func TestExportClassroom(t *testing.T) {
	t.Parallel() // runs its own kata binary in folders of its own: nothing shared with other tests
	if testing.Short() {
		t.Skip("builds kata and grades")
	}
	if _, err := exec.LookPath("python3"); err != nil {
		t.Skip("python3 is not installed (.ci/run installs it)")
	}
	bin := buildKata(t, t.TempDir())
	repo := filepath.Join(t.TempDir(), "starter")
	if out, err := exec.Command(bin, "export", "classroom", "mcp-structured-errors", repo, "--lang", "python", "--kata-version", "v1.2.3", "--seed", "5").CombinedOutput(); err != nil {
		t.Fatalf("export: %v\n%s", err, out)
	}
	src, err := os.ReadFile(filepath.Join(repo, ".github", "workflows", "classroom.yml"))
	if err != nil {
		t.Fatal(err)
	}
	var wf classroomWorkflow
	if err := yaml.Unmarshal(src, &wf); err != nil {
		t.Fatalf("classroom.yml is not valid YAML: %v\n%s", err, src)
	}
	job, ok := wf.Jobs["run-autograding-tests"]
	if !ok || wf.Name != "Autograding Tests" || !slices.Contains(wf.On, "push") || job.RunsOn != "ubuntu-latest" || job.Name != "Autograding Tests" {
		t.Fatalf("workflow %+v", wf)
	}
	var command string
	uses := map[string]bool{}
	for _, s := range job.Steps {
		uses[strings.Split(s.Uses, "@")[0]] = s.Uses != ""
		switch {
		case s.ID == "kata":
			command = s.Run
		case strings.HasPrefix(s.Uses, "classroom-resources/autograding-grading-reporter@"):
			if s.Env["KATA_RESULTS"] != "${{ steps.kata.outputs.result }}" || s.With["runners"] != "kata" || s.If == "" {
				t.Errorf("the reporter step: %+v", s)
			}
		case strings.HasPrefix(s.Run, "go install "):
			if s.Run != "go install github.com/kata-mcp/kata@v1.2.3" {
				t.Errorf("install step %q", s.Run)
			}
		}
	}
	for _, u := range []string{"actions/checkout", "actions/setup-go", "actions/setup-python", "classroom-resources/autograding-grading-reporter"} {
		if !uses[u] {
			t.Errorf("the workflow does not use %s", u)
		}
	}
	if !strings.Contains(command, "--seed 5 ") {
		t.Fatalf("the grade step %q does not grade every learner with the exported seed", command)
	}
	for _, f := range []string{"kata.json", ".mcp.json", "server.py", "TASK.md", ".gitignore"} {
		if _, err := os.Stat(filepath.Join(repo, f)); err != nil {
			t.Errorf("the starter lacks %s", f)
		}
	}

	total := func(res map[string]any) (score, max float64) {
		tests, _ := res["tests"].([]any)
		for _, tr := range tests {
			s, _ := tr.(map[string]any)["score"].(float64)
			score += s
		}
		max, _ = res["max_score"].(float64)
		return round2(score), max
	}
	code, res := classroomScore(t, bin, command, repo)
	if score, max := total(res); code != 1 || res["status"] != "fail" || max != 48 || score >= max {
		t.Errorf("the starter: exit %d, status %v, %v of %v points", code, res["status"], score, max)
	}
	lib := library(t)
	p, _ := lib.Get("mcp-structured-errors")
	correct := filepath.Join(t.TempDir(), "correct")
	if err := references.Workspace(p, "python", filepath.Join("..", "..", "testdata", "references", "mcp-structured-errors", "python", "correct"), correct); err != nil {
		t.Fatal(err)
	}
	code, res = classroomScore(t, bin, command, correct)
	if score, max := total(res); code != 0 || res["status"] != "pass" || score != max || max != 48 {
		t.Errorf("the correct reference: exit %d, status %v, %v of %v points", code, res["status"], score, max)
	}
	// A workspace of another kata is not this assignment's.
	other := filepath.Join(t.TempDir(), "other")
	if _, _, code := runKata(t, "init", "mcp-error-responses", other); code != 0 {
		t.Fatal("init")
	}
	code, res = classroomScore(t, bin, command, other)
	if tests, _ := res["tests"].([]any); code != 2 || res["status"] != "error" || len(tests) != 1 ||
		!strings.Contains(tests[0].(map[string]any)["message"].(string), `this assignment grades "mcp-structured-errors"`) {
		t.Errorf("another kata's workspace: exit %d, %v", code, res)
	}
}

func library(t *testing.T) *katas.Library {
	t.Helper()
	lib, err := katas.Discover(packets.FS, "embedded")
	if err != nil {
		t.Fatal(err)
	}
	return lib
}
