package progress

import (
	"database/sql"
	"testing"
	"time"
)

// TestLanguageIsRememberedPerKata: a kata's chosen workspace language is kept, replaced by a
// later choice, separate from other katas', and read back by Summary; none reads as "".
func TestLanguageIsRememberedPerKata(t *testing.T) {
	s, path := openTemp(t)
	if l, err := s.Language("k1"); err != nil || l != "" {
		t.Fatalf("no choice yet: %q, %v", l, err)
	}
	must(t, s.SetLanguage("k1", "node", t0))
	must(t, s.SetLanguage("k2", "go", t0))
	must(t, s.SetLanguage("k1", "go", t0.Add(time.Minute)))
	if err := s.SetLanguage("", "go", t0); err == nil {
		t.Error("a language for no kata was accepted")
	}
	must(t, s.Close())
	s2, err := Open(path)
	must(t, err)
	defer s2.Close()
	if l, _ := s2.Language("k1"); l != "go" {
		t.Errorf("k1 language %q, want go", l)
	}
	sum, err := s2.Summary("k2", t0)
	must(t, err)
	if sum.Language != "go" {
		t.Errorf("k2 summary language %q", sum.Language)
	}
}

// TestMigratesV2Store: a store at schema 2 (before the languages table) opens, keeps its
// progress and takes a language choice.
func TestMigratesV2Store(t *testing.T) {
	path := t.TempDir() + "/v2.db"
	raw, err := sql.Open("sqlite", path)
	must(t, err)
	_, err = raw.Exec(v1Schema)
	must(t, err)
	_, err = raw.Exec(migrations[1] + `; PRAGMA user_version = 2`)
	must(t, err)
	_, err = raw.Exec(`INSERT INTO layer_reads VALUES('k1', 'knowledge', 1, 1, 1)`)
	must(t, err)
	must(t, raw.Close())
	s, err := Open(path)
	must(t, err)
	defer s.Close()
	sum, err := s.Summary("k1", t0)
	must(t, err)
	if len(sum.LayersRead) != 1 || sum.Language != "" {
		t.Fatalf("summary after migration: %+v", sum)
	}
	must(t, s.SetLanguage("k1", "python", t0))
	if l, _ := s.Language("k1"); l != "python" {
		t.Errorf("language after migration %q", l)
	}
}

// TestSummaryBestExamIsTheResultScreensScore (issue 16, defect 6): the catalog's figure is the
// finished attempt's scaled and raw score, as its result screen showed it (100 + 900 × 1/2 =
// 550 for the whole exam), not the kata's share of it; a kata with no item in any finished
// attempt has none.
func TestSummaryBestExamIsTheResultScreensScore(t *testing.T) {
	s, _ := openTemp(t)
	a := Attempt{Katas: []string{"k1", "k2"}, Items: []string{"k1/a-01", "k1/a-02", "k2/b-01", "k2/b-02"}, Started: t0}
	id, err := s.StartAttempt(a)
	must(t, err)
	a.ID, a.Finished = id, t0.Add(5*time.Minute)
	a.Points, a.Max, a.Scaled = 2, 4, 550
	answers := []Answer{
		{Kata: "k1", ItemID: "a-01", CardID: itemCard("k1", "a-01"), Chosen: []string{"a"}, Correct: true, At: a.Finished},
		{Kata: "k1", ItemID: "a-02", CardID: itemCard("k1", "a-02"), Chosen: []string{"a"}, Correct: true, At: a.Finished},
		{Kata: "k2", ItemID: "b-01", CardID: itemCard("k2", "b-01"), Chosen: []string{"a"}, Correct: false, At: a.Finished},
		{Kata: "k2", ItemID: "b-02", CardID: itemCard("k2", "b-02"), Chosen: []string{"a"}, Correct: false, At: a.Finished},
	}
	must(t, s.FinishAttempt(a, answers))
	for _, c := range []struct {
		kata      string
		right, of int
	}{{"k1", 2, 2}, {"k2", 0, 2}} {
		sum, err := s.Summary(c.kata, t0.Add(time.Hour))
		must(t, err)
		b := sum.BestExam
		if b == nil || b.Scaled != 550 || b.Points != 2 || b.Max != 4 || b.KataRight != c.right || b.KataItems != c.of {
			t.Errorf("%s best exam %+v, want 550 (2/4), %d of %d of its own", c.kata, b, c.right, c.of)
		}
	}
	if sum, _ := s.Summary("k3", t0); sum.BestExam != nil {
		t.Errorf("k3 had no item, best exam %+v", sum.BestExam)
	}
}
