// Package store keeps `kata serve`'s workshops on SQLite (one file, the default) or
// PostgreSQL (for many workshops or several server replicas): the workshops and their join
// codes, the hashes of instructors' and learners' tokens, and every workshop's event log with
// its gapless sequence numbers. The same migrations and the same test suite run on both.
//
// An event is appended in one transaction that locks its workshop's row (PostgreSQL
// SELECT … FOR UPDATE; SQLite's IMMEDIATE transaction), so sequence numbers commit in order
// and a reader that has seen N has seen every event up to N. A resend (same learner, same
// event id) is recognised by a unique index and ignored. On PostgreSQL each append also
// sends NOTIFY on the channel NotifyChannel in the same transaction, delivered at commit, so
// every replica hears of every event (Listen).
package store

import (
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/kata-mcp/kata/internal/sqldb"
	"github.com/kata-mcp/kata/workshop"

	_ "github.com/jackc/pgx/v5/stdlib" // PostgreSQL driver, registered as "pgx"
)

// Errors the store returns (wrapped with what was being done).
var (
	// ErrNotFound: no such workshop, join code, token or learner.
	ErrNotFound = errors.New("not found")
	// ErrClosed: the workshop is closed.
	ErrClosed = errors.New("the workshop is closed")
	// ErrFull: the workshop already has its most learners.
	ErrFull = errors.New("the workshop is full")
	// ErrTooManyJoins: the joining address already took its most seats of the workshop.
	ErrTooManyJoins = errors.New("this address took its most seats of the workshop")
)

// NotifyChannel is the PostgreSQL channel appends notify, with the payload
// "WORKSHOP_ID:SEQ" (the workshop's id and its last sequence number after the append).
const NotifyChannel = "kata_events"

// Workshop is one workshop: its id, join code, katas, and whether it is closed.
type Workshop struct {
	ID    int64
	Code  string
	Katas []string
	// Created and Closed are when it was opened and closed (Closed zero while open).
	Created, Closed time.Time
	// LastSeq is the sequence number of its last event.
	LastSeq int64
}

// Info is the workshop as the API describes it.
func (w Workshop) Info() workshop.Info {
	return workshop.Info{Code: w.Code, Katas: w.Katas, Created: w.Created, Closed: w.Closed}
}

// Learner is one learner of a workshop.
type Learner struct {
	// ID is the learner's public id (events carry it); Workshop the workshop's id.
	ID       string
	Workshop int64
	Name     string
	Joined   time.Time
	// Left is when they ran `kata leave` (zero while in).
	Left time.Time
}

// Store is an open workshop database. Its methods are safe for concurrent use.
type Store struct {
	db   *sql.DB
	d    sqldb.Dialect
	dsn  string
	desc string // what errors name: the file, or the PostgreSQL host and database
	// appends feeds the writer (Append); quit stops it and written closes when it stopped.
	appends chan *appendReq
	quit    chan struct{}
	written chan struct{}
	once    sync.Once
}

// IsPostgres reports whether dsn names a PostgreSQL database (postgres:// or postgresql://).
func IsPostgres(dsn string) bool {
	return strings.HasPrefix(dsn, "postgres://") || strings.HasPrefix(dsn, "postgresql://")
}

// Open opens (and migrates) the database dsn names: a postgres:// or postgresql:// URL
// (pgx; https://www.postgresql.org/docs/current/libpq-connect.html#LIBPQ-CONNSTRING-URIS),
// or else the path of an SQLite file, created with its folder when missing.
func Open(ctx context.Context, dsn string) (*Store, error) {
	s := &Store{dsn: dsn, desc: dsn}
	var err error
	if IsPostgres(dsn) {
		s.d = sqldb.Postgres
		s.desc = describePostgres(dsn)
		s.db, err = sql.Open("pgx", dsn)
		if err == nil {
			s.db.SetMaxOpenConns(16)
			s.db.SetMaxIdleConns(16)
			err = s.db.PingContext(ctx)
		}
	} else {
		s.d = sqldb.SQLite
		s.db, err = sqldb.OpenSQLite(dsn)
	}
	if err != nil {
		if s.db != nil {
			s.db.Close()
		}
		return nil, fmt.Errorf("workshop store %s: %w", s.desc, err)
	}
	if err := sqldb.Migrate(ctx, s.db, schema(s.d)); err != nil {
		s.db.Close()
		return nil, fmt.Errorf("workshop store %s: %w", s.desc, err)
	}
	s.appends, s.quit, s.written = make(chan *appendReq), make(chan struct{}), make(chan struct{})
	go s.writer()
	return s, nil
}

// describePostgres names a PostgreSQL URL without its password.
func describePostgres(dsn string) string {
	if i := strings.Index(dsn, "@"); i >= 0 {
		if j := strings.Index(dsn, "://"); j >= 0 && j < i {
			return dsn[:j+3] + "…" + dsn[i:]
		}
	}
	return dsn
}

// Close stops the writer (appends in its hands are finished first) and closes the database.
func (s *Store) Close() error {
	s.once.Do(func() { close(s.quit) })
	<-s.written
	return s.db.Close()
}

// Postgres reports whether the store is on PostgreSQL.
func (s *Store) Postgres() bool { return s.d.Dollar }

// DSN is what the store was opened with.
func (s *Store) DSN() string { return s.dsn }

// String names the database for messages (a PostgreSQL URL without its password).
func (s *Store) String() string { return s.desc }

// wrap names the store and the operation in an error.
func (s *Store) wrap(what string, err error) error {
	if err == nil {
		return nil
	}
	return fmt.Errorf("workshop store %s: %s: %w", s.desc, what, err)
}

// tx runs fn in one write transaction.
func (s *Store) tx(ctx context.Context, what string, fn func(tx *sql.Tx) error) error {
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return s.wrap(what, err)
	}
	if err := fn(tx); err != nil {
		tx.Rollback()
		return s.wrap(what, err)
	}
	return s.wrap(what, tx.Commit())
}

// fromNS is a nullable time column as a time (sqldb.FromNS; NULL is the zero time).
func fromNS(n sql.NullInt64) time.Time { return sqldb.FromNS(n.Int64) }

func katasJSON(ks []string) string {
	b, _ := json.Marshal(append([]string{}, ks...))
	return string(b)
}

// codeLetters are the join code's letters: no I or O, which read as digits.
const codeLetters = "ABCDEFGHJKLMNPQRSTUVWXYZ"

// newCode draws a join code "ABCD-1234" from crypto/rand.
func newCode() string {
	b := make([]byte, 8)
	rand.Read(b)
	var sb strings.Builder
	for i := range 4 {
		sb.WriteByte(codeLetters[int(b[i])%len(codeLetters)])
	}
	sb.WriteByte('-')
	for i := 4; i < 8; i++ {
		sb.WriteByte('0' + b[i]%10)
	}
	return sb.String()
}

const workshopCols = `id, code, katas, created_at, closed_at, last_seq`

func scanWorkshop(row interface{ Scan(...any) error }) (Workshop, error) {
	var (
		w       Workshop
		ks      string
		created sql.NullInt64
		closed  sql.NullInt64
	)
	if err := row.Scan(&w.ID, &w.Code, &ks, &created, &closed, &w.LastSeq); err != nil {
		if errors.Is(err, sql.ErrNoRows) {
			return w, ErrNotFound
		}
		return w, err
	}
	if err := json.Unmarshal([]byte(ks), &w.Katas); err != nil {
		return w, fmt.Errorf("workshop %d: column katas: %w", w.ID, err)
	}
	w.Created, w.Closed = fromNS(created), fromNS(closed)
	return w, nil
}

// OpenWorkshop returns the newest open workshop of exactly these katas (in any order), or
// creates one with a new join code. Replicas starting at once get the same one.
func (s *Store) OpenWorkshop(ctx context.Context, katas []string, now time.Time) (Workshop, bool, error) {
	ks := slices.Sorted(slices.Values(katas))
	ks = slices.Compact(ks)
	var (
		w       Workshop
		created bool
	)
	err := s.tx(ctx, "opening a workshop", func(tx *sql.Tx) error {
		if s.Postgres() {
			if _, err := tx.ExecContext(ctx, `SELECT pg_advisory_xact_lock(7878002)`); err != nil {
				return err
			}
		}
		var err error
		w, err = scanWorkshop(tx.QueryRowContext(ctx, s.d.Q(`SELECT `+workshopCols+` FROM workshops
			WHERE katas = ? AND closed_at IS NULL ORDER BY id DESC LIMIT 1`), katasJSON(ks)))
		if err == nil || !errors.Is(err, ErrNotFound) {
			return err
		}
		w, err = s.createTx(ctx, tx, ks, now)
		created = true
		return err
	})
	return w, created, err
}

// CreateWorkshop creates a new workshop of katas with a new join code.
func (s *Store) CreateWorkshop(ctx context.Context, katas []string, now time.Time) (Workshop, error) {
	var w Workshop
	err := s.tx(ctx, "creating a workshop", func(tx *sql.Tx) error {
		var err error
		w, err = s.createTx(ctx, tx, slices.Compact(slices.Sorted(slices.Values(katas))), now)
		return err
	})
	return w, err
}

func (s *Store) createTx(ctx context.Context, tx *sql.Tx, katas []string, now time.Time) (Workshop, error) {
	for range 20 {
		code := newCode()
		var n int
		if err := tx.QueryRowContext(ctx, s.d.Q(`SELECT count(*) FROM workshops WHERE code = ?`), code).Scan(&n); err != nil {
			return Workshop{}, err
		}
		if n > 0 {
			continue
		}
		var id int64
		if err := tx.QueryRowContext(ctx, s.d.Q(`INSERT INTO workshops(code, katas, created_at) VALUES(?, ?, ?) RETURNING id`),
			code, katasJSON(katas), sqldb.NS(now)).Scan(&id); err != nil {
			return Workshop{}, err
		}
		return Workshop{ID: id, Code: code, Katas: katas, Created: time.Unix(0, sqldb.NS(now)).UTC()}, nil
	}
	return Workshop{}, errors.New("no free join code after 20 draws")
}

// Workshop returns the workshop with id.
func (s *Store) Workshop(ctx context.Context, id int64) (Workshop, error) {
	w, err := scanWorkshop(s.db.QueryRowContext(ctx, s.d.Q(`SELECT `+workshopCols+` FROM workshops WHERE id = ?`), id))
	return w, s.wrap(fmt.Sprintf("reading workshop %d", id), err)
}

// WorkshopByCode returns the workshop whose join code is code (open or closed).
func (s *Store) WorkshopByCode(ctx context.Context, code string) (Workshop, error) {
	w, err := scanWorkshop(s.db.QueryRowContext(ctx, s.d.Q(`SELECT `+workshopCols+` FROM workshops WHERE code = ?`), code))
	return w, s.wrap("finding the join code", err)
}

// AddInstructor stores the hash of a new instructor token for workshop id.
func (s *Store) AddInstructor(ctx context.Context, id int64, tokenHash string, now time.Time) error {
	_, err := s.db.ExecContext(ctx, s.d.Q(`INSERT INTO instructors(token_hash, workshop_id, created_at) VALUES(?, ?, ?)`), tokenHash, id, sqldb.NS(now))
	return s.wrap("adding an instructor token", err)
}

// InstructorWorkshop returns the id of the workshop whose instructor token hashes to
// tokenHash, ErrNotFound when none does.
func (s *Store) InstructorWorkshop(ctx context.Context, tokenHash string) (int64, error) {
	var id int64
	err := s.db.QueryRowContext(ctx, s.d.Q(`SELECT workshop_id FROM instructors WHERE token_hash = ?`), tokenHash).Scan(&id)
	if errors.Is(err, sql.ErrNoRows) {
		err = ErrNotFound
	}
	return id, s.wrap("checking an instructor token", err)
}

// LearnerByToken returns the learner whose token hashes to tokenHash, ErrNotFound when none.
func (s *Store) LearnerByToken(ctx context.Context, tokenHash string) (Learner, error) {
	var (
		l            Learner
		joined, left sql.NullInt64
	)
	err := s.db.QueryRowContext(ctx, s.d.Q(`SELECT id, workshop_id, name, joined_at, left_at FROM learners WHERE token_hash = ?`), tokenHash).
		Scan(&l.ID, &l.Workshop, &l.Name, &joined, &left)
	if errors.Is(err, sql.ErrNoRows) {
		err = ErrNotFound
	}
	l.Joined, l.Left = fromNS(joined), fromNS(left)
	return l, s.wrap("checking a learner token", err)
}

// Learners counts a workshop's learners who joined and have not left.
func (s *Store) Learners(ctx context.Context, id int64) (int, error) {
	var n int
	err := s.db.QueryRowContext(ctx, s.d.Q(`SELECT count(*) FROM learners WHERE workshop_id = ? AND left_at IS NULL`), id).Scan(&n)
	return n, s.wrap("counting learners", err)
}

// lockWorkshop reads workshop id inside tx, locking its row until the transaction ends.
func (s *Store) lockWorkshop(ctx context.Context, tx *sql.Tx, id int64) (Workshop, error) {
	return scanWorkshop(tx.QueryRowContext(ctx, s.d.Q(`SELECT `+workshopCols+` FROM workshops WHERE id = ?`+s.d.ForUpdate), id))
}

// JoinLimits are what a join is checked against, inside its transaction (so replicas on one
// database share them, and a restart keeps them).
type JoinLimits struct {
	// MaxLearners caps the learners of the workshop (0: no cap).
	MaxLearners int
	// Addr is the client's address. It is stored only as HMAC-SHA256 (RFC 2104) under the
	// workshop's own random 256-bit key, never in the clear; "" stores nothing.
	Addr string
	// PerAddress caps the learners joined from Addr, counting those who left or were removed
	// (0 or negative: no cap). Learners who joined before schema v2 have no address and do
	// not count.
	PerAddress int
}

// Join adds learner l (l.ID set by the caller, unique) with the hash of their token to
// workshop l.Workshop, and appends their KindJoined event, in one transaction. It fails with
// ErrClosed when the workshop is closed, ErrFull when it has lim.MaxLearners learners and
// ErrTooManyJoins when lim.Addr already joined lim.PerAddress of them.
func (s *Store) Join(ctx context.Context, l Learner, tokenHash string, lim JoinLimits) (workshop.Event, error) {
	var ev workshop.Event
	err := s.tx(ctx, "adding a learner", func(tx *sql.Tx) error {
		w, err := s.lockWorkshop(ctx, tx, l.Workshop)
		if err != nil {
			return err
		}
		if !w.Closed.IsZero() {
			return ErrClosed
		}
		if lim.MaxLearners > 0 {
			var n int
			if err := tx.QueryRowContext(ctx, s.d.Q(`SELECT count(*) FROM learners WHERE workshop_id = ?`), w.ID).Scan(&n); err != nil {
				return err
			}
			if n >= lim.MaxLearners {
				return ErrFull
			}
		}
		var addrHash sql.NullString
		if lim.Addr != "" {
			key, err := s.addrKey(ctx, tx, w.ID)
			if err != nil {
				return err
			}
			addrHash = sql.NullString{String: hashAddr(key, lim.Addr), Valid: true}
		}
		if addrHash.Valid && lim.PerAddress > 0 {
			var n int
			if err := tx.QueryRowContext(ctx, s.d.Q(`SELECT count(*) FROM learners WHERE workshop_id = ? AND addr_hash = ?`), w.ID, addrHash).Scan(&n); err != nil {
				return err
			}
			if n >= lim.PerAddress {
				return ErrTooManyJoins
			}
		}
		// A name another learner present has is made unique: "Ben (2)", never two "Ben".
		rows, err := tx.QueryContext(ctx, s.d.Q(`SELECT name FROM learners WHERE workshop_id = ? AND left_at IS NULL`), w.ID)
		if err != nil {
			return err
		}
		taken := map[string]bool{}
		for rows.Next() {
			var n string
			if err := rows.Scan(&n); err != nil {
				rows.Close()
				return err
			}
			taken[strings.ToLower(n)] = true
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return err
		}
		l.Name = UniqueName(l.Name, func(n string) bool { return taken[strings.ToLower(n)] })
		if _, err := tx.ExecContext(ctx, s.d.Q(`INSERT INTO learners(id, workshop_id, name, token_hash, joined_at, addr_hash) VALUES(?, ?, ?, ?, ?, ?)`),
			l.ID, w.ID, l.Name, tokenHash, sqldb.NS(l.Joined), addrHash); err != nil {
			return err
		}
		evs, _, err := s.appendTx(ctx, tx, w, l.ID, []workshop.Event{{ID: "joined", Kind: workshop.KindJoined, Name: l.Name, At: l.Joined}}, l.Joined)
		if err == nil && len(evs) == 1 {
			ev = evs[0]
		}
		return err
	})
	return ev, err
}

// addrKey returns the key workshop id hashes its learners' addresses under, drawing it (32
// bytes from crypto/rand, hex) the first time: a workshop made before schema v2 gets one at
// its first join since. The workshop's row is locked by tx.
func (s *Store) addrKey(ctx context.Context, tx *sql.Tx, id int64) (string, error) {
	var key sql.NullString
	if err := tx.QueryRowContext(ctx, s.d.Q(`SELECT addr_key FROM workshops WHERE id = ?`), id).Scan(&key); err != nil {
		return "", err
	}
	if key.Valid && key.String != "" {
		return key.String, nil
	}
	b := make([]byte, 32)
	rand.Read(b)
	key.String = hex.EncodeToString(b)
	_, err := tx.ExecContext(ctx, s.d.Q(`UPDATE workshops SET addr_key = ? WHERE id = ?`), key.String, id)
	return key.String, err
}

// hashAddr is HMAC-SHA256 (RFC 2104) of addr under key, hex.
func hashAddr(key, addr string) string {
	m := hmac.New(sha256.New, []byte(key))
	m.Write([]byte(addr))
	return hex.EncodeToString(m.Sum(nil))
}

// UniqueName is name, or when taken says it is taken, name with the first free number:
// "Ben (2)", "Ben (3)", ….
func UniqueName(name string, taken func(string) bool) string {
	if !taken(name) {
		return name
	}
	for i := 2; ; i++ {
		if n := fmt.Sprintf("%s (%d)", name, i); !taken(n) {
			return n
		}
	}
}

// EventCount returns how many events learner has stored in workshop id.
func (s *Store) EventCount(ctx context.Context, id int64, learner string) (int, error) {
	var n int
	err := s.db.QueryRowContext(ctx, s.d.Q(`SELECT count(*) FROM events WHERE workshop_id = ? AND learner_id = ?`), id, learner).Scan(&n)
	return n, s.wrap("counting a learner's events", err)
}

// Leave marks learner l as left and appends their KindLeft event.
func (s *Store) Leave(ctx context.Context, l Learner, now time.Time) (workshop.Event, error) {
	var ev workshop.Event
	err := s.tx(ctx, "recording a learner leaving", func(tx *sql.Tx) error {
		w, err := s.lockWorkshop(ctx, tx, l.Workshop)
		if err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, s.d.Q(`UPDATE learners SET left_at = ? WHERE id = ? AND left_at IS NULL`), sqldb.NS(now), l.ID); err != nil {
			return err
		}
		evs, _, err := s.appendTx(ctx, tx, w, l.ID, []workshop.Event{{ID: "left-" + strconv.FormatInt(now.UnixNano(), 36), Kind: workshop.KindLeft, At: now}}, now)
		if err == nil && len(evs) == 1 {
			ev = evs[0]
		}
		return err
	})
	return ev, err
}

// Append stores events from learner (the learner's id; "" for the instructor) in workshop id,
// in order, each with the next sequence number and received now, and returns the events it
// stored (Seq, Learner and Received set) and how many were resends of events stored before
// (ignored). A closed workshop accepts nothing (ErrClosed); a KindClosed event closes it.
//
// Appends arriving together are committed together (group commit): one writer takes every
// append waiting and stores them in one transaction, so a busy class costs one commit (one
// fsync) per batch rather than per request, and SQLite's writers never queue on its lock.
func (s *Store) Append(ctx context.Context, id int64, learner string, events []workshop.Event, now time.Time) ([]workshop.Event, int, error) {
	req := &appendReq{ctx: ctx, id: id, learner: learner, events: events, now: now, done: make(chan appendRes, 1)}
	select {
	case s.appends <- req:
	case <-s.quit:
		return nil, 0, s.wrap("storing events", errors.New("the store is closed"))
	case <-ctx.Done():
		return nil, 0, s.wrap("storing events", ctx.Err())
	}
	r := <-req.done
	return r.out, r.dups, r.err
}

// appendReq is one Append waiting for the writer; appendRes its outcome.
type (
	appendReq struct {
		ctx     context.Context
		id      int64
		learner string
		events  []workshop.Event
		now     time.Time
		done    chan appendRes
	}
	appendRes struct {
		out  []workshop.Event
		dups int
		err  error
	}
)

// maxGroup is the most appends one transaction takes.
const maxGroup = 256

// writer commits the appends waiting, a group at a time, until the store closes.
func (s *Store) writer() {
	defer close(s.written)
	for {
		var first *appendReq
		select {
		case first = <-s.appends:
		case <-s.quit:
			return
		}
		group := []*appendReq{first}
	more:
		for len(group) < maxGroup {
			select {
			case r := <-s.appends:
				group = append(group, r)
			default:
				break more
			}
		}
		res := make([]appendRes, len(group))
		err := s.tx(context.Background(), "storing events", func(tx *sql.Tx) error {
			locked := map[int64]*Workshop{}
			for i, r := range group {
				if err := r.ctx.Err(); err != nil {
					res[i].err = err
					continue
				}
				w := locked[r.id]
				if w == nil {
					lw, err := s.lockWorkshop(context.Background(), tx, r.id)
					if errors.Is(err, ErrNotFound) {
						res[i].err = s.wrap("storing events", err)
						continue
					}
					if err != nil {
						return err
					}
					w = &lw
					locked[r.id] = w
				}
				if !w.Closed.IsZero() {
					res[i].err = s.wrap("storing events", ErrClosed)
					continue
				}
				out, dups, err := s.appendTx(context.Background(), tx, *w, r.learner, r.events, r.now)
				if err != nil {
					return err
				}
				for _, e := range out {
					w.LastSeq = e.Seq
					if e.Kind == workshop.KindClosed {
						w.Closed = e.Received
					}
				}
				res[i] = appendRes{out: out, dups: dups}
			}
			return nil
		})
		for i, r := range group {
			if err != nil {
				res[i] = appendRes{err: err}
			}
			r.done <- res[i]
		}
	}
}

// appendTx appends events to the locked workshop w inside tx.
func (s *Store) appendTx(ctx context.Context, tx *sql.Tx, w Workshop, learner string, events []workshop.Event, now time.Time) ([]workshop.Event, int, error) {
	seq := w.LastSeq
	var (
		out    []workshop.Event
		dups   int
		closed bool
	)
	now = time.Unix(0, sqldb.NS(now)).UTC()
	ins := s.d.Q(`INSERT INTO events(workshop_id, seq, learner_id, event_id, kind, body, received_at) VALUES(?, ?, ?, ?, ?, ?, ?)
		ON CONFLICT (workshop_id, learner_id, event_id) DO NOTHING`)
	for _, e := range events {
		e.Seq, e.Learner, e.Received = seq+1, learner, now
		body, err := json.Marshal(e)
		if err != nil {
			return nil, 0, err
		}
		res, err := tx.ExecContext(ctx, ins, w.ID, e.Seq, learner, e.ID, string(e.Kind), string(body), sqldb.NS(now))
		if err != nil {
			return nil, 0, err
		}
		if n, err := res.RowsAffected(); err != nil {
			return nil, 0, err
		} else if n == 0 {
			dups++
			continue
		}
		seq++
		out = append(out, e)
		closed = closed || e.Kind == workshop.KindClosed
	}
	if len(out) == 0 {
		return nil, dups, nil
	}
	upd := `UPDATE workshops SET last_seq = ? WHERE id = ?`
	args := []any{seq, w.ID}
	if closed {
		// A closed workshop takes no more joins: the addresses' hashes and their key have
		// served their purpose and are forgotten.
		upd = `UPDATE workshops SET last_seq = ?, closed_at = ?, addr_key = NULL WHERE id = ?`
		args = []any{seq, sqldb.NS(now), w.ID}
		if _, err := tx.ExecContext(ctx, s.d.Q(`UPDATE learners SET addr_hash = NULL WHERE workshop_id = ?`), w.ID); err != nil {
			return nil, 0, err
		}
	}
	if _, err := tx.ExecContext(ctx, s.d.Q(upd), args...); err != nil {
		return nil, 0, err
	}
	if s.Postgres() {
		if _, err := tx.ExecContext(ctx, `SELECT pg_notify($1, $2)`, NotifyChannel, fmt.Sprintf("%d:%d", w.ID, seq)); err != nil {
			return nil, 0, err
		}
	}
	return out, dups, nil
}

// Events returns up to limit events of workshop id after sequence number after, in order;
// with published, only the instructor's (those learners may read).
func (s *Store) Events(ctx context.Context, id, after int64, limit int, published bool) ([]workshop.Event, error) {
	query := `SELECT body FROM events WHERE workshop_id = ? AND seq > ? ORDER BY seq LIMIT ?`
	if published {
		query = `SELECT body FROM events WHERE workshop_id = ? AND learner_id = '' AND seq > ? ORDER BY seq LIMIT ?`
	}
	rows, err := s.db.QueryContext(ctx, s.d.Q(query), id, after, limit)
	if err != nil {
		return nil, s.wrap("reading events", err)
	}
	defer rows.Close()
	var out []workshop.Event
	for rows.Next() {
		var body string
		if err := rows.Scan(&body); err != nil {
			return nil, s.wrap("reading events", err)
		}
		var e workshop.Event
		if err := json.Unmarshal([]byte(body), &e); err != nil {
			return nil, s.wrap("reading events", fmt.Errorf("an event body: %w", err))
		}
		out = append(out, e)
	}
	return out, s.wrap("reading events", rows.Err())
}
