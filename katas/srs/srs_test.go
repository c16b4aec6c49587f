package srs

import (
	"math"
	"testing"
	"time"

	"github.com/kata-mcp/kata/katas"
)

// t0 is the fake clock's start; every test moves time by adding to it.
var t0 = time.Date(2026, 3, 2, 9, 0, 0, 0, time.UTC)

const day = 24 * time.Hour

func near(t *testing.T, what string, got, want float64) {
	t.Helper()
	if math.Abs(got-want) > 1e-9 {
		t.Errorf("%s = %.12f, want %.12f", what, got, want)
	}
}

// The expected numbers below were computed by hand from the published FSRS-6 formulas
// (The Algorithm wiki, py-fsrs v6 scheduler.py) with the 21 default weights, by a separate
// Python transcription of the formulas, not by this package.
func TestFirstReviewKnownValues(t *testing.T) {
	s := NewScheduler()
	cases := []struct {
		r       Rating
		s, d    float64
		state   State
		step    int
		nextDue time.Duration
	}{
		{Again, 0.212, 6.4133, Learning, 0, time.Minute},
		{Hard, 1.2931, 5.112170705601055, Learning, 0, 5*time.Minute + 30*time.Second},
		{Good, 2.3065, 2.118103970459015, Learning, 1, 10 * time.Minute},
		{Easy, 8.2956, 1, Review, 0, 8 * day},
	}
	for _, c := range cases {
		got := s.Review(Card{}, c.r, t0)
		near(t, c.r.String()+" stability", got.Stability, c.s)
		near(t, c.r.String()+" difficulty", got.Difficulty, c.d)
		if got.State != c.state || got.Step != c.step || !got.Due.Equal(t0.Add(c.nextDue)) || got.Reps != 1 || got.Lapses != 0 || !got.LastReview.Equal(t0) {
			t.Errorf("%s: got state %s step %d due +%s reps %d lapses %d, want %s step %d due +%s reps 1",
				c.r, got.State, got.Step, got.Due.Sub(t0), got.Reps, got.Lapses, c.state, c.step, c.nextDue)
		}
	}
}

func TestGoodPathKnownValues(t *testing.T) {
	s := NewScheduler()
	c := s.Review(Card{}, Good, t0) // learning step 1, due in 10m
	now := t0.Add(10 * time.Minute)
	c = s.Review(c, Good, now) // same day: short-term stability; graduates
	near(t, "S after 2nd Good", c.Stability, 2.3065)
	near(t, "D after 2nd Good", c.Difficulty, 2.1112142357853942)
	if c.State != Review || !c.Due.Equal(now.Add(2*day)) {
		t.Fatalf("after 2nd Good: state %s due +%s, want review due +48h", c.State, c.Due.Sub(now))
	}
	now = c.Due
	near(t, "R at due", s.Retrievability(c, now), 0.9094932559773545)
	c = s.Review(c, Good, now)
	near(t, "S after 3rd Good", c.Stability, 10.971048263078137)
	near(t, "D after 3rd Good", c.Difficulty, 2.1043313908464474)
	if !c.Due.Equal(now.Add(11 * day)) {
		t.Fatalf("after 3rd Good: due +%s, want +11 days", c.Due.Sub(now))
	}
	now = c.Due
	lapse := s.Review(c, Again, now)
	c = s.Review(c, Good, now)
	near(t, "S after 4th Good", c.Stability, 46.31685844007345)
	near(t, "D after 4th Good", c.Difficulty, 2.0974554287524394)
	if !c.Due.Equal(now.Add(46*day)) || c.Reps != 4 {
		t.Fatalf("after 4th Good: due +%s reps %d, want +46 days, 4 reps", c.Due.Sub(now), c.Reps)
	}
	near(t, "S after lapse", lapse.Stability, 1.5390125302814703)
	near(t, "D after lapse", lapse.Difficulty, 7.389975788014609)
}

func TestMissedIsDueSoonerThanRight(t *testing.T) {
	s := NewScheduler()
	// A card in Review with some history, reviewed on its due date with each rating.
	c := s.Review(Card{}, Good, t0)
	c = s.Review(c, Good, t0.Add(10*time.Minute))
	c = s.Review(c, Good, c.Due)
	now := c.Due
	again, hard, good, easy := s.Review(c, Again, now), s.Review(c, Hard, now), s.Review(c, Good, now), s.Review(c, Easy, now)
	if !(again.Due.Before(hard.Due) && hard.Due.Before(good.Due) && good.Due.Before(easy.Due)) {
		t.Fatalf("due after Again %s, Hard %s, Good %s, Easy %s: want strictly increasing",
			again.Due.Sub(now), hard.Due.Sub(now), good.Due.Sub(now), easy.Due.Sub(now))
	}
	// And for a new card.
	n := [5]Card{}
	for r := Again; r <= Easy; r++ {
		n[r] = s.Review(Card{}, r, t0)
	}
	if !(n[Again].Due.Before(n[Hard].Due) && n[Hard].Due.Before(n[Good].Due) && n[Good].Due.Before(n[Easy].Due)) {
		t.Fatalf("new card due: Again %s, Hard %s, Good %s, Easy %s", n[Again].Due.Sub(t0), n[Hard].Due.Sub(t0), n[Good].Due.Sub(t0), n[Easy].Due.Sub(t0))
	}
	// Rate feeds the scheduler: a wrong answer is due before a right one.
	wrong := s.Review(c, Rate(false, 3*time.Second, 15*time.Second), now)
	right := s.Review(c, Rate(true, 30*time.Second, 15*time.Second), now)
	if !wrong.Due.Before(right.Due) {
		t.Fatalf("wrong answer due %s, right answer due %s", wrong.Due, right.Due)
	}
}

func TestStabilityGrowsWithSuccessiveGoods(t *testing.T) {
	s := NewScheduler()
	c := s.Review(Card{}, Good, t0)
	c = s.Review(c, Good, t0.Add(10*time.Minute))
	prevS, prevIvl := c.Stability, c.Due.Sub(c.LastReview)
	for i := 0; i < 8; i++ {
		c = s.Review(c, Good, c.Due)
		ivl := c.Due.Sub(c.LastReview)
		if c.Stability <= prevS || ivl <= prevIvl || c.State != Review {
			t.Fatalf("review %d: S %.3f (was %.3f), interval %s (was %s), state %s", i+3, c.Stability, prevS, ivl, prevIvl, c.State)
		}
		prevS, prevIvl = c.Stability, ivl
	}
	if c.Lapses != 0 || c.Reps != 10 {
		t.Fatalf("reps %d lapses %d, want 10 and 0", c.Reps, c.Lapses)
	}
}

func TestLapseMovesToRelearning(t *testing.T) {
	s := NewScheduler()
	c := s.Review(Card{}, Easy, t0) // graduates at once
	if c.State != Review {
		t.Fatalf("after Easy: %s", c.State)
	}
	now := c.Due
	l := s.Review(c, Again, now)
	if l.State != Relearning || l.Lapses != 1 || l.Step != 0 || !l.Due.Equal(now.Add(10*time.Minute)) || l.Stability >= c.Stability {
		t.Fatalf("after lapse: state %s lapses %d step %d due +%s S %.3f (was %.3f)", l.State, l.Lapses, l.Step, l.Due.Sub(now), l.Stability, c.Stability)
	}
	// Again in Relearning restarts the step without another lapse; Good graduates.
	l2 := s.Review(l, Again, now.Add(10*time.Minute))
	if l2.State != Relearning || l2.Lapses != 1 {
		t.Fatalf("Again while relearning: state %s lapses %d", l2.State, l2.Lapses)
	}
	g := s.Review(l2, Good, now.Add(20*time.Minute))
	if g.State != Review || g.Lapses != 1 || g.Due.Sub(now.Add(20*time.Minute)) < day {
		t.Fatalf("Good after relearning: state %s lapses %d due +%s", g.State, g.Lapses, g.Due.Sub(now.Add(20*time.Minute)))
	}
	// Learning cards never count lapses.
	a := s.Review(s.Review(Card{}, Again, t0), Again, t0.Add(time.Minute))
	if a.Lapses != 0 || a.State != Learning {
		t.Fatalf("Again while learning: lapses %d state %s", a.Lapses, a.State)
	}
}

func TestDeterministic(t *testing.T) {
	s := NewScheduler()
	seq := []Rating{Good, Again, Hard, Good, Easy, Again, Good, Good}
	run := func() Card {
		c, now := Card{}, t0
		for i, r := range seq {
			c = s.Review(c, r, now)
			now = c.Due.Add(time.Duration(i) * time.Hour)
		}
		return c
	}
	a, b := run(), run()
	if a != b {
		t.Fatalf("two runs differ:\n%+v\n%+v", a, b)
	}
	// Review does not modify its input.
	c := Card{}
	_ = s.Review(c, Good, t0)
	if c != (Card{}) {
		t.Fatalf("input card modified: %+v", c)
	}
}

func TestRetrievabilityCurve(t *testing.T) {
	s := NewScheduler()
	c := Card{Stability: 10, Difficulty: 5, State: Review, LastReview: t0}
	near(t, "R(0)", s.Retrievability(c, t0), 1)
	near(t, "R(S)", s.Retrievability(c, t0.Add(10*day)), 0.9) // R(S, S) = 0.9 by construction of factor
	if r20 := s.Retrievability(c, t0.Add(20*day)); r20 >= 0.9 || r20 <= 0 {
		t.Fatalf("R(2S) = %f", r20)
	}
	if s.Retrievability(Card{}, t0) != 0 {
		t.Fatal("a new card's R must be 0")
	}
	if got := s.Interval(10); got != 10 {
		t.Fatalf("Interval(10) at r=0.9 = %d, want 10", got)
	}
	if got := s.Interval(0.01); got != 1 {
		t.Fatalf("Interval(0.01) = %d, want the 1-day floor", got)
	}
}

func TestRate(t *testing.T) {
	fast := 15 * time.Second
	cases := []struct {
		correct bool
		elapsed time.Duration
		want    Rating
	}{
		{false, time.Second, Again},
		{false, time.Minute, Again},
		{true, 14 * time.Second, Easy},
		{true, 15 * time.Second, Good},
		{true, time.Minute, Good},
		{true, 0, Good}, // not measured
	}
	for _, c := range cases {
		if got := Rate(c.correct, c.elapsed, fast); got != c.want {
			t.Errorf("Rate(%v, %s) = %s, want %s", c.correct, c.elapsed, got, c.want)
		}
	}
}

func TestCardIDs(t *testing.T) {
	it := katas.Item{ID: "se-01", Title: "t", Stem: "Which?", Choose: 1, Options: []katas.Option{
		{ID: "a", Text: "one", Key: true, Rationale: "because"}, {ID: "b", Text: "two", Rationale: "no"},
	}}
	id := ItemCardID("k1", it)
	if len(id) != len("item:k1:se-01:")+12 || id[:len("item:k1:se-01:")] != "item:k1:se-01:" || KindOf(id) != KindItem {
		t.Fatalf("ItemCardID = %q", id)
	}
	if again := ItemCardID("k1", it); again != id {
		t.Fatalf("not stable: %q vs %q", again, id)
	}
	cosmetic := it
	cosmetic.Title, cosmetic.Options = "other title", []katas.Option{
		{ID: "a", Text: "one", Key: true, Rationale: "reworded"}, {ID: "b", Text: "two", Rationale: "no"},
	}
	if ItemCardID("k1", cosmetic) != id {
		t.Fatal("a rationale or title edit must keep the card")
	}
	for name, edit := range map[string]func(*katas.Item){
		"stem":   func(i *katas.Item) { i.Stem = "Which one?" },
		"option": func(i *katas.Item) { i.Options[1].Text = "three" },
		"key":    func(i *katas.Item) { i.Options[0].Key, i.Options[1].Key = false, true },
	} {
		e := it
		e.Options = append([]katas.Option(nil), it.Options...)
		edit(&e)
		if ItemCardID("k1", e) == id {
			t.Errorf("editing the %s kept the card id", name)
		}
	}
	tr := katas.Trap{Trap: "x", WhyItFails: "y", Correct: "z"}
	tid := TrapCardID("k1", "Errors", tr)
	if KindOf(tid) != KindTrap || len(tid) != len("trap:k1:")+12 {
		t.Fatalf("TrapCardID = %q", tid)
	}
	if TrapCardID("k1", "Errors", katas.Trap{Trap: "x", WhyItFails: "y", Correct: "z2"}) == tid ||
		TrapCardID("k1", "Other", tr) == tid || TrapCardID("k2", "Errors", tr) == tid {
		t.Fatal("trap ids must change with the row, the table and the kata")
	}
	// Length prefixes keep cell boundaries: moving text between cells changes the id.
	if TrapCardID("k1", "Errors", katas.Trap{Trap: "xy", WhyItFails: "", Correct: "z"}) == TrapCardID("k1", "Errors", katas.Trap{Trap: "x", WhyItFails: "y", Correct: "z"}) {
		t.Fatal("cell boundaries ignored")
	}
	if KindOf("bogus:1") != "" || KindOf("item") != "" {
		t.Fatal("KindOf accepted a bad id")
	}
}
