// Package srs schedules cards for spaced repetition with FSRS-6, the Free Spaced Repetition
// Scheduler, version 6.
//
// Source of the algorithm and of every default: the open-spaced-repetition project,
// "The Algorithm" (https://github.com/open-spaced-repetition/fsrs4anki/wiki/The-Algorithm,
// section FSRS-6) and its reference implementation py-fsrs v6
// (https://github.com/open-spaced-repetition/py-fsrs, fsrs/scheduler.py: DEFAULT_PARAMETERS,
// learning steps 1m and 10m, relearning step 10m, desired retention 0.9, maximum interval
// 36500 days). This is an independent Go implementation of those formulas; it follows
// py-fsrs's state machine (Learning → Review ⇄ Relearning) and its rounding (whole days
// elapsed, intervals rounded half to even, at least one day). Unlike py-fsrs it applies no
// interval fuzz, so a review is a pure function of (card, rating, time).
//
// The package does no I/O; internal/progress stores cards and review logs.
package srs

import (
	"fmt"
	"math"
	"time"
)

// Rating is the grade of one review, on FSRS's four-point scale.
type Rating int

// FSRS ratings. The app rates from the answer (see Rate), never by self-report.
const (
	Again Rating = 1 // forgot: the answer was wrong
	Hard  Rating = 2 // recalled with serious difficulty (not produced by Rate)
	Good  Rating = 3 // recalled
	Easy  Rating = 4 // recalled fast
)

// String returns the rating's FSRS name ("again", "hard", "good", "easy").
func (r Rating) String() string {
	switch r {
	case Again:
		return "again"
	case Hard:
		return "hard"
	case Good:
		return "good"
	case Easy:
		return "easy"
	}
	return fmt.Sprintf("rating(%d)", int(r))
}

// Valid reports whether r is one of Again, Hard, Good, Easy.
func (r Rating) Valid() bool { return r >= Again && r <= Easy }

// State is where a card is in its life cycle.
type State int

// Card states. New is a card never reviewed; py-fsrs starts such a card in Learning at step 0,
// and Review treats New exactly that way.
const (
	New        State = 0
	Learning   State = 1
	Review     State = 2
	Relearning State = 3
)

// String returns the state's name ("new", "learning", "review", "relearning").
func (s State) String() string {
	switch s {
	case New:
		return "new"
	case Learning:
		return "learning"
	case Review:
		return "review"
	case Relearning:
		return "relearning"
	}
	return fmt.Sprintf("state(%d)", int(s))
}

// Card is the scheduling state of one card. The zero Card is a new card.
type Card struct {
	// Due is when the card should next be reviewed.
	Due time.Time
	// Stability is S, the interval in days at which recall probability falls to 90%;
	// 0 for a new card, otherwise at least StabilityMin.
	Stability float64
	// Difficulty is D in [1, 10]; 0 for a new card.
	Difficulty float64
	// Reps counts reviews; Lapses counts reviews rated Again while in Review state.
	Reps, Lapses int
	// State is New, Learning, Review or Relearning.
	State State
	// Step is the index into the scheduler's learning steps (Learning) or relearning steps
	// (Relearning); 0 otherwise.
	Step int
	// LastReview is the time of the latest review; zero for a new card.
	LastReview time.Time
}

// StabilityMin is the floor on stability in days (py-fsrs STABILITY_MIN).
const StabilityMin = 0.001

// DefaultParameters are FSRS-6's 21 default weights w0…w20, as published in py-fsrs v6
// (fsrs/scheduler.py, DEFAULT_PARAMETERS): w0–w3 initial stability per rating (days), w4–w5
// initial difficulty, w6 difficulty step, w7 mean reversion, w8–w10 recall stability, w11–w14
// forget stability, w15 hard penalty, w16 easy bonus, w17–w19 same-day (short-term)
// stability, w20 the forgetting curve's decay.
var DefaultParameters = [21]float64{
	0.212, 1.2931, 2.3065, 8.2956, // w0..w3
	6.4133, 0.8334, // w4, w5
	3.0194, 0.001, // w6, w7
	1.8722, 0.1666, 0.796, // w8..w10
	1.4835, 0.0614, 0.2629, 1.6483, // w11..w14
	0.6014, 1.8729, // w15, w16
	0.5425, 0.0912, 0.0658, // w17..w19
	0.1542, // w20
}

// Scheduler computes FSRS-6 reviews. Its fields may be changed before use; NewScheduler
// returns the published defaults.
type Scheduler struct {
	// W are the 21 FSRS-6 weights w0…w20.
	W [21]float64
	// DesiredRetention is the recall probability at which a Review card falls due (0 < r < 1).
	DesiredRetention float64
	// LearningSteps are the delays between reviews of a card in Learning.
	LearningSteps []time.Duration
	// RelearningSteps are the delays between reviews of a card in Relearning.
	RelearningSteps []time.Duration
	// MaximumInterval caps a Review interval, in days.
	MaximumInterval int
}

// NewScheduler returns a scheduler with the published FSRS-6 defaults of py-fsrs v6:
// DefaultParameters, desired retention 0.9, learning steps 1m and 10m, relearning step 10m,
// maximum interval 36500 days (no fuzz).
func NewScheduler() *Scheduler {
	return &Scheduler{
		W:                DefaultParameters,
		DesiredRetention: 0.9,
		LearningSteps:    []time.Duration{time.Minute, 10 * time.Minute},
		RelearningSteps:  []time.Duration{10 * time.Minute},
		MaximumInterval:  36500,
	}
}

// decay is FSRS-6's curve exponent, −w20.
func (s *Scheduler) decay() float64 { return -s.W[20] }

// factor is 0.9^(1/decay) − 1, chosen so that R(S, S) = 0.9.
func (s *Scheduler) factor() float64 { return math.Pow(0.9, 1/s.decay()) - 1 }

// elapsedDays is the number of whole days from last to now, never negative (py-fsrs uses
// timedelta.days).
func elapsedDays(last, now time.Time) int {
	d := now.Sub(last)
	if d <= 0 {
		return 0
	}
	return int(d / (24 * time.Hour))
}

// Retrievability is the predicted probability in [0, 1] that the card is recalled at now:
// R(t, S) = (1 + factor·t/S)^(−w20) with t the whole days since the last review and
// factor = 0.9^(−1/w20) − 1 (FSRS-6 forgetting curve). A new card has R = 0.
func (s *Scheduler) Retrievability(c Card, now time.Time) float64 {
	if c.LastReview.IsZero() || c.Stability <= 0 {
		return 0
	}
	t := float64(elapsedDays(c.LastReview, now))
	return math.Pow(1+s.factor()*t/c.Stability, s.decay())
}

// Interval is the whole number of days after which a card of stability S (days) falls to the
// desired retention r: I = S/factor·(r^(1/decay) − 1), rounded half to even, at least 1 and at
// most MaximumInterval.
func (s *Scheduler) Interval(stability float64) int {
	i := stability / s.factor() * (math.Pow(s.DesiredRetention, 1/s.decay()) - 1)
	n := int(math.RoundToEven(i))
	if n < 1 {
		n = 1
	}
	if n > s.MaximumInterval {
		n = s.MaximumInterval
	}
	return n
}

func clampD(d float64) float64 { return min(max(d, 1), 10) }

func clampS(st float64) float64 { return max(st, StabilityMin) }

// initialStability is S0(G) = w[G−1].
func (s *Scheduler) initialStability(r Rating) float64 { return clampS(s.W[r-1]) }

// initialDifficulty is D0(G) = w4 − e^(w5·(G−1)) + 1, clamped to [1, 10] when clamp is set.
func (s *Scheduler) initialDifficulty(r Rating, clamp bool) float64 {
	d := s.W[4] - math.Exp(s.W[5]*float64(r-1)) + 1
	if clamp {
		d = clampD(d)
	}
	return d
}

// nextDifficulty applies ΔD = −w6·(G−3) with linear damping D′ = D + ΔD·(10−D)/9, then mean
// reversion towards D0(Easy): D″ = w7·D0(4) + (1−w7)·D′, clamped to [1, 10].
func (s *Scheduler) nextDifficulty(d float64, r Rating) float64 {
	delta := -s.W[6] * float64(r-3)
	damped := d + (10-d)*delta/9
	return clampD(s.W[7]*s.initialDifficulty(Easy, false) + (1-s.W[7])*damped)
}

// shortTermStability is the same-day update S′ = S·e^(w17·(G−3+w18))·S^(−w19), never
// decreasing on Good or Easy.
func (s *Scheduler) shortTermStability(st float64, r Rating) float64 {
	inc := math.Exp(s.W[17]*(float64(r)-3+s.W[18])) * math.Pow(st, -s.W[19])
	if r >= Good {
		inc = max(inc, 1)
	}
	return clampS(st * inc)
}

// recallStability is S′r = S·(1 + e^w8·(11−D)·S^(−w9)·(e^(w10·(1−R)) − 1)·hard·easy) with
// hard = w15 on Hard and easy = w16 on Easy (1 otherwise).
func (s *Scheduler) recallStability(d, st, rr float64, r Rating) float64 {
	hard, easy := 1.0, 1.0
	switch r {
	case Hard:
		hard = s.W[15]
	case Easy:
		easy = s.W[16]
	}
	return st * (1 + math.Exp(s.W[8])*(11-d)*math.Pow(st, -s.W[9])*(math.Exp((1-rr)*s.W[10])-1)*hard*easy)
}

// forgetStability is S′f = min(w11·D^(−w12)·((S+1)^w13 − 1)·e^(w14·(1−R)), S/e^(w17·w18)).
func (s *Scheduler) forgetStability(d, st, rr float64) float64 {
	long := s.W[11] * math.Pow(d, -s.W[12]) * (math.Pow(st+1, s.W[13]) - 1) * math.Exp((1-rr)*s.W[14])
	short := st / math.Exp(s.W[17]*s.W[18])
	return min(long, short)
}

// nextStability is the long-term update: forget stability on Again, recall stability
// otherwise, floored at StabilityMin.
func (s *Scheduler) nextStability(d, st, rr float64, r Rating) float64 {
	if r == Again {
		return clampS(s.forgetStability(d, st, rr))
	}
	return clampS(s.recallStability(d, st, rr, r))
}

// Review returns the card after a review rated r at now. It is pure and deterministic: the
// same (c, r, now) always gives the same card. Memory state follows FSRS-6: a new card takes
// S0 and D0; a review less than a whole day after the previous one uses the short-term
// stability formula; otherwise the recall or forget stability at the current
// retrievability. Scheduling follows py-fsrs v6: Learning and Relearning cards step through
// LearningSteps / RelearningSteps (Again restarts at step 0, Hard repeats the step — the mean
// of the first two steps at step 0 — Good advances, Easy graduates), a Review card rated
// Again lapses into Relearning (Lapses+1), and every other Review interval is Interval(S)
// days. An invalid rating is treated as Again.
func (s *Scheduler) Review(c Card, r Rating, now time.Time) Card {
	if !r.Valid() {
		r = Again
	}
	sameDay := !c.LastReview.IsZero() && elapsedDays(c.LastReview, now) < 1
	if c.State == New || c.Stability <= 0 || c.Difficulty <= 0 {
		c.State, c.Step = Learning, 0
		c.Stability, c.Difficulty = s.initialStability(r), s.initialDifficulty(r, true)
	} else {
		if sameDay {
			c.Stability = s.shortTermStability(c.Stability, r)
		} else {
			c.Stability = s.nextStability(c.Difficulty, c.Stability, s.Retrievability(c, now), r)
		}
		c.Difficulty = s.nextDifficulty(c.Difficulty, r)
	}
	c.Reps++

	var next time.Duration
	switch c.State {
	case Learning:
		next = s.step(&c, s.LearningSteps, r)
	case Relearning:
		next = s.step(&c, s.RelearningSteps, r)
	default: // Review
		if r == Again {
			c.Lapses++
			if len(s.RelearningSteps) > 0 {
				c.State, c.Step = Relearning, 0
				next = s.RelearningSteps[0]
				break
			}
		}
		next = s.days(c.Stability)
	}
	c.Due = now.Add(next)
	c.LastReview = now
	return c
}

// days is the Review interval for stability st as a duration.
func (s *Scheduler) days(st float64) time.Duration {
	return time.Duration(s.Interval(st)) * 24 * time.Hour
}

// step moves a (re)learning card through steps and returns the delay to its next review,
// graduating it to Review when the steps are done.
func (s *Scheduler) step(c *Card, steps []time.Duration, r Rating) time.Duration {
	graduate := func() time.Duration {
		c.State, c.Step = Review, 0
		return s.days(c.Stability)
	}
	if len(steps) == 0 || (c.Step >= len(steps) && r != Again) {
		return graduate()
	}
	switch r {
	case Again:
		c.Step = 0
		return steps[0]
	case Hard:
		switch {
		case c.Step == 0 && len(steps) == 1:
			return steps[0] * 3 / 2
		case c.Step == 0:
			return (steps[0] + steps[1]) / 2
		default:
			return steps[c.Step]
		}
	case Good:
		if c.Step+1 >= len(steps) {
			return graduate()
		}
		c.Step++
		return steps[c.Step]
	default: // Easy
		return graduate()
	}
}

// Rate turns an answer into a rating, so the learner never rates themselves: a wrong answer
// is Again; a right one is Easy when it took less than fast and Good otherwise. An elapsed
// time of zero or less means "not measured" and rates a right answer Good.
func Rate(correct bool, elapsed, fast time.Duration) Rating {
	switch {
	case !correct:
		return Again
	case elapsed > 0 && elapsed < fast:
		return Easy
	default:
		return Good
	}
}
