// Package progress keeps the learner's progress in one SQLite file: layers read, item answers,
// exam attempts (answers saved as they are given), grading runs, and the spaced-repetition
// cards with their review log.
//
// The file is opened in WAL mode with a busy timeout and foreign keys on; every write is one
// transaction begun IMMEDIATE, so two app instances can write at once and a killed process
// loses at most the write in flight. The schema is versioned with PRAGMA user_version and an
// older file is migrated in order when opened. Times are stored as Unix nanoseconds (UTC).
package progress

import (
	"database/sql"
	"errors"
	"time"

	"github.com/kata-mcp/kata/katas/srs"

	_ "modernc.org/sqlite" // pure-Go SQLite driver, registered as "sqlite"
)

// errTodo marks the skeleton; replaced by the implementation.
var errTodo = errors.New("progress: not implemented yet")

// Store is an open progress file. Its methods are safe for concurrent use.
type Store struct {
	db    *sql.DB
	path  string
	sched *srs.Scheduler
}

// DefaultPath returns the progress file's path: $KATA_STATE when set (tests, tmux runs),
// otherwise $XDG_STATE_HOME/kata/progress.db (github.com/adrg/xdg; ~/.local/state on Linux).
func DefaultPath() (string, error) { return "", errTodo }

// Open opens (creating it and its folder if needed) the progress file at path, migrating an
// older schema. Errors name the path.
func Open(path string) (*Store, error) { return nil, errTodo }

// Close closes the file.
func (s *Store) Close() error { return nil }

// Path returns the file's path.
func (s *Store) Path() string { return s.path }

// LayerRead records that a kata's layer was opened at at.
func (s *Store) LayerRead(kata, layer string, at time.Time) error { return errTodo }

// RecordAnswer stores a practice answer (layer quiz, review, trap drill) and, in the same
// transaction, reviews its card rated srs.Rate(a.Correct, a.Elapsed, FastAnswer).
func (s *Store) RecordAnswer(a Answer) error { return errTodo }

// StartAttempt stores a new open exam attempt and returns its id.
func (s *Store) StartAttempt(a Attempt) (int64, error) { return 0, errTodo }

// OpenAttempt returns the newest unfinished, unabandoned attempt, nil if none.
func (s *Store) OpenAttempt() (*Attempt, error) { return nil, errTodo }

// SaveExamAnswer upserts one item's answer and flag in an open attempt, in one transaction;
// called on every change so a killed app keeps every earlier answer.
func (s *Store) SaveExamAnswer(attemptID int64, ref string, chosen []string, flagged bool, at time.Time) error {
	return errTodo
}

// ExamAnswers returns an attempt's saved answers by ref.
func (s *Store) ExamAnswers(attemptID int64) (map[string]ExamAnswer, error) { return nil, errTodo }

// FinishAttempt marks the attempt a.ID finished with a's score and, in the same transaction,
// stores each answer and reviews its card.
func (s *Store) FinishAttempt(a Attempt, answers []Answer) error { return errTodo }

// AbandonAttempt closes an open attempt without a score; its saved answers stay.
func (s *Store) AbandonAttempt(id int64) error { return errTodo }

// RecordGrade stores a grading run.
func (s *Store) RecordGrade(g GradeRun) error { return errTodo }

// Review reviews one card (created on first review) rated r at at, logs the review, and
// returns the new scheduling state.
func (s *Store) Review(cardID, kind, kata, ref string, r srs.Rating, at time.Time) (srs.Card, error) {
	return srs.Card{}, errTodo
}

// Due returns the cards due at now (Due <= now), most overdue first, of the given katas (all
// when empty).
func (s *Store) Due(now time.Time, katas []string) ([]DueCard, error) { return nil, errTodo }

// Cards returns every scheduled card of a kata by card id.
func (s *Store) Cards(kata string) (map[string]srs.Card, error) { return nil, errTodo }

// Summary returns one kata's progress at now.
func (s *Store) Summary(kata string, now time.Time) (KataSummary, error) {
	return KataSummary{}, errTodo
}

// Stats returns the store's totals and per-kata figures at now.
func (s *Store) Stats(now time.Time) (Stats, error) { return Stats{}, errTodo }
