package board

import (
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/kata-mcp/kata/internal/i18n"
	"github.com/kata-mcp/kata/katas"
	"github.com/kata-mcp/kata/workshop"
)

var t0 = time.Date(2026, 5, 4, 9, 0, 0, 0, time.UTC)

func miniBoard(t *testing.T, opts Options) *Board {
	t.Helper()
	lib, err := katas.Discover(os.DirFS("../../katas/testdata/packets"), "test")
	if err != nil {
		t.Fatal(err)
	}
	p, ok := lib.Get("mini-kata")
	if !ok {
		t.Fatal("no mini-kata")
	}
	return New("ABCD-1234", []*katas.Packet{p}, opts)
}

// feed applies events with sequence numbers 1, 2, … received a second apart.
type feed struct {
	b   *Board
	seq int64
}

func (f *feed) add(e workshop.Event) string {
	f.seq++
	e.Seq = f.seq
	if e.Received.IsZero() {
		e.Received = t0.Add(time.Duration(f.seq) * time.Second)
	}
	if e.ID == "" {
		e.ID = "e" + string(rune('a'+f.seq%26))
	}
	return f.b.Apply(e)
}

func verdict(passed, failed int, rules ...string) *workshop.Verdict {
	v := &workshop.Verdict{Status: "fail", Passed: passed, Failed: failed}
	if failed == 0 {
		v.Status = "pass"
	}
	v.Tests = append(v.Tests, workshop.TestVerdict{ID: "t1", Status: v.Status, Step: 1, Rules: rules})
	return v
}

func TestBoardFoldsLearnersAndMisses(t *testing.T) {
	b := miniBoard(t, Options{RuleText: map[string]string{"category": "errorCategory is the one the failure calls for"}})
	f := &feed{b: b}
	f.add(workshop.Event{Learner: "L1", Kind: workshop.KindJoined, Name: "Ana"})
	f.add(workshop.Event{Learner: "L2", Kind: workshop.KindJoined, Name: "Ben"})
	if got := f.add(workshop.Event{Learner: "L1", Kind: workshop.KindLayer, Kata: "mini-kata", Layer: "examples"}); got != "L1" {
		t.Errorf("a layer event changed row %q, want L1", got)
	}
	f.add(workshop.Event{Learner: "L1", Kind: workshop.KindLayer, Kata: "mini-kata", Layer: "knowledge"})
	f.add(workshop.Event{Learner: "L1", Kind: workshop.KindAnswer, Kata: "mini-kata", Answer: &workshop.Answer{Item: "mk-01", Chosen: []string{"b"}, Correct: true}})
	f.add(workshop.Event{Learner: "L2", Kind: workshop.KindAnswer, Kata: "mini-kata", Answer: &workshop.Answer{Item: "mk-01", Chosen: []string{"a"}}})
	f.add(workshop.Event{Learner: "L2", Kind: workshop.KindVerdict, Kata: "mini-kata", Verdict: verdict(1, 2, "category", "retryable")})
	f.add(workshop.Event{Learner: "L1", Kind: workshop.KindVerdict, Kata: "mini-kata", Verdict: verdict(2, 1, "category")})
	// A replayed event (seq already applied) changes nothing.
	if got := b.Apply(workshop.Event{Seq: 3, Learner: "L1", Kind: workshop.KindLayer, Kata: "mini-kata", Layer: "templates"}); got != "" {
		t.Errorf("a replayed event changed row %q", got)
	}

	v := b.View(t0.Add(time.Minute))
	if len(v.Rows) != 2 || v.Rows[0].Name != "Ana" || v.Rows[1].Name != "Ben" {
		t.Fatalf("rows %+v: want Ana then Ben", v.Rows)
	}
	ana, ben := v.Rows[0].Cells[0], v.Rows[1].Cells[0]
	if ana.Layer != 3 || ana.LayerName != "examples" {
		t.Errorf("Ana reached layer %d %q, want 3 examples (the highest opened, not the last)", ana.Layer, ana.LayerName)
	}
	if ana.Right != 1 || ana.Answered != 1 || ben.Right != 0 || ben.Answered != 1 {
		t.Errorf("quiz: Ana %d/%d, Ben %d/%d; want 1/1 and 0/1", ana.Right, ana.Answered, ben.Right, ben.Answered)
	}
	if !ben.Graded || ben.Passed != 1 || ben.Total != 3 || !slices.Equal(ben.Failing, []string{"category", "retryable"}) {
		t.Errorf("Ben's grade %+v", ben)
	}
	s := v.Summary
	if len(s.Rules) != 2 || s.Rules[0].ID != "category" || s.Rules[0].Count != 2 || s.Rules[0].Text == "" || s.Rules[1].ID != "retryable" {
		t.Errorf("rules missed most %+v: want category (2 learners, with its text) then retryable", s.Rules)
	}
	if len(s.Items) != 1 || s.Items[0].ID != "mk-01" || s.Items[0].Count != 1 || s.Items[0].Text != "Flags or prose" {
		t.Errorf("items missed most %+v", s.Items)
	}
	if s.Learners != 2 || len(s.Attention) != 0 {
		t.Errorf("summary %+v: want 2 learners and nobody flagged after a minute", s)
	}
}

func TestBoardFlagsIdleAndRepeatedFailures(t *testing.T) {
	b := miniBoard(t, Options{Idle: 10 * time.Minute, Repeats: 3})
	f := &feed{b: b}
	f.add(workshop.Event{Learner: "L1", Kind: workshop.KindJoined, Name: "Ana"})
	f.add(workshop.Event{Learner: "L2", Kind: workshop.KindJoined, Name: "Ben"})
	for range 3 {
		f.add(workshop.Event{Learner: "L2", Kind: workshop.KindVerdict, Kata: "mini-kata", Verdict: verdict(1, 1, "category")})
	}
	s := b.Summary(t0.Add(5 * time.Minute))
	if len(s.Attention) != 1 || s.Attention[0].Name != "Ben" || !strings.Contains(s.Attention[0].Why, "category 3×") {
		t.Fatalf("attention %+v: want Ben failing category 3× in a row", s.Attention)
	}
	// The reason is a catalog message too: Russian counts the times (3 раза, 5 раз).
	ru := i18n.New("ru")
	if got := ru.Say(s.Attention[0].Reason); got != "mini-kata: правило category нарушено 3 раза подряд" {
		t.Errorf("the reason in Russian: %q", got)
	}
	for range 2 {
		f.add(workshop.Event{Learner: "L2", Kind: workshop.KindVerdict, Kata: "mini-kata", Verdict: verdict(1, 1, "category")})
	}
	row := b.Row("L2", t0.Add(5*time.Minute))
	if len(row.Reasons) != 1 || ru.Say(row.Reasons[0]) != "mini-kata: правило category нарушено 5 раз подряд" || row.Flags[0] != "mini-kata fails category 5× in a row" {
		t.Errorf("Ben's row: %q, %+v", row.Flags, row.Reasons)
	}
	// A grade that no longer breaks the rule ends the streak.
	f.add(workshop.Event{Learner: "L2", Kind: workshop.KindVerdict, Kata: "mini-kata", Verdict: verdict(2, 0)})
	if s := b.Summary(t0.Add(5 * time.Minute)); len(s.Attention) != 0 {
		t.Errorf("after a passing grade: %+v", s.Attention)
	}
	// Ten minutes on, Ana (joined at t0+1s, nothing since) is idle; Ben moved at t0+8s.
	s = b.Summary(t0.Add(10*time.Minute + 3*time.Second))
	if len(s.Attention) != 1 || s.Attention[0].Name != "Ana" || !strings.Contains(s.Attention[0].Why, "no progress for 10 min") {
		t.Errorf("attention %+v: want Ana idle for 10 min", s.Attention)
	} else if got := i18n.New("es").Say(s.Attention[0].Reason); got != "sin avances desde hace 10 min" {
		t.Errorf("Ana's reason in Spanish: %q", got)
	}
	f.add(workshop.Event{Learner: "L1", Kind: workshop.KindLeft})
	// Ben's last grade passes every test: he has finished, and is no idle learner.
	if s := b.Summary(t0.Add(time.Hour)); s.Learners != 1 || len(s.Attention) != 0 {
		t.Errorf("after Ana left: %+v; want 1 learner, Ben finished, nobody idle", s)
	}
	f.add(workshop.Event{Learner: "L2", Kind: workshop.KindVerdict, Kata: "mini-kata", Verdict: verdict(1, 1)})
	if s := b.Summary(t0.Add(2 * time.Hour)); len(s.Attention) != 1 || s.Attention[0].Name != "Ben" {
		t.Errorf("Ben failing again, an hour on: %+v; want Ben idle", s.Attention)
	}
}

func TestBoardLiveQuiz(t *testing.T) {
	b := miniBoard(t, Options{})
	f := &feed{b: b}
	f.add(workshop.Event{Learner: "L1", Kind: workshop.KindJoined, Name: "Ana"})
	f.add(workshop.Event{Learner: "L2", Kind: workshop.KindJoined, Name: "Ben"})
	q := &workshop.Quiz{ID: "q1", Kata: "mini-kata", Items: []string{"mk-01"}, State: workshop.QuizOpen}
	f.add(workshop.Event{Kind: workshop.KindQuiz, Quiz: q})
	if !b.Asked("mini-kata", "mk-01") || b.Asked("mini-kata", "mk-02") {
		t.Error("Asked: want mk-01 asked, mk-02 not")
	}
	live := func(l string, chosen ...string) {
		f.add(workshop.Event{Learner: l, Kind: workshop.KindAnswer, Kata: "mini-kata", Answer: &workshop.Answer{Item: "mk-01", Chosen: chosen, Source: workshop.SourceLive, Quiz: "q1"}})
	}
	live("L1", "a")
	live("L2", "b")
	live("L1", "b") // a changed answer replaces the first
	qv := b.Summary(t0).Quiz
	if qv == nil || len(qv.Items) != 1 {
		t.Fatalf("quiz view %+v", qv)
	}
	counts := map[string]int{}
	for _, o := range qv.Items[0].Options {
		counts[o.ID] = o.Count
		if o.Key || o.Rationale != "" {
			t.Errorf("option %s shows its key or rationale before the reveal", o.ID)
		}
	}
	if counts["a"] != 0 || counts["b"] != 2 || qv.Items[0].Answered != 2 {
		t.Errorf("distribution %v (answered %d): want b 2, a 0", counts, qv.Items[0].Answered)
	}
	// Before the reveal, nothing on the board (often projected) tells who chose the key: the
	// quiz column and "missed most" leave out the open quiz's items.
	for _, id := range []string{"L1", "L2"} {
		if c := b.Row(id, t0).Cells[0]; c.Right != 0 || c.Answered != 0 {
			t.Errorf("%s's cell during the open quiz: %d/%d; want 0/0 until the reveal", id, c.Right, c.Answered)
		}
	}
	if m := b.Summary(t0).Items; len(m) != 0 {
		t.Errorf("missed most during the open quiz: %+v; want none until the reveal", m)
	}
	rq := *q
	rq.State, rq.Distribution = workshop.QuizRevealed, b.Distribution("q1")
	f.add(workshop.Event{Kind: workshop.KindQuiz, Quiz: &rq})
	qv = b.Summary(t0).Quiz
	keyed := 0
	for _, o := range qv.Items[0].Options {
		if o.Rationale == "" {
			t.Errorf("option %s has no rationale once revealed", o.ID)
		}
		if o.Key {
			keyed++
		}
	}
	if qv.State != workshop.QuizRevealed || keyed != 1 {
		t.Errorf("revealed quiz %+v: want one key", qv)
	}
	if c := b.Row("L1", t0).Cells[0]; c.Answered != 1 {
		t.Errorf("Ana's cell once revealed: %d answered; want 1", c.Answered)
	}
	if st := b.State(); st.Quiz == nil || st.Quiz.Distribution["mk-01"]["b"] != 2 {
		t.Errorf("published state %+v: want the distribution", st.Quiz)
	}
	f.add(workshop.Event{Kind: workshop.KindQuiz, Quiz: &workshop.Quiz{ID: "q1", Kata: "mini-kata", State: workshop.QuizClosed}})
	if b.Summary(t0).Quiz != nil || b.State().Quiz != nil {
		t.Error("a closed quiz is still on the board")
	}
}

// TestExportRecords: a learner's record counts the layers read, the live and practice answers,
// the grades (the last one's points, the best, the attempts, the first pass after joining),
// the mock exams and the time on task.
func TestExportRecords(t *testing.T) {
	b := miniBoard(t, Options{})
	p := b.packets[0]
	at := func(min int) time.Time { return t0.Add(time.Duration(min) * time.Minute) }
	evs := []workshop.Event{
		{Learner: "L1", Kind: workshop.KindJoined, Name: "Ana", Received: at(0)},
		{Learner: "L1", Kind: workshop.KindLayer, Kata: p.ID, Layer: "knowledge", Received: at(1)},
		{Learner: "L1", Kind: workshop.KindLayer, Kata: p.ID, Layer: "knowledge", Received: at(2)},
		{Learner: "L1", Kind: workshop.KindAnswer, Kata: p.ID, Answer: &workshop.Answer{Item: "mk-01", Correct: true, Source: workshop.SourceLive}, Received: at(3)},
		{Learner: "L1", Kind: workshop.KindAnswer, Kata: p.ID, Answer: &workshop.Answer{Item: "mk-01", Correct: false, Source: workshop.SourcePractice}, Received: at(4)},
		{Learner: "L1", Kind: workshop.KindVerdict, Kata: p.ID, Verdict: verdict(1, 1, "category"), Received: at(10)},
		{Learner: "L1", Kind: workshop.KindVerdict, Kata: p.ID, Verdict: verdict(2, 0), Received: at(25)},
		{Learner: "L1", Kind: workshop.KindExam, Exam: &workshop.Exam{Scaled: 800, Passed: true}, Received: at(40)},
		{Learner: "L2", Kind: workshop.KindLayer, Kata: p.ID, Layer: "knowledge", Received: at(5)}, // never joined: no record
	}
	recs := Export(evs, b.packets)
	if len(recs) != 1 {
		t.Fatalf("records %+v", recs)
	}
	r, k := recs[0], recs[0].Katas[0]
	if r.Name != "Ana" || r.ExamBest != 800 || !r.ExamPassed || r.TimeOnTask != 40*time.Minute {
		t.Errorf("record %+v", r)
	}
	if len(k.Layers) != 1 || k.Live != 1 || k.LiveRight != 1 || k.Answers != 1 || k.Right != 0 || k.Attempts != 2 || k.Status != "pass" ||
		k.FirstPass != 25*time.Minute || k.Points == 0 || k.BestPoints != k.Points || k.MaxPoints == 0 || len(k.Rules) != 0 {
		t.Errorf("kata record %+v", k)
	}
}
