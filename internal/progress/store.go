// Package progress keeps the learner's progress in one SQLite file: layers read, item answers,
// exam attempts (answers saved as they are given), grading runs, and the spaced-repetition
// cards with their review log.
//
// The file is opened through the pure-Go driver modernc.org/sqlite in WAL mode with a busy
// timeout and foreign keys on; every write is one transaction begun IMMEDIATE, so two app
// instances can write at once and a killed process loses at most the write in flight. The
// schema is versioned with PRAGMA user_version and an older file is migrated, in order, when
// opened (see migrations). Times are stored as Unix nanoseconds (UTC), durations as
// nanoseconds, option-id lists as JSON arrays.
package progress

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sync/atomic"
	"time"

	"github.com/adrg/xdg"

	"github.com/kata-mcp/kata/internal/sqldb"
	"github.com/kata-mcp/kata/katas/srs"
	"github.com/kata-mcp/kata/workshop"
)

// EnvPath names the environment variable that overrides the progress file's path.
const EnvPath = "KATA_STATE"

// BusyTimeout is how long a write waits for another connection's or process's write lock
// (sqldb.BusyTimeout, the same for every store of kata's).
const BusyTimeout = sqldb.BusyTimeout

// Store is an open progress file. Its methods are safe for concurrent use, and several Stores
// (in one or many processes) may share a file.
type Store struct {
	db    *sql.DB
	path  string
	sched *srs.Scheduler
	// onQueue is called after a write that may have queued a workshop event (OnQueue).
	onQueue atomic.Pointer[func()]
}

// DefaultPath returns the progress file's path: $KATA_STATE when set (tests, tmux runs),
// otherwise $XDG_STATE_HOME/kata/progress.db (github.com/adrg/xdg; ~/.local/state/kata/progress.db
// on Linux when XDG_STATE_HOME is unset).
func DefaultPath() (string, error) {
	if p := os.Getenv(EnvPath); p != "" {
		return p, nil
	}
	if xdg.StateHome == "" {
		return "", fmt.Errorf("no state directory: set %s or XDG_STATE_HOME", EnvPath)
	}
	return filepath.Join(xdg.StateHome, "kata", "progress.db"), nil
}

// Open opens (creating it and its folder if needed) the progress file at path and migrates an
// older schema to the current one. A file written by a newer kata (higher schema version) is
// refused untouched. Errors name the path.
func Open(path string) (*Store, error) {
	if path == "" {
		return nil, errors.New("progress store: empty path")
	}
	if dir := filepath.Dir(path); dir != "" {
		if err := os.MkdirAll(dir, 0o700); err != nil {
			return nil, fmt.Errorf("progress store %s: %w", path, err)
		}
	}
	if fi, err := os.Stat(path); err == nil && fi.IsDir() {
		return nil, fmt.Errorf("progress store %s: is a folder; the store is one file (set %s to a file path such as %s)", path, EnvPath, filepath.Join(path, "progress.db"))
	}
	if err := writable(path); err != nil {
		return nil, fmt.Errorf("progress store %s: %w", path, err)
	}
	db, err := sqldb.OpenSQLite(path)
	if err != nil {
		return nil, fmt.Errorf("progress store %s: %w", path, err)
	}
	s := &Store{db: db, path: path, sched: srs.NewScheduler()}
	if err := migrate(db); err != nil {
		db.Close()
		return nil, fmt.Errorf("progress store %s: %w", path, err)
	}
	return s, nil
}

// writable checks that the store at path can be written: the file, when it exists, and its
// folder, where SQLite's write-ahead log and shared-memory files are created beside it. The
// error names the folder or file that is read-only, and how to move the store.
func writable(path string) error {
	dir := filepath.Dir(path)
	probe, err := os.CreateTemp(dir, ".kata-write-check-*")
	if err != nil {
		return fmt.Errorf("the folder %s is not writable (%v): the store and its journal live there; make it writable or set %s to a file in a writable folder", dir, unwrapPath(err), EnvPath)
	}
	probe.Close()
	os.Remove(probe.Name())
	if f, err := os.OpenFile(path, os.O_WRONLY, 0); err == nil {
		f.Close()
	} else if !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("the file is not writable (%v): make it writable or set %s to another file", unwrapPath(err), EnvPath)
	}
	return nil
}

// unwrapPath drops an *fs.PathError's operation and path, which the message names already.
func unwrapPath(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// Close closes the file.
func (s *Store) Close() error { return s.db.Close() }

// Path returns the file's path.
func (s *Store) Path() string { return s.path }

// Scheduler returns the FSRS scheduler the store reviews cards with (srs.NewScheduler).
func (s *Store) Scheduler() *srs.Scheduler { return s.sched }

// write runs fn in one IMMEDIATE transaction; what names the operation in errors.
func (s *Store) write(what string, fn func(tx *sql.Tx) error) error {
	tx, err := s.db.Begin()
	if err != nil {
		return fmt.Errorf("progress store %s: %s: %w", s.path, what, err)
	}
	if err := fn(tx); err != nil {
		tx.Rollback()
		return fmt.Errorf("progress store %s: %s: %w", s.path, what, err)
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("progress store %s: %s: %w", s.path, what, err)
	}
	return nil
}

// read runs fn in one read transaction, so it sees a single snapshot.
func (s *Store) read(what string, fn func(tx *sql.Tx) error) error {
	tx, err := s.db.BeginTx(context.Background(), &sql.TxOptions{ReadOnly: true})
	if err != nil {
		return fmt.Errorf("progress store %s: %s: %w", s.path, what, err)
	}
	defer tx.Rollback()
	if err := fn(tx); err != nil {
		return fmt.Errorf("progress store %s: %s: %w", s.path, what, err)
	}
	return nil
}

// orNow is t, or the current time when t is zero.
func orNow(t time.Time) time.Time {
	if t.IsZero() {
		return time.Now()
	}
	return t
}

// jsonList encodes a string list as a JSON array ("[]" for none).
func jsonList(v []string) string {
	if len(v) == 0 {
		return "[]"
	}
	b, _ := json.Marshal(v)
	return string(b)
}

// parseList decodes a JSON array written by jsonList; field names the column in errors.
func parseList(field, s string) ([]string, error) {
	var v []string
	if err := json.Unmarshal([]byte(s), &v); err != nil {
		return nil, fmt.Errorf("column %s: %w", field, err)
	}
	return v, nil
}

// LayerRead records that a kata's layer was opened at at (first and latest time, and a count).
func (s *Store) LayerRead(kata, layer string, at time.Time) error {
	if kata == "" || layer == "" {
		return fmt.Errorf("progress store %s: layer read: kata %q and layer %q must both be set", s.path, kata, layer)
	}
	t := sqldb.NS(orNow(at))
	return s.queueing(s.write("recording a layer read", func(tx *sql.Tx) error {
		if _, err := tx.Exec(`INSERT INTO layer_reads(kata, layer, first_at, last_at, reads) VALUES(?, ?, ?, ?, 1)
			ON CONFLICT(kata, layer) DO UPDATE SET last_at = max(last_at, excluded.last_at), reads = reads + 1`,
			kata, layer, t, t); err != nil {
			return err
		}
		_, err := enqueueTx(tx, workshop.Event{Kind: workshop.KindLayer, Kata: kata, Layer: layer, At: sqldb.FromNS(t)})
		return err
	}))
}

// queueing passes err on, first waking the workshop sender (OnQueue) when the write that
// returned it succeeded: it may have queued an event.
func (s *Store) queueing(err error) error {
	if err == nil {
		s.notifyQueued()
	}
	return err
}

// checkAnswer validates an answer's identifying fields and returns its card kind.
func checkAnswer(a Answer) (string, error) {
	if a.Kata == "" || a.ItemID == "" {
		return "", fmt.Errorf("answer: kata %q and item id %q must both be set", a.Kata, a.ItemID)
	}
	kind := srs.KindOf(a.CardID)
	if kind == "" {
		return "", fmt.Errorf("answer to %s/%s: card id %q does not start with \"item:\" or \"trap:\"", a.Kata, a.ItemID, a.CardID)
	}
	return kind, nil
}

// insertAnswer stores a and reviews its card, inside tx; attempt is 0 for a practice answer.
func (s *Store) insertAnswer(tx *sql.Tx, a Answer, kind string, attempt int64) error {
	at := orNow(a.At)
	var att any
	if attempt != 0 {
		att = attempt
	}
	if _, err := tx.Exec(`INSERT INTO answers(kata, item_id, card_id, chosen, correct, elapsed_ns, at, attempt_id)
		VALUES(?, ?, ?, ?, ?, ?, ?, ?)`,
		a.Kata, a.ItemID, a.CardID, jsonList(a.Chosen), a.Correct, int64(a.Elapsed), sqldb.NS(at), att); err != nil {
		return err
	}
	_, err := s.reviewTx(tx, a.CardID, kind, a.Kata, a.Kata+"/"+a.ItemID, srs.Rate(a.Correct, a.Elapsed, FastAnswer), at)
	return err
}

// RecordAnswer stores a practice answer (layer quiz, review, trap drill) and, in the same
// transaction, reviews its card rated srs.Rate(a.Correct, a.Elapsed, FastAnswer); the card's
// kind comes from the card id's prefix and its ref is "<kata>/<item id>". A zero a.At means
// now. Errors name the field at fault.
func (s *Store) RecordAnswer(a Answer) error {
	kind, err := checkAnswer(a)
	if err != nil {
		return fmt.Errorf("progress store %s: %w", s.path, err)
	}
	return s.queueing(s.write("recording an answer", func(tx *sql.Tx) error {
		if err := s.insertAnswer(tx, a, kind, 0); err != nil {
			return err
		}
		_, err := enqueueTx(tx, answerEvent(a, workshop.SourcePractice, ""))
		return err
	}))
}

// StartAttempt stores a new open exam attempt and returns its id (a.ID is ignored; a zero
// a.Started means now).
func (s *Store) StartAttempt(a Attempt) (int64, error) {
	var id int64
	err := s.write("starting an exam attempt", func(tx *sql.Tx) error {
		res, err := tx.Exec(`INSERT INTO attempts(katas, seed, items, limit_ns, started_at) VALUES(?, ?, ?, ?, ?)`,
			jsonList(a.Katas), a.Seed, jsonList(a.Items), int64(a.Limit), sqldb.NS(orNow(a.Started)))
		if err != nil {
			return err
		}
		id, err = res.LastInsertId()
		return err
	})
	return id, err
}

// attemptCols are the attempts columns scanAttempt reads, in order.
const attemptCols = `id, katas, seed, items, limit_ns, started_at, coalesce(finished_at, 0), points, max, scaled, passed`

// scanAttempt reads one row of attemptCols.
func scanAttempt(row interface{ Scan(...any) error }) (*Attempt, error) {
	var (
		a                        Attempt
		ks, items                string
		limit, started, finished int64
	)
	if err := row.Scan(&a.ID, &ks, &a.Seed, &items, &limit, &started, &finished, &a.Points, &a.Max, &a.Scaled, &a.Passed); err != nil {
		return nil, err
	}
	var err error
	if a.Katas, err = parseList("attempts.katas", ks); err != nil {
		return nil, err
	}
	if a.Items, err = parseList("attempts.items", items); err != nil {
		return nil, err
	}
	a.Limit, a.Started, a.Finished = time.Duration(limit), sqldb.FromNS(started), sqldb.FromNS(finished)
	return &a, nil
}

// openWhere selects attempts neither finished nor abandoned.
const openWhere = `finished_at IS NULL AND abandoned_at IS NULL`

// newestOpen selects the newest open attempt's attemptCols.
const newestOpen = `SELECT ` + attemptCols + ` FROM attempts WHERE ` + openWhere + ` ORDER BY started_at DESC, id DESC LIMIT 1`

// OpenAttempt returns the newest attempt neither finished nor abandoned, nil if none.
func (s *Store) OpenAttempt() (*Attempt, error) {
	var a *Attempt
	err := s.read("finding the open exam attempt", func(tx *sql.Tx) error {
		var err error
		a, err = scanAttempt(tx.QueryRow(newestOpen))
		if errors.Is(err, sql.ErrNoRows) {
			a, err = nil, nil
		}
		return err
	})
	return a, err
}

// checkOpen fails unless attempt id exists and is neither finished nor abandoned.
func checkOpen(tx *sql.Tx, id int64) error {
	var finished, abandoned sql.NullInt64
	err := tx.QueryRow(`SELECT finished_at, abandoned_at FROM attempts WHERE id = ?`, id).Scan(&finished, &abandoned)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		return fmt.Errorf("no exam attempt %d", id)
	case err != nil:
		return err
	case finished.Valid:
		return fmt.Errorf("exam attempt %d is already submitted", id)
	case abandoned.Valid:
		return fmt.Errorf("exam attempt %d was abandoned", id)
	}
	return nil
}

// SaveExamAnswer upserts one item's chosen option ids and flag in an open attempt, in one
// transaction; the UI calls it on every change, so a killed app keeps every earlier answer.
// An empty chosen list records "no answer yet" (the flag still counts). A zero at means now.
func (s *Store) SaveExamAnswer(attemptID int64, ref string, chosen []string, flagged bool, at time.Time) error {
	if ref == "" {
		return fmt.Errorf("progress store %s: saving an exam answer: empty item ref", s.path)
	}
	return s.write(fmt.Sprintf("saving the answer to %s", ref), func(tx *sql.Tx) error {
		if err := checkOpen(tx, attemptID); err != nil {
			return err
		}
		_, err := tx.Exec(`INSERT INTO exam_answers(attempt_id, ref, chosen, flagged, at) VALUES(?, ?, ?, ?, ?)
			ON CONFLICT(attempt_id, ref) DO UPDATE SET chosen = excluded.chosen, flagged = excluded.flagged, at = excluded.at`,
			attemptID, ref, jsonList(chosen), flagged, sqldb.NS(orNow(at)))
		return err
	})
}

// ExamAnswers returns an attempt's saved answers by item ref (empty map when none).
func (s *Store) ExamAnswers(attemptID int64) (map[string]ExamAnswer, error) {
	out := map[string]ExamAnswer{}
	err := s.read("reading exam answers", func(tx *sql.Tx) error {
		rows, err := tx.Query(`SELECT ref, chosen, flagged, at FROM exam_answers WHERE attempt_id = ?`, attemptID)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var (
				ref, chosen string
				ea          ExamAnswer
				at          int64
			)
			if err := rows.Scan(&ref, &chosen, &ea.Flagged, &at); err != nil {
				return err
			}
			if ea.Chosen, err = parseList("exam_answers.chosen", chosen); err != nil {
				return err
			}
			ea.At = sqldb.FromNS(at)
			out[ref] = ea
		}
		return rows.Err()
	})
	return out, err
}

// FinishAttempt, in one transaction, marks attempt a.ID submitted with a's score (a zero
// a.Finished means now) and stores each answer and reviews its card as RecordAnswer does.
// Answers with no chosen option are unanswered: neither stored nor reviewed. It fails,
// changing nothing, when the attempt is unknown, already submitted or abandoned, or an answer
// lacks its kata, item id or card id.
func (s *Store) FinishAttempt(a Attempt, answers []Answer) error {
	kinds := make([]string, len(answers))
	for i, an := range answers {
		k, err := checkAnswer(an)
		if err != nil {
			return fmt.Errorf("progress store %s: submitting exam attempt %d: %w", s.path, a.ID, err)
		}
		kinds[i] = k
	}
	return s.queueing(s.write(fmt.Sprintf("submitting exam attempt %d", a.ID), func(tx *sql.Tx) error {
		if err := checkOpen(tx, a.ID); err != nil {
			return err
		}
		if _, err := tx.Exec(`UPDATE attempts SET finished_at = ?, points = ?, max = ?, scaled = ?, passed = ? WHERE id = ?`,
			sqldb.NS(orNow(a.Finished)), a.Points, a.Max, a.Scaled, a.Passed, a.ID); err != nil {
			return err
		}
		for i, an := range answers {
			if len(an.Chosen) == 0 {
				continue
			}
			if err := s.insertAnswer(tx, an, kinds[i], a.ID); err != nil {
				return err
			}
		}
		_, err := enqueueTx(tx, examEvents(a, answers)...)
		return err
	}))
}

// AbandonAttempt closes an open attempt without a score; its saved answers stay in the file
// but no longer count as in progress.
func (s *Store) AbandonAttempt(id int64) error {
	return s.write(fmt.Sprintf("abandoning exam attempt %d", id), func(tx *sql.Tx) error {
		if err := checkOpen(tx, id); err != nil {
			return err
		}
		_, err := tx.Exec(`UPDATE attempts SET abandoned_at = ? WHERE id = ?`, sqldb.NS(time.Now()), id)
		return err
	})
}

// RecordGrade stores a grading run. Status must be "pass", "fail" or "error"; a zero g.At
// means now.
func (s *Store) RecordGrade(g GradeRun) error {
	switch g.Status {
	case GradePass, GradeFail, GradeError:
	default:
		return fmt.Errorf("progress store %s: grading run: status %q is not pass, fail or error", s.path, g.Status)
	}
	return s.queueing(s.write("recording a grading run", func(tx *sql.Tx) error {
		if _, err := tx.Exec(`INSERT INTO grade_runs(kata, workspace, seed, status, passed, failed, errored, duration_ns, at)
			VALUES(?, ?, ?, ?, ?, ?, ?, ?, ?)`,
			g.Kata, g.Workspace, g.Seed, g.Status, g.Passed, g.Failed, g.Errored, int64(g.Duration), sqldb.NS(orNow(g.At))); err != nil {
			return err
		}
		if g.Kata == "" {
			return nil
		}
		_, err := enqueueTx(tx, verdictEvent(g))
		return err
	}))
}

// cardCols are the cards columns scanCard reads, in order.
const cardCols = `due, stability, difficulty, reps, lapses, state, step, last_review`

// scanCard reads cardCols after any leading destinations.
func scanCard(row interface{ Scan(...any) error }, lead ...any) (srs.Card, error) {
	var (
		c             srs.Card
		due, last     int64
		state, reps   int
		lapses, stepN int
	)
	if err := row.Scan(append(lead, &due, &c.Stability, &c.Difficulty, &reps, &lapses, &state, &stepN, &last)...); err != nil {
		return c, err
	}
	c.Due, c.LastReview, c.Reps, c.Lapses, c.State, c.Step = sqldb.FromNS(due), sqldb.FromNS(last), reps, lapses, srs.State(state), stepN
	return c, nil
}

// reviewTx reviews one card inside tx: loads it (a new card if absent), applies the
// scheduler, upserts it and appends to the review log.
func (s *Store) reviewTx(tx *sql.Tx, cardID, kind, kata, ref string, r srs.Rating, at time.Time) (srs.Card, error) {
	c, err := scanCard(tx.QueryRow(`SELECT `+cardCols+` FROM cards WHERE card_id = ?`, cardID))
	if err != nil && !errors.Is(err, sql.ErrNoRows) {
		return c, err
	}
	c = s.sched.Review(c, r, at)
	if _, err := tx.Exec(`INSERT INTO cards(card_id, kind, kata, ref, `+cardCols+`) VALUES(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
		ON CONFLICT(card_id) DO UPDATE SET kind = excluded.kind, kata = excluded.kata, ref = excluded.ref,
			due = excluded.due, stability = excluded.stability, difficulty = excluded.difficulty, reps = excluded.reps,
			lapses = excluded.lapses, state = excluded.state, step = excluded.step, last_review = excluded.last_review`,
		cardID, kind, kata, ref, sqldb.NS(c.Due), c.Stability, c.Difficulty, c.Reps, c.Lapses, int(c.State), c.Step, sqldb.NS(c.LastReview)); err != nil {
		return c, err
	}
	_, err = tx.Exec(`INSERT INTO reviews(card_id, rating, at, state, due, stability, difficulty) VALUES(?, ?, ?, ?, ?, ?, ?)`,
		cardID, int(r), sqldb.NS(at), int(c.State), sqldb.NS(c.Due), c.Stability, c.Difficulty)
	return c, err
}

// Review reviews one card rated r at at (a zero at means now) — creating it on its first
// review — logs the review, and returns the card's new scheduling state. kind must be "item"
// or "trap"; ref is what the card shows ("<kata>/<item id>" for an item).
func (s *Store) Review(cardID, kind, kata, ref string, r srs.Rating, at time.Time) (srs.Card, error) {
	switch {
	case cardID == "" || kata == "":
		return srs.Card{}, fmt.Errorf("progress store %s: review: card id %q and kata %q must both be set", s.path, cardID, kata)
	case kind != srs.KindItem && kind != srs.KindTrap:
		return srs.Card{}, fmt.Errorf("progress store %s: review of %s: kind %q is not item or trap", s.path, cardID, kind)
	case !r.Valid():
		return srs.Card{}, fmt.Errorf("progress store %s: review of %s: rating %d is not 1–4", s.path, cardID, int(r))
	}
	var c srs.Card
	err := s.write("reviewing "+cardID, func(tx *sql.Tx) error {
		var err error
		c, err = s.reviewTx(tx, cardID, kind, kata, ref, r, orNow(at))
		return err
	})
	return c, err
}

// Due returns the cards due at now (Due <= now) of the given katas (all katas when none are
// given), most overdue first.
func (s *Store) Due(now time.Time, katas []string) ([]DueCard, error) {
	var out []DueCard
	err := s.read("listing due cards", func(tx *sql.Tx) error {
		rows, err := tx.Query(`SELECT card_id, kind, kata, ref, `+cardCols+` FROM cards
			WHERE due <= ? AND (? = '[]' OR kata IN (SELECT value FROM json_each(?)))
			ORDER BY due, card_id`, sqldb.NS(now), jsonList(katas), jsonList(katas))
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var d DueCard
			if d.Card, err = scanCard(rows, &d.CardID, &d.Kind, &d.Kata, &d.Ref); err != nil {
				return err
			}
			out = append(out, d)
		}
		return rows.Err()
	})
	return out, err
}

// Cards returns every scheduled (reviewed at least once) card of a kata by card id.
func (s *Store) Cards(kata string) (map[string]srs.Card, error) {
	out := map[string]srs.Card{}
	err := s.read("listing cards", func(tx *sql.Tx) error {
		rows, err := tx.Query(`SELECT card_id, `+cardCols+` FROM cards WHERE kata = ?`, kata)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var id string
			c, err := scanCard(rows, &id)
			if err != nil {
				return err
			}
			out[id] = c
		}
		return rows.Err()
	})
	return out, err
}
