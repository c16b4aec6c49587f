package progress

import (
	"context"
	"database/sql"

	"github.com/kata-mcp/kata/internal/sqldb"
)

// migrations[i] takes the schema from version i to version i+1 (PRAGMA user_version). They
// run in order, all in one IMMEDIATE transaction, so a file is never left half-migrated and
// two processes opening a fresh file do not both migrate it. Append only: never edit a
// migration that has shipped.
//
// Time columns (*_at, due, last_review) hold Unix nanoseconds UTC; *_ns columns durations in
// nanoseconds; katas, items and chosen JSON arrays of strings.
var migrations = []string{
	// v1: the first schema.
	`CREATE TABLE layer_reads (
		kata     TEXT NOT NULL,
		layer    TEXT NOT NULL,
		first_at INTEGER NOT NULL,
		last_at  INTEGER NOT NULL,
		reads    INTEGER NOT NULL DEFAULT 1,
		PRIMARY KEY (kata, layer)
	);
	CREATE TABLE attempts (
		id           INTEGER PRIMARY KEY,
		katas        TEXT NOT NULL,
		seed         INTEGER NOT NULL,
		items        TEXT NOT NULL,
		limit_ns     INTEGER NOT NULL DEFAULT 0,
		started_at   INTEGER NOT NULL,
		finished_at  INTEGER,
		abandoned_at INTEGER,
		points       INTEGER NOT NULL DEFAULT 0,
		max          INTEGER NOT NULL DEFAULT 0,
		scaled       INTEGER NOT NULL DEFAULT 0,
		passed       INTEGER NOT NULL DEFAULT 0
	);
	CREATE TABLE answers (
		id         INTEGER PRIMARY KEY,
		kata       TEXT NOT NULL,
		item_id    TEXT NOT NULL,
		card_id    TEXT NOT NULL,
		chosen     TEXT NOT NULL,
		correct    INTEGER NOT NULL,
		elapsed_ns INTEGER NOT NULL,
		at         INTEGER NOT NULL,
		attempt_id INTEGER REFERENCES attempts(id)
	);
	CREATE TABLE exam_answers (
		attempt_id INTEGER NOT NULL REFERENCES attempts(id),
		ref        TEXT NOT NULL,
		chosen     TEXT NOT NULL,
		at         INTEGER NOT NULL,
		PRIMARY KEY (attempt_id, ref)
	);
	CREATE TABLE grade_runs (
		id          INTEGER PRIMARY KEY,
		kata        TEXT NOT NULL,
		workspace   TEXT NOT NULL,
		seed        INTEGER NOT NULL,
		status      TEXT NOT NULL,
		passed      INTEGER NOT NULL,
		failed      INTEGER NOT NULL,
		errored     INTEGER NOT NULL,
		duration_ns INTEGER NOT NULL,
		at          INTEGER NOT NULL
	);
	CREATE TABLE cards (
		card_id     TEXT PRIMARY KEY,
		kind        TEXT NOT NULL,
		kata        TEXT NOT NULL,
		ref         TEXT NOT NULL,
		due         INTEGER NOT NULL,
		stability   REAL NOT NULL,
		difficulty  REAL NOT NULL,
		reps        INTEGER NOT NULL,
		lapses      INTEGER NOT NULL,
		state       INTEGER NOT NULL,
		last_review INTEGER NOT NULL
	);
	CREATE TABLE reviews (
		id         INTEGER PRIMARY KEY,
		card_id    TEXT NOT NULL REFERENCES cards(card_id),
		rating     INTEGER NOT NULL,
		at         INTEGER NOT NULL,
		state      INTEGER NOT NULL,
		due        INTEGER NOT NULL,
		stability  REAL NOT NULL,
		difficulty REAL NOT NULL
	);`,
	// v2: exam items can be flagged for review; cards keep their (re)learning step
	// (srs.Card.Step); indexes for the due list, per-kata counts and the latest grade.
	`ALTER TABLE exam_answers ADD COLUMN flagged INTEGER NOT NULL DEFAULT 0;
	ALTER TABLE cards ADD COLUMN step INTEGER NOT NULL DEFAULT 0;
	CREATE INDEX cards_kata_due ON cards(kata, due);
	CREATE INDEX cards_due ON cards(due);
	CREATE INDEX answers_kata ON answers(kata);
	CREATE INDEX grade_runs_kata_at ON grade_runs(kata, at);
	CREATE INDEX reviews_card ON reviews(card_id);`,
	// v3: the workspace language chosen for each kata.
	languagesMigration(),
	// v4: the workshop the learner joined (kata join) and the queue of events waiting to be
	// sent to it (workshop.go). IF NOT EXISTS: the tables are their own, whatever else a
	// migration of the same version adds.
	`CREATE TABLE IF NOT EXISTS workshop_membership (
		id        INTEGER PRIMARY KEY CHECK (id = 1),
		base      TEXT NOT NULL,
		code      TEXT NOT NULL,
		learner   TEXT NOT NULL,
		token     TEXT NOT NULL,
		name      TEXT NOT NULL,
		katas     TEXT NOT NULL,
		joined_at INTEGER NOT NULL,
		state     TEXT NOT NULL DEFAULT '{}'
	);
	CREATE TABLE IF NOT EXISTS workshop_outbox (
		id        INTEGER PRIMARY KEY,
		event_id  TEXT NOT NULL UNIQUE,
		body      TEXT NOT NULL,
		queued_at INTEGER NOT NULL
	);`,
}

// languagesMigration is v3: the workspace language (a template folder's name: python, node, go)
// the learner chose for each kata, kept in its own table so that a choice is made once.
func languagesMigration() string {
	return `CREATE TABLE kata_languages (
		kata     TEXT PRIMARY KEY,
		language TEXT NOT NULL,
		at       INTEGER NOT NULL
	);`
}

// schema is the progress store's migrations; its version is kept in PRAGMA user_version.
var schema = sqldb.Schema{Dialect: sqldb.SQLite, VersionAt: sqldb.UserVersion, Migrations: migrations}

// SchemaVersion is the schema version this build writes (PRAGMA user_version).
var SchemaVersion = schema.Version()

// migrate brings the file's schema to SchemaVersion (sqldb.Migrate).
func migrate(db *sql.DB) error { return sqldb.Migrate(context.Background(), db, schema) }
