package autograder

import (
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"text/template"

	"github.com/kata-mcp/kata/grader"
	"github.com/kata-mcp/kata/katas"
)

// GitHub Classroom's autograding reporter (the action classroom-resources/
// autograding-grading-reporter, v1) reads, for each runner named in its "runners" input, an
// environment variable <RUNNER>_RESULTS holding base64 of a JSON result: {version, status,
// max_score, tests: [{name, status, score, message, …}]}; it adds up the tests' score and
// max_score of every runner and writes "Points X/Y" to the check run named "Autograding
// Tests", which Classroom records. Its own graders (autograding-command-grader and others) hand
// that result on as their step output "result".

// classroomTest is one test of a Classroom runner result.
type classroomTest struct {
	Name          string  `json:"name"`
	Status        string  `json:"status"`
	Score         float64 `json:"score"`
	Message       string  `json:"message"`
	TestCode      string  `json:"test_code"`
	Filename      string  `json:"filename"`
	LineNo        int     `json:"line_no"`
	ExecutionTime string  `json:"execution_time"`
}

// classroomResult is a Classroom runner result.
type classroomResult struct {
	Version  int             `json:"version"`
	Status   string          `json:"status"`
	MaxScore float64         `json:"max_score"`
	Tests    []classroomTest `json:"tests"`
}

// ClassroomResult is the report as a GitHub Classroom runner result (JSON): status pass,
// fail or error as the report's; max_score the kata's points; one test per graded test with
// its status, its score (its share of its task step's points when it passed, else 0) and, for
// one that did not pass, its failure message. A report that could not grade anything is one
// errored test saying why. p is the kata the assignment grades.
// workflowProblem, when set, adds a failing test worth nothing saying the workflow is not the
// one exported (CheckWorkflow).
func ClassroomResult(p *katas.Packet, r *grader.Report, workflowProblem string) ([]byte, error) {
	s := grader.ScoreOf(p, r)
	res := classroomResult{Version: 1, Status: r.Status, MaxScore: s.Max, Tests: []classroomTest{}}
	if workflowProblem != "" {
		res.Tests = append(res.Tests, classroomTest{Name: "the autograding workflow is the one exported", Status: grader.StatusFail,
			Message: workflowProblem, TestCode: "kata grade . --workflow", ExecutionTime: "0.00s"})
	}
	if r.Status == grader.StatusError {
		res.Tests = append(res.Tests, classroomTest{Name: "the submission can be graded", Status: grader.StatusError, Message: r.Message,
			TestCode: "kata grade .", ExecutionTime: fmt.Sprintf("%.2fs", float64(r.DurationMS)/1000)})
	}
	for _, t := range r.Tests {
		ct := classroomTest{Name: fmt.Sprintf("%s (%s)", t.Name, stepTag(t.Step)), Status: t.Status, TestCode: "kata grade . # " + t.ID,
			ExecutionTime: fmt.Sprintf("%.2fs", t.Duration.Seconds())}
		if t.Status == grader.StatusPass {
			ct.Score = round2(s.TestMax(t.Step))
		} else {
			ct.Message = t.Message
		}
		res.Tests = append(res.Tests, ct)
	}
	return json.Marshal(res)
}

// WriteClassroomOutput appends the report's Classroom runner result, base64-encoded, to w as
// a step output line `result=…` (the format of the file $GITHUB_OUTPUT names), which the
// workflow hands to the reporter as KATA_RESULTS.
func WriteClassroomOutput(w io.Writer, p *katas.Packet, r *grader.Report, workflowProblem string) error {
	b, err := ClassroomResult(p, r, workflowProblem)
	if err != nil {
		return err
	}
	_, err = fmt.Fprintf(w, "result=%s\n", base64.StdEncoding.EncodeToString(b))
	return err
}

// ClassroomWorkflow is the workflow's path in the starter repository: GitHub Classroom runs
// .github/workflows/classroom.yml for autograding.
const ClassroomWorkflow = ".github/workflows/classroom.yml"

// classroomYAML is the autograding workflow: set up Go (to install kata) and the workspace's
// runtime, install kata, grade the repository, and hand the result to Classroom's reporter.
var classroomYAML = template.Must(template.New("classroom.yml").Parse(`# GitHub Classroom autograding for the kata {{.Kata}} ({{.Lang}}), written by kata export classroom.
# On every push, kata grades the repository; the autograding reporter gives Classroom the points:
# each graded test is worth its share of its task step's points.
name: Autograding Tests
"on":
  - push
  - repository_dispatch
permissions:
  checks: write
  actions: read
  contents: read
jobs:
  run-autograding-tests:
    name: Autograding Tests
    runs-on: ubuntu-latest
    if: github.actor != 'github-classroom[bot]'
    steps:
      - name: Checkout code
        uses: actions/checkout@v4
      - name: Set up Go
        uses: actions/setup-go@v5
        with:
          go-version: "{{.Go}}"
          cache: false
{{- if ne .Version "latest"}}
      # kata is built once per version and kept in the Actions cache.
      - name: Cache kata
        id: cache-kata
        uses: actions/cache@v4
        with:
          path: ~/go/bin/kata
          key: kata-{{.Version}}-${{"{{"}} runner.os {{"}}"}}-go{{.Go}}
{{- end}}
{{- if eq .Lang "python"}}
      - name: Set up Python
        uses: actions/setup-python@v5
        with:
          python-version: "3.12"
{{- end}}
{{- if eq .Lang "node"}}
      - name: Set up Node.js
        uses: actions/setup-node@v4
        with:
          node-version: "22"
{{- end}}
      # The kata version every push is graded with: the one that exported this workflow, so
      # grades cannot change mid-assignment. To change it, export again with --kata-version
      # (a new workflow, with its own hash below).
      - name: Install kata
{{- if ne .Version "latest"}}
        if: steps.cache-kata.outputs.cache-hit != 'true'
{{- end}}
        run: go install {{.Module}}@{{.Version}}
      - name: Grade with kata
        id: kata
        run: {{.Command}}
      - name: Autograding Reporter
        if: ${{"{{"}} !cancelled() {{"}}"}}
        uses: classroom-resources/autograding-grading-reporter@v1
        env:
          KATA_RESULTS: "${{"{{"}} steps.kata.outputs.result {{"}}"}}"
        with:
          runners: kata
`))

// ClassroomGradeCommand is the command the workflow runs to grade a learner's repository:
// every learner with the same seed, and the workflow checked against the hash it was exported
// with (WorkflowHashMark until ExportClassroom fills it in).
func ClassroomGradeCommand(kata string, seed int64) string {
	return fmt.Sprintf(`kata grade . --kata %s --seed %d --classroom "$GITHUB_OUTPUT" --workflow %s`, kata, seed, WorkflowHashMark)
}

// WorkflowHashMark stands for the workflow's own hash while it is hashed: the hash of a
// workflow is the SHA-256 of its text with the hash it carries replaced by this mark.
const WorkflowHashMark = "WORKFLOW_SHA256"

// WorkflowHash is the hash of a workflow text carrying hash (WorkflowHashMark before one is
// filled in).
func WorkflowHash(text []byte, hash string) string {
	if hash != "" && hash != WorkflowHashMark {
		text = bytes.ReplaceAll(text, []byte(hash), []byte(WorkflowHashMark))
	}
	sum := sha256.Sum256(text)
	return hex.EncodeToString(sum[:])
}

// CheckWorkflow checks the Classroom workflow in the repository dir against the hash it was
// exported with: it returns "" when they agree, else what differs, for the grade to report
// (a learner can edit the workflow of their own repository: its seed, its command).
func CheckWorkflow(dir, hash string) string {
	b, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(ClassroomWorkflow)))
	if err != nil {
		return fmt.Sprintf("%s cannot be read (%v): the workflow that graded this push is not the one exported", ClassroomWorkflow, err)
	}
	if WorkflowHash(b, hash) != hash {
		return fmt.Sprintf("%s differs from the workflow exported (its SHA-256 is not %s): this grade may not be the assignment's; ask your instructor", ClassroomWorkflow, hash)
	}
	return ""
}

// classroomIgnore keeps build output and caches out of the learners' commits.
const classroomIgnore = ".kata/\n__pycache__/\n*.pyc\nnode_modules/\n"

// ClassroomOptions tune ExportClassroom.
type ClassroomOptions struct {
	// Module and Version name what the workflow installs: go install Module@Version.
	Module, Version string
	// Go is the Go version the workflow sets up (to install kata, and to build a Go workspace).
	Go string
	// Seed is every learner's seed (docs/grading.md#seed).
	Seed int64
}

// ExportClassroom writes a GitHub Classroom starter repository for kata p in lang into dir
// (which must not exist or be empty): the template workspace of `kata init` with TASK.md, a
// .gitignore for build output and caches, and the autograding workflow ClassroomWorkflow. It
// returns the paths it wrote beyond the workspace.
func ExportClassroom(p *katas.Packet, lang, dir string, o ClassroomOptions) ([]string, error) {
	if len(p.Graded) == 0 {
		return nil, fmt.Errorf("kata %s grades nothing: a Classroom assignment needs a graded kata", p.ID)
	}
	if err := p.Init(dir, lang); err != nil {
		return nil, err
	}
	wf := filepath.Join(dir, filepath.FromSlash(ClassroomWorkflow))
	if err := os.MkdirAll(filepath.Dir(wf), 0o755); err != nil {
		return nil, err
	}
	v := struct{ Kata, Lang, Go, Module, Version, Command string }{p.ID, lang, o.Go, o.Module, o.Version, ClassroomGradeCommand(p.ID, o.Seed)}
	var yml bytes.Buffer
	if err := classroomYAML.Execute(&yml, v); err != nil {
		return nil, err
	}
	text := yml.Bytes()
	text = bytes.ReplaceAll(text, []byte(WorkflowHashMark), []byte(WorkflowHash(text, WorkflowHashMark)))
	if err := os.WriteFile(wf, text, 0o644); err != nil {
		return nil, err
	}
	ignore := filepath.Join(dir, ".gitignore")
	if err := os.WriteFile(ignore, []byte(classroomIgnore), 0o644); err != nil {
		return nil, err
	}
	return []string{wf, ignore}, nil
}
