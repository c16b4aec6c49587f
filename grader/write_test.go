package grader

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"strings"
	"testing"
)

func sampleReport() *Report {
	return &Report{Version: 3, Status: StatusFail, Kata: "k", Seed: 42, DurationMS: 1500, Workspace: "/w",
		Tests: []TestResult{
			{ID: "a", Name: "lookup ok", Status: StatusPass, TaskID: 2},
			{ID: "b", Name: "rate <limited>", Status: StatusFail, TaskID: 3, Message: "retryAfterSeconds was \"17\"\ncall: x", Output: "stderr tail"},
			{ID: "c", Name: "hung", Status: StatusError, TaskID: 4, Message: "deadline"},
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

// TestTextReportPointsAtVerbose: a failed test's stderr is shown only with -v, so the plain
// report says that it exists, and the verbose one (which shows it) and a report with no stderr
// to show do not.
func TestTextReportPointsAtVerbose(t *testing.T) {
	const hint = "Run with -v"
	var plain, verbose, none bytes.Buffer
	WriteText(&plain, sampleReport(), TextOptions{})
	WriteText(&verbose, sampleReport(), TextOptions{Verbose: true})
	quiet := sampleReport()
	quiet.Tests[1].Output = ""
	WriteText(&none, quiet, TextOptions{})
	if !strings.Contains(plain.String(), hint) {
		t.Errorf("plain report with hidden stderr lacks %q:\n%s", hint, plain.String())
	}
	if strings.Contains(verbose.String(), hint) || !strings.Contains(verbose.String(), "stderr tail") {
		t.Errorf("verbose report should show the stderr, not the hint:\n%s", verbose.String())
	}
	if strings.Contains(none.String(), hint) {
		t.Errorf("report with no stderr to show has the hint:\n%s", none.String())
	}
}
