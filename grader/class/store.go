package class

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/kata-mcp/kata/grader"
	"github.com/kata-mcp/kata/internal/sqldb"
)

// StoreFile is the class results store's file name in the report folder.
const StoreFile = "results.db"

// storeMigrations[i] takes the class results store from schema version i to i+1 (PRAGMA
// user_version), as sqldb.Migrate runs them. Append only. Times are Unix nanoseconds UTC,
// durations nanoseconds; report is the grader's JSON report (docs/grading.md#json-report).
var storeMigrations = []string{
	// v1: the class's settings, and one result per learner folder.
	`CREATE TABLE meta (
		key   TEXT PRIMARY KEY,
		value TEXT NOT NULL
	);
	CREATE TABLE results (
		dir         TEXT PRIMARY KEY,
		name        TEXT NOT NULL,
		hash        TEXT NOT NULL,
		seed        INTEGER NOT NULL,
		kata        TEXT NOT NULL,
		status      TEXT NOT NULL,
		points      REAL NOT NULL,
		max_points  REAL NOT NULL,
		report      TEXT NOT NULL,
		duration_ns INTEGER NOT NULL,
		graded_at   INTEGER NOT NULL
	);`,
}

// Store is a class results store: one SQLite file (same driver and settings as the progress
// store: WAL, synchronous commits, IMMEDIATE writes) holding the class's seed, the key of its
// pseudonyms, and each learner's latest result. Every Save is one committed transaction, so a
// batch killed with SIGKILL keeps every result saved before the kill. Safe for concurrent use.
type Store struct {
	db   *sql.DB
	path string
}

// OpenStore opens (creating it and its folder) the class results store at path. It holds every
// learner's points and the seed: a new folder is created 0700 and a new store 0600, like
// kata's own state (SQLite gives its journal files the store's permissions).
func OpenStore(path string) (*Store, error) {
	db, err := sqldb.OpenSQLite(path)
	if err != nil {
		return nil, fmt.Errorf("class results store %s: %w", path, err)
	}
	if err := sqldb.Migrate(context.Background(), db, sqldb.Schema{Dialect: sqldb.SQLite, VersionAt: sqldb.UserVersion, Migrations: storeMigrations}); err != nil {
		db.Close()
		return nil, fmt.Errorf("class results store %s: %w", path, err)
	}
	return &Store{db: db, path: path}, nil
}

// Close closes the file.
func (s *Store) Close() error { return s.db.Close() }

// meta reads a setting; ok is false when it was never set.
func (s *Store) meta(key string) (value string, ok bool, err error) {
	err = s.db.QueryRow(`SELECT value FROM meta WHERE key = ?`, key).Scan(&value)
	if errors.Is(err, sql.ErrNoRows) {
		return "", false, nil
	}
	if err != nil {
		return "", false, fmt.Errorf("class results store %s: %w", s.path, err)
	}
	return value, true, nil
}

// setMeta writes a setting.
func (s *Store) setMeta(key, value string) error {
	if _, err := s.db.Exec(`INSERT INTO meta(key, value) VALUES(?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value`, key, value); err != nil {
		return fmt.Errorf("class results store %s: %w", s.path, err)
	}
	return nil
}

// Seed returns the class's seed, and whether one was set.
func (s *Store) Seed() (int64, bool, error) {
	v, ok, err := s.meta("seed")
	if err != nil || !ok {
		return 0, false, err
	}
	seed, err := strconv.ParseInt(v, 10, 64)
	if err != nil {
		return 0, false, fmt.Errorf("class results store %s: seed %q: %w", s.path, v, err)
	}
	return seed, true, nil
}

// SetSeed makes seed the class's seed.
func (s *Store) SetSeed(seed int64) error { return s.setMeta("seed", strconv.FormatInt(seed, 10)) }

// PseudonymKey returns the class's key for pseudonyms (Pseudonym), drawing and saving one the
// first time, so a learner keeps one pseudonym over every run of the class.
func (s *Store) PseudonymKey() ([]byte, error) {
	v, ok, err := s.meta("pseudonym_key")
	if err != nil {
		return nil, err
	}
	if !ok {
		b := make([]byte, 32)
		rand.Read(b)
		v = hex.EncodeToString(b)
		if _, err := s.db.Exec(`INSERT INTO meta(key, value) VALUES('pseudonym_key', ?) ON CONFLICT(key) DO NOTHING`, v); err != nil {
			return nil, fmt.Errorf("class results store %s: %w", s.path, err)
		}
		if v, _, err = s.meta("pseudonym_key"); err != nil { // another process may have won
			return nil, err
		}
	}
	return hex.DecodeString(v)
}

// Stored is a learner's saved result: the folder's hash and the seed it was graded with, when,
// and the grader's report.
type Stored struct {
	Learner
	Hash     string
	Seed     int64
	Report   *grader.Report
	Duration time.Duration
	GradedAt time.Time
}

// Save writes the learner's result, replacing an earlier one, in one committed transaction.
func (s *Store) Save(r Stored) error {
	rep, err := json.Marshal(r.Report)
	if err != nil {
		return fmt.Errorf("class results store %s: %w", s.path, err)
	}
	_, err = s.db.Exec(`INSERT INTO results(dir, name, hash, seed, kata, status, points, max_points, report, duration_ns, graded_at)
		VALUES(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
		ON CONFLICT(dir) DO UPDATE SET name = excluded.name, hash = excluded.hash, seed = excluded.seed, kata = excluded.kata,
			status = excluded.status, points = excluded.points, max_points = excluded.max_points, report = excluded.report,
			duration_ns = excluded.duration_ns, graded_at = excluded.graded_at`,
		r.Dir, r.Name, r.Hash, r.Seed, r.Report.Kata, r.Report.Status, r.Report.Points, r.Report.MaxPoints, string(rep),
		r.Duration.Nanoseconds(), sqldb.NS(r.GradedAt))
	if err != nil {
		return fmt.Errorf("class results store %s: saving %s: %w", s.path, r.Name, err)
	}
	return nil
}

// Result returns the saved result of the learner folder dir, or nil when there is none.
func (s *Store) Result(dir string) (*Stored, error) {
	var r Stored
	var rep string
	var dur, at int64
	err := s.db.QueryRow(`SELECT dir, name, hash, seed, report, duration_ns, graded_at FROM results WHERE dir = ?`, dir).
		Scan(&r.Dir, &r.Name, &r.Hash, &r.Seed, &rep, &dur, &at)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("class results store %s: %w", s.path, err)
	}
	r.Report = &grader.Report{}
	if err := json.Unmarshal([]byte(rep), r.Report); err != nil {
		return nil, fmt.Errorf("class results store %s: the result of %s: %w", s.path, r.Name, err)
	}
	r.Duration, r.GradedAt = time.Duration(dur), sqldb.FromNS(at)
	return &r, nil
}

// Count returns how many learner results the store holds.
func (s *Store) Count() (int, error) {
	var n int
	if err := s.db.QueryRow(`SELECT count(*) FROM results`).Scan(&n); err != nil {
		return 0, fmt.Errorf("class results store %s: %w", s.path, err)
	}
	return n, nil
}

// Results returns every learner result the store holds, by learner name.
func (s *Store) Results() ([]Stored, error) {
	rows, err := s.db.Query(`SELECT dir, name, hash, seed, report, duration_ns, graded_at FROM results ORDER BY name`)
	if err != nil {
		return nil, fmt.Errorf("class results store %s: %w", s.path, err)
	}
	defer rows.Close()
	var out []Stored
	for rows.Next() {
		var r Stored
		var rep string
		var dur, at int64
		if err := rows.Scan(&r.Dir, &r.Name, &r.Hash, &r.Seed, &rep, &dur, &at); err != nil {
			return nil, fmt.Errorf("class results store %s: %w", s.path, err)
		}
		r.Report = &grader.Report{}
		if err := json.Unmarshal([]byte(rep), r.Report); err != nil {
			return nil, fmt.Errorf("class results store %s: the result of %s: %w", s.path, r.Name, err)
		}
		r.Duration, r.GradedAt = time.Duration(dur), sqldb.FromNS(at)
		out = append(out, r)
	}
	return out, rows.Err()
}
