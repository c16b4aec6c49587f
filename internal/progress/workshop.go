package progress

import (
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/kata-mcp/kata/internal/sqldb"
	"github.com/kata-mcp/kata/katas/srs"
	"github.com/kata-mcp/kata/workshop"
)

// Membership is the workshop the learner joined with `kata join`: where its server is, who
// they are there, and what its instructor last published.
type Membership struct {
	// Base is the server's URL; Code the join code; Learner the learner's id there; Token
	// their learner token (their own credential, kept only in their own store); Name the
	// name the board shows.
	Base, Code, Learner, Token, Name string
	// Katas are the workshop's katas: only events about them are queued.
	Katas []string
	// Joined is when they joined.
	Joined time.Time
	// State is the published state last received (pacing, the live quiz), so that an app
	// started offline still shows which layers are locked.
	State workshop.State
}

// JoinURL is the address the learner joined with.
func (m Membership) JoinURL() string { return workshop.JoinURL{Base: m.Base, Code: m.Code}.String() }

// OnQueue sets fn to be called (from the goroutine that wrote) after a write that may have
// queued an event for the workshop, so a sender can wake at once; nil removes it. fn must
// not block.
func (s *Store) OnQueue(fn func()) { s.onQueue.Store(&fn) }

// notifyQueued calls the OnQueue hook, if any.
func (s *Store) notifyQueued() {
	if fn := s.onQueue.Load(); fn != nil && *fn != nil {
		(*fn)()
	}
}

// newEventID draws a queued event's id: 128 random bits, hex (workshop.ValidID).
func newEventID() string {
	b := make([]byte, 16)
	rand.Read(b)
	return hex.EncodeToString(b)
}

// membershipKatas returns the joined workshop's katas inside tx; ok is false when the learner
// is in no workshop.
func membershipKatas(tx *sql.Tx) (katas []string, ok bool, err error) {
	var ks string
	err = tx.QueryRow(`SELECT katas FROM workshop_membership WHERE id = 1`).Scan(&ks)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, err
	}
	katas, err = parseList("workshop_membership.katas", ks)
	return katas, err == nil, err
}

// enqueueTx queues events for the joined workshop inside tx, each with a new id; an event
// about a kata the workshop does not have is left out, and outside a workshop nothing is
// queued. It reports how many were queued.
func enqueueTx(tx *sql.Tx, events ...workshop.Event) (int, error) {
	katas, ok, err := membershipKatas(tx)
	if err != nil || !ok {
		return 0, err
	}
	n := 0
	for _, e := range events {
		if e.Kata != "" && !slices.Contains(katas, e.Kata) {
			continue
		}
		if e.Exam != nil && len(e.Exam.Katas) > 0 && !slices.ContainsFunc(e.Exam.Katas, func(k string) bool { return slices.Contains(katas, k) }) {
			continue // a mock exam over none of the workshop's katas
		}
		if e.ID == "" {
			e.ID = newEventID()
		}
		body, err := json.Marshal(e)
		if err != nil {
			return n, err
		}
		if _, err := tx.Exec(`INSERT INTO workshop_outbox(event_id, body, queued_at) VALUES(?, ?, ?) ON CONFLICT(event_id) DO NOTHING`,
			e.ID, string(body), sqldb.NS(time.Now())); err != nil {
			return n, err
		}
		n++
	}
	return n, nil
}

// answerEvent is the workshop event of an answer: KindAnswer for an item's card, KindDrill
// for a trap's.
func answerEvent(a Answer, source, quiz string) workshop.Event {
	kind := workshop.KindAnswer
	if srs.KindOf(a.CardID) == srs.KindTrap {
		kind, source = workshop.KindDrill, ""
	}
	return workshop.Event{Kind: kind, Kata: a.Kata, At: orNow(a.At).UTC(), Answer: &workshop.Answer{
		Item: a.ItemID, Chosen: a.Chosen, Correct: a.Correct, ElapsedMS: a.Elapsed.Milliseconds(), Source: source, Quiz: quiz}}
}

// verdictEvent is the workshop event of a grading run: its counts and each test's id,
// status, step and broken rules — never the learner's code or output.
func verdictEvent(g GradeRun) workshop.Event {
	v := &workshop.Verdict{Status: g.Status, Passed: g.Passed, Failed: g.Failed, Errored: g.Errored}
	for _, t := range g.Tests {
		v.Tests = append(v.Tests, workshop.TestVerdict{ID: t.ID, Status: t.Status, Step: t.Step, Rules: t.Rules})
	}
	return workshop.Event{Kind: workshop.KindVerdict, Kata: g.Kata, At: orNow(g.At).UTC(), Verdict: v}
}

// JoinWorkshop records m as the workshop the learner is in, replacing any earlier one and
// dropping the events still queued for it.
func (s *Store) JoinWorkshop(m Membership) error {
	if m.Base == "" || m.Code == "" || m.Learner == "" || m.Token == "" {
		return fmt.Errorf("progress store %s: joining a workshop: base, code, learner and token must all be set", s.path)
	}
	st, err := json.Marshal(m.State)
	if err != nil {
		return err
	}
	return s.write("joining a workshop", func(tx *sql.Tx) error {
		if _, err := tx.Exec(`DELETE FROM workshop_outbox`); err != nil {
			return err
		}
		_, err := tx.Exec(`INSERT INTO workshop_membership(id, base, code, learner, token, name, katas, joined_at, state) VALUES(1, ?, ?, ?, ?, ?, ?, ?, ?)
			ON CONFLICT(id) DO UPDATE SET base = excluded.base, code = excluded.code, learner = excluded.learner, token = excluded.token,
				name = excluded.name, katas = excluded.katas, joined_at = excluded.joined_at, state = excluded.state`,
			m.Base, m.Code, m.Learner, m.Token, m.Name, jsonList(m.Katas), sqldb.NS(orNow(m.Joined)), string(st))
		return err
	})
}

// Membership returns the workshop the learner is in, nil when none.
func (s *Store) Membership() (*Membership, error) {
	var m *Membership
	err := s.read("reading the workshop", func(tx *sql.Tx) error {
		var (
			mm        Membership
			ks, state string
			joined    int64
		)
		err := tx.QueryRow(`SELECT base, code, learner, token, name, katas, joined_at, state FROM workshop_membership WHERE id = 1`).
			Scan(&mm.Base, &mm.Code, &mm.Learner, &mm.Token, &mm.Name, &ks, &joined, &state)
		if errors.Is(err, sql.ErrNoRows) {
			return nil
		}
		if err != nil {
			return err
		}
		if mm.Katas, err = parseList("workshop_membership.katas", ks); err != nil {
			return err
		}
		if err := json.Unmarshal([]byte(state), &mm.State); err != nil {
			return fmt.Errorf("column workshop_membership.state: %w", err)
		}
		mm.Joined = sqldb.FromNS(joined)
		m = &mm
		return nil
	})
	return m, err
}

// SaveWorkshopState keeps the published state last received; outside a workshop it does
// nothing.
func (s *Store) SaveWorkshopState(st workshop.State) error {
	b, err := json.Marshal(st)
	if err != nil {
		return err
	}
	return s.write("saving the workshop's state", func(tx *sql.Tx) error {
		_, err := tx.Exec(`UPDATE workshop_membership SET state = ? WHERE id = 1`, string(b))
		return err
	})
}

// LeaveWorkshop forgets the workshop and the events still queued for it, and returns how
// many were dropped.
func (s *Store) LeaveWorkshop() (int, error) {
	var n int64
	err := s.write("leaving the workshop", func(tx *sql.Tx) error {
		res, err := tx.Exec(`DELETE FROM workshop_outbox`)
		if err != nil {
			return err
		}
		n, _ = res.RowsAffected()
		_, err = tx.Exec(`DELETE FROM workshop_membership`)
		return err
	})
	return int(n), err
}

// Enqueue queues one event for the workshop (a new id when e.ID is empty); outside a workshop,
// or for a kata the workshop does not have, it does nothing.
func (s *Store) Enqueue(e workshop.Event) error {
	err := s.write("queuing a workshop event", func(tx *sql.Tx) error {
		_, err := enqueueTx(tx, e)
		return err
	})
	if err == nil {
		s.notifyQueued()
	}
	return err
}

// Outbox returns up to limit queued events, oldest first.
func (s *Store) Outbox(limit int) ([]workshop.Event, error) {
	var out []workshop.Event
	err := s.read("reading the workshop queue", func(tx *sql.Tx) error {
		rows, err := tx.Query(`SELECT body FROM workshop_outbox ORDER BY id LIMIT ?`, limit)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var body string
			if err := rows.Scan(&body); err != nil {
				return err
			}
			var e workshop.Event
			if err := json.Unmarshal([]byte(body), &e); err != nil {
				return fmt.Errorf("column workshop_outbox.body: %w", err)
			}
			out = append(out, e)
		}
		return rows.Err()
	})
	return out, err
}

// Queued counts the events waiting to be sent.
func (s *Store) Queued() (int, error) {
	var n int
	err := s.read("counting the workshop queue", func(tx *sql.Tx) error {
		return tx.QueryRow(`SELECT count(*) FROM workshop_outbox`).Scan(&n)
	})
	return n, err
}

// Sent removes the events with these ids from the queue (the server stored them, or refused
// them for good).
func (s *Store) Sent(ids []string) error {
	if len(ids) == 0 {
		return nil
	}
	return s.write("emptying the workshop queue", func(tx *sql.Tx) error {
		_, err := tx.Exec(`DELETE FROM workshop_outbox WHERE event_id IN (SELECT value FROM json_each(?))`, jsonList(ids))
		return err
	})
}

// RecordLiveAnswer stores an answer to the instructor's live quiz as RecordAnswer stores a
// practice answer (the card is reviewed), and queues it for the workshop as a live answer
// to quiz.
func (s *Store) RecordLiveAnswer(a Answer, quiz string) error {
	kind, err := checkAnswer(a)
	if err != nil {
		return fmt.Errorf("progress store %s: %w", s.path, err)
	}
	err = s.write("recording a live quiz answer", func(tx *sql.Tx) error {
		if err := s.insertAnswer(tx, a, kind, 0); err != nil {
			return err
		}
		_, err := enqueueTx(tx, answerEvent(a, workshop.SourceLive, quiz))
		return err
	})
	if err == nil {
		s.notifyQueued()
	}
	return err
}

// examEvents are the workshop events of a submitted attempt: each answered item, then the score.
func examEvents(a Attempt, answers []Answer) []workshop.Event {
	var evs []workshop.Event
	for _, an := range answers {
		if len(an.Chosen) > 0 {
			evs = append(evs, answerEvent(an, workshop.SourceExam, ""))
		}
	}
	return append(evs, workshop.Event{Kind: workshop.KindExam, At: orNow(a.Finished).UTC(),
		Exam: &workshop.Exam{Katas: a.Katas, Points: a.Points, Max: a.Max, Scaled: a.Scaled, Passed: a.Passed}})
}
