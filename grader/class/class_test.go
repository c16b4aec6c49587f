package class

import (
	"bytes"
	"context"
	"encoding/csv"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/kata-mcp/kata/grader"
	"github.com/kata-mcp/kata/katas"
	"github.com/kata-mcp/kata/packets"
)

func library(t testing.TB) *katas.Library {
	t.Helper()
	lib, err := katas.Discover(packets.FS, "embedded")
	if err != nil {
		t.Fatal(err)
	}
	return lib
}

func mkfile(t testing.TB, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestDiscover(t *testing.T) {
	root := t.TempDir()
	class := filepath.Join(root, "class")
	for _, name := range []string{"alice", "bob", "empty", ".git", "report"} {
		if err := os.MkdirAll(filepath.Join(class, name), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	mkfile(t, filepath.Join(class, "alice", "kata.json"), "{}")
	mkfile(t, filepath.Join(class, "notes.txt"), "not a learner")
	other := filepath.Join(root, "other", "alice")
	mkfile(t, filepath.Join(other, "kata.json"), "{}")

	got, err := Discover([]string{class, other}, filepath.Join(class, "report"))
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, l := range got {
		names = append(names, l.Name)
		if !filepath.IsAbs(l.Dir) {
			t.Errorf("%s: dir %q is not absolute", l.Name, l.Dir)
		}
	}
	// Two learners named alice are told apart by their parent folders; hidden folders, files
	// and the report folder are no learners; an empty folder is one (it gets its own row).
	if want := []string{"bob", "class/alice", "empty", "other/alice"}; !slices.Equal(names, want) {
		t.Errorf("learners %v, want %v", names, want)
	}
	// A workspace given directly is one learner.
	got, err = Discover([]string{filepath.Join(class, "alice")})
	if err != nil || len(got) != 1 || got[0].Name != "alice" {
		t.Errorf("one workspace: %v, %v", got, err)
	}
	if _, err := Discover([]string{class, filepath.Join(class, "alice", "sub")}); err == nil {
		t.Error("a missing folder is no error")
	}
	nested := filepath.Join(class, "alice", "inner")
	mkfile(t, filepath.Join(nested, "kata.json"), "{}")
	if _, err := Discover([]string{class, nested}); err == nil || !strings.Contains(err.Error(), "cannot nest") {
		t.Errorf("nested learner folders: %v", err)
	}
	if _, err := Discover([]string{filepath.Join(class, "empty")}); err == nil || !strings.Contains(err.Error(), "no learner folders") {
		t.Errorf("an empty class folder: %v", err)
	}
}

// TestDiscoverNestedAndLinked: a learner folder whose one workspace is a folder or two down is
// graded there (as the Gradescope autograder finds it); a class folder of symbolic links to
// learner folders is a class, each learner the folder linked to; a link inside a learner's
// folder is never followed to find a workspace, and a link to a folder around the class is
// refused.
func TestDiscoverNestedAndLinked(t *testing.T) {
	root := t.TempDir()
	work := filepath.Join(root, "work")
	mkfile(t, filepath.Join(work, "zoe", "my-work", "kata.json"), "{}")
	mkfile(t, filepath.Join(work, "yan", "a", "b", "kata.json"), "{}")
	mkfile(t, filepath.Join(work, "two", "a", "kata.json"), "{}")
	mkfile(t, filepath.Join(work, "two", "b", "kata.json"), "{}")
	mkfile(t, filepath.Join(work, "ada", "kata.json"), "{}")
	mkfile(t, filepath.Join(root, "elsewhere", "kata.json"), "{}")
	os.MkdirAll(filepath.Join(work, "eve"), 0o755)
	os.Symlink(filepath.Join(root, "elsewhere"), filepath.Join(work, "eve", "link")) // never followed
	links := filepath.Join(root, "links")
	os.MkdirAll(links, 0o755)
	for _, n := range []string{"zoe", "yan", "two", "ada", "eve"} {
		if err := os.Symlink(filepath.Join(work, n), filepath.Join(links, n)); err != nil {
			t.Fatal(err)
		}
	}
	os.Symlink(filepath.Join(root, "notes.txt"), filepath.Join(links, "dangling")) // not a folder: no learner
	got, err := Discover([]string{links})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"ada": "work/ada", "eve": "work/eve", "two": "work/two", "yan": "work/yan/a/b", "zoe": "work/zoe/my-work"}
	if len(got) != len(want) {
		t.Fatalf("learners %+v", got)
	}
	realRoot, _ := filepath.EvalSymlinks(root)
	for _, l := range got {
		if rel, _ := filepath.Rel(realRoot, l.Dir); rel != filepath.FromSlash(want[l.Name]) {
			t.Errorf("%s is graded in %s, want %s", l.Name, l.Dir, want[l.Name])
		}
	}
	// a link to a folder that holds the class is no learner folder
	os.Symlink(root, filepath.Join(links, "up"))
	if _, err := Discover([]string{links}); err == nil || !strings.Contains(err.Error(), "cannot nest") {
		t.Errorf("a link to a folder around the class: %v", err)
	}
}

// TestAssignment: the class's kata is the one most learners name, or --kata's; a learner whose
// workspace is for another kata is not graded and is a "this workspace is for …" row of the
// class's kata, so the report stays a one-kata report.
func TestAssignment(t *testing.T) {
	lib := library(t)
	_, learners := fakeClass(t, map[string]string{"alice": "pass", "bob": "category", "carol": "pass", "dave": ""})
	for _, l := range learners {
		k := "mcp-structured-errors"
		if l.Name == "carol" {
			k = "mcp-error-responses"
		}
		if l.Name != "dave" {
			mkfile(t, filepath.Join(l.Dir, "kata.json"), `{"kata": "`+k+`"}`)
		}
	}
	if k, n := Assignment(learners, ""); k != "mcp-structured-errors" || n != 2 {
		t.Errorf("the class's kata: %s named by %d", k, n)
	}
	if k, n := Assignment(learners, "mcp-error-responses"); k != "mcp-error-responses" || n != 1 {
		t.Errorf("--kata: %s named by %d", k, n)
	}
	store, err := OpenStore(filepath.Join(t.TempDir(), StoreFile))
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	f := &fakeGrader{lib: lib}
	b, err := Run(context.Background(), lib, store, learners, Options{NoIsolation: true, Kata: "mcp-structured-errors", Seed: 1, SeedSet: true, grade: f.grade})
	if err != nil {
		t.Fatal(err)
	}
	if graded := f.take(); slices.Contains(graded, "carol") {
		t.Errorf("carol's workspace for another kata was graded: %v", graded)
	}
	r := BuildReport(lib, b, BuildOptions{})
	if len(r.Katas) != 1 || r.Katas[0].Kata != "mcp-structured-errors" {
		t.Errorf("katas %+v", r.Katas)
	}
	carol := r.Learners[2]
	if carol.Name != "carol" || !carol.CannotGrade() || carol.Kata != "mcp-structured-errors" || carol.Points != 0 || carol.MaxPoints == 0 ||
		!strings.HasPrefix(carol.Message, "this workspace is for the kata mcp-error-responses") {
		t.Errorf("carol: %+v", carol)
	}
	var text bytes.Buffer
	WriteText(&text, r, nil)
	if !strings.Contains(text.String(), "cannot grade: this workspace is for the kata mcp-error-responses") {
		t.Errorf("summary:\n%s", text.String())
	}
}

func TestHashFolder(t *testing.T) {
	dir := t.TempDir()
	mkfile(t, filepath.Join(dir, "server.py"), "print('hi')\n")
	mkfile(t, filepath.Join(dir, "kata.json"), "{}")
	h1, err := HashFolder(dir)
	if err != nil {
		t.Fatal(err)
	}
	// Build output, caches, .git and swap files are no part of the submission.
	mkfile(t, filepath.Join(dir, ".kata", "bin", "server"), "binary")
	mkfile(t, filepath.Join(dir, "__pycache__", "server.cpython-311.pyc"), "bytes")
	mkfile(t, filepath.Join(dir, "node_modules", "x", "index.js"), "x")
	mkfile(t, filepath.Join(dir, ".git", "HEAD"), "ref")
	mkfile(t, filepath.Join(dir, "server.py.swp"), "swap")
	if h2, _ := HashFolder(dir); h2 != h1 {
		t.Error("ignored files changed the hash")
	}
	mkfile(t, filepath.Join(dir, "server.py"), "print('hello')\n")
	h3, _ := HashFolder(dir)
	if h3 == h1 {
		t.Error("a changed file kept the hash")
	}
	if err := os.Chmod(filepath.Join(dir, "server.py"), 0o755); err != nil {
		t.Fatal(err)
	}
	if h4, _ := HashFolder(dir); h4 == h3 {
		t.Error("a changed executable bit kept the hash")
	}
	mkfile(t, filepath.Join(dir, "lib", "util.py"), "")
	if h5, _ := HashFolder(dir); h5 == h3 {
		t.Error("a new empty file kept the hash")
	}
}

func TestStore(t *testing.T) {
	path := filepath.Join(t.TempDir(), "out", StoreFile)
	s, err := OpenStore(path)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok, err := s.Seed(); ok || err != nil {
		t.Fatalf("a new store has a seed: %v %v", ok, err)
	}
	if err := s.SetSeed(42); err != nil {
		t.Fatal(err)
	}
	key, err := s.PseudonymKey()
	if err != nil || len(key) != 32 {
		t.Fatalf("pseudonym key %x, %v", key, err)
	}
	rep := &grader.Report{Version: 3, Status: grader.StatusFail, Kata: "mcp-structured-errors", Seed: 42, Points: 3, MaxPoints: 4,
		Tests: []grader.TestResult{{ID: "lookup-ok", Status: grader.StatusFail, FailedRules: []grader.RuleID{grader.RuleCategory}, Step: 2}}}
	at := time.Unix(1700000000, 0)
	if err := s.Save(Stored{Learner: Learner{Name: "alice", Dir: "/c/alice"}, Hash: "h1", Seed: 42, Report: rep, Duration: time.Second, GradedAt: at}); err != nil {
		t.Fatal(err)
	}
	s.Close()

	s, err = OpenStore(path)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if seed, ok, _ := s.Seed(); !ok || seed != 42 {
		t.Errorf("seed after reopening: %d %v", seed, ok)
	}
	if key2, _ := s.PseudonymKey(); !bytes.Equal(key, key2) {
		t.Error("the pseudonym key changed: pseudonyms would not be stable")
	}
	r, err := s.Result("/c/alice")
	if err != nil || r == nil {
		t.Fatalf("result: %v %v", r, err)
	}
	if r.Hash != "h1" || r.Seed != 42 || r.Name != "alice" || r.Duration != time.Second || !r.GradedAt.Equal(at) ||
		r.Report.Points != 3 || len(r.Report.Tests) != 1 || r.Report.Tests[0].FailedRules[0] != grader.RuleCategory {
		t.Errorf("result read back: %+v, report %+v", r, r.Report)
	}
	if r, _ := s.Result("/c/bob"); r != nil {
		t.Errorf("a learner without a result has one: %+v", r)
	}
	if n, _ := s.Count(); n != 1 {
		t.Errorf("count %d", n)
	}
	if _, err := OpenStore(filepath.Dir(path)); err == nil {
		t.Error("a folder opened as a store")
	}
}

// fakeReport is a report of kata mcp-structured-errors in which every planned test passes but
// those of the rules in broken, which fail with that rule.
func fakeReport(lib *katas.Library, dir string, seed int64, broken ...grader.RuleID) *grader.Report {
	p, _ := lib.Get("mcp-structured-errors")
	rep := &grader.Report{Version: 3, Status: grader.StatusPass, Kata: p.ID, Seed: seed, Workspace: dir,
		Tests: []grader.TestResult{{ID: "tools-list", Status: grader.StatusPass, Step: 1}}}
	for _, f := range p.Fixtures["server"].Fixtures {
		if f.Expect.ProtocolError != 0 {
			rep.Tests = append(rep.Tests, grader.TestResult{ID: "stdout-protocol-only", Status: grader.StatusPass, Step: f.Task})
		}
		tr := grader.TestResult{ID: f.ID, Name: f.Name, Status: grader.StatusPass, Step: f.Task}
		for _, b := range broken {
			if (b == grader.RuleCategory && f.Expect.Category != "") || (b == grader.RuleRetryAfter && strings.Contains(f.ID, "rate")) {
				tr.Status, tr.FailedRules = grader.StatusFail, append(tr.FailedRules, b)
				tr.Message = "errorCategory was \"transient\"; expected \"" + f.Expect.Category + "\"\ncall: tools/call …"
				rep.Status = grader.StatusFail
			}
		}
		rep.Tests = append(rep.Tests, tr)
	}
	for _, sc := range p.Scenarios.Scenarios {
		rep.Tests = append(rep.Tests, grader.TestResult{ID: sc.ID, Status: grader.StatusPass, Step: sc.Task})
	}
	s := grader.ScoreOf(p, rep)
	rep.Points, rep.MaxPoints = s.Points, s.Max
	return rep
}

// fakeGrader grades by a file "outcome" in the learner's folder: pass, category (breaks that
// rule), both (category and retry-after), panic, hang (until the context ends), or an error
// report for anything else. It counts the grades at once and in all.
type fakeGrader struct {
	lib            *katas.Library
	running, peak  atomic.Int32
	mu             sync.Mutex
	graded         []string
	seeds          []int64
	waitForRelease chan struct{}
}

func (f *fakeGrader) grade(ctx context.Context, lib *katas.Library, dir string, o grader.Options) *grader.Report {
	n := f.running.Add(1)
	defer f.running.Add(-1)
	for p := f.peak.Load(); n > p && !f.peak.CompareAndSwap(p, n); p = f.peak.Load() {
	}
	f.mu.Lock()
	f.graded = append(f.graded, filepath.Base(dir))
	f.seeds = append(f.seeds, o.Seed)
	f.mu.Unlock()
	if f.waitForRelease != nil {
		<-f.waitForRelease
	}
	b, _ := os.ReadFile(filepath.Join(dir, "outcome"))
	switch strings.TrimSpace(string(b)) {
	case "pass":
		return fakeReport(f.lib, dir, o.Seed)
	case "category":
		return fakeReport(f.lib, dir, o.Seed, grader.RuleCategory)
	case "both":
		return fakeReport(f.lib, dir, o.Seed, grader.RuleCategory, grader.RuleRetryAfter)
	case "flood":
		// breaks category, and floods stderr: 3 KB of one learner's output
		rep := fakeReport(f.lib, dir, o.Seed, grader.RuleCategory)
		for i := range rep.Tests {
			if rep.Tests[i].Status != grader.StatusPass {
				rep.Tests[i].Output = strings.Repeat("debug: still here\n", 170) + "Traceback: KeyError 'category'"
			}
		}
		return rep
	case "template":
		// passes the server's tests; the client is the template's, which is not written
		rep := fakeReport(f.lib, dir, o.Seed)
		for range 3 {
			rep.Tests = append(rep.Tests, grader.TestResult{ID: "client-x", Name: "the client retries", Status: grader.StatusFail, Step: 6,
				FailedRules: []grader.RuleID{grader.RuleClientUnknown}, Message: "the client exited with status 1",
				Output: "Error: callWithRetry is not written yet (TASK.md, step 6)"})
		}
		rep.Status = grader.StatusFail
		return rep
	case "panic":
		panic("a bug of kata's own")
	case "hang":
		<-ctx.Done()
		return &grader.Report{Version: 3, Status: grader.StatusError, Kata: "mcp-structured-errors", Message: "grading was interrupted", Tests: []grader.TestResult{}, Seed: o.Seed}
	}
	return &grader.Report{Version: 3, Status: grader.StatusError, Message: "kata.json is missing: " + dir + " is not a workspace", Tests: []grader.TestResult{}, Seed: o.Seed, Workspace: dir}
}

func (f *fakeGrader) take() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	out := slices.Clone(f.graded)
	slices.Sort(out)
	f.graded = nil
	return out
}

// fakeClass makes a class folder with one learner per outcome.
func fakeClass(t *testing.T, outcomes map[string]string) (string, []Learner) {
	t.Helper()
	class := filepath.Join(t.TempDir(), "class")
	for name, outcome := range outcomes {
		if outcome == "" {
			os.MkdirAll(filepath.Join(class, name), 0o755)
			continue
		}
		mkfile(t, filepath.Join(class, name, "outcome"), outcome)
	}
	learners, err := Discover([]string{class})
	if err != nil {
		t.Fatal(err)
	}
	return class, learners
}

// TestRunResumes: results are saved as learners finish; a second run grades only the learners
// without a result, whose folder changed, or all with --regrade, and reuses the class's seed;
// a new seed re-grades everyone.
func TestRunResumes(t *testing.T) {
	lib := library(t)
	class, learners := fakeClass(t, map[string]string{"alice": "pass", "bob": "category", "carol": "both", "dave": "", "erin": "pass"})
	store, err := OpenStore(filepath.Join(t.TempDir(), StoreFile))
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	f := &fakeGrader{lib: lib}
	var events []Event
	opts := Options{NoIsolation: true, Jobs: 2, grade: f.grade, OnEvent: func(e Event) { events = append(events, e) }}
	b, err := Run(context.Background(), lib, store, learners, opts)
	if err != nil {
		t.Fatal(err)
	}
	if b.Graded != 5 || b.Reused != 0 || len(f.take()) != 5 {
		t.Fatalf("first run: %d graded, %d reused", b.Graded, b.Reused)
	}
	if n, _ := store.Count(); n != 5 {
		t.Errorf("%d results stored, want 5 (an error report is a result too)", n)
	}
	seed := b.Seed
	if slices.ContainsFunc(f.seeds, func(s int64) bool { return s != seed }) {
		t.Errorf("learners were graded with different seeds: %v (class seed %d)", f.seeds, seed)
	}
	finished := 0
	for _, e := range events {
		if e.Kind == EventFinished {
			finished++
			if e.Done != finished || e.Total != 5 || e.Result == nil {
				t.Errorf("event %+v", e)
			}
		}
	}
	if finished != 5 {
		t.Errorf("%d finished events, want 5", finished)
	}

	// Unchanged: nothing is graded; the seed is the class's.
	b, err = Run(context.Background(), lib, store, learners, opts)
	if err != nil || b.Graded != 0 || b.Reused != 5 || b.Seed != seed {
		t.Fatalf("second run: %d graded, %d reused, seed %d (want %d), %v", b.Graded, b.Reused, b.Seed, seed, err)
	}
	if b.Results[1].Report.Status != grader.StatusFail || !b.Results[1].Reused {
		t.Errorf("bob's reused result: %+v", b.Results[1])
	}
	// A changed folder re-grades that learner only; a build output does not count.
	mkfile(t, filepath.Join(class, "bob", "server.py"), "# fixed\n")
	mkfile(t, filepath.Join(class, "carol", ".kata", "bin", "server"), "built")
	b, _ = Run(context.Background(), lib, store, learners, opts)
	if got := f.take(); !slices.Equal(got, []string{"bob"}) || b.Reused != 4 {
		t.Errorf("after bob's change, graded %v, reused %d", got, b.Reused)
	}
	// --regrade grades all; a new seed too, and becomes the class's.
	opts.Regrade = true
	Run(context.Background(), lib, store, learners, opts)
	if got := f.take(); len(got) != 5 {
		t.Errorf("--regrade graded %v", got)
	}
	opts.Regrade, opts.Seed, opts.SeedSet = false, seed+1, true
	Run(context.Background(), lib, store, learners, opts)
	if got := f.take(); len(got) != 5 {
		t.Errorf("a new seed graded %v", got)
	}
	opts.SeedSet = false
	b, _ = Run(context.Background(), lib, store, learners, opts)
	if b.Seed != seed+1 || b.Graded != 0 {
		t.Errorf("after --seed %d the class seed is %d and %d were graded", seed+1, b.Seed, b.Graded)
	}
}

// TestRunBoundsJobsAndSurvivesBadLearners: at most Jobs learners are graded at once; a learner
// whose grade panics or outlasts the timeout gets an error row, the others their results.
func TestRunBoundsJobsAndSurvivesBadLearners(t *testing.T) {
	lib := library(t)
	_, learners := fakeClass(t, map[string]string{"a": "pass", "b": "pass", "c": "panic", "d": "hang", "e": "pass", "f": "category", "g": "pass"})
	store, err := OpenStore(filepath.Join(t.TempDir(), StoreFile))
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	f := &fakeGrader{lib: lib}
	b, err := Run(context.Background(), lib, store, learners, Options{NoIsolation: true, Jobs: 3, Timeout: 300 * time.Millisecond, grade: f.grade})
	if err != nil {
		t.Fatal(err)
	}
	if p := f.peak.Load(); p > 3 || p < 2 {
		t.Errorf("peak %d grades at once, want at most 3 (and more than 1)", p)
	}
	status := map[string]string{}
	for _, r := range b.Results {
		status[r.Name] = r.Report.Status
	}
	want := map[string]string{"a": "pass", "b": "pass", "c": "error", "d": "error", "e": "pass", "f": "fail", "g": "pass"}
	for k, v := range want {
		if status[k] != v {
			t.Errorf("%s: status %s, want %s", k, status[k], v)
		}
	}
	for _, r := range b.Results {
		switch r.Name {
		case "c":
			if !strings.Contains(r.Report.Message, "kata itself failed") || !r.Unsaved {
				t.Errorf("the panicking learner: %+v %q", r, r.Report.Message)
			}
		case "d":
			if !strings.Contains(r.Report.Message, "grading took longer than 300ms") || !r.Unsaved {
				t.Errorf("the hanging learner: %q", r.Report.Message)
			}
		}
	}
	// Neither the panic's result nor the timeout's is kept: the next run tries them again.
	for _, i := range []int{2, 3} {
		if st, _ := store.Result(learners[i].Dir); st != nil {
			t.Errorf("learner %s's result was stored: %+v", learners[i].Name, st)
		}
	}
}

// TestRunRefusesWithoutIsolation: a class is strangers' code; without isolation Run grades
// nothing unless told to.
func TestRunRefusesWithoutIsolation(t *testing.T) {
	lib := library(t)
	_, learners := fakeClass(t, map[string]string{"a": "pass"})
	store, err := OpenStore(filepath.Join(t.TempDir(), StoreFile))
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	f := &fakeGrader{lib: lib}
	saved := Isolation
	defer func() { Isolation = saved }()
	Isolation = func() (bool, string) { return false, "bwrap is not installed" }
	_, err = Run(context.Background(), lib, store, learners, Options{grade: f.grade})
	if err == nil || !strings.Contains(err.Error(), "--no-isolation") || !strings.Contains(err.Error(), "bwrap is not installed") || len(f.take()) != 0 {
		t.Fatalf("without isolation: %v", err)
	}
	Isolation = func() (bool, string) { return true, "" }
	if _, err := Run(context.Background(), lib, store, learners, Options{grade: f.grade}); err != nil || len(f.take()) != 1 {
		t.Fatalf("with isolation: %v", err)
	}
}

// TestRunInterrupted: ctrl-c stops the grades under way; their results are not saved.
func TestRunInterrupted(t *testing.T) {
	lib := library(t)
	_, learners := fakeClass(t, map[string]string{"a": "pass", "b": "hang", "c": "pass"})
	store, err := OpenStore(filepath.Join(t.TempDir(), StoreFile))
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	ctx, cancel := context.WithCancel(context.Background())
	f := &fakeGrader{lib: lib}
	opts := Options{NoIsolation: true, Jobs: 1, grade: f.grade, OnEvent: func(e Event) {
		if e.Kind == EventStarted && e.Learner.Name == "b" {
			go func() { time.Sleep(50 * time.Millisecond); cancel() }()
		}
	}}
	b, err := Run(ctx, lib, store, learners, opts)
	if err == nil || b == nil {
		t.Fatalf("an interrupted batch: %v", err)
	}
	if len(b.Results) != 1 || b.Results[0].Name != "a" {
		t.Errorf("results of the interrupted batch: %+v", b.Results)
	}
	if n, _ := store.Count(); n != 1 {
		t.Errorf("%d results stored, want only a's", n)
	}
}

// classReport grades a fake class and builds its report.
func classReport(t *testing.T, o BuildOptions) *Report {
	t.Helper()
	lib := library(t)
	_, learners := fakeClass(t, map[string]string{"alice": "pass", "bob": "category", "carol": "both", "dave": ""})
	store, err := OpenStore(filepath.Join(t.TempDir(), StoreFile))
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	f := &fakeGrader{lib: lib}
	b, err := Run(context.Background(), lib, store, learners, Options{NoIsolation: true, Seed: 42, SeedSet: true, grade: f.grade})
	if err != nil {
		t.Fatal(err)
	}
	return BuildReport(lib, b, o)
}

func TestClassReport(t *testing.T) {
	r := classReport(t, BuildOptions{})
	if len(r.Learners) != 4 || r.CannotGrade != 1 || r.Gradable != 3 || len(r.Katas) != 1 {
		t.Fatalf("report: %d learners, %d cannot grade, %d katas", len(r.Learners), r.CannotGrade, len(r.Katas))
	}
	// category is broken by bob and carol, retry-after by carol alone: category first.
	if len(r.Rules) != 2 || r.Rules[0].Rule != grader.RuleCategory || r.Rules[0].Learners != 2 || r.Rules[1].Rule != grader.RuleRetryAfter || r.Rules[1].Learners != 1 {
		t.Fatalf("rules: %+v", r.Rules)
	}
	if rc := r.Rules[0]; rc.Statement == "" || !strings.HasPrefix(rc.Example, "errorCategory was") || strings.Contains(rc.Example, "\n") || !slices.Equal(rc.Names, []string{"bob", "carol"}) {
		t.Errorf("the category rule: %+v", rc)
	}
	alice := r.Learners[0]
	if alice.Name != "alice" || alice.Points != alice.MaxPoints || alice.Percent != 100 || alice.Passed != alice.Tests {
		t.Errorf("alice: %+v", alice)
	}
	bob := r.Learners[1]
	if bob.Points >= bob.MaxPoints || bob.Percent >= 100 || !slices.Equal(bob.FailedRules, []grader.RuleID{grader.RuleCategory}) {
		t.Errorf("bob: %+v", bob)
	}

	var text bytes.Buffer
	WriteText(&text, r, nil)
	for _, want := range []string{"4 learners", "seed 42 (repeat with --seed 42)", "alice", "passed", "(100%)",
		"dave", "cannot grade: kata.json is missing", "The rules the class fails most (of 3 learners graded)",
		"1. category · 2 learners", "e.g. bob, ", "2. retry-after · 1 learner", "Cannot be graded (1 learner)"} {
		if !strings.Contains(text.String(), want) {
			t.Errorf("the summary lacks %q:\n%s", want, text.String())
		}
	}

	var out bytes.Buffer
	if err := WriteCSV(&out, r); err != nil {
		t.Fatal(err)
	}
	rows, err := csv.NewReader(&out).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	steps := len(r.Katas[0].Steps)
	if len(rows) != 5 || len(rows[0]) != 5+steps+4 {
		t.Fatalf("CSV: %d rows of %d columns, want 5 rows of %d", len(rows), len(rows[0]), 5+steps+4)
	}
	if rows[0][5] != "step 1 (5 points)" || rows[0][len(rows[0])-4] != "points" {
		t.Errorf("CSV header %v", rows[0])
	}
	if rows[1][0] != "alice" || rows[1][2] != "pass" || rows[1][len(rows[1])-2] != "100" {
		t.Errorf("alice's row %v", rows[1])
	}
	// dave's folder is no workspace: in a one-kata class he scores 0 of that kata's points
	if dave := rows[4]; dave[1] != r.Katas[0].Kata || dave[2] != "error" || dave[5] != "" || dave[len(dave)-4] != "0" || dave[len(dave)-3] != grader.FormatPoints(r.Katas[0].MaxPoints) || !strings.Contains(dave[len(dave)-1], "kata.json is missing") {
		t.Errorf("dave's row %v", dave)
	}

	// A learner's text that a spreadsheet would run as a formula stays text.
	r.Learners[3].Message = "=HYPERLINK(\"http://example.invalid\")"
	out.Reset()
	WriteCSV(&out, r)
	if rows, _ := csv.NewReader(&out).ReadAll(); rows[4][len(rows[4])-1] != "'=HYPERLINK(\"http://example.invalid\")" {
		t.Errorf("a formula in a message: %q", rows[4][len(rows[4])-1])
	}

	out.Reset()
	if err := WriteJSON(&out, r); err != nil {
		t.Fatal(err)
	}
	var back Report
	if err := json.Unmarshal(out.Bytes(), &back); err != nil || len(back.Learners) != 4 || back.Rules[0].Rule != grader.RuleCategory {
		t.Errorf("JSON: %v, %+v", err, back)
	}

	dir := t.TempDir()
	paths, err := WriteLearnerFiles(dir, r)
	if err != nil || len(paths) != 8 {
		t.Fatalf("learner files %v, %v", paths, err)
	}
	b, _ := os.ReadFile(filepath.Join(dir, "bob.results.json"))
	var rep grader.Report
	if err := json.Unmarshal(b, &rep); err != nil || rep.Status != grader.StatusFail {
		t.Errorf("bob.results.json: %v %s", err, b)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "dave.junit.xml")); !bytes.Contains(b, []byte(`name="grading"`)) {
		t.Errorf("dave.junit.xml: %s", b)
	}
}

// TestAnonymize: names become stable pseudonyms, folders disappear from the report.
func TestAnonymize(t *testing.T) {
	key := []byte("the class's key")
	r := classReport(t, BuildOptions{PseudonymKey: key})
	if !r.Anonymized {
		t.Fatal("not anonymized")
	}
	var all bytes.Buffer
	WriteJSON(&all, r)
	WriteText(&all, r, nil)
	WriteCSV(&all, r)
	WriteHTML(&all, r, nil)
	for _, name := range []string{"alice", "bob", "carol", "dave", "/class/"} {
		if strings.Contains(all.String(), name) {
			t.Errorf("the anonymized reports still say %q", name)
		}
	}
	for _, l := range r.Learners {
		if !strings.HasPrefix(l.Name, "learner-") || l.Dir != "" {
			t.Errorf("row %q, dir %q", l.Name, l.Dir)
		}
	}
	alice, again := Pseudonym(key, "alice"), Pseudonym(key, "alice")
	if alice != again || alice == Pseudonym(key, "bob") || alice == Pseudonym([]byte("other"), "alice") {
		t.Error("pseudonyms are not stable per key and name")
	}
	if !slices.ContainsFunc(r.Learners, func(l LearnerRow) bool { return l.Name == Pseudonym(key, "alice") }) {
		t.Error("alice's row does not carry her pseudonym")
	}
}

func TestProgress(t *testing.T) {
	res := &Result{Learner: Learner{Name: "bob"}, Report: &grader.Report{Status: grader.StatusFail, Points: 3, MaxPoints: 4,
		Tests: []grader.TestResult{{Status: grader.StatusPass}, {Status: grader.StatusFail}}}, Duration: 1500 * time.Millisecond}
	var plain bytes.Buffer
	p := NewTicker(&plain, false, nil)
	p.Event(Event{Kind: EventStarted, Learner: res.Learner, Done: 0, Running: 1, Total: 2})
	p.Event(Event{Kind: EventFinished, Learner: res.Learner, Result: res, Done: 1, Total: 2})
	p.Done()
	if got := plain.String(); got != "[1/2] bob: 1/2 passed · 3/4 points (75%) · 1.5 s\n" {
		t.Errorf("plain progress %q", got)
	}
	var tty bytes.Buffer
	p = NewTicker(&tty, true, nil)
	p.Event(Event{Kind: EventBegan, Total: 2, Jobs: 2, Seed: 9})
	p.Event(Event{Kind: EventFinished, Learner: res.Learner, Result: res, Done: 1, Running: 1, Total: 2})
	p.Event(Event{Kind: EventStarted, Learner: Learner{Name: "carol"}, Done: 1, Running: 1, Total: 2})
	p.Done()
	got := tty.String()
	if !strings.HasPrefix(got, "kata class grade: 2 learners, 2 at a time, seed 9 (repeat with --seed 9)\n") ||
		strings.Count(got, "\r\x1b[K[████████████░░░░░░░░░░░░] 1/2 · 1 grading · bob: 1/2 passed") != 2 || !strings.HasSuffix(got, "\r\x1b[K") {
		t.Errorf("terminal progress %q", got)
	}
}

// TestTickerAndSummaryQuoteFolderNames: a learner folder named with escape sequences is
// printed quoted in the progress line (on a terminal and off it) and in the summary, so the
// terminal obeys none of them.
func TestTickerAndSummaryQuoteFolderNames(t *testing.T) {
	evil := Learner{Name: "eve\x1b]0;pwned\x07\u009b2J"}
	res := &Result{Learner: evil, Report: &grader.Report{Status: grader.StatusFail, Points: 1, MaxPoints: 2,
		Tests: []grader.TestResult{{Status: grader.StatusPass}, {Status: grader.StatusFail}}}}
	var plain, tty, summary bytes.Buffer
	NewTicker(&plain, false, nil).Event(Event{Kind: EventFinished, Learner: evil, Result: res, Done: 1, Total: 1})
	p := NewTicker(&tty, true, nil)
	p.Event(Event{Kind: EventFinished, Learner: evil, Result: res, Done: 1, Total: 1})
	p.Done()
	r := &Report{Seed: 7, Gradable: 1, Graded: 1, Jobs: 1, CannotGrade: 1,
		Learners: []LearnerRow{{Name: evil.Name, Status: grader.StatusFail, Passed: 1, Tests: 2}, {Name: evil.Name + "2", Status: grader.StatusError, Message: "no kata.json"}},
		Rules:    []RuleCount{{Rule: grader.RuleCategory, Learners: 1, Tests: 1, ExampleLearner: evil.Name, ExampleTest: "t", Example: "x"}}}
	WriteText(&summary, r, nil)
	for what, s := range map[string]string{"plain progress": plain.String(), "terminal progress": strings.ReplaceAll(tty.String(), "\r\x1b[K", ""), "summary": summary.String()} {
		if strings.ContainsAny(s, "\x1b\x07\u009b") {
			t.Errorf("the %s prints escapes: %q", what, s)
		}
		if !strings.Contains(s, `"eve\x1b]0;pwned\a\u009b2J"`) {
			t.Errorf("the %s does not name the learner quoted: %q", what, s)
		}
	}
}

// TestAnonymizeScrubsLearnerOutput: an anonymized report, its learner files and the progress
// on stderr hold no folder path and no folder name, not even in a traceback the learner's
// server wrote; named learner files of an earlier run are removed, not left beside the
// pseudonymous ones.
func TestAnonymizeScrubsLearnerOutput(t *testing.T) {
	lib := library(t)
	root := t.TempDir()
	alice := Learner{Name: "alice-smith", Dir: filepath.Join(root, "real", "alice-smith"), Given: filepath.Join(root, "links", "alice-smith")}
	rep := fakeReport(lib, alice.Dir, 1, grader.RuleCategory)
	for i := range rep.Tests {
		if rep.Tests[i].Status != grader.StatusPass {
			rep.Tests[i].Output = "Traceback (most recent call last):\n  File \"" + alice.Given + "/server.py\", line 3\nalice-smith's server: boom"
			rep.Tests[i].Message += " (in " + alice.Dir + ")"
		}
	}
	bob := Learner{Name: "bob", Dir: filepath.Join(root, "real", "bobby")}
	bad := errorReport(bob, 1, "kata.json is missing: "+bob.Dir+" is not a workspace")
	b := &Batch{Seed: 1, Results: []Result{{Learner: alice, Report: rep}, {Learner: bob, Report: bad}}}
	key := []byte("k")
	r := BuildReport(lib, b, BuildOptions{PseudonymKey: key})

	dir := filepath.Join(root, "out", "learners")
	mkfile(t, filepath.Join(dir, "alice-smith.results.json"), "{}") // a named run before
	mkfile(t, filepath.Join(dir, "alice-smith.junit.xml"), "<x/>")
	mkfile(t, filepath.Join(dir, "notes.txt"), "the instructor's own")
	if _, err := WriteLearnerFiles(dir, r); err != nil {
		t.Fatal(err)
	}
	var all bytes.Buffer
	WriteJSON(&all, r)
	WriteText(&all, r, nil)
	WriteCSV(&all, r)
	WriteHTML(&all, r, nil)
	tk := NewTicker(&all, false, nil)
	tk.Anonymize(key)
	for _, res := range b.Results {
		tk.Event(Event{Kind: EventFinished, Learner: res.Learner, Result: &res, Done: 1, Total: 2})
	}
	entries, _ := os.ReadDir(dir)
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
		c, _ := os.ReadFile(filepath.Join(dir, e.Name()))
		if e.Name() != "notes.txt" {
			all.Write(c)
		}
	}
	if len(names) != 5 || !slices.Contains(names, "notes.txt") || slices.ContainsFunc(names, func(n string) bool { return strings.HasPrefix(n, "alice") }) {
		t.Errorf("learner files %v: want two per pseudonym and the instructor's notes", names)
	}
	for _, leak := range []string{"alice", "bobby", root} {
		if i := strings.Index(all.String(), leak); i >= 0 {
			t.Errorf("the anonymized output says %q: …%s…", leak, all.String()[max(i-80, 0):min(i+80, all.Len())])
		}
	}
	if !strings.Contains(all.String(), Pseudonym(key, "alice-smith")+"/server.py") {
		t.Error("the traceback lost its file name along with the folder")
	}
}

// TestRoster: a roster maps folder names to student ids and emails, which the CSV carries;
// a roster without the columns, or naming a learner twice, is an error naming the line.
func TestRoster(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "roster.csv")
	mkfile(t, path, "\ufeffFolder, Student_ID ,Email\nalice,S1,alice@example.edu\nbob,S2,\n\n")
	ro, err := ReadRoster(path)
	if err != nil {
		t.Fatal(err)
	}
	if e, ok := ro.Lookup("class/alice"); !ok || e.StudentID != "S1" || e.Email != "alice@example.edu" {
		t.Errorf("alice: %+v %v", e, ok)
	}
	r := classReport(t, BuildOptions{Roster: ro})
	var out bytes.Buffer
	WriteCSV(&out, r)
	rows, _ := csv.NewReader(&out).ReadAll()
	if rows[0][1] != "student_id" || rows[0][2] != "email" || rows[1][1] != "S1" || rows[2][1] != "S2" || rows[3][1] != "" {
		t.Errorf("CSV with a roster: %v", rows[:4])
	}
	for content, want := range map[string]string{
		"name,email\nalice,a@x\n":       "no student id column",
		"folder,id\nalice,1\nalice,2\n": ":3: \"alice\" is in the roster twice",
		"folder,id\n,7\n":               ":2: a learner and a student id",
	} {
		mkfile(t, path, content)
		if _, err := ReadRoster(path); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("roster %q: %v, want %q", content, err, want)
		}
	}
}
