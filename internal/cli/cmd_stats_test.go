package cli

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/kata-mcp/kata/internal/progress"
	"github.com/kata-mcp/kata/katas"
	"github.com/kata-mcp/kata/katas/srs"
)

// runKataErr runs the CLI in-process and returns stdout, stderr and the command's error.
func runKataErr(t *testing.T, args ...string) (string, string, error) {
	t.Helper()
	var out, errb bytes.Buffer
	root := newRootCmd(&out, &errb)
	root.SetArgs(args)
	err := root.Execute()
	return out.String(), errb.String(), err
}

// hermeticState points KATA_STATE at a fresh temporary file and returns its path.
func hermeticState(t *testing.T) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "state", "progress.db")
	t.Setenv(progress.EnvPath, path)
	return path
}

func TestStatsCommandCountsOpenExamAnswers(t *testing.T) {
	path := hermeticState(t)
	lib, err := loadLibrary(newRootCmd(io.Discard, io.Discard))
	if err != nil {
		t.Fatal(err)
	}
	p := lib.Packets()[0]
	now := time.Now()
	s, err := progress.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	it := p.Items[0]
	steps := []error{
		s.LayerRead(p.ID, "knowledge", now),
		s.LayerRead(p.ID, "prompts", now),
		s.RecordAnswer(progress.Answer{Kata: p.ID, ItemID: it.ID, CardID: srs.ItemCardID(p.ID, it), Chosen: it.Keys(), Correct: true, At: now}),
		s.RecordGrade(progress.GradeRun{Kata: p.ID, Workspace: "/ws", Seed: 11, Status: "fail", Passed: 3, Failed: 1, Duration: time.Second, At: now}),
	}
	// An exam left open: one single-answer item answered, one multi-response item half marked.
	var single, multi katas.Item
	for _, x := range p.Items[1:] {
		if x.Choose == 1 && single.ID == "" {
			single = x
		}
		if x.Choose > 1 && multi.ID == "" {
			multi = x
		}
	}
	if single.ID == "" || multi.ID == "" {
		t.Fatalf("%s has no single- and multi-response items to test with", p.ID)
	}
	id, err := s.StartAttempt(progress.Attempt{Katas: []string{p.ID}, Items: []string{p.ID + "/" + single.ID, p.ID + "/" + multi.ID, p.ID + "/" + p.Items[0].ID}, Started: now})
	steps = append(steps, err,
		s.SaveExamAnswer(id, p.ID+"/"+single.ID, []string{"a"}, false, now),
		s.SaveExamAnswer(id, p.ID+"/"+multi.ID, []string{"b"}, true, now))
	for _, err := range steps {
		if err != nil {
			t.Fatal(err)
		}
	}
	s.Close()

	out, _, err := runKataErr(t, "stats")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"Progress in " + path,
		p.ID + " — " + p.Title,
		"layers read    2/5 (knowledge, prompts)",
		"answers        3, 1 right (2 marked in an unfinished exam, not yet scored)",
		"last grade     fail (3 passed, 1 failed, 0 errored)",
		"cards          0 due now of 1 scheduled",
		"Totals: 3 answers (1 right", "exams 0 finished, 1 open, 0 abandoned",
		"Unfinished exam #1, started ", "  2 of 3 items marked (1 fully answered), 1 flagged\n  katas: " + p.ID + "\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("kata stats lacks %q:\n%s", want, out)
		}
	}
	// Every line but those naming a path fits an 80-column terminal.
	for _, line := range strings.Split(out, "\n") {
		if n := utf8.RuneCountInString(line); n > 80 && !strings.Contains(line, path) {
			t.Errorf("kata stats line is %d wide: %q", n, line)
		}
	}

	out, _, err = runKataErr(t, "stats", "--json")
	if err != nil {
		t.Fatal(err)
	}
	var js struct {
		Path       string `json:"path"`
		Answered   int    `json:"answered"`
		InProgress int    `json:"in_progress"`
		GradeRuns  int    `json:"grade_runs"`
		Open       *struct {
			ID       int64 `json:"id"`
			Answered int   `json:"answered"`
			Complete int   `json:"complete"`
		} `json:"open_attempt"`
		Katas []struct {
			Kata        string   `json:"kata"`
			Title       string   `json:"title"`
			LayersRead  []string `json:"layers_read"`
			LayersTotal int      `json:"layers_total"`
			Answered    int      `json:"answered"`
			Correct     int      `json:"correct"`
			InProgress  int      `json:"in_progress"`
			BestScaled  int      `json:"best_scaled"`
			Cards       int      `json:"cards"`
			Due         int      `json:"due"`
			LastGrade   *struct {
				Status     string `json:"status"`
				Seed       int64  `json:"seed"`
				DurationMS int64  `json:"duration_ms"`
			} `json:"last_grade"`
		} `json:"katas"`
	}
	if err := json.Unmarshal([]byte(out), &js); err != nil {
		t.Fatalf("stats --json: %v\n%s", err, out)
	}
	if js.Path != path || js.Answered != 3 || js.InProgress != 2 || js.GradeRuns != 1 || js.Open == nil || js.Open.Answered != 2 || js.Open.Complete != 1 || len(js.Katas) != len(lib.Packets()) {
		t.Fatalf("stats --json totals: %+v", js)
	}
	k := js.Katas[0]
	if k.Kata != p.ID || k.Title != p.Title || len(k.LayersRead) != 2 || k.LayersTotal != 5 || k.Answered != 3 || k.Correct != 1 ||
		k.InProgress != 2 || k.Cards != 1 || k.LastGrade == nil || k.LastGrade.Status != "fail" || k.LastGrade.Seed != 11 || k.LastGrade.DurationMS != 1000 {
		t.Fatalf("stats --json kata line: %+v grade %+v", k, k.LastGrade)
	}
	if other := js.Katas[1]; other.Answered != 0 || other.LastGrade != nil || other.LayersRead == nil {
		t.Fatalf("a kata without progress: %+v", other)
	}
}

func TestStatsWithoutAStoreCreatesNothing(t *testing.T) {
	path := hermeticState(t)
	out, _, err := runKataErr(t, "stats", "--json")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out, `"answered": 0`) {
		t.Fatalf("stats of no store: %s", out)
	}
	if _, err := os.Stat(path); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("kata stats created %s: %v", path, err)
	}
}

func TestGradeRecordsTheRun(t *testing.T) {
	path := hermeticState(t)
	ws := t.TempDir() // no kata.json: the run is an error, graded at once
	_, _, err := runKataErr(t, "grade", "--seed", "77", ws)
	var ee exitError
	if !errors.As(err, &ee) || ee.code != 2 {
		t.Fatalf("grade of an empty folder: %v", err)
	}
	s, err := progress.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	st, err := s.Stats(time.Now())
	if err != nil {
		t.Fatal(err)
	}
	if g := st.LastGrade; st.GradeRuns != 1 || g == nil || g.Status != "error" || g.Seed != 77 || g.Workspace != ws {
		t.Fatalf("recorded run: %d runs, last %+v", st.GradeRuns, st.LastGrade)
	}
}

func TestGradeGoesOnWhenTheStoreCannotOpen(t *testing.T) {
	blocker := filepath.Join(t.TempDir(), "a-file")
	if err := os.WriteFile(blocker, []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Setenv(progress.EnvPath, filepath.Join(blocker, "progress.db")) // a path under a regular file
	out, stderr, err := runKataErr(t, "grade", t.TempDir())
	var ee exitError
	if !errors.As(err, &ee) || ee.code != 2 {
		t.Fatalf("grade with a broken store: %v", err)
	}
	if !strings.Contains(out, "could not be graded") {
		t.Fatalf("the report is missing:\n%s", out)
	}
	if n := strings.Count(stderr, "not saved to your progress"); n != 1 || !strings.Contains(stderr, blocker) {
		t.Fatalf("want one warning naming the store, got %d:\n%s", n, stderr)
	}
}

// TestStatsItems: kata stats --items reports each answered item's p-value and option counts,
// as text and as JSON, from the learner's recorded answers.
func TestStatsItems(t *testing.T) {
	path := hermeticState(t)
	out, _, err := runKataErr(t, "stats", "--items")
	if err != nil || !strings.Contains(out, "No exam item answered yet") {
		t.Fatalf("no store: %v\n%s", err, out)
	}
	lib, err := loadLibrary(newRootCmd(io.Discard, io.Discard))
	if err != nil {
		t.Fatal(err)
	}
	p := lib.Packets()[0]
	it := p.Items[0]
	var wrong string
	for _, o := range it.Options {
		if !o.Key {
			wrong = o.ID
			break
		}
	}
	s, err := progress.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	card := srs.ItemCardID(p.ID, it)
	for _, a := range []progress.Answer{
		{Kata: p.ID, ItemID: it.ID, CardID: card, Chosen: it.Keys(), Correct: true},
		{Kata: p.ID, ItemID: it.ID, CardID: card, Chosen: []string{wrong}},
		{Kata: p.ID, ItemID: it.ID, CardID: card, Chosen: []string{wrong}},
	} {
		if err := s.RecordAnswer(a); err != nil {
			t.Fatal(err)
		}
	}
	s.Close()
	out, _, err = runKataErr(t, "stats", "--items")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out, p.ID+"\n  "+it.ID+"  ") || !strings.Contains(out, "p = 0.33 (1 of 3 answers right)") || !strings.Contains(out, " "+wrong+"  67%  ") {
		t.Errorf("stats --items:\n%s", out)
	}
	for _, line := range strings.Split(out, "\n") {
		if n := utf8.RuneCountInString(line); n > 80 {
			t.Errorf("stats --items line is %d wide: %q", n, line)
		}
	}
	out, _, err = runKataErr(t, "stats", "--items", "--json")
	if err != nil {
		t.Fatal(err)
	}
	var js struct {
		Items []struct {
			Kata     string  `json:"kata"`
			ItemID   string  `json:"item_id"`
			Answered int     `json:"answered"`
			PValue   float64 `json:"p_value"`
			Options  []struct {
				ID     string `json:"id"`
				Key    bool   `json:"key"`
				Chosen int    `json:"chosen"`
			} `json:"options"`
		} `json:"items"`
	}
	if err := json.Unmarshal([]byte(out), &js); err != nil || len(js.Items) != 1 {
		t.Fatalf("stats --items --json: %v\n%s", err, out)
	}
	got := js.Items[0]
	chosen := map[string]int{}
	for _, o := range got.Options {
		chosen[o.ID] = o.Chosen
	}
	if got.Kata != p.ID || got.ItemID != it.ID || got.Answered != 3 || got.PValue < 0.33 || got.PValue > 0.34 || chosen[wrong] != 2 {
		t.Errorf("stats --items --json: %+v", got)
	}
}
