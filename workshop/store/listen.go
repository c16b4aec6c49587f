package store

import (
	"context"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
)

// Listen calls fn(workshop, seq) for every append any replica commits on the PostgreSQL
// database (LISTEN NotifyChannel, https://www.postgresql.org/docs/current/sql-listen.html),
// until ctx ends. Its connection is its own; when it drops, Listen reconnects (backing off
// up to 5 s) and then calls fn(0, 0): notifications may have been missed, so every
// workshop should be read again. ready, when not nil, is called each time LISTEN is in
// place. On SQLite, where one process holds the file, Listen returns at once.
func (s *Store) Listen(ctx context.Context, fn func(workshop, seq int64), ready func()) error {
	if !s.Postgres() {
		return nil
	}
	backoff := 100 * time.Millisecond
	first := true
	for ctx.Err() == nil {
		s.listenOnce(ctx, fn, func() {
			backoff = 100 * time.Millisecond
			if !first {
				fn(0, 0)
			}
			first = false
			if ready != nil {
				ready()
			}
		})
		if ctx.Err() != nil {
			break
		}
		select {
		case <-ctx.Done():
		case <-time.After(backoff):
		}
		backoff = min(backoff*2, 5*time.Second)
	}
	return ctx.Err()
}

// listenOnce holds one LISTEN connection until it fails (Listen retries, whatever the error).
func (s *Store) listenOnce(ctx context.Context, fn func(workshop, seq int64), ready func()) error {
	conn, err := pgx.Connect(ctx, s.dsn)
	if err != nil {
		return err
	}
	defer conn.Close(context.WithoutCancel(ctx))
	if _, err := conn.Exec(ctx, "LISTEN "+NotifyChannel); err != nil {
		return err
	}
	ready()
	for {
		n, err := conn.WaitForNotification(ctx)
		if err != nil {
			return err
		}
		ws, seq, ok := strings.Cut(n.Payload, ":")
		if !ok {
			continue
		}
		w, err1 := strconv.ParseInt(ws, 10, 64)
		q, err2 := strconv.ParseInt(seq, 10, 64)
		if err1 == nil && err2 == nil {
			fn(w, q)
		}
	}
}
