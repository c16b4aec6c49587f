package progress

import (
	"time"

	"github.com/kata-mcp/kata/katas/srs"
)

// FastAnswer is the elapsed time under which a right practice answer rates Easy
// (srs.Rate(correct, elapsed, FastAnswer)).
const FastAnswer = 15 * time.Second

// Answer is one answer to an exam item or trap drill question.
type Answer struct {
	// Kata is the packet id; ItemID the item id (or, for a trap drill, the row's id as the UI
	// names it); CardID the srs card id (srs.ItemCardID / srs.TrapCardID) whose prefix gives
	// the card's kind.
	Kata, ItemID, CardID string
	// Chosen are the option ids chosen ("a", "b", … stable ids, not shuffled positions).
	Chosen []string
	// Correct is whether exactly the keyed options were chosen.
	Correct bool
	// Elapsed is the time spent answering; 0 = not measured.
	Elapsed time.Duration
	// At is when the answer was given.
	At time.Time
}

// Attempt is one exam attempt.
type Attempt struct {
	// ID is the store's id, set by StartAttempt.
	ID int64
	// Katas are the packet ids the items were drawn from.
	Katas []string
	// Seed repeats the draw and the option shuffles.
	Seed int64
	// Items are refs "<kata>/<item id>" in exam order.
	Items []string
	// Limit is the time limit; 0 = untimed.
	Limit time.Duration
	// Started is when the attempt began; Finished when it was submitted (zero while open).
	Started  time.Time
	Finished time.Time
	// Points and Max are the raw score; Scaled the scaled score; Passed whether Scaled
	// reached the pass mark. Zero while open.
	Points, Max, Scaled int
	Passed              bool
}

// ExamAnswer is the saved state of one item of an open attempt.
type ExamAnswer struct {
	// Chosen are the option ids chosen so far (empty: none).
	Chosen []string
	// Flagged marks the item for review.
	Flagged bool
	// At is when it last changed.
	At time.Time
}

// Grade statuses (Exercism results.json v3, as grader.Report.Status).
const (
	GradePass  = "pass"
	GradeFail  = "fail"
	GradeError = "error"
)

// GradeRun is one `kata grade` run.
type GradeRun struct {
	// Kata is the packet id ("" when the workspace could not be identified); Workspace the
	// graded folder.
	Kata      string `json:"kata"`
	Workspace string `json:"workspace"`
	// Seed repeats the run's random draws.
	Seed int64 `json:"seed"`
	// Status is "pass", "fail" or "error".
	Status string `json:"status"`
	// Passed, Failed and Errored count tests by status.
	Passed  int `json:"passed"`
	Failed  int `json:"failed"`
	Errored int `json:"errored"`
	// Duration is the run's wall time.
	Duration time.Duration `json:"-"`
	// At is when the run finished.
	At time.Time `json:"at"`
	// Tests are the run's tests, for a workshop's board (not stored in grade_runs).
	Tests []GradeTest `json:"-"`
}

// GradeTest is one test of a grading run as a workshop's board sees it: never the learner's
// code or output.
type GradeTest struct {
	// ID is the test's stable id; Status "pass", "fail" or "error"; Step its task step.
	ID     string
	Status string
	Step   int
	// Rules are the ids of the rules it broke (docs/grading.md#rules).
	Rules []string
}

// DueCard is a scheduled card with what it belongs to.
type DueCard struct {
	// CardID is the srs card id; Kind "item" or "trap"; Kata the packet id; Ref what the card
	// shows ("<kata>/<item id>" for an item, as the caller named it for a trap).
	CardID, Kind, Kata, Ref string
	// Card is the scheduling state.
	Card srs.Card
}

// KataSummary is the progress of one kata, for the catalog.
type KataSummary struct {
	// LayersRead are the layers opened at least once, in katas.LayerNames order.
	LayersRead []string
	// BestScaled is the kata's best share of a finished exam attempt, on the exam's scale:
	// 100 + 900 × (its items answered right) / (its items in the attempt), rounded half up
	// (0 = no finished attempt had an item of the kata); BestAt when that attempt finished.
	BestScaled int
	BestAt     time.Time
	// LastGrade is the newest grading run of the kata, nil if none.
	LastGrade *GradeRun
	// Due counts the kata's cards due now.
	Due int
	// Answered counts the kata's recorded answers (practice and submitted exams, plus answers
	// saved in open attempts); Correct the right ones among the scored answers (open attempts
	// are not scored until submitted).
	Answered, Correct int
	// BestExam is the finished mock exam with an item of the kata whose scaled score is the
	// highest, as its result screen showed it; nil if none.
	BestExam *ExamScore
	// Language is the workspace language chosen for the kata ("" if none was chosen).
	Language string
}

// ExamScore is a finished mock exam's score as its result screen shows it: the scaled score
// and the raw score (Points of Max), and how many of the kata's own items it had (KataItems)
// and how many of those were right (KataRight).
type ExamScore struct {
	Scaled, Points, Max  int
	KataRight, KataItems int
	Finished             time.Time
}

// KataStats is one kata's line of Stats.
type KataStats struct {
	Kata string `json:"kata"`
	// LayersRead are the layers opened at least once, in katas.LayerNames order.
	LayersRead []string `json:"layers_read"`
	// Answered counts scored answers (practice, trap drills, submitted exams) plus answers
	// saved in open attempts; Correct the right ones among the scored; InProgress the answers
	// saved in open attempts (unscored until submitted).
	Answered   int `json:"answered"`
	Correct    int `json:"correct"`
	InProgress int `json:"in_progress"`
	// BestScaled is the kata's best share of a finished attempt on the 100–1000 scale (see
	// KataSummary.BestScaled), 0 = none.
	BestScaled int       `json:"best_scaled"`
	BestAt     time.Time `json:"best_at,omitzero"`
	// LastGrade is the newest grading run, nil if none.
	LastGrade *GradeRun `json:"last_grade"`
	// Cards counts scheduled cards; Due those due now.
	Cards int `json:"cards"`
	Due   int `json:"due"`
}

// Stats are the totals over the whole store, and per kata (sorted by kata id; only katas with
// some recorded progress appear).
type Stats struct {
	// Answered, Correct and InProgress are the sums of the per-kata figures.
	Answered   int `json:"answered"`
	Correct    int `json:"correct"`
	InProgress int `json:"in_progress"`
	// AttemptsFinished, AttemptsOpen and AttemptsAbandoned count exam attempts.
	AttemptsFinished  int `json:"attempts_finished"`
	AttemptsOpen      int `json:"attempts_open"`
	AttemptsAbandoned int `json:"attempts_abandoned"`
	// BestScaled is the best scaled score of any finished attempt (0 = none), BestAt when.
	BestScaled int       `json:"best_scaled"`
	BestAt     time.Time `json:"best_at,omitzero"`
	// GradeRuns counts grading runs; LastGrade is the newest of any kata (including runs whose
	// workspace named no kata), nil if none.
	GradeRuns int       `json:"grade_runs"`
	LastGrade *GradeRun `json:"last_grade"`
	// Cards counts scheduled cards, Due those due now, Reviews the review log's length.
	Cards   int `json:"cards"`
	Due     int `json:"due"`
	Reviews int `json:"reviews"`
	// Open is the newest open attempt with how many of its items have an answer, nil if none.
	Open *OpenStats `json:"open_attempt"`
	// Katas are the per-kata lines.
	Katas []KataStats `json:"katas"`
}

// OpenStats describes an open exam attempt.
type OpenStats struct {
	ID       int64     `json:"id"`
	Katas    []string  `json:"katas"`
	Started  time.Time `json:"started"`
	Items    int       `json:"items"`
	Answered int       `json:"answered"`
	Flagged  int       `json:"flagged"`
}
