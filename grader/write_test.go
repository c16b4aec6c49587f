package grader

import (
	"bytes"
	"context"
	"encoding/json"
	"encoding/xml"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func sampleReport() *Report {
	return &Report{Version: 3, Status: StatusFail, Kata: "k", Seed: 42, DurationMS: 1500, Workspace: "/w",
		Tests: []TestResult{
			{ID: "a", Name: "lookup ok", Status: StatusPass, Step: 2},
			{ID: "b", Name: "rate <limited>", Status: StatusFail, Step: 3, Message: "retryAfterSeconds was \"17\"\ncall: x", Output: "stderr tail"},
			{ID: "c", Name: "hung", Status: StatusError, Step: 4, Message: "deadline"},
		}}
}

func TestJUnitReport(t *testing.T) {
	var b bytes.Buffer
	if err := WriteJUnit(&b, sampleReport()); err != nil {
		t.Fatal(err)
	}
	var doc junitSuites
	if err := xml.Unmarshal(b.Bytes(), &doc); err != nil {
		t.Fatalf("not valid XML: %v\n%s", err, b.String())
	}
	s := doc.Suites[0]
	if doc.Tests != 3 || doc.Failures != 1 || doc.Errors != 1 || s.Name != "k" || s.Time != "1.500" {
		t.Errorf("counts: %+v", doc)
	}
	c := s.Cases[1]
	if c.Classname != "k.step3" || c.Failure == nil || c.Failure.Message != `retryAfterSeconds was "17"` || c.SystemErr != "stderr tail" {
		t.Errorf("failed case: %+v", c)
	}
	if s.Cases[2].Error == nil || s.Properties[0].Value != "42" {
		t.Errorf("error case or seed property missing: %+v", s)
	}
	var e bytes.Buffer
	WriteJUnit(&e, &Report{Version: 3, Status: StatusError, Message: "kata.json: missing"})
	if !strings.Contains(e.String(), `<testcase name="grading" classname="kata"`) || !strings.Contains(e.String(), `<error message="kata.json: missing">`) {
		t.Errorf("error report:\n%s", e.String())
	}
}

func TestJSONReportUsesExercismFields(t *testing.T) {
	var b bytes.Buffer
	if err := WriteJSON(&b, sampleReport()); err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	json.Unmarshal(b.Bytes(), &m)
	for _, k := range []string{"version", "status", "tests", "kata", "seed", "duration_ms"} {
		if _, ok := m[k]; !ok {
			t.Errorf("no %q in %s", k, b.String())
		}
	}
	test := m["tests"].([]any)[1].(map[string]any)
	for _, k := range []string{"name", "status", "message", "output", "task_id"} {
		if _, ok := test[k]; !ok {
			t.Errorf("test has no %q", k)
		}
	}
	if test["task_id"] != 3.0 {
		t.Errorf("task_id = %v, want the integer 3", test["task_id"])
	}
}

func TestTextReportGroupsByStep(t *testing.T) {
	var b bytes.Buffer
	WriteText(&b, sampleReport(), TextOptions{Steps: map[int]string{3: "Carry Retry-After"}})
	out := b.String()
	for _, want := range []string{"Step 3 · Carry Retry-After", "FAIL  rate <limited>", "retryAfterSeconds was \"17\"", "1 passed, 1 failed, 1 errored", "--seed 42"} {
		if !strings.Contains(out, want) {
			t.Errorf("text report lacks %q:\n%s", want, out)
		}
	}
}

// TestTextReportPointsAtVerbose: only the first failure is in full and stderr shows only with
// -v, so the plain report says -v shows more when there is more; the verbose one (which shows
// it) and a report of one failure without stderr do not.
func TestTextReportPointsAtVerbose(t *testing.T) {
	const hint = "kata grade -v shows every failure in full"
	var plain, verbose, none bytes.Buffer
	WriteText(&plain, sampleReport(), TextOptions{})
	WriteText(&verbose, sampleReport(), TextOptions{Verbose: true})
	quiet := sampleReport()
	quiet.Tests = quiet.Tests[:2]
	quiet.Tests[1].Output = ""
	WriteText(&none, quiet, TextOptions{})
	if !strings.Contains(plain.String(), hint) {
		t.Errorf("plain report with hidden stderr lacks %q:\n%s", hint, plain.String())
	}
	if strings.Contains(verbose.String(), hint) || !strings.Contains(verbose.String(), "stderr tail") {
		t.Errorf("verbose report should show the stderr, not the hint:\n%s", verbose.String())
	}
	if strings.Contains(none.String(), hint) {
		t.Errorf("report with nothing more to show has the hint:\n%s", none.String())
	}
}

// templateReport is a report like the untouched template's: many failing tests whose long
// messages say much the same, and a client that crashes the same way on every scenario.
func templateReport() *Report {
	r := &Report{Version: 3, Status: StatusFail, Kata: "k", Seed: 7, DurationMS: 900, Workspace: "/w"}
	r.Tests = append(r.Tests, TestResult{ID: "tools-list", Name: "tools/list", Status: StatusPass, Step: 1})
	for i := range 24 {
		r.Tests = append(r.Tests, TestResult{ID: fmt.Sprintf("s%d", i), Name: fmt.Sprintf("server fixture %d", i), Status: StatusFail, Step: 1 + i%5,
			Rule: "a rule", Message: "the payload is not the kata's typed error\n(2 of the 2 calls failed)\ncall: tools/call lookup_order {}\nOrders API: answered 401\ngot: {}", Output: "server log line", OutputOf: "server"})
	}
	trace := "Traceback (most recent call last):\n  File \"client.py\", line 45\nNotImplementedError: not written yet"
	for i := range 12 {
		msg := "the client exited with code 1 in the middle of this scenario\nthe client was restarted for the next scenario\nclient stderr (last lines):\n" + indent(trace, "  ")
		if i > 0 {
			msg = "the client exited with code 1 in the middle of this scenario\nthe client was restarted for the next scenario\nclient stderr: the same last lines as under \"client 0\""
		}
		r.Tests = append(r.Tests, TestResult{ID: fmt.Sprintf("c%d", i), Name: fmt.Sprintf("client %d", i), Status: StatusFail, Step: 6, Rule: "a client rule", Message: msg, Output: trace + "\n", OutputOf: "client"})
	}
	return r
}

// TestTextReportIsShortForTheTemplate (issue 16, defect 8): the summary is the second line;
// the first failure is in full and every other failure takes two lines, so 36 failures fit
// in well under 150 lines (the report used to give each one its rule, call, answer and got).
func TestTextReportIsShortForTheTemplate(t *testing.T) {
	var b bytes.Buffer
	WriteText(&b, templateReport(), TextOptions{Steps: map[int]string{1: "Validate"}})
	lines := strings.Split(strings.TrimRight(b.String(), "\n"), "\n")
	if !strings.HasPrefix(lines[1], "1 passed, 36 failed · seed 7") {
		t.Errorf("the summary is not first: %q", lines[1])
	}
	if !strings.Contains(b.String(), "First failure · Step 1 · Validate\n  FAIL  server fixture 0\n        rule: a rule\n        the payload is not the kata's typed error\n        (2 of the 2 calls failed)\n        call: tools/call lookup_order {}") {
		t.Errorf("the first failure is not in full:\n%s", b.String())
	}
	if n := strings.Count(b.String(), "call: tools/call"); n != 1 {
		t.Errorf("%d failures show their call; only the first should:\n%s", n, b.String())
	}
	if len(lines) > 100 {
		t.Errorf("%d lines for 36 failures:\n%s", len(lines), b.String())
	}
}

// TestVerboseShowsEachStderrOnce (issue 16, defect 8): with -v every failure is in full, and a
// client that crashed the same way on every scenario shows its stack trace once (the harness
// quotes its last lines in the first message; -v used to print it again under every test).
func TestVerboseShowsEachStderrOnce(t *testing.T) {
	var b bytes.Buffer
	WriteText(&b, templateReport(), TextOptions{Verbose: true})
	out := b.String()
	if n := strings.Count(out, "Traceback"); n != 1 {
		t.Errorf("the client's stack trace shows %d times:\n%s", n, out)
	}
	if n := strings.Count(out, "server log line"); n != 1 {
		t.Errorf("the same server stderr shows %d times:\n%s", n, out)
	}
	if !strings.Contains(out, `server stderr: the same as under "server fixture 0"`) || strings.Count(out, "call: tools/call") != 24 {
		t.Errorf("verbose report is not every failure in full with stderr once:\n%s", out)
	}
}

// TestTextReportOfAMissingFolder: a run that graded nothing prints no seed to repeat it by.
func TestTextReportOfAMissingFolder(t *testing.T) {
	var b bytes.Buffer
	WriteText(&b, &Report{Version: 3, Status: StatusError, Seed: 954141240, Message: "/tmp/nonexist: the folder does not exist", Tests: []TestResult{}}, TextOptions{})
	if strings.Contains(b.String(), "seed") || !strings.Contains(b.String(), "does not exist") {
		t.Errorf("report:\n%s", b.String())
	}
}

// TestWriteChangesSaysWhatChanged: a re-grade says the summary first, then fixed / still
// failing / new since the last grade, and the first failure in full, and nothing else.
func TestWriteChangesSaysWhatChanged(t *testing.T) {
	prev := templateReport()
	cur := templateReport()
	cur.Tests[1].Status, cur.Tests[1].Message = StatusPass, ""
	cur.Tests[2].Status, cur.Tests[2].Message = StatusPass, ""
	cur.Tests[0].Status = StatusFail // tools/list broke
	d := Compare(prev, cur)
	if d.String() != "fixed: 2, still failing: 34, new: 1" {
		t.Errorf("delta %s", d)
	}
	var b bytes.Buffer
	WriteChanges(&b, prev, cur, TextOptions{})
	out := b.String()
	for _, want := range []string{"2 passed, 35 failed", "since the last grade: fixed: 2, still failing: 34, new: 1", "  fixed  server fixture 0", "  new    tools/list", "First failure · Step 1\n  FAIL  tools/list"} {
		if !strings.Contains(out, want) {
			t.Errorf("changes lack %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "client 3") || len(strings.Split(out, "\n")) > 20 {
		t.Errorf("changes list more than what changed:\n%s", out)
	}
}

// TestGradeAFolderThatIsNot (issue 16): kata grade on a folder that does not exist says so
// (it used to say "not a workspace folder" and print a seed and "0 ms"); on a file, that it is
// a file.
func TestGradeAFolderThatIsNot(t *testing.T) {
	lib := embeddedLibrary(t)
	missing := filepath.Join(t.TempDir(), "nonexist")
	rep := Grade(context.Background(), lib, missing, Options{})
	var b bytes.Buffer
	WriteText(&b, rep, TextOptions{})
	if rep.Status != StatusError || !strings.Contains(b.String(), missing+": the folder does not exist") || strings.Contains(b.String(), "seed") {
		t.Errorf("report on a missing folder:\n%s", b.String())
	}
	file := filepath.Join(t.TempDir(), "afile")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if rep := Grade(context.Background(), lib, file, Options{}); !strings.Contains(rep.Message, "a file, not a workspace folder") {
		t.Errorf("report on a file: %q", rep.Message)
	}
}
