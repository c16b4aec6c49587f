package store

import "github.com/kata-mcp/kata/internal/sqldb"

// migrations[i] takes the schema from version i to i+1. The same statements run on SQLite and
// PostgreSQL; {{serial}} is the dialect's auto-numbered key. Append only: never edit a
// migration that has shipped.
//
// Times are Unix nanoseconds UTC (BIGINT); katas is a JSON array of packet ids; an event's
// body is the workshop.Event as JSON, with the columns the queries filter on beside it.
var migrations = []string{
	// v1: workshops, their instructors' and learners' token hashes, and the event log.
	`CREATE TABLE workshops (
		id         {{serial}},
		code       TEXT NOT NULL UNIQUE,
		katas      TEXT NOT NULL,
		created_at BIGINT NOT NULL,
		closed_at  BIGINT,
		last_seq   BIGINT NOT NULL DEFAULT 0
	);
	CREATE TABLE instructors (
		token_hash  TEXT PRIMARY KEY,
		workshop_id BIGINT NOT NULL REFERENCES workshops(id),
		created_at  BIGINT NOT NULL
	);
	CREATE TABLE learners (
		id          TEXT PRIMARY KEY,
		workshop_id BIGINT NOT NULL REFERENCES workshops(id),
		name        TEXT NOT NULL,
		token_hash  TEXT NOT NULL UNIQUE,
		joined_at   BIGINT NOT NULL,
		left_at     BIGINT
	);
	CREATE INDEX learners_workshop ON learners(workshop_id);
	CREATE TABLE events (
		workshop_id BIGINT NOT NULL REFERENCES workshops(id),
		seq         BIGINT NOT NULL,
		learner_id  TEXT NOT NULL,
		event_id    TEXT NOT NULL,
		kind        TEXT NOT NULL,
		body        TEXT NOT NULL,
		received_at BIGINT NOT NULL,
		PRIMARY KEY (workshop_id, seq)
	);
	CREATE UNIQUE INDEX events_sender ON events(workshop_id, learner_id, event_id);
	CREATE INDEX events_by_learner ON events(workshop_id, learner_id, seq);`,
	// v2: the address each learner joined from, kept as a keyed hash (HMAC-SHA256 under the
	// workshop's own random addr_key), so that the seats one address took are counted from the
	// store and survive a restart. Learners who joined before v2 have none (NULL). Both are
	// cleared when the workshop closes.
	`ALTER TABLE workshops ADD COLUMN addr_key TEXT;
	ALTER TABLE learners ADD COLUMN addr_hash TEXT;
	CREATE INDEX learners_addr ON learners(workshop_id, addr_hash);`,
}

// SchemaVersion is the schema version this build writes (kept in the kata_schema table, which
// both dialects have).
var SchemaVersion = len(migrations)

// schema is the store's migrations for dialect d (sqldb.Migrate: one transaction under the
// dialect's write lock, so replicas starting at once do not both migrate).
func schema(d sqldb.Dialect) sqldb.Schema {
	return sqldb.Schema{Dialect: d, VersionAt: sqldb.SchemaTable, Migrations: migrations}
}
