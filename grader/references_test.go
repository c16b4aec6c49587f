package grader_test

import (
	"bytes"
	"context"
	"errors"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
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

// neverAnswers is the start of the message of a grade whose server never answered initialize
// (harness.handshake.timeout). A reference that expects it is graded with handshakeWait instead
// of the 10 s a learner's server is given: a server that never answers fails the same way
// whatever the wait, and the three such references need not wait 10 s each, twice in CI.
const neverAnswers = "did not answer initialize"

// handshakeWait is the handshake's wait for the references that never answer initialize.
const handshakeWait = time.Second

// sdkReferencesRequired names the environment variable that makes the SDK references' installs
// mandatory: set to "require" (as .ci/run does), an install that cannot reach npm or the Go
// module proxy fails the test instead of skipping it.
const sdkReferencesRequired = "KATA_SDK_REFERENCES"

// referenceDirs lists the reference folders under a language folder: each folder, and for a
// group of SDK references (a folder named sdk-*), each folder inside it (sdk-typescript/correct,
// …). Names are relative to langDir.
func referenceDirs(t *testing.T, langDir string) []string {
	t.Helper()
	var refs []string
	entries, _ := os.ReadDir(langDir)
	for _, e := range entries {
		if !e.IsDir() {
			continue
		}
		if !strings.HasPrefix(e.Name(), "sdk-") {
			refs = append(refs, e.Name())
			continue
		}
		inner, _ := os.ReadDir(filepath.Join(langDir, e.Name()))
		for _, g := range inner {
			if g.IsDir() {
				refs = append(refs, filepath.Join(e.Name(), g.Name()))
			}
		}
	}
	return refs
}

// install installs a workspace's dependencies (an SDK reference's npm packages or Go modules)
// before it is graded, as the learner would; without npm or a network it skips, unless
// KATA_SDK_REFERENCES=require.
func install(t *testing.T, dir string) {
	t.Helper()
	err := references.Install(context.Background(), dir)
	switch {
	case err == nil:
	case errors.Is(err, references.ErrUnavailable) && os.Getenv(sdkReferencesRequired) != "require":
		t.Skipf("this SDK reference installs its dependencies from the npm registry or the Go module proxy, which this machine cannot use (set %s=require to fail instead): %v", sdkReferencesRequired, err)
	default:
		t.Fatalf("installing the reference's dependencies: %v", err)
	}
}

// TestReferenceSubmissions grades every reference submission in testdata under each of its
// seeds (references.SeedsFor: 1, 2 and 3 for a correct one and a broken one in Python, whose
// Node and Go ports get seeds 2 and 3, unless its expect.json names others) and checks that
// the correct ones pass under each and each broken one fails exactly the tests its
// expect.json names, breaking the same rules, under each (docs/grading.md#seed: a verdict
// depends on the submission only), with its hint in every failing test's message when it
// names one. One
// workspace serves every seed, as a learner's does, except a hostile reference's, which may
// leave anything behind. A reference on an SDK is installed first (references.Install) and
// run on its own.
//
// A reference's first seed is graded alone, as `kata grade` grades; its other seeds, and the
// one seed of a Node or Go port of a Python broken reference, as one learner of a batch
// (Options.Batch: fewer processes, the same verdict, docs/grading.md#instances), so that every
// correct reference and every Python fault is graded both ways and must agree. A hostile
// reference, which tests learner processes rather than verdicts, is graded alone.
func TestReferenceSubmissions(t *testing.T) {
	lib := library(t)
	root := filepath.Join("..", "testdata", "references")
	katasDirs, _ := os.ReadDir(root)
	for _, kd := range katasDirs {
		langs, _ := os.ReadDir(filepath.Join(root, kd.Name()))
		for _, ld := range langs {
			langDir := filepath.Join(root, kd.Name(), ld.Name())
			for _, name := range referenceDirs(t, langDir) {
				kata, lang, ref := kd.Name(), ld.Name(), filepath.Join(langDir, name)
				t.Run(kata+"/"+lang+"/"+filepath.ToSlash(name), func(t *testing.T) {
					// An SDK reference installs packages and starts a heavier server: it runs
					// alone, before the others run in parallel, so that its start-up does not
					// compete with them for the handshake's 10 s.
					if !strings.HasPrefix(name, "sdk-") {
						t.Parallel()
					}
					want, err := references.ReadExpectation(ref)
					if err != nil {
						t.Fatal(err)
					}
					dir := ""
					var firstRules []string
					for i, seed := range want.Seeds {
						if dir == "" {
							dir = workspace(t, lib, kata, lang, ref)
							if references.NeedsInstall(dir) {
								install(t, dir)
							}
						}
						hostile := strings.HasPrefix(filepath.Base(name), "hostile-")
						port := lang != "python" && filepath.Base(name) != references.Correct && len(want.Seeds) == 1
						opts := grader.Options{Seed: seed, SeedSet: true, Batch: !hostile && (i > 0 || port)}
						if want.Exit == 2 && strings.HasPrefix(want.Message, neverAnswers) {
							opts = grader.WithHandshakeWait(opts, handshakeWait)
						}
						rep := grader.Grade(context.Background(), lib, dir, opts)
						if rep.ExitCode() != want.Exit {
							t.Errorf("seed %d: exit %d, want %d (status %s: %s)", seed, rep.ExitCode(), want.Exit, rep.Status, rep.Message)
						}
						// Points (docs/packets.md#points): all of them for a pass, fewer for a fail.
						if rep.MaxPoints == 0 || (rep.Status == grader.StatusPass) != (rep.Points == rep.MaxPoints) {
							t.Errorf("seed %d: status %s with %v of %v points", seed, rep.Status, rep.Points, rep.MaxPoints)
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
						// The same rules break under every seed.
						var rules []string
						for _, tr := range rep.Tests {
							for _, r := range tr.FailedRules {
								rules = append(rules, tr.ID+":"+string(r))
							}
						}
						if len(want.Rules) > 0 {
							broken := map[string]bool{}
							for _, r := range rules {
								broken[r[strings.LastIndex(r, ":")+1:]] = true
							}
							if got := slices.Sorted(maps.Keys(broken)); !slices.Equal(got, want.Rules) {
								t.Errorf("seed %d: broken rules %v, want exactly %v", seed, got, want.Rules)
							}
						}
						if want.Note != "" && !slices.ContainsFunc(rep.Tests, func(tr grader.TestResult) bool { return strings.Contains(tr.Note, want.Note) }) {
							t.Errorf("seed %d: no test's note contains %q", seed, want.Note)
						}
						if i == 0 {
							firstRules = rules
						} else if strings.Join(rules, ",") != strings.Join(firstRules, ",") {
							t.Errorf("seed %d: failed rules\n got  %v\n under seed %d %v", seed, rules, want.Seeds[0], firstRules)
						}
						for _, tr := range rep.Tests {
							if want.Hint != "" && tr.Status != grader.StatusPass && !strings.Contains(tr.Message, want.Hint) {
								t.Errorf("seed %d: %s fails without the hint %q:\n%s", seed, tr.ID, want.Hint, tr.Message)
							}
						}
						// Learner text reaches every report sanitised (docs/grading.md#failure-messages).
						var text bytes.Buffer
						grader.WriteText(&text, rep, grader.TextOptions{Verbose: true})
						if strings.ContainsRune(text.String(), 0x1b) {
							t.Errorf("seed %d: the text report carries an escape sequence", seed)
						}
						assertNoProcessesIn(t, dir)
						if strings.HasPrefix(filepath.Base(name), "hostile-") {
							dir = "" // a fresh workspace for the next seed
						}
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
				wants := []string{"call: tools/call " + p.Tools[0]}
				if len(p.ToolDefinitions) == 0 { // a declared tool's template answers a typed error already
					wants = append(wants, "the kata's typed error")
				}
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
			// Markdown wraps lines anywhere: compare with white space collapsed.
			flat := strings.Join(strings.Fields(string(readme)), " ")
			for _, w := range wants {
				if !strings.Contains(flat, w) {
					t.Errorf("%s templates/README.md: no %q for %s learners", id, w, lang)
				}
			}
			if lang != "python" && !strings.Contains(string(task), "--lang "+lang) {
				t.Errorf("%s task.md does not mention --lang %s", id, lang)
			}
		}
	}
}
