package autograder

import (
	"archive/zip"
	"bytes"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kata-mcp/kata/grader"
	"github.com/kata-mcp/kata/katas"
	"github.com/kata-mcp/kata/packets"
)

// TestGradescopeSandboxAndVisibility: setup.sh installs bubblewrap (kata's sandbox), and
// --visibility reaches every test of results.json through run_autograder; a visibility
// Gradescope does not know is refused.
func TestGradescopeSandboxAndVisibility(t *testing.T) {
	lib, err := katas.Discover(packets.FS, "embedded")
	if err != nil {
		t.Fatal(err)
	}
	p, _ := lib.Get("mcp-structured-errors")
	bin := filepath.Join(t.TempDir(), "kata")
	os.WriteFile(bin, []byte("#!/bin/sh\n"), 0o755)
	var z bytes.Buffer
	if _, err := ExportGradescope(&z, p, GradescopeOptions{Binary: bin, Seed: 3, Visibility: "after_due_date"}); err != nil {
		t.Fatal(err)
	}
	zr, err := zip.NewReader(bytes.NewReader(z.Bytes()), int64(z.Len()))
	if err != nil {
		t.Fatal(err)
	}
	files := map[string]string{}
	for _, f := range zr.File {
		rc, _ := f.Open()
		b, _ := io.ReadAll(rc)
		rc.Close()
		files[f.Name] = string(b)
	}
	if !strings.Contains(files["setup.sh"], " bubblewrap") {
		t.Errorf("setup.sh installs no bubblewrap:\n%s", files["setup.sh"])
	}
	if !strings.Contains(files["run_autograder"], "--visibility after_due_date") {
		t.Errorf("run_autograder does not pass the visibility:\n%s", files["run_autograder"])
	}
	var out bytes.Buffer
	rep := &grader.Report{Status: grader.StatusFail, Kata: p.ID, Tests: []grader.TestResult{{ID: "a", Name: "a", Status: grader.StatusPass, Step: 1}, {ID: "b", Name: "b", Status: grader.StatusFail, Step: 2}}}
	if err := WriteGradescope(&out, p, rep, "after_due_date"); err != nil {
		t.Fatal(err)
	}
	var res gradescopeResults
	json.Unmarshal(out.Bytes(), &res)
	if res.Visibility != "after_due_date" || len(res.Tests) != 2 || res.Tests[0].Visibility != "after_due_date" || res.Tests[1].Visibility != "after_due_date" {
		t.Errorf("results.json: %s", out.Bytes())
	}
	if err := WriteGradescope(io.Discard, p, rep, "later"); err == nil {
		t.Error("an unknown visibility was written")
	}
	if _, err := ExportGradescope(io.Discard, p, GradescopeOptions{Binary: bin, Visibility: "later"}); err == nil {
		t.Error("an unknown visibility was exported")
	}
}

// TestFindWorkspace: the submission itself, or its one workspace a folder or two down; none
// when there are two, and never through a symbolic link.
func TestFindWorkspace(t *testing.T) {
	root := t.TempDir()
	mk := func(rel string) {
		os.MkdirAll(filepath.Join(root, rel), 0o755)
		os.WriteFile(filepath.Join(root, rel, "kata.json"), []byte("{}"), 0o644)
	}
	mk("top")
	mk("one/my-work")
	mk("deep/a/b")
	mk("two/a")
	mk("two/b")
	mk("hidden/.git/x")
	mk("elsewhere")
	os.MkdirAll(filepath.Join(root, "link"), 0o755)
	os.Symlink(filepath.Join(root, "elsewhere"), filepath.Join(root, "link", "ws"))
	for dir, want := range map[string]string{"top": "top", "one": "one/my-work", "deep": "deep/a/b", "two": "", "hidden": "", "link": ""} {
		got, ok := FindWorkspace(filepath.Join(root, dir))
		if rel, _ := filepath.Rel(root, got); (want == "") == ok || (ok && rel != filepath.FromSlash(want)) {
			t.Errorf("%s: %q %v, want %q", dir, got, ok, want)
		}
	}
}
