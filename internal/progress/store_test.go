package progress

import (
	"database/sql"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/kata-mcp/kata/katas/srs"
)

// t0 is the fake clock's start.
var t0 = time.Date(2026, 3, 2, 9, 0, 0, 0, time.UTC)

func openTemp(t *testing.T) (*Store, string) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "state", "progress.db")
	s, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s, path
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// itemCard is a well-formed item card id for tests.
func itemCard(kata, item string) string { return "item:" + kata + ":" + item + ":0123456789ab" }

func TestOpenSetsWALAndForeignKeys(t *testing.T) {
	s, path := openTemp(t)
	var mode string
	var fk, busy, ver, sync int
	must(t, s.db.QueryRow(`PRAGMA journal_mode`).Scan(&mode))
	must(t, s.db.QueryRow(`PRAGMA synchronous`).Scan(&sync))
	must(t, s.db.QueryRow(`PRAGMA foreign_keys`).Scan(&fk))
	must(t, s.db.QueryRow(`PRAGMA busy_timeout`).Scan(&busy))
	must(t, s.db.QueryRow(`PRAGMA user_version`).Scan(&ver))
	// synchronous FULL (2): each commit is on disk before it returns, not just safe from a kill.
	if mode != "wal" || fk != 1 || busy != int(BusyTimeout.Milliseconds()) || ver != SchemaVersion || sync != 2 {
		t.Fatalf("journal_mode %q foreign_keys %d busy_timeout %d user_version %d synchronous %d", mode, fk, busy, ver, sync)
	}
	if _, err := os.Stat(path); err != nil {
		t.Fatal(err)
	}
	// A review log row must name an existing card.
	if _, err := s.db.Exec(`INSERT INTO reviews(card_id, rating, at, state, due, stability, difficulty) VALUES('nope', 3, 1, 2, 1, 1, 1)`); err == nil {
		t.Fatal("foreign key not enforced")
	}
}

func TestPathWithURICharacters(t *testing.T) {
	path := filepath.Join(t.TempDir(), "odd?dir#1 %20", "p.db")
	s, err := Open(path)
	must(t, err)
	must(t, s.LayerRead("k", "knowledge", t0))
	s.Close()
	if _, err := os.Stat(path); err != nil {
		t.Fatalf("file not at the given path: %v", err)
	}
}

func TestDefaultPathHonoursKATA_STATE(t *testing.T) {
	want := filepath.Join(t.TempDir(), "x.db")
	t.Setenv(EnvPath, want)
	got, err := DefaultPath()
	if err != nil || got != want {
		t.Fatalf("DefaultPath() = %q, %v; want %q", got, err, want)
	}
	t.Setenv(EnvPath, "")
	got, err = DefaultPath()
	if err != nil || !strings.HasSuffix(got, filepath.Join("kata", "progress.db")) {
		t.Fatalf("DefaultPath() = %q, %v", got, err)
	}
}

func TestPracticeAnswersScheduleCards(t *testing.T) {
	s, _ := openTemp(t)
	right, wrong := itemCard("k1", "a-01"), itemCard("k1", "a-02")
	must(t, s.RecordAnswer(Answer{Kata: "k1", ItemID: "a-01", CardID: right, Chosen: []string{"b"}, Correct: true, Elapsed: 40 * time.Second, At: t0}))
	must(t, s.RecordAnswer(Answer{Kata: "k1", ItemID: "a-02", CardID: wrong, Chosen: []string{"a", "c"}, Correct: false, Elapsed: 5 * time.Second, At: t0}))
	cards, err := s.Cards("k1")
	must(t, err)
	if len(cards) != 2 {
		t.Fatalf("cards: %v", cards)
	}
	sched := srs.NewScheduler()
	if want := sched.Review(srs.Card{}, srs.Good, t0); cards[right] != want {
		t.Fatalf("right answer's card %+v, want Good review %+v", cards[right], want)
	}
	if want := sched.Review(srs.Card{}, srs.Again, t0); cards[wrong] != want {
		t.Fatalf("wrong answer's card %+v, want Again review %+v", cards[wrong], want)
	}
	if !cards[wrong].Due.Before(cards[right].Due) {
		t.Fatal("the missed item must be due sooner")
	}
	due, err := s.Due(t0.Add(2*time.Minute), nil)
	must(t, err)
	if len(due) != 1 || due[0].CardID != wrong || due[0].Kind != "item" || due[0].Kata != "k1" || due[0].Ref != "k1/a-02" {
		t.Fatalf("due after 2m: %+v", due)
	}
	due, err = s.Due(t0.Add(11*time.Minute), []string{"k1"})
	must(t, err)
	if len(due) != 2 || due[0].CardID != wrong {
		t.Fatalf("due after 11m, most overdue first: %+v", due)
	}
	if due, _ := s.Due(t0.Add(time.Hour), []string{"other"}); len(due) != 0 {
		t.Fatalf("kata filter ignored: %+v", due)
	}
	// Review directly (trap drill), twice: the log keeps both.
	trap := "trap:k1:abcdefabcdef"
	c, err := s.Review(trap, "trap", "k1", "Errors/0", srs.Again, t0)
	must(t, err)
	c2, err := s.Review(trap, "trap", "k1", "Errors/0", srs.Good, t0.Add(time.Minute))
	must(t, err)
	if c.Reps != 1 || c2.Reps != 2 || c2.State != srs.Learning {
		t.Fatalf("trap reviews: %+v then %+v", c, c2)
	}
	var logs int
	must(t, s.db.QueryRow(`SELECT count(*) FROM reviews WHERE card_id = ?`, trap).Scan(&logs))
	if logs != 2 {
		t.Fatalf("review log rows %d, want 2", logs)
	}
	// Bad input is refused with the field named.
	for _, a := range []Answer{{ItemID: "x", CardID: right}, {Kata: "k1", ItemID: "x", CardID: "bogus"}} {
		if err := s.RecordAnswer(a); err == nil {
			t.Errorf("RecordAnswer(%+v) accepted", a)
		}
	}
	if _, err := s.Review(trap, "card", "k1", "", srs.Good, t0); err == nil || !strings.Contains(err.Error(), "kind") {
		t.Errorf("bad kind: %v", err)
	}
	if _, err := s.Review(trap, "trap", "k1", "", srs.Rating(7), t0); err == nil || !strings.Contains(err.Error(), "rating") {
		t.Errorf("bad rating: %v", err)
	}
}

func TestExamAttemptLifecycle(t *testing.T) {
	s, _ := openTemp(t)
	if a, err := s.OpenAttempt(); err != nil || a != nil {
		t.Fatalf("OpenAttempt on an empty store: %v, %v", a, err)
	}
	in := Attempt{Katas: []string{"k1", "k2"}, Seed: 42, Items: []string{"k1/a-01", "k2/b-01", "k1/a-02"}, Limit: 20 * time.Minute, Started: t0}
	id, err := s.StartAttempt(in)
	must(t, err)
	must(t, s.SaveExamAnswer(id, "k1/a-01", []string{"a"}, false, t0.Add(time.Minute)))
	must(t, s.SaveExamAnswer(id, "k1/a-01", []string{"b"}, true, t0.Add(2*time.Minute))) // changed + flagged
	must(t, s.SaveExamAnswer(id, "k2/b-01", []string{"a", "c"}, false, t0.Add(3*time.Minute)))
	must(t, s.SaveExamAnswer(id, "k1/a-02", nil, true, t0.Add(4*time.Minute))) // flagged, unanswered

	open, err := s.OpenAttempt()
	must(t, err)
	in.ID = id
	if !reflect.DeepEqual(open, &in) {
		t.Fatalf("OpenAttempt = %+v\nwant %+v", open, in)
	}
	got, err := s.ExamAnswers(id)
	must(t, err)
	want := map[string]ExamAnswer{
		"k1/a-01": {Chosen: []string{"b"}, Flagged: true, At: t0.Add(2 * time.Minute)},
		"k2/b-01": {Chosen: []string{"a", "c"}, At: t0.Add(3 * time.Minute)},
		"k1/a-02": {Chosen: []string{}, Flagged: true, At: t0.Add(4 * time.Minute)},
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("ExamAnswers = %+v\nwant %+v", got, want)
	}
	// Open answers count as answered and in progress, not as correct.
	st, err := s.Stats(t0.Add(5 * time.Minute))
	must(t, err)
	if st.Answered != 2 || st.InProgress != 2 || st.Correct != 0 || st.AttemptsOpen != 1 || st.Open == nil ||
		st.Open.ID != id || st.Open.Answered != 2 || st.Open.Flagged != 2 || st.Open.Items != 3 {
		t.Fatalf("stats of an open attempt: %+v open %+v", st, st.Open)
	}

	fin := in
	fin.Finished, fin.Points, fin.Max, fin.Scaled, fin.Passed = t0.Add(10*time.Minute), 1, 3, 400, false
	answers := []Answer{
		{Kata: "k1", ItemID: "a-01", CardID: itemCard("k1", "a-01"), Chosen: []string{"b"}, Correct: true, At: fin.Finished},
		{Kata: "k2", ItemID: "b-01", CardID: itemCard("k2", "b-01"), Chosen: []string{"a", "c"}, Correct: false, At: fin.Finished},
		{Kata: "k1", ItemID: "a-02", CardID: itemCard("k1", "a-02"), At: fin.Finished}, // unanswered
	}
	// A bad answer refuses the whole submission, changing nothing.
	bad := append(append([]Answer(nil), answers...), Answer{Kata: "k1", ItemID: "x", CardID: "nope"})
	if err := s.FinishAttempt(fin, bad); err == nil {
		t.Fatal("FinishAttempt accepted a bad card id")
	}
	if a, _ := s.OpenAttempt(); a == nil {
		t.Fatal("a refused submission closed the attempt")
	}
	must(t, s.FinishAttempt(fin, answers))
	if a, err := s.OpenAttempt(); err != nil || a != nil {
		t.Fatalf("after submitting: open %+v, %v", a, err)
	}
	if err := s.FinishAttempt(fin, answers); err == nil || !strings.Contains(err.Error(), "already submitted") {
		t.Fatalf("second submit: %v", err)
	}
	if err := s.SaveExamAnswer(id, "k1/a-01", []string{"c"}, false, t0); err == nil {
		t.Fatal("saved an answer into a submitted attempt")
	}
	k1, err := s.Cards("k1")
	must(t, err)
	k2, err := s.Cards("k2")
	must(t, err)
	if len(k1) != 1 || len(k2) != 1 || k1[itemCard("k1", "a-01")].Reps != 1 || k2[itemCard("k2", "b-01")].State != srs.Learning {
		t.Fatalf("cards after submit: k1 %+v k2 %+v", k1, k2)
	}
	st, err = s.Stats(t0.Add(11 * time.Minute))
	must(t, err)
	if st.Answered != 2 || st.Correct != 1 || st.InProgress != 0 || st.AttemptsFinished != 1 || st.AttemptsOpen != 0 ||
		st.BestScaled != 400 || !st.BestAt.Equal(fin.Finished) || st.Open != nil {
		t.Fatalf("stats after submit: %+v", st)
	}
	sum, err := s.Summary("k2", t0.Add(11*time.Minute))
	must(t, err)
	// a kata's best exam is its own share of the attempt: k2 had one item, answered wrong
	if sum.BestScaled != 100 || sum.Answered != 1 || sum.Correct != 0 || sum.Due != 1 {
		t.Fatalf("k2 summary: %+v", sum)
	}
	// k1 had two items, one right: 100 + 900 × 1/2 = 550 (the whole exam scored 400)
	if sum, err := s.Summary("k1", t0.Add(11*time.Minute)); err != nil || sum.BestScaled != 550 || !sum.BestAt.Equal(fin.Finished) {
		t.Fatalf("k1 summary: %+v, %v", sum, err)
	}

	// Abandon: answers kept, no longer in progress.
	id2, err := s.StartAttempt(Attempt{Katas: []string{"k1"}, Items: []string{"k1/a-01"}, Started: t0.Add(time.Hour)})
	must(t, err)
	must(t, s.SaveExamAnswer(id2, "k1/a-01", []string{"a"}, false, t0.Add(time.Hour)))
	must(t, s.AbandonAttempt(id2))
	if err := s.AbandonAttempt(id2); err == nil {
		t.Fatal("abandoned twice")
	}
	if ea, _ := s.ExamAnswers(id2); len(ea) != 1 {
		t.Fatalf("abandoned attempt lost its answers: %v", ea)
	}
	st, err = s.Stats(t0.Add(2 * time.Hour))
	must(t, err)
	if st.AttemptsAbandoned != 1 || st.InProgress != 0 || st.Answered != 2 {
		t.Fatalf("stats after abandon: %+v", st)
	}
	if err := s.SaveExamAnswer(999, "k1/a-01", nil, false, t0); err == nil || !strings.Contains(err.Error(), "no exam attempt 999") {
		t.Fatalf("unknown attempt: %v", err)
	}
}

func TestSummaryAndStats(t *testing.T) {
	s, _ := openTemp(t)
	must(t, s.LayerRead("k1", "examples", t0))
	must(t, s.LayerRead("k1", "knowledge", t0))
	must(t, s.LayerRead("k1", "knowledge", t0.Add(time.Hour)))
	must(t, s.RecordGrade(GradeRun{Kata: "k1", Workspace: "/w", Seed: 7, Status: "fail", Passed: 3, Failed: 2, Duration: 1500 * time.Millisecond, At: t0}))
	must(t, s.RecordGrade(GradeRun{Kata: "k1", Workspace: "/w", Seed: 8, Status: "pass", Passed: 5, Duration: time.Second, At: t0.Add(time.Hour)}))
	must(t, s.RecordGrade(GradeRun{Kata: "k2", Workspace: "/v", Seed: 9, Status: "error", At: t0}))
	if err := s.RecordGrade(GradeRun{Kata: "k1", Status: "passed"}); err == nil {
		t.Fatal("bad status accepted")
	}
	must(t, s.RecordAnswer(Answer{Kata: "k1", ItemID: "a", CardID: itemCard("k1", "a"), Chosen: []string{"a"}, Correct: true, At: t0}))

	sum, err := s.Summary("k1", t0.Add(2*time.Hour))
	must(t, err)
	wantGrade := &GradeRun{Kata: "k1", Workspace: "/w", Seed: 8, Status: "pass", Passed: 5, Duration: time.Second, At: t0.Add(time.Hour)}
	if !reflect.DeepEqual(sum.LayersRead, []string{"knowledge", "examples"}) || !reflect.DeepEqual(sum.LastGrade, wantGrade) ||
		sum.BestScaled != 0 || sum.Due != 1 || sum.Answered != 1 || sum.Correct != 1 {
		t.Fatalf("summary: %+v grade %+v", sum, sum.LastGrade)
	}
	if sum, _ := s.Summary("k1", t0.Add(5*time.Minute)); sum.Due != 0 { // a right answer's card is next due at the 10m learning step
		t.Fatalf("due 5 minutes after a right answer: %+v", sum)
	}
	st, err := s.Stats(t0.Add(2 * time.Hour))
	must(t, err)
	if st.GradeRuns != 3 || st.Cards != 1 || st.Reviews != 1 || len(st.Katas) != 2 || st.Katas[0].Kata != "k1" || st.Katas[1].LastGrade.Status != "error" ||
		!reflect.DeepEqual(st.LastGrade, wantGrade) {
		t.Fatalf("stats: %+v", st)
	}
	// A scratch copy graded later does not hide the workspace's own last grade.
	must(t, s.RecordGrade(GradeRun{Kata: "k1", Workspace: "/scratch", Seed: 10, Status: "fail", Passed: 1, Failed: 4, At: t0.Add(90 * time.Minute)}))
	if g, err := s.LastGradeIn("k1", "/w"); err != nil || !reflect.DeepEqual(g, wantGrade) {
		t.Fatalf("last grade in /w: %+v, %v", g, err)
	}
	if g, err := s.LastGradeIn("k1", "/w/sub/.."); err != nil || g == nil || g.Seed != 8 {
		t.Fatalf("last grade in /w/sub/..: %+v, %v", g, err)
	}
	if g, err := s.LastGradeIn("k1", "/elsewhere"); err != nil || g != nil {
		t.Fatalf("last grade of a folder never graded: %+v, %v", g, err)
	}
	b, err := json.Marshal(st)
	must(t, err)
	for _, key := range []string{`"answered":1`, `"grade_runs":3`, `"layers_read":["knowledge","examples"]`, `"duration_ms":1000`, `"open_attempt":null`, `"in_progress":0`} {
		if !strings.Contains(string(b), key) {
			t.Errorf("stats JSON lacks %s: %s", key, b)
		}
	}
}

// v1Schema is the first schema exactly as a v1 file has it, written out by hand so the
// migration test does not depend on the migration code it tests.
const v1Schema = `
CREATE TABLE layer_reads (kata TEXT NOT NULL, layer TEXT NOT NULL, first_at INTEGER NOT NULL, last_at INTEGER NOT NULL,
	reads INTEGER NOT NULL DEFAULT 1, PRIMARY KEY (kata, layer));
CREATE TABLE attempts (id INTEGER PRIMARY KEY, katas TEXT NOT NULL, seed INTEGER NOT NULL, items TEXT NOT NULL,
	limit_ns INTEGER NOT NULL DEFAULT 0, started_at INTEGER NOT NULL, finished_at INTEGER, abandoned_at INTEGER,
	points INTEGER NOT NULL DEFAULT 0, max INTEGER NOT NULL DEFAULT 0, scaled INTEGER NOT NULL DEFAULT 0, passed INTEGER NOT NULL DEFAULT 0);
CREATE TABLE answers (id INTEGER PRIMARY KEY, kata TEXT NOT NULL, item_id TEXT NOT NULL, card_id TEXT NOT NULL, chosen TEXT NOT NULL,
	correct INTEGER NOT NULL, elapsed_ns INTEGER NOT NULL, at INTEGER NOT NULL, attempt_id INTEGER REFERENCES attempts(id));
CREATE TABLE exam_answers (attempt_id INTEGER NOT NULL REFERENCES attempts(id), ref TEXT NOT NULL, chosen TEXT NOT NULL,
	at INTEGER NOT NULL, PRIMARY KEY (attempt_id, ref));
CREATE TABLE grade_runs (id INTEGER PRIMARY KEY, kata TEXT NOT NULL, workspace TEXT NOT NULL, seed INTEGER NOT NULL, status TEXT NOT NULL,
	passed INTEGER NOT NULL, failed INTEGER NOT NULL, errored INTEGER NOT NULL, duration_ns INTEGER NOT NULL, at INTEGER NOT NULL);
CREATE TABLE cards (card_id TEXT PRIMARY KEY, kind TEXT NOT NULL, kata TEXT NOT NULL, ref TEXT NOT NULL, due INTEGER NOT NULL,
	stability REAL NOT NULL, difficulty REAL NOT NULL, reps INTEGER NOT NULL, lapses INTEGER NOT NULL, state INTEGER NOT NULL,
	last_review INTEGER NOT NULL);
CREATE TABLE reviews (id INTEGER PRIMARY KEY, card_id TEXT NOT NULL REFERENCES cards(card_id), rating INTEGER NOT NULL, at INTEGER NOT NULL,
	state INTEGER NOT NULL, due INTEGER NOT NULL, stability REAL NOT NULL, difficulty REAL NOT NULL);
PRAGMA user_version = 1;`

func TestMigratesV1Store(t *testing.T) {
	path := filepath.Join(t.TempDir(), "old.db")
	raw, err := sql.Open("sqlite", path)
	must(t, err)
	_, err = raw.Exec(v1Schema)
	must(t, err)
	card := itemCard("k1", "a-01")
	due := t0.Add(48 * time.Hour)
	for _, q := range []string{
		fmt.Sprintf(`INSERT INTO layer_reads VALUES('k1', 'knowledge', %d, %d, 2)`, t0.UnixNano(), t0.UnixNano()),
		fmt.Sprintf(`INSERT INTO attempts(id, katas, seed, items, started_at) VALUES(1, '["k1"]', 5, '["k1/a-01","k1/a-02"]', %d)`, t0.UnixNano()),
		fmt.Sprintf(`INSERT INTO exam_answers VALUES(1, 'k1/a-01', '["c"]', %d)`, t0.UnixNano()),
		fmt.Sprintf(`INSERT INTO answers(kata, item_id, card_id, chosen, correct, elapsed_ns, at) VALUES('k1', 'a-01', '%s', '["b"]', 1, 0, %d)`, card, t0.UnixNano()),
		fmt.Sprintf(`INSERT INTO grade_runs(kata, workspace, seed, status, passed, failed, errored, duration_ns, at) VALUES('k1', '/w', 3, 'pass', 4, 0, 0, 9, %d)`, t0.UnixNano()),
		fmt.Sprintf(`INSERT INTO cards VALUES('%s', 'item', 'k1', 'k1/a-01', %d, 2.3065, 2.1, 2, 0, 2, %d)`, card, due.UnixNano(), t0.UnixNano()),
		fmt.Sprintf(`INSERT INTO reviews(card_id, rating, at, state, due, stability, difficulty) VALUES('%s', 3, %d, 2, %d, 2.3065, 2.1)`, card, t0.UnixNano(), due.UnixNano()),
	} {
		_, err := raw.Exec(q)
		must(t, err)
	}
	must(t, raw.Close())

	s, err := Open(path)
	must(t, err)
	defer s.Close()
	var ver int
	must(t, s.db.QueryRow(`PRAGMA user_version`).Scan(&ver))
	if ver != SchemaVersion {
		t.Fatalf("user_version %d, want %d", ver, SchemaVersion)
	}
	open, err := s.OpenAttempt()
	must(t, err)
	if open == nil || open.ID != 1 || open.Seed != 5 || len(open.Items) != 2 {
		t.Fatalf("open attempt after migration: %+v", open)
	}
	ea, err := s.ExamAnswers(1)
	must(t, err)
	if !reflect.DeepEqual(ea["k1/a-01"], ExamAnswer{Chosen: []string{"c"}, At: t0}) {
		t.Fatalf("exam answer after migration: %+v", ea)
	}
	cards, err := s.Cards("k1")
	must(t, err)
	want := srs.Card{Due: due, Stability: 2.3065, Difficulty: 2.1, Reps: 2, State: srs.Review, LastReview: t0}
	if cards[card] != want {
		t.Fatalf("card after migration %+v, want %+v", cards[card], want)
	}
	sum, err := s.Summary("k1", t0)
	must(t, err)
	if len(sum.LayersRead) != 1 || sum.LastGrade == nil || sum.LastGrade.Passed != 4 || sum.Answered != 2 || sum.Correct != 1 {
		t.Fatalf("summary after migration: %+v", sum)
	}
	// The new columns work.
	must(t, s.SaveExamAnswer(1, "k1/a-02", []string{"a"}, true, t0))
	if ea, _ := s.ExamAnswers(1); !ea["k1/a-02"].Flagged {
		t.Fatal("flag not stored after migration")
	}
	if _, err := s.Review(card, "item", "k1", "k1/a-01", srs.Good, due); err != nil {
		t.Fatal(err)
	}
}

func TestRefusesNewerSchemaAndGarbage(t *testing.T) {
	dir := t.TempDir()
	newer := filepath.Join(dir, "newer.db")
	raw, err := sql.Open("sqlite", newer)
	must(t, err)
	_, err = raw.Exec(`CREATE TABLE future(x); PRAGMA user_version = 99`)
	must(t, err)
	raw.Close()
	if _, err := Open(newer); err == nil || !strings.Contains(err.Error(), "newer") || !strings.Contains(err.Error(), newer) {
		t.Fatalf("newer schema: %v", err)
	}
	raw, _ = sql.Open("sqlite", newer)
	var v int
	must(t, raw.QueryRow(`PRAGMA user_version`).Scan(&v))
	raw.Close()
	if v != 99 {
		t.Fatalf("newer file was changed: user_version %d", v)
	}

	garbage := filepath.Join(dir, "garbage.db")
	must(t, os.WriteFile(garbage, []byte(strings.Repeat("not a database\n", 400)), 0o600))
	if _, err := Open(garbage); err == nil || !strings.Contains(err.Error(), garbage) {
		t.Fatalf("garbage file: %v", err)
	}
}

// checkConsistent asserts the store's invariants: integrity_check ok, one review per answer
// plus extra, every card's reps equal to its review count, and stats totals equal to the sums
// of the per-kata figures.
func checkConsistent(t *testing.T, s *Store, wantAnswers, wantGrades, wantReviews int) {
	t.Helper()
	var ic string
	must(t, s.db.QueryRow(`PRAGMA integrity_check`).Scan(&ic))
	if ic != "ok" {
		t.Fatalf("integrity_check: %s", ic)
	}
	var bad int
	must(t, s.db.QueryRow(`SELECT count(*) FROM cards c WHERE reps != (SELECT count(*) FROM reviews r WHERE r.card_id = c.card_id)`).Scan(&bad))
	if bad != 0 {
		t.Fatalf("%d cards whose reps differ from their review count (a lost update)", bad)
	}
	st, err := s.Stats(t0)
	must(t, err)
	if st.Answered-st.InProgress != wantAnswers || st.GradeRuns != wantGrades || st.Reviews != wantReviews {
		t.Fatalf("answers %d (want %d), grade runs %d (want %d), reviews %d (want %d)",
			st.Answered-st.InProgress, wantAnswers, st.GradeRuns, wantGrades, st.Reviews, wantReviews)
	}
	var a, c, p int
	for _, k := range st.Katas {
		a, c, p = a+k.Answered, c+k.Correct, p+k.InProgress
	}
	if a != st.Answered || c != st.Correct || p != st.InProgress {
		t.Fatalf("per-kata sums %d/%d/%d differ from totals %d/%d/%d", a, c, p, st.Answered, st.Correct, st.InProgress)
	}
}

// writeLoad is the write mix each concurrent writer runs: n practice answers spread over 10
// shared cards (so writers contend for the same card rows), one grading run per 5 answers,
// and n exam answers saved into its own attempt.
func writeLoad(s *Store, who string, n int) error {
	id, err := s.StartAttempt(Attempt{Katas: []string{"k1"}, Items: []string{"k1/a"}, Started: t0})
	if err != nil {
		return err
	}
	for i := range n {
		item := fmt.Sprintf("i%d", i%10)
		if err := s.RecordAnswer(Answer{Kata: "k1", ItemID: item, CardID: itemCard("k1", item), Chosen: []string{"a"},
			Correct: i%3 != 0, Elapsed: time.Duration(i) * time.Second, At: t0.Add(time.Duration(i) * time.Minute)}); err != nil {
			return fmt.Errorf("%s answer %d: %w", who, i, err)
		}
		if i%5 == 0 {
			if err := s.RecordGrade(GradeRun{Kata: "k1", Workspace: who, Status: "pass", At: t0}); err != nil {
				return fmt.Errorf("%s grade %d: %w", who, i, err)
			}
		}
		if err := s.SaveExamAnswer(id, fmt.Sprintf("k1/%s-%d", who, i), []string{"b"}, i%2 == 0, t0); err != nil {
			return fmt.Errorf("%s exam answer %d: %w", who, i, err)
		}
	}
	return nil
}

func TestTwoStoresManyGoroutines(t *testing.T) {
	_, path := openTemp(t)
	a, err := Open(path)
	must(t, err)
	defer a.Close()
	b, err := Open(path)
	must(t, err)
	defer b.Close()
	const writers, n = 8, 25
	var wg sync.WaitGroup
	errs := make(chan error, writers)
	for w := range writers {
		s := a
		if w%2 == 1 {
			s = b
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs <- writeLoad(s, fmt.Sprintf("g%d", w), n)
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		must(t, err)
	}
	checkConsistent(t, a, writers*n, writers*n/5, writers*n)
}

// TestOpenFolderSaysSo: a KATA_STATE that names a folder gets a message saying so and what to
// set instead, not SQLite's "unable to open database file".
func TestOpenFolderSaysSo(t *testing.T) {
	dir := t.TempDir()
	_, err := Open(dir)
	if err == nil || !strings.Contains(err.Error(), "is a folder") || !strings.Contains(err.Error(), filepath.Join(dir, "progress.db")) {
		t.Fatalf("Open(folder) = %v", err)
	}
}
