package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/kata-mcp/kata/internal/sqldb"
	"github.com/kata-mcp/kata/workshop"
	"github.com/kata-mcp/kata/workshop/pgtest"
)

func TestMain(m *testing.M) { os.Exit(pgtest.Main(m)) }

var t0 = time.Date(2026, 5, 4, 9, 0, 0, 0, time.UTC)

// backends runs fn once on a new SQLite file and once on a new PostgreSQL database (skipped
// with an install hint when PostgreSQL is missing).
func backends(t *testing.T, fn func(t *testing.T, dsn string)) {
	t.Run("sqlite", func(t *testing.T) { fn(t, filepath.Join(t.TempDir(), "workshop.db")) })
	t.Run("postgres", func(t *testing.T) { fn(t, pgtest.DB(t)) })
}

func open(t *testing.T, dsn string) *Store {
	t.Helper()
	s, err := Open(context.Background(), dsn)
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func layerEvent(id string) workshop.Event {
	return workshop.Event{ID: id, Kind: workshop.KindLayer, Kata: "k", Layer: "knowledge", At: t0}
}

func TestStore(t *testing.T) {
	backends(t, func(t *testing.T, dsn string) {
		ctx := context.Background()
		s := open(t, dsn)
		w, created, err := s.OpenWorkshop(ctx, []string{"k2", "k", "k"}, t0)
		if err != nil || !created {
			t.Fatalf("OpenWorkshop: %v, created %v", err, created)
		}
		if !workshop.ValidCode(w.Code) || fmt.Sprint(w.Katas) != "[k k2]" {
			t.Fatalf("workshop %+v: want a code like ABCD-1234 and katas [k k2]", w)
		}
		again, created, err := s.OpenWorkshop(ctx, []string{"k", "k2"}, t0)
		if err != nil || created || again.ID != w.ID {
			t.Fatalf("OpenWorkshop again gave %+v (created %v, %v), want workshop %d resumed", again, created, err, w.ID)
		}
		byCode, err := s.WorkshopByCode(ctx, w.Code)
		if err != nil || byCode.ID != w.ID {
			t.Fatalf("WorkshopByCode: %+v, %v", byCode, err)
		}
		if _, err := s.WorkshopByCode(ctx, "ZZZZ-0000"); !errors.Is(err, ErrNotFound) {
			t.Errorf("unknown code: %v, want ErrNotFound", err)
		}

		if err := s.AddInstructor(ctx, w.ID, "ihash", t0); err != nil {
			t.Fatal(err)
		}
		if id, err := s.InstructorWorkshop(ctx, "ihash"); err != nil || id != w.ID {
			t.Fatalf("InstructorWorkshop: %d, %v", id, err)
		}
		if _, err := s.InstructorWorkshop(ctx, "other"); !errors.Is(err, ErrNotFound) {
			t.Errorf("unknown instructor token: %v", err)
		}

		joined, err := s.Join(ctx, Learner{ID: "L1", Workshop: w.ID, Name: "Ana", Joined: t0}, "lhash1", JoinLimits{MaxLearners: 2})
		if err != nil || joined.Seq != 1 || joined.Kind != workshop.KindJoined || joined.Name != "Ana" || joined.Learner != "L1" {
			t.Fatalf("Join: %+v, %v", joined, err)
		}
		if _, err := s.Join(ctx, Learner{ID: "L2", Workshop: w.ID, Name: "Ben", Joined: t0}, "lhash2", JoinLimits{MaxLearners: 2}); err != nil {
			t.Fatal(err)
		}
		if _, err := s.Join(ctx, Learner{ID: "L3", Workshop: w.ID, Name: "Cy", Joined: t0}, "lhash3", JoinLimits{MaxLearners: 2}); !errors.Is(err, ErrFull) {
			t.Errorf("a third learner with room for 2: %v, want ErrFull", err)
		}
		l, err := s.LearnerByToken(ctx, "lhash1")
		if err != nil || l.ID != "L1" || l.Name != "Ana" || l.Workshop != w.ID || !l.Joined.Equal(t0) {
			t.Fatalf("LearnerByToken: %+v, %v", l, err)
		}

		stored, dups, err := s.Append(ctx, w.ID, "L1", []workshop.Event{layerEvent("a"), layerEvent("b"), layerEvent("a")}, t0.Add(time.Second))
		if err != nil || len(stored) != 2 || dups != 1 {
			t.Fatalf("Append: %d stored, %d dups, %v; want 2 and 1 (the repeated id)", len(stored), dups, err)
		}
		if stored[0].Seq != 3 || stored[1].Seq != 4 || stored[0].Learner != "L1" || !stored[0].Received.Equal(t0.Add(time.Second)) {
			t.Errorf("stored %+v: want seq 3 and 4 for L1, received at t0+1s", stored)
		}
		// A resend of the whole batch stores nothing; the same id from another learner is
		// another event.
		stored, dups, err = s.Append(ctx, w.ID, "L1", []workshop.Event{layerEvent("a"), layerEvent("b")}, t0)
		if err != nil || len(stored) != 0 || dups != 2 {
			t.Fatalf("resend: %d stored, %d dups, %v", len(stored), dups, err)
		}
		stored, _, err = s.Append(ctx, w.ID, "L2", []workshop.Event{layerEvent("a")}, t0)
		if err != nil || len(stored) != 1 || stored[0].Seq != 5 {
			t.Fatalf("L2's event a: %+v, %v", stored, err)
		}
		pace := workshop.Event{ID: "p1", Kind: workshop.KindPacing, Pacing: &workshop.Pacing{Kata: "k", Layers: 2}, At: t0}
		if _, _, err := s.Append(ctx, w.ID, "", []workshop.Event{pace}, t0); err != nil {
			t.Fatal(err)
		}

		all, err := s.Events(ctx, w.ID, 0, 100, false)
		if err != nil || len(all) != 6 {
			t.Fatalf("Events: %d, %v; want 6", len(all), err)
		}
		for i, e := range all {
			if e.Seq != int64(i+1) {
				t.Errorf("event %d has seq %d", i, e.Seq)
			}
		}
		after, err := s.Events(ctx, w.ID, 4, 1, false)
		if err != nil || len(after) != 1 || after[0].Seq != 5 {
			t.Errorf("Events after 4, limit 1: %+v, %v", after, err)
		}
		pub, err := s.Events(ctx, w.ID, 0, 100, true)
		if err != nil || len(pub) != 1 || pub[0].Kind != workshop.KindPacing || pub[0].Pacing.Layers != 2 {
			t.Errorf("published events: %+v, %v; want the pacing event only", pub, err)
		}

		left, err := s.Leave(ctx, l, t0.Add(time.Minute))
		if err != nil || left.Kind != workshop.KindLeft {
			t.Fatalf("Leave: %+v, %v", left, err)
		}
		if n, err := s.Learners(ctx, w.ID); err != nil || n != 1 {
			t.Errorf("Learners after one left: %d, %v", n, err)
		}

		closing := workshop.Event{ID: "close", Kind: workshop.KindClosed, At: t0}
		if _, _, err := s.Append(ctx, w.ID, "", []workshop.Event{closing}, t0.Add(time.Hour)); err != nil {
			t.Fatal(err)
		}
		cw, err := s.Workshop(ctx, w.ID)
		if err != nil || cw.Closed.IsZero() || cw.LastSeq != 8 {
			t.Fatalf("closed workshop: %+v, %v", cw, err)
		}
		if _, _, err := s.Append(ctx, w.ID, "L2", []workshop.Event{layerEvent("z")}, t0); !errors.Is(err, ErrClosed) {
			t.Errorf("an event for a closed workshop: %v, want ErrClosed", err)
		}
		if _, err := s.Join(ctx, Learner{ID: "L9", Workshop: w.ID, Name: "Late", Joined: t0}, "lhash9", JoinLimits{}); !errors.Is(err, ErrClosed) {
			t.Errorf("joining a closed workshop: %v, want ErrClosed", err)
		}
		fresh, created, err := s.OpenWorkshop(ctx, []string{"k", "k2"}, t0)
		if err != nil || !created || fresh.ID == w.ID || fresh.Code == w.Code {
			t.Errorf("OpenWorkshop after closing: %+v (created %v), %v; want a new workshop with a new code", fresh, created, err)
		}

		// Reopening the database finds everything (restart loses nothing) and migrates nothing.
		s.Close()
		s2 := open(t, dsn)
		all2, err := s2.Events(ctx, w.ID, 0, 100, false)
		if err != nil || len(all2) != 8 {
			t.Errorf("after reopening: %d events, %v", len(all2), err)
		}
	})
}

// TestConcurrentAppendsKeepSequenceGapless appends from many goroutines at once: every
// event gets a distinct sequence number and the numbers run 1…N with no gap.
func TestConcurrentAppendsKeepSequenceGapless(t *testing.T) {
	backends(t, func(t *testing.T, dsn string) {
		ctx := context.Background()
		s := open(t, dsn)
		w, err := s.CreateWorkshop(ctx, []string{"k"}, t0)
		if err != nil {
			t.Fatal(err)
		}
		const writers, each = 8, 10
		var wg sync.WaitGroup
		errs := make(chan error, writers*each)
		for i := range writers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for j := range each {
					if _, _, err := s.Append(ctx, w.ID, fmt.Sprintf("L%d", i), []workshop.Event{layerEvent(fmt.Sprintf("e%d", j))}, t0); err != nil {
						errs <- err
					}
				}
			}()
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			t.Fatal(err)
		}
		all, err := s.Events(ctx, w.ID, 0, 1000, false)
		if err != nil || len(all) != writers*each {
			t.Fatalf("%d events, %v", len(all), err)
		}
		for i, e := range all {
			if e.Seq != int64(i+1) {
				t.Fatalf("event %d has seq %d: a gap or a repeat", i, e.Seq)
			}
		}
	})
}

// TestOpenRefusesNewerSchema leaves a newer schema version untouched.
func TestOpenRefusesNewerSchema(t *testing.T) {
	backends(t, func(t *testing.T, dsn string) {
		s := open(t, dsn)
		if _, err := s.db.Exec(`UPDATE kata_schema SET version = 99`); err != nil {
			t.Fatal(err)
		}
		s.Close()
		if _, err := Open(context.Background(), dsn); err == nil {
			t.Fatal("Open accepted a database of schema version 99")
		}
	})
}

// TestListenHearsOtherConnections: on PostgreSQL, an append through one Store is heard by
// another Store's Listen (two replicas).
func TestListenHearsOtherConnections(t *testing.T) {
	dsn := pgtest.DB(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	a, b := open(t, dsn), open(t, dsn)
	w, err := a.CreateWorkshop(ctx, []string{"k"}, t0)
	if err != nil {
		t.Fatal(err)
	}
	heard := make(chan [2]int64, 10)
	ready := make(chan struct{}, 1)
	done := make(chan struct{})
	go func() {
		defer close(done)
		b.Listen(ctx, func(ws, seq int64) { heard <- [2]int64{ws, seq} }, func() { ready <- struct{}{} })
	}()
	select {
	case <-ready:
	case <-time.After(30 * time.Second):
		t.Fatal("LISTEN never became ready")
	}
	if _, _, err := a.Append(ctx, w.ID, "L1", []workshop.Event{layerEvent("x")}, t0); err != nil {
		t.Fatal(err)
	}
	select {
	case got := <-heard:
		if got != [2]int64{w.ID, 1} {
			t.Errorf("heard %v, want workshop %d seq 1", got, w.ID)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("the other store never heard the append")
	}
	cancel()
	<-done
}

// TestGroupCommitKeepsEachAppendsOutcome: appends to an open and a closed workshop at once
// (committed together) each get their own outcome.
func TestGroupCommitKeepsEachAppendsOutcome(t *testing.T) {
	backends(t, func(t *testing.T, dsn string) {
		ctx := context.Background()
		s := open(t, dsn)
		open1, err := s.CreateWorkshop(ctx, []string{"k"}, t0)
		if err != nil {
			t.Fatal(err)
		}
		shut, err := s.CreateWorkshop(ctx, []string{"k"}, t0)
		if err != nil {
			t.Fatal(err)
		}
		if _, _, err := s.Append(ctx, shut.ID, "", []workshop.Event{{ID: "c", Kind: workshop.KindClosed, At: t0}}, t0); err != nil {
			t.Fatal(err)
		}
		var wg sync.WaitGroup
		errs := make([]error, 40)
		for i := range errs {
			wg.Add(1)
			go func() {
				defer wg.Done()
				ws := open1.ID
				if i%2 == 1 {
					ws = shut.ID
				}
				_, _, errs[i] = s.Append(ctx, ws, fmt.Sprintf("L%d", i), []workshop.Event{layerEvent("e")}, t0)
			}()
		}
		wg.Wait()
		for i, err := range errs {
			if i%2 == 0 && err != nil {
				t.Errorf("append %d to the open workshop: %v", i, err)
			}
			if i%2 == 1 && !errors.Is(err, ErrClosed) {
				t.Errorf("append %d to the closed workshop: %v, want ErrClosed", i, err)
			}
		}
		if evs, _ := s.Events(ctx, open1.ID, 0, 100, false); len(evs) != 20 {
			t.Errorf("the open workshop has %d events, want 20", len(evs))
		}
	})
}

// TestSeatsPerAddressAndAnOldStore: a store made by schema v1 (no addresses) opens, migrates
// and keeps working; its old learners count for no address; an address is refused past its
// seats and never stored in the clear; closing the workshop forgets the addresses' hashes.
func TestSeatsPerAddressAndAnOldStore(t *testing.T) {
	backends(t, func(t *testing.T, dsn string) {
		ctx := context.Background()
		// A v1 store with one workshop and one learner, as an earlier kata left it.
		var (
			db  *sql.DB
			err error
			d   = sqldb.SQLite
		)
		if IsPostgres(dsn) {
			d = sqldb.Postgres
			db, err = sql.Open("pgx", dsn)
		} else {
			db, err = sqldb.OpenSQLite(dsn)
		}
		if err != nil {
			t.Fatal(err)
		}
		if err := sqldb.Migrate(ctx, db, sqldb.Schema{Dialect: d, VersionAt: sqldb.SchemaTable, Migrations: migrations[:1]}); err != nil {
			t.Fatal(err)
		}
		for _, q := range []string{
			`INSERT INTO workshops(code, katas, created_at) VALUES('ABCD-1234', '["k"]', 1)`,
			`INSERT INTO learners(id, workshop_id, name, token_hash, joined_at) VALUES('L0', 1, 'Old', 'h0', 1)`,
		} {
			if _, err := db.ExecContext(ctx, q); err != nil {
				t.Fatal(err)
			}
		}
		db.Close()

		s := open(t, dsn)
		w, err := s.WorkshopByCode(ctx, "ABCD-1234")
		if err != nil {
			t.Fatalf("the v1 workshop after migrating: %v", err)
		}
		if l, err := s.LearnerByToken(ctx, "h0"); err != nil || l.Name != "Old" {
			t.Errorf("the v1 learner after migrating: %+v, %v", l, err)
		}
		join := func(id, addr string) error {
			_, err := s.Join(ctx, Learner{ID: id, Workshop: w.ID, Name: id, Joined: t0}, "h"+id, JoinLimits{Addr: addr, PerAddress: 2})
			return err
		}
		for i, c := range []struct {
			id, addr string
			want     error
		}{{"L1", "192.0.2.1", nil}, {"L2", "192.0.2.1", nil}, {"L3", "192.0.2.1", ErrTooManyJoins}, {"L4", "2001:db8::1", nil}, {"L5", "", nil}} {
			if err := join(c.id, c.addr); !errors.Is(err, c.want) {
				t.Errorf("join %d from %q: %v, want %v", i+1, c.addr, err, c.want)
			}
		}
		var clear, hashed int
		if err := s.db.QueryRowContext(ctx, `SELECT count(*) FROM learners WHERE addr_hash LIKE '%192.0.2%'`).Scan(&clear); err != nil {
			t.Fatal(err)
		}
		if err := s.db.QueryRowContext(ctx, `SELECT count(*) FROM learners WHERE addr_hash IS NOT NULL`).Scan(&hashed); err != nil {
			t.Fatal(err)
		}
		if clear != 0 || hashed != 3 {
			t.Errorf("learners with the address in the clear: %d, with a hash: %d; want 0 and 3", clear, hashed)
		}
		if _, _, err := s.Append(ctx, w.ID, "", []workshop.Event{{ID: "c", Kind: workshop.KindClosed, At: t0}}, t0); err != nil {
			t.Fatal(err)
		}
		var key sql.NullString
		if err := s.db.QueryRowContext(ctx, `SELECT count(*) FROM learners WHERE addr_hash IS NOT NULL`).Scan(&hashed); err != nil {
			t.Fatal(err)
		}
		if err := s.db.QueryRowContext(ctx, s.d.Q(`SELECT addr_key FROM workshops WHERE id = ?`), w.ID).Scan(&key); err != nil {
			t.Fatal(err)
		}
		if hashed != 0 || key.Valid {
			t.Errorf("after closing: %d address hashes and key %v, want none", hashed, key)
		}
	})
}
