// Package autograder exports a kata to the autograders a learning platform runs, and turns one
// grading run into their results: Gradescope (an autograder zip whose run_autograder writes
// results.json, one test per kata test with its points and visibility) and GitHub Classroom
// (a workflow and the base64 runner result its grading reporter adds up). A test's points come
// from the grader's points (grader.Points: a step's points shared among its tests), so every
// export scores one test the same way.
package autograder

import (
	"archive/zip"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"
	"path"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"text/template"
	"time"

	"github.com/kata-mcp/kata/grader"
	"github.com/kata-mcp/kata/katas"
)

// The Gradescope autograder format follows Gradescope's "Autograder Specifications"
// (gradescope-autograders.readthedocs.io/en/latest/specs/): a zip with setup.sh and
// run_autograder at its root; the submission in /autograder/submission; the results in
// /autograder/results/results.json, with a score, max_score, status, name, output and tags
// per test.

// gradescopeTest is one test of Gradescope's results.json.
type gradescopeTest struct {
	Name     string   `json:"name"`
	Score    float64  `json:"score"`
	MaxScore float64  `json:"max_score"`
	Status   string   `json:"status"`
	Output   string   `json:"output,omitempty"`
	Tags     []string `json:"tags"`
	// Visibility is Gradescope's: visible, hidden, after_due_date or after_published.
	Visibility string         `json:"visibility,omitempty"`
	Extra      map[string]any `json:"extra_data,omitempty"`
}

// gradescopeResults is Gradescope's results.json.
type gradescopeResults struct {
	Score         float64          `json:"score"`
	ExecutionTime float64          `json:"execution_time"`
	Output        string           `json:"output"`
	Visibility    string           `json:"visibility,omitempty"`
	Tests         []gradescopeTest `json:"tests"`
}

// Visibilities are the test visibilities Gradescope knows (--visibility): shown to the
// learner at once, never, after the due date, or once the grades are published.
var Visibilities = []string{"visible", "hidden", "after_due_date", "after_published"}

// stepTag is the tag naming a test's task step.
func stepTag(n int) string { return fmt.Sprintf("step %d", n) }

// WriteGradescope writes the report as Gradescope's results.json: one test per graded test,
// with its name, score (its share of its step's points when it passed, else 0), max_score,
// status (passed or failed), output (for a test that did not pass: the rule, the failure
// message and the learner's stderr tail) and its task step as a tag; the whole run's summary
// as the top-level output. A report that could not grade anything becomes one failed test
// worth the kata's points whose output says why. p is the kata the assignment grades;
// visibility, when set (one of Visibilities), is every test's and the whole result's
// Gradescope visibility.
func WriteGradescope(w io.Writer, p *katas.Packet, r *grader.Report, visibility string) error {
	if visibility != "" && !slices.Contains(Visibilities, visibility) {
		return fmt.Errorf("visibility %q: Gradescope knows %s", visibility, strings.Join(Visibilities, ", "))
	}
	s := grader.ScoreOf(p, r)
	res := gradescopeResults{ExecutionTime: float64(r.DurationMS) / 1000, Tests: []gradescopeTest{}, Visibility: visibility}

	if r.Status == grader.StatusError {
		res.Output = "The submission could not be graded:\n" + r.Message
		res.Tests = append(res.Tests, gradescopeTest{Name: "the submission can be graded", MaxScore: s.Max, Status: "failed",
			Output: r.Message, Tags: []string{"grading"}})
	}
	for _, t := range r.Tests {
		gt := gradescopeTest{Name: t.Name, MaxScore: round2(s.TestMax(t.Step)), Status: "failed", Tags: []string{stepTag(t.Step)},
			Extra: map[string]any{"id": t.ID, "kata_status": t.Status}}
		if t.Status == grader.StatusPass {
			gt.Score, gt.Status = gt.MaxScore, "passed"
			gt.Output = t.Note
		} else {
			gt.Output = strings.TrimSpace(strings.Join([]string{ruleLine(t.Rule), t.Message, stderrBlock(t)}, "\n\n"))
			gt.Extra["failed_rules"] = t.FailedRules
		}
		res.Tests = append(res.Tests, gt)
		res.Score += gt.Score
	}
	res.Score = round2(res.Score)
	if res.Output == "" {
		pass, fail, errored := r.Counts()
		res.Output = fmt.Sprintf("kata grade · %s · %d passed, %d failed, %d errored · %s of %s points · seed %d", r.Kata, pass, fail, errored,
			grader.FormatPoints(res.Score), grader.FormatPoints(s.Max), r.Seed)
	}
	for i := range res.Tests {
		res.Tests[i].Visibility = visibility
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(res)
}

// ruleLine is "rule: …" for a test's rule, or "".
func ruleLine(rule string) string {
	if rule == "" {
		return ""
	}
	return "rule: " + rule
}

// stderrBlock is a test's learner stderr tail, labelled, or "".
func stderrBlock(t grader.TestResult) string {
	if strings.TrimSpace(t.Output) == "" {
		return ""
	}
	return "stderr:\n" + strings.TrimRight(t.Output, "\n")
}

// round2 rounds to two decimals (grader.FormatPoints' precision).
func round2(v float64) float64 { return math.Round(v*100) / 100 }

// gradescopeSetup is setup.sh: it installs the runtimes of the kata's languages with apt and
// the kata binary shipped in the zip.
var gradescopeSetup = template.Must(template.New("setup.sh").Parse(`#!/usr/bin/env bash
# Gradescope autograder setup for the kata {{.Kata}}, written by kata export gradescope.
# Gradescope runs this once, as root, when it builds the autograder image. Choose the Ubuntu
# 24.04 base image: its packages are recent enough (Node.js 18 or later, Go 1.22 or later).
set -euo pipefail
export DEBIAN_FRONTEND=noninteractive
apt-get update
# bubblewrap: kata grades each submission in a sandbox (docs/grading.md#sandbox); without it a
# submission's code would run unconfined, as root.
apt-get install -y --no-install-recommends ca-certificates bubblewrap{{range .Packages}} {{.}}{{end}}
install -m 0755 /autograder/source/kata /usr/local/bin/kata
{{- if .Node}}
node_major=$(node -p 'process.versions.node.split(".")[0]')
if [ "$node_major" -lt 18 ]; then
  echo "setup.sh: Node.js $(node --version) is too old for the kata's Node workspaces (18 or later): choose the Ubuntu 24.04 base image" >&2
  exit 1
fi
{{- end}}
{{- if .Go}}
go_minor=$(go env GOVERSION | sed -E 's/^go1\.([0-9]+).*/\1/')
if [ "$go_minor" -lt 22 ]; then
  echo "setup.sh: $(go env GOVERSION) is too old for the kata's Go workspaces (1.22 or later): choose the Ubuntu 24.04 base image" >&2
  exit 1
fi
{{- end}}
kata list >/dev/null
`))

// gradescopeRun is run_autograder: it finds the workspace in the submission, grades a copy
// of it and writes results.json. KATA_AUTOGRADER_ROOT replaces /autograder (tests).
var gradescopeRun = template.Must(template.New("run_autograder").Parse(`#!/usr/bin/env bash
# Gradescope autograder for the kata {{.Kata}}, written by kata export gradescope: grades the
# submission with kata and writes results.json in Gradescope's format (one test per graded
# test, each worth its share of its task step's points, the step as a tag). Every submission is
# graded with the same seed, so every learner meets the same fixtures.
set -u
root="${KATA_AUTOGRADER_ROOT:-/autograder}"
source_dir="$root/source"
results="$root/results"
mkdir -p "$results"
kata="$source_dir/kata"
packets=()
if [ -d "$source_dir/packets" ]; then packets=(--packets "$source_dir/packets"); fi

# The workspace is the submission itself, or the one folder one or two levels down that holds
# kata.json (a learner who uploads a zip of the workspace folder); kata class grade finds a
# learner's workspace the same way (FindWorkspace).
ws="$root/submission"
if [ ! -f "$ws/kata.json" ]; then
  found=$(cd "$ws" && find . -mindepth 2 -maxdepth 3 -name kata.json -type f -not -path '*/node_modules/*' -not -path '*/.*/*' 2>/dev/null)
  if [ -n "$found" ] && [ "$(printf '%s\n' "$found" | wc -l)" -eq 1 ]; then ws="$ws/$(dirname "${found#./}")"; fi
fi

# Grade a copy, so nothing the build writes lands in the submission.
work=$(mktemp -d)
mkdir -p "$work/ws"
cp -a "$ws/." "$work/ws/" 2>/dev/null || true
export KATA_STATE="$work/progress.db"
cd "$work/ws"
"$kata" ${packets[@]+"${packets[@]}"} grade "$work/ws" --kata {{.Kata}} --seed {{.Seed}} --gradescope "$results/results.json"{{if .Visibility}} --visibility {{.Visibility}}{{end}}
status=$?
if [ ! -s "$results/results.json" ]; then
  printf '{"score": 0, "output": "kata could not grade the submission (exit %s); the autograder output has the details", "tests": []}\n' "$status" > "$results/results.json"
fi
rm -rf "$work"
exit 0
`))

// GradescopeOptions tune ExportGradescope.
type GradescopeOptions struct {
	// Binary is the kata executable to ship; empty means this one (os.Executable), which must
	// then be a Linux amd64 build, as Gradescope runs.
	Binary string
	// Languages limits the runtimes setup.sh installs; empty means every language of the kata.
	Languages []string
	// Seed is every submission's seed (docs/grading.md#seed).
	Seed int64
	// Visibility, when set (one of Visibilities), is the tests' Gradescope visibility, such
	// as after_due_date.
	Visibility string
}

// ExportGradescope writes the Gradescope autograder of kata p into w, a zip holding at its
// root setup.sh, run_autograder, the kata binary, and, for a kata that is not built in, the
// packet itself under packets/. It returns the names in the zip.
func ExportGradescope(w io.Writer, p *katas.Packet, o GradescopeOptions) ([]string, error) {
	bin := o.Binary
	if bin == "" {
		if runtime.GOOS != "linux" || runtime.GOARCH != "amd64" {
			return nil, fmt.Errorf("this kata is %s/%s and Gradescope runs Linux amd64: build one (GOOS=linux GOARCH=amd64 go build -o kata-linux .) and pass --binary kata-linux", runtime.GOOS, runtime.GOARCH)
		}
		exe, err := os.Executable()
		if err != nil {
			return nil, fmt.Errorf("finding this kata binary to ship: %w (pass --binary)", err)
		}
		bin = exe
	}
	langs := o.Languages
	if len(langs) == 0 {
		langs = p.Languages
	}
	for _, l := range langs {
		if !slices.Contains(p.Languages, l) {
			return nil, fmt.Errorf("kata %s has no %q workspaces (it has %s)", p.ID, l, strings.Join(p.Languages, ", "))
		}
	}
	if o.Visibility != "" && !slices.Contains(Visibilities, o.Visibility) {
		return nil, fmt.Errorf("--visibility %q: Gradescope knows %s", o.Visibility, strings.Join(Visibilities, ", "))
	}
	v := struct {
		Kata, Visibility string
		Seed             int64
		Packages         []string
		Node, Go         bool
	}{Kata: p.ID, Visibility: o.Visibility, Seed: o.Seed, Node: slices.Contains(langs, "node"), Go: slices.Contains(langs, "go")}
	for _, l := range langs {
		v.Packages = append(v.Packages, map[string]string{"python": "python3", "node": "nodejs", "go": "golang-go"}[l])
	}
	zw := zip.NewWriter(w)
	var names []string
	add := func(name string, mode fs.FileMode, write func(io.Writer) error) error {
		h := &zip.FileHeader{Name: name, Method: zip.Deflate, Modified: time.Now()}
		h.SetMode(mode)
		f, err := zw.CreateHeader(h)
		if err != nil {
			return err
		}
		names = append(names, name)
		return write(f)
	}
	if err := add("setup.sh", 0o755, func(f io.Writer) error { return gradescopeSetup.Execute(f, v) }); err != nil {
		return nil, err
	}
	if err := add("run_autograder", 0o755, func(f io.Writer) error { return gradescopeRun.Execute(f, v) }); err != nil {
		return nil, err
	}
	if err := add("kata", 0o755, func(f io.Writer) error {
		src, err := os.Open(bin)
		if err != nil {
			return fmt.Errorf("the kata binary to ship: %w", err)
		}
		defer src.Close()
		_, err = io.Copy(f, src)
		return err
	}); err != nil {
		return nil, err
	}
	if p.Source != "embedded" {
		// A packet of the instructor's own: ship it, run_autograder passes --packets.
		err := fs.WalkDir(p.FS(), ".", func(rel string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return err
			}
			return add(path.Join("packets", p.ID, rel), 0o644, func(f io.Writer) error {
				src, err := p.FS().Open(rel)
				if err != nil {
					return err
				}
				defer src.Close()
				_, err = io.Copy(f, src)
				return err
			})
		})
		if err != nil {
			return nil, fmt.Errorf("shipping the packet %s: %w", p.ID, err)
		}
	}
	if err := zw.Close(); err != nil {
		return nil, err
	}
	return names, nil
}

// CheckKata returns the report of a workspace that names another kata than want in its
// kata.json ("this assignment grades …"), or nil when it names want or cannot be read (the
// grader then says what is wrong with it).
func CheckKata(dir, want string, seed int64) *grader.Report {
	kc, err := grader.LoadKataConfig(dir)
	if err != nil || kc.Kata == want {
		return nil
	}
	return &grader.Report{Version: 3, Status: grader.StatusError, Kata: want, Seed: seed, Workspace: dir, Tests: []grader.TestResult{},
		Message: fmt.Sprintf("kata.json: this workspace is for the kata %q, and this assignment grades %q: start from `kata init %s`", kc.Kata, want, want)}
}

// FindWorkspace returns the workspace of a submission folder as run_autograder finds it: the
// folder itself when it holds kata.json, else the one folder one or two levels down that holds
// kata.json (a learner who handed in the folder around their workspace: "zoe/my-work"),
// leaving out node_modules and hidden folders. Only real folders are walked, never a symbolic
// link, so a submission cannot point the grader elsewhere. ok is false when there is no such
// folder or more than one.
func FindWorkspace(dir string) (ws string, ok bool) {
	if isRegular(filepath.Join(dir, "kata.json")) {
		return dir, true
	}
	var found []string
	var walk func(d string, depth int)
	walk = func(d string, depth int) {
		entries, err := os.ReadDir(d)
		if err != nil {
			return
		}
		for _, e := range entries {
			// DirEntry.IsDir is false for a symbolic link, whatever it points to.
			if !e.IsDir() || e.Name() == "node_modules" || strings.HasPrefix(e.Name(), ".") {
				continue
			}
			sub := filepath.Join(d, e.Name())
			if isRegular(filepath.Join(sub, "kata.json")) {
				found = append(found, sub)
			}
			if depth < 2 {
				walk(sub, depth+1)
			}
		}
	}
	walk(dir, 1)
	if len(found) != 1 {
		return "", false
	}
	return found[0], true
}

// isRegular reports whether path is a regular file, not following a final symbolic link.
func isRegular(path string) bool {
	st, err := os.Lstat(path)
	return err == nil && st.Mode().IsRegular()
}
