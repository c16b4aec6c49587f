package cli

import (
	"bufio"
	"bytes"
	"context"
	"encoding/csv"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/kata-mcp/kata/grader/class"
	"github.com/kata-mcp/kata/grader/references"
	"github.com/kata-mcp/kata/grader/sandbox"
	"github.com/kata-mcp/kata/internal/headless"
	"github.com/kata-mcp/kata/internal/i18n"
)

// classOf builds a class folder with one learner per reference ("kata/lang/ref" under
// testdata/references, or "" for an empty folder).
func classOf(t *testing.T, learners map[string]string) string {
	t.Helper()
	lib := library(t)
	dir := filepath.Join(t.TempDir(), "class")
	for name, ref := range learners {
		ws := filepath.Join(dir, name)
		if ref == "" {
			if err := os.MkdirAll(ws, 0o755); err != nil {
				t.Fatal(err)
			}
			continue
		}
		parts := strings.SplitN(ref, "/", 3)
		p, _ := lib.Get(parts[0])
		if err := references.Workspace(p, parts[1], filepath.Join("..", "..", "testdata", "references", ref), ws); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// killProcessesUnder kills what a SIGKILLed grader left running in dir: learner processes of
// the grade under way, which nothing cleans up once the grader itself is killed
// (docs/grading.md#not-isolated).
func killProcessesUnder(t *testing.T, dir string) int {
	t.Helper()
	pids := processesUnder(dir)
	for _, pid := range pids {
		cmdline, _ := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "cmdline"))
		cwd, _ := os.Readlink(filepath.Join("/proc", strconv.Itoa(pid), "cwd"))
		t.Logf("killing process %d under %s: %s (cwd %s)", pid, dir, strings.ReplaceAll(string(cmdline), "\x00", " "), cwd)
		syscall.Kill(pid, syscall.SIGKILL)
	}
	return len(pids)
}

// survivorsUnder waits, up to ten seconds, for the processes whose working directory is dir or
// inside it to end (a sandbox's processes die with it, but not at the instant kata exits), then
// kills those still running and returns how many they were.
func survivorsUnder(t *testing.T, dir string) int {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) && len(processesUnder(dir)) > 0 {
		time.Sleep(50 * time.Millisecond)
	}
	return killProcessesUnder(t, dir)
}

// processesUnder lists the pids whose working directory is dir or inside it, zombies aside.
func processesUnder(dir string) []int {
	var pids []int
	procs, _ := os.ReadDir("/proc")
	for _, p := range procs {
		cwd, err := os.Readlink(filepath.Join("/proc", p.Name(), "cwd"))
		if err == nil && (cwd == dir || strings.HasPrefix(cwd, dir+"/")) {
			if pid, err := strconv.Atoi(p.Name()); err == nil {
				pids = append(pids, pid)
			}
		}
	}
	return pids
}

// TestClassGradeResumesAfterSIGKILL: `kata class grade` as an instructor runs it, in a real
// process: SIGKILLed after two learners are done, it loses nothing; the same command run again
// grades only the rest, and its report is complete: the summary, a CSV row per learner, the
// JSON's rules, and an HTML report that headless chromium shows with its heatmap.
func TestClassGradeResumesAfterSIGKILL(t *testing.T) {
	t.Parallel() // runs its own kata binary in folders of its own: nothing shared with other tests
	if testing.Short() {
		t.Skip("grades a class in a subprocess")
	}
	for _, tool := range []string{"python3", "node"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("%s is not installed (.ci/run installs it)", tool)
		}
	}
	bin := buildKata(t, t.TempDir())
	dir := classOf(t, map[string]string{
		"a-ana": "mcp-structured-errors/python/correct",
		"b-ben": "mcp-structured-errors/node/broken-retry-after-string",
		"c-cy":  "mcp-structured-errors/python/hostile-never-answers",
		"d-dee": "",
		"e-eve": "mcp-structured-errors/node/correct",
	})
	out := filepath.Join(t.TempDir(), "report")
	args := []string{"class", "grade", dir, "--out", out, "--jobs", "1", "--seed", "7", "--no-isolation"}

	// First run: killed with SIGKILL as soon as the second learner's result is reported.
	cmd := exec.Command(bin, args...)
	cmd.Env = append(os.Environ(), "KATA_STATE="+filepath.Join(t.TempDir(), "progress.db"))
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	sc := bufio.NewScanner(stderr)
	var seen []string
	for sc.Scan() {
		seen = append(seen, sc.Text())
		if strings.HasPrefix(sc.Text(), "[2/5] ") {
			break
		}
	}
	if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	cmd.Wait()
	if ws, ok := cmd.ProcessState.Sys().(syscall.WaitStatus); !ok || !ws.Signaled() || ws.Signal() != syscall.SIGKILL {
		t.Fatalf("the batch was not killed by SIGKILL (%v); it printed:\n%s", cmd.ProcessState, strings.Join(seen, "\n"))
	}
	// The killed batch's sandboxes die with it, though not at the instant it does: wait for
	// them (and end any left) before the second batch, so what outlives that one is its own.
	survivorsUnder(t, dir)
	store, err := class.OpenStore(filepath.Join(out, class.StoreFile))
	if err != nil {
		t.Fatal(err)
	}
	saved, err := store.Count()
	store.Close()
	if err != nil || saved < 2 || saved >= 5 {
		t.Fatalf("%d results survived the SIGKILL (%v), want at least the 2 reported and not all 5\n%s", saved, err, strings.Join(seen, "\n"))
	}

	// The same command again, with the reports: only the rest is graded.
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	args = append(args, "--csv", filepath.Join(out, "class.csv"), "--json", filepath.Join(out, "class.json"))
	again := exec.CommandContext(ctx, bin, args...)
	again.Env = cmd.Env
	stdout, err := again.Output()
	if err != nil {
		t.Fatalf("the second run: %v\n%s", err, stdout)
	}
	summary := string(stdout)
	if want := regexp.MustCompile(`5 learners: (\d) graded now, (\d) unchanged since their stored result, 2 cannot be graded`); !want.MatchString(summary) {
		t.Fatalf("the summary's last line:\n%s", summary)
	} else if m := want.FindStringSubmatch(summary); m[1] != strconv.Itoa(5-saved) || m[2] != strconv.Itoa(saved) {
		t.Errorf("the second run graded %s and reused %s; %d results were saved before the kill", m[1], m[2], saved)
	}
	for _, want := range []string{"seed 7", "a-ana", "48/48 passed", "1. field-type · 1 learner", "e.g. b-ben",
		"c-cy: the server did not answer initialize", "d-dee: kata.json"} {
		if !strings.Contains(summary, want) {
			t.Errorf("the summary lacks %q:\n%s", want, summary)
		}
	}
	f, err := os.Open(filepath.Join(out, "class.csv"))
	if err != nil {
		t.Fatal(err)
	}
	rows, err := csv.NewReader(f).ReadAll()
	f.Close()
	if err != nil || len(rows) != 6 {
		t.Fatalf("class.csv: %d rows (want a header and 5 learners), %v", len(rows), err)
	}
	var rep class.Report
	b, _ := os.ReadFile(filepath.Join(out, "class.json"))
	if err := json.Unmarshal(b, &rep); err != nil || len(rep.Learners) != 5 || rep.Rules[0].Rule != "field-type" {
		t.Errorf("class.json: %v, %d learners", err, len(rep.Learners))
	}
	if left := survivorsUnder(t, dir); left > 0 {
		t.Errorf("%d learner processes outlived the second batch", left)
	}

	page := filepath.Join(out, "report.html")
	chromium := headless.Find()
	if chromium == "" {
		t.Skip(headless.InstallHint)
	}
	dom, err := headless.DumpDOM(ctx, chromium, page)
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(dom, `<tr class="learner">`); n != 5 || !strings.Contains(dom, `class="cell h10"`) {
		t.Errorf("the browser's heatmap has %d learner rows (want 5) or no full cell", n)
	}
	shot := filepath.Join(out, "report.png")
	if err := headless.Screenshot(ctx, chromium, page, shot, 1400, 1000); err != nil {
		t.Fatal(err)
	}
	if keep := os.Getenv("KATA_SCREENSHOT_DIR"); keep != "" {
		png, _ := os.ReadFile(shot)
		os.WriteFile(filepath.Join(keep, "class-report.png"), png, 0o644)
	}
}

// TestClassGradeRefusesWithoutIsolation: without --no-isolation a class is not graded while
// the grader cannot isolate learner code (here: KATA_ISOLATION=off, as on a machine without
// bwrap).
func TestClassGradeRefusesWithoutIsolation(t *testing.T) {
	t.Setenv(sandbox.EnvIsolation, "off")
	dir := t.TempDir()
	os.MkdirAll(filepath.Join(dir, "alice"), 0o755)
	out := filepath.Join(t.TempDir(), "report")
	_, errOut, code := runKata(t, "class", "grade", dir, "--out", out)
	if code != 2 || !strings.Contains(errOut, "refusing to grade a class without isolation") || !strings.Contains(errOut, "--no-isolation") {
		t.Errorf("exit %d, stderr %q", code, errOut)
	}
	if _, _, code := runKata(t, "class", "grade", filepath.Join(dir, "nope"), "--out", out, "--no-isolation"); code != 2 {
		t.Errorf("a missing class folder: exit %d", code)
	}
}

// TestClassGradeInRussian: --lang ru words the summary, the progress and the files written on
// the terminal, and the HTML report (<html lang="ru">); the JSON stays English.
func TestClassGradeInRussian(t *testing.T) {
	hermeticState(t)
	dir := classOf(t, map[string]string{"ana": "", "ben": ""})
	out := filepath.Join(t.TempDir(), "report")
	stdout, stderr, code := runKata(t, "class", "grade", dir, "--out", out, "--no-isolation", "--seed", "3", "--lang", "ru",
		"--json", filepath.Join(out, "class.json"))
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, stdout, stderr)
	}
	for _, want := range []string{"kata class grade · 2 участника · ", "зерно 3 (повторить: --seed 3)", "ana       не удалось проверить: ",
		"Не удалось проверить (2 участника)", "2 участника: проверено сейчас — 2"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("the summary lacks %q:\n%s", want, stdout)
		}
	}
	for _, want := range []string{"kata class grade: 2 участника, по ", "] ana: не удалось проверить: ", "записан " + filepath.Join(out, "report.html")} {
		if !strings.Contains(stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, stderr)
		}
	}
	if b, _ := os.ReadFile(filepath.Join(out, "report.html")); !strings.Contains(string(b), `<html lang="ru">`) || !strings.Contains(string(b), "<h2 id=\"errors-title\">Не удалось проверить</h2>") {
		t.Errorf("report.html is not Russian:\n%.600s", b)
	}
	if b, _ := os.ReadFile(filepath.Join(out, "class.json")); !strings.Contains(string(b), `"status": "error"`) || strings.ContainsAny(string(b), "уча") {
		t.Errorf("class.json is not the English JSON:\n%.600s", b)
	}
}

// TestClassGradeErrorsInRussian: the errors kata class grade stops on are catalog messages
// (i18n.Error), which main prints in the user's language; their English text is unchanged.
func TestClassGradeErrorsInRussian(t *testing.T) {
	hermeticState(t)
	ru := i18n.New("ru")
	dir := t.TempDir()
	for args, want := range map[string][2]string{
		filepath.Join(dir, "nope"): {"nope: not a folder (give a folder", "nope: это не папка (укажите папку"},
		dir:                        {"no learner folders in it", "в ней нет папок участников"},
	} {
		var out, errb bytes.Buffer
		root := newRootCmd(&out, &errb)
		root.SetArgs([]string{"class", "grade", args, "--out", filepath.Join(t.TempDir(), "r"), "--no-isolation", "--lang", "ru"})
		err := root.Execute()
		if err == nil {
			t.Fatalf("class grade %s: no error", args)
		}
		if !strings.Contains(err.Error(), want[0]) || !strings.Contains(ru.Error(err), want[1]) {
			t.Errorf("class grade %s: %v / %q", args, err, ru.Error(err))
		}
	}
	// The grader's isolation is detected once a process; the class's check is stubbed instead.
	saved := class.Isolation
	t.Cleanup(func() { class.Isolation = saved })
	class.Isolation = func() (bool, string) { return false, "bwrap is not installed" }
	os.MkdirAll(filepath.Join(dir, "alice"), 0o755)
	var out, errb bytes.Buffer
	root := newRootCmd(&out, &errb)
	root.SetArgs([]string{"class", "grade", dir, "--out", filepath.Join(t.TempDir(), "r"), "--lang", "ru"})
	err := root.Execute()
	if err == nil {
		t.Fatal("a class was graded without isolation")
	}
	if !errors.Is(err, class.ErrNotIsolated) || !strings.HasPrefix(ru.Error(err), "без изоляции класс не проверяется: ") || !strings.Contains(ru.Error(err), "--no-isolation") {
		t.Errorf("without isolation: %v / %q", err, ru.Error(err))
	}
}

// TestClassGradeAnonymizedKeepsItsStoreOutOfTheOutput: an anonymized run keeps the results
// store (learner folders, names and the pseudonym key) in kata's own state, not in the folder
// an instructor shares; a store a named run left there is moved out, and nothing written
// in OUT names a learner.
func TestClassGradeAnonymizedKeepsItsStoreOutOfTheOutput(t *testing.T) {
	hermeticState(t)
	state := t.TempDir()
	t.Setenv("XDG_STATE_HOME", state)
	dir := classOf(t, map[string]string{"ana-lovelace": "", "ben-franklin": ""})
	out := filepath.Join(t.TempDir(), "report")
	if _, errOut, code := runKata(t, "class", "grade", dir, "--out", out, "--no-isolation", "--seed", "5"); code != 1 && code != 0 && code != 2 {
		t.Fatalf("named run: exit %d: %s", code, errOut)
	}
	if _, err := os.Stat(filepath.Join(out, "results.db")); err != nil {
		t.Fatalf("a named run keeps its store in OUT: %v", err)
	}
	if _, errOut, code := runKata(t, "class", "grade", dir, "--out", out, "--no-isolation", "--anonymize"); code != 1 && code != 0 && code != 2 {
		t.Fatalf("anonymized run: exit %d: %s", code, errOut)
	}
	filepath.WalkDir(out, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		if strings.HasPrefix(d.Name(), "results.db") {
			t.Errorf("the anonymized output holds the results store: %s", p)
		}
		b, _ := os.ReadFile(p)
		for _, name := range []string{"ana-lovelace", "ben-franklin", dir} {
			if bytes.Contains(b, []byte(name)) {
				t.Errorf("%s names %q", p, name)
			}
		}
		return nil
	})
	stores, _ := filepath.Glob(filepath.Join(state, "kata", "classes", "*", "results.db"))
	if len(stores) != 1 {
		t.Fatalf("the store is not in kata's state: %v", stores)
	}
	if fi, err := os.Stat(filepath.Dir(stores[0])); err != nil || fi.Mode().Perm() != 0o700 {
		t.Errorf("the store's folder: %v %v", fi.Mode(), err)
	}
}
