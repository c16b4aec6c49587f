package grader_test

import (
	"bytes"
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/kata-mcp/kata/grader"
	"github.com/kata-mcp/kata/grader/references"
	"github.com/kata-mcp/kata/internal/testenv"
	"github.com/kata-mcp/kata/katas"
	"github.com/kata-mcp/kata/packets"
)

func library(t testing.TB) *katas.Library {
	t.Helper()
	lib, err := katas.Discover(packets.FS, "embedded")
	if err != nil {
		t.Fatalf("loading embedded packets: %v", err)
	}
	return lib
}

// workspace builds kata's workspace for lang from the reference folder ref ("" for the
// untouched template) in a temp dir (references.Workspace).
func workspace(t testing.TB, lib *katas.Library, kata, lang, ref string) string {
	t.Helper()
	p, ok := lib.Get(kata)
	if !ok {
		t.Fatalf("no packet %s", kata)
	}
	dir := filepath.Join(t.TempDir(), "ws")
	if err := references.Workspace(p, lang, ref, dir); err != nil {
		t.Fatal(err)
	}
	return dir
}

// TestReferenceSubmissions grades every reference submission in testdata and checks that the
// correct ones pass and each broken one fails exactly the tests its expect.json names.
func TestReferenceSubmissions(t *testing.T) {
	lib := library(t)
	root := filepath.Join("..", "testdata", "references")
	katasDirs, _ := os.ReadDir(root)
	for _, kd := range katasDirs {
		langs, _ := os.ReadDir(filepath.Join(root, kd.Name()))
		for _, ld := range langs {
			refs, _ := os.ReadDir(filepath.Join(root, kd.Name(), ld.Name()))
			for _, rd := range refs {
				kata, lang, ref := kd.Name(), ld.Name(), filepath.Join(root, kd.Name(), ld.Name(), rd.Name())
				t.Run(kata+"/"+lang+"/"+rd.Name(), func(t *testing.T) {
					t.Parallel()
					want, err := references.ReadExpectation(ref)
					if err != nil {
						t.Fatal(err)
					}
					for _, seed := range want.Seeds {
						dir := workspace(t, lib, kata, lang, ref)
						rep := grader.Grade(context.Background(), lib, dir, grader.Options{Seed: seed, SeedSet: true})
						if rep.ExitCode() != want.Exit {
							t.Errorf("seed %d: exit %d, want %d (status %s: %s)", seed, rep.ExitCode(), want.Exit, rep.Status, rep.Message)
						}
						if want.Message != "" && !strings.Contains(rep.Message, want.Message) {
							t.Errorf("seed %d: message %q does not contain %q", seed, rep.Message, want.Message)
						}
						if got := references.Failing(rep); strings.Join(got, ",") != strings.Join(want.Fail, ",") {
							t.Errorf("seed %d: failing tests\n got  %v\n want %v", seed, got, want.Fail)
							for _, tr := range rep.Tests {
								if tr.Status != grader.StatusPass {
									t.Logf("%s: %s", tr.ID, tr.Message)
								}
							}
						}
						// Learner text reaches every report sanitised (docs/grading.md#failure-messages).
						var text bytes.Buffer
						grader.WriteText(&text, rep, grader.TextOptions{Verbose: true})
						if strings.ContainsRune(text.String(), 0x1b) {
							t.Errorf("seed %d: the text report carries an escape sequence", seed)
						}
						assertNoProcessesIn(t, dir)
					}
				})
			}
		}
	}
}

// TestUntouchedTemplateFails grades a fresh `kata init` workspace of every kata that grades
// code, in every language: it must fail (exit 1, not 2: the template runs), and every failing
// test must say what the contract wants and show the call it sent.
func TestUntouchedTemplateFails(t *testing.T) {
	lib := library(t)
	for _, id := range lib.IDs() {
		p, _ := lib.Get(id)
		if p.Fixtures["server"] == nil {
			continue
		}
		for _, lang := range p.Languages {
			t.Run(id+"/"+lang, func(t *testing.T) {
				t.Parallel()
				dir := workspace(t, lib, id, lang, "")
				rep := grader.Grade(context.Background(), lib, dir, grader.Options{Seed: 7, SeedSet: true})
				if rep.ExitCode() != 1 {
					t.Fatalf("exit %d, want 1 (%s)", rep.ExitCode(), rep.Message)
				}
				var msgs []string
				for _, tr := range rep.Tests {
					if tr.Status == grader.StatusPass {
						continue
					}
					if strings.TrimSpace(tr.Message) == "" {
						t.Errorf("%s fails with no message", tr.ID)
					}
					if strings.Contains(tr.Message, "Go struct") || strings.Contains(tr.Message, "not run") {
						t.Errorf("%s: unclear message %q", tr.ID, tr.Message)
					}
					msgs = append(msgs, tr.Message)
				}
				all := strings.Join(msgs, "\n")
				wants := []string{"the kata's typed error", "call: tools/call lookup_order"}
				if id == "mcp-structured-errors" {
					wants = append(wants, "follow next_page")
				}
				for _, want := range wants {
					if !strings.Contains(all, want) {
						t.Errorf("no failure message mentions %q", want)
					}
				}
				assertNoProcessesIn(t, dir)
			})
		}
	}
}

// assertNoProcessesIn fails when a process of the run grading dir is still alive once the run
// is over (testenv.ProcessesOf: its working directory is dir, or its command line or
// environment names dir — a daemon that changed folder and cleared its environment still has
// its command line, where the hostile references put the workspace's path). It polls until a
// deadline, since a killed process may take a moment to be reaped, then kills what is left.
func assertNoProcessesIn(t testing.TB, dir string) {
	t.Helper()
	for _, p := range testenv.SurvivorsOf(dir, 10*time.Second) {
		t.Errorf("process %s outlived the grading run", p)
	}
	testenv.KillProcessesOf(dir)
}

// TestTemplateReadmesCoverEveryLanguage: each graded kata's templates README tells a Node and
// a Go learner how to run the workspace, where the shim is and what not to touch; and the
// task text points them there.
func TestTemplateReadmesCoverEveryLanguage(t *testing.T) {
	lib := library(t)
	for _, id := range lib.IDs() {
		p, _ := lib.Get(id)
		if p.Fixtures["server"] == nil {
			continue
		}
		readme, err := fs.ReadFile(packets.FS, id+"/templates/README.md")
		if err != nil {
			t.Fatalf("%s: %v", id, err)
		}
		task, err := fs.ReadFile(packets.FS, id+"/task.md")
		if err != nil {
			t.Fatalf("%s: %v", id, err)
		}
		for _, lang := range p.Languages {
			wants := map[string][]string{
				"python": {"server.py", "mcp_shim.py"},
				"node":   {"--lang node", "server.mjs", "mcp_shim.mjs", "Leave alone", "no build step"},
				"go":     {"--lang go", "cmd/server/main.go", "internal/shim/", "Leave alone", ".kata/bin/"},
			}[lang]
			for _, w := range wants {
				if !strings.Contains(string(readme), w) {
					t.Errorf("%s templates/README.md: no %q for %s learners", id, w, lang)
				}
			}
			if lang != "python" && !strings.Contains(string(task), "--lang "+lang) {
				t.Errorf("%s task.md does not mention --lang %s", id, lang)
			}
		}
	}
}
