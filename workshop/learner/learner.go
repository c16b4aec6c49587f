// Package learner is the learner's side of a workshop: joining and leaving, sending the
// events the progress store queued (in order, in batches, again after any failure — the
// server ignores a resend), and following what the instructor publishes (pacing, the live
// quiz) over the server's event stream, reconnecting by itself with Last-Event-ID. The
// terminal UI and the CLI both drive it; it knows nothing of either.
package learner

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"net/http"
	"sync"
	"time"

	"github.com/kata-mcp/kata/internal/progress"
	"github.com/kata-mcp/kata/workshop"
)

// Queue is the part of the progress store the agent uses; *progress.Store implements it.
type Queue interface {
	Membership() (*progress.Membership, error)
	JoinWorkshop(m progress.Membership) error
	LeaveWorkshop() (int, error)
	Outbox(limit int) ([]workshop.Event, error)
	Queued() (int, error)
	Sent(ids []string) error
	SaveWorkshopState(st workshop.State) error
	OnQueue(fn func())
	RecordLiveAnswer(a progress.Answer, quiz string) error
}

var _ Queue = (*progress.Store)(nil)

// Conn is the connection state in one word, as the catalog shows it.
type Conn string

// Connection states.
const (
	// NotJoined: no workshop (self-study).
	NotJoined Conn = ""
	// Connecting: joined, the first connection is being made.
	Connecting Conn = "connecting"
	// Live: the stream is up and events go out as they happen.
	Live Conn = "live"
	// Offline: the server cannot be reached; events wait in the queue.
	Offline Conn = "offline"
	// Refused: the server no longer knows the learner's token (join again).
	Refused Conn = "refused"
	// Closed: the instructor closed the workshop (kata leave ends it here).
	Closed Conn = "closed"
)

// Status is what the agent reports to the interface.
type Status struct {
	// Conn is the connection state; the rest is empty when NotJoined.
	Conn Conn
	// Code, Name and URL are the workshop's code, the learner's name and the join address.
	Code, Name, URL string
	// Katas are the workshop's katas.
	Katas []string
	// Queued counts events waiting to be sent; Dropped those dropped unsent because the
	// workshop was closed (the server refuses them for good).
	Queued, Dropped int
	// State is what the instructor published last (nil when NotJoined).
	State *workshop.State
	// Err is the last failure, for a detail line ("" when none).
	Err string
}

// Options tune an agent.
type Options struct {
	// HTTP is the client to the server (nil: http.DefaultClient, streams have no timeout).
	HTTP *http.Client
	// Poll is how often the queue is read even when nothing woke the sender (events another
	// process queued, such as `kata grade`); 0 means 3 s.
	Poll time.Duration
	// MaxBackoff caps the wait between retries (0: 5 s: after a restart a room is back within
	// seconds, and a few hundred reconnects a second are nothing to the server).
	MaxBackoff time.Duration
}

// Agent runs one learner's workshop connection.
type Agent struct {
	q    Queue
	opts Options

	mu      sync.Mutex
	m       *progress.Membership
	status  Status
	session context.CancelFunc
	wg      sync.WaitGroup

	wake    chan struct{}
	updates chan Status

	// stopWatch ends the watch Start began (a join or leave made by another process);
	// watching is its goroutine.
	stopWatch chan struct{}
	watching  sync.WaitGroup
}

// New returns an agent over q; Start begins if the learner is in a workshop.
func New(q Queue, opts Options) *Agent {
	if opts.Poll <= 0 {
		opts.Poll = 3 * time.Second
	}
	if opts.MaxBackoff <= 0 {
		opts.MaxBackoff = 5 * time.Second
	}
	a := &Agent{q: q, opts: opts, wake: make(chan struct{}, 1), updates: make(chan Status, 1)}
	q.OnQueue(a.poke)
	return a
}

// poke wakes the sender.
func (a *Agent) poke() {
	select {
	case a.wake <- struct{}{}:
	default:
	}
}

// Updates delivers the status each time it changes; a slow reader sees only the latest.
func (a *Agent) Updates() <-chan Status { return a.updates }

// Status is the status now.
func (a *Agent) Status() Status {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.status
}

// publish records and delivers a status change made by fn (under the lock).
func (a *Agent) publish(fn func(s *Status)) {
	a.mu.Lock()
	fn(&a.status)
	st := a.status
	a.mu.Unlock()
	for {
		select {
		case a.updates <- st:
			return
		default:
		}
		select {
		case <-a.updates: // drop the stale one
		default:
		}
	}
}

func (a *Agent) client(m *progress.Membership) *workshop.Client {
	return &workshop.Client{Base: m.Base, Token: m.Token, HTTP: a.opts.HTTP}
}

// Start reads the membership and, when the learner is in a workshop, starts sending and
// following it. It reports the status at once (the last state saved, Connecting). Until
// Close, it reads the membership again every Poll, so a `kata join` or `kata leave` run in
// another terminal is picked up by a running app.
func (a *Agent) Start() error {
	m, err := a.q.Membership()
	if err != nil {
		return err
	}
	a.begin(m)
	a.mu.Lock()
	if a.stopWatch == nil {
		a.stopWatch = make(chan struct{})
		a.watching.Add(1)
		go a.watch(a.stopWatch)
	}
	a.mu.Unlock()
	return nil
}

// watch follows the membership another process may change, until stop is closed.
func (a *Agent) watch(stop chan struct{}) {
	defer a.watching.Done()
	t := time.NewTicker(a.opts.Poll)
	defer t.Stop()
	for {
		select {
		case <-stop:
			return
		case <-t.C:
		}
		m, err := a.q.Membership()
		if err != nil {
			continue
		}
		a.mu.Lock()
		cur := a.m
		a.mu.Unlock()
		if !sameMembership(cur, m) {
			a.begin(m)
		}
	}
}

// sameMembership reports whether a and b are the same workshop membership (or both none).
func sameMembership(a, b *progress.Membership) bool {
	if a == nil || b == nil {
		return a == b
	}
	return a.Learner == b.Learner && a.Token == b.Token && a.Base == b.Base
}

// begin starts a session for m (nil: none), ending any earlier one.
func (a *Agent) begin(m *progress.Membership) {
	a.end()
	a.mu.Lock()
	a.m = m
	a.mu.Unlock()
	if m == nil {
		a.publish(func(s *Status) { *s = Status{} })
		return
	}
	n, _ := a.q.Queued()
	st := m.State
	a.publish(func(s *Status) {
		*s = Status{Conn: Connecting, Code: m.Code, Name: m.Name, URL: m.JoinURL(), Katas: m.Katas, Queued: n, State: &st}
	})
	ctx, cancel := context.WithCancel(context.Background())
	a.mu.Lock()
	a.session = cancel
	a.mu.Unlock()
	a.wg.Add(2)
	go func() { defer a.wg.Done(); a.send(ctx, m) }()
	go func() { defer a.wg.Done(); a.follow(ctx, m) }()
}

// end stops the session, if any, and waits for it.
func (a *Agent) end() {
	a.mu.Lock()
	cancel := a.session
	a.session = nil
	a.mu.Unlock()
	if cancel != nil {
		cancel()
	}
	a.wg.Wait()
}

// Close stops the agent.
func (a *Agent) Close() {
	a.mu.Lock()
	stop := a.stopWatch
	a.stopWatch = nil
	a.mu.Unlock()
	if stop != nil {
		close(stop)
		a.watching.Wait()
	}
	a.end()
	a.q.OnQueue(nil)
}

// joinRetries bounds how long Join waits out a rate limit (a classroom joining at once).
const joinRetries = 10

// Join joins the workshop at the join address joinURL under name, records it in the
// progress store (replacing any earlier workshop) and starts following it. A rate limit
// (429) is waited out, up to joinRetries times.
func (a *Agent) Join(ctx context.Context, joinURL, name string) (*progress.Membership, error) {
	j, err := workshop.ParseJoinURL(joinURL)
	if err != nil {
		return nil, err
	}
	c := &workshop.Client{Base: j.Base, HTTP: a.opts.HTTP}
	var jr *workshop.JoinResponse
	for try := 0; ; try++ {
		jr, err = c.Join(ctx, j.Code, name)
		var ae *workshop.APIError
		if err == nil || !errors.As(err, &ae) || ae.Status != http.StatusTooManyRequests || try >= joinRetries {
			break
		}
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(max(ae.RetryAfter, time.Second)):
		}
	}
	if err != nil {
		return nil, fmt.Errorf("joining %s: %w", j, err)
	}
	if jr.Name != "" {
		name = jr.Name // made unique by the server
	}
	m := progress.Membership{Base: j.Base, Code: jr.Workshop.Code, Learner: jr.Learner, Token: jr.Token, Name: name,
		Katas: jr.Workshop.Katas, Joined: time.Now(), State: jr.State}
	if err := a.q.JoinWorkshop(m); err != nil {
		return nil, err
	}
	a.begin(&m)
	return &m, nil
}

// Leave sends what is queued (for at most a few seconds), tells the server, and forgets the
// workshop; it returns how many queued events were dropped unsent. Outside a workshop it
// does nothing.
func (a *Agent) Leave(ctx context.Context) (int, error) {
	m, err := a.q.Membership()
	if err != nil || m == nil {
		return 0, err
	}
	a.end()
	fctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	a.flush(fctx, m)
	a.client(m).Leave(fctx) // the server may be gone: leaving still works here
	dropped, err := a.q.LeaveWorkshop()
	a.begin(nil)
	return dropped, err
}

// Flush sends every queued event now (a command that queued events and exits, such as
// `kata grade`); it returns the first failure. Outside a workshop it does nothing.
func (a *Agent) Flush(ctx context.Context) error {
	m, err := a.q.Membership()
	if err != nil || m == nil {
		return err
	}
	return a.flush(ctx, m)
}

// AnswerLive records an answer to the live quiz (progress and the workshop queue).
func (a *Agent) AnswerLive(ans progress.Answer, quiz string) error {
	return a.q.RecordLiveAnswer(ans, quiz)
}

// batch is how many events one request carries.
const batch = 200

// flush sends the queue until it is empty or a request fails.
func (a *Agent) flush(ctx context.Context, m *progress.Membership) error {
	c := a.client(m)
	for {
		evs, err := a.q.Outbox(batch)
		if err != nil {
			return err
		}
		if len(evs) == 0 {
			return nil
		}
		_, err = c.Send(ctx, evs)
		var ae *workshop.APIError
		switch {
		case errors.As(err, &ae) && ae.Status == http.StatusRequestEntityTooLarge && len(evs) > 1:
			// Cannot happen with batch ≤ MaxBatch, but never loop on it: send one at a time.
			for _, e := range evs {
				if _, err := c.Send(ctx, []workshop.Event{e}); err != nil {
					return err
				}
				if err := a.q.Sent([]string{e.ID}); err != nil {
					return err
				}
			}
			continue
		case errors.As(err, &ae) && ae.Status == http.StatusGone:
			// The workshop was closed: nothing queued will ever be taken. Drop it, and say so,
			// rather than leave it "waiting to be sent" for good.
			n, derr := a.dropQueue()
			a.publish(func(s *Status) { s.Dropped += n; s.Conn = Closed })
			if derr != nil {
				return derr
			}
			return err
		case err != nil:
			return err
		}
		ids := make([]string, len(evs))
		for i, e := range evs {
			ids[i] = e.ID // stored, a resend, or refused for good: none goes again
		}
		if err := a.q.Sent(ids); err != nil {
			return err
		}
	}
}

// dropQueue removes every queued event unsent and returns how many there were.
func (a *Agent) dropQueue() (int, error) {
	n := 0
	for {
		evs, err := a.q.Outbox(batch)
		if err != nil || len(evs) == 0 {
			return n, err
		}
		ids := make([]string, len(evs))
		for i, e := range evs {
			ids[i] = e.ID
		}
		if err := a.q.Sent(ids); err != nil {
			return n, err
		}
		n += len(evs)
	}
}

// backoff is the wait before retry number n (from 0): 500 ms doubling up to the cap, with
// up to 50% jitter so a room of learners does not reconnect in step.
func (a *Agent) backoff(n int) time.Duration {
	d := 500 * time.Millisecond << min(n, 10)
	d = min(d, a.opts.MaxBackoff)
	return d/2 + time.Duration(rand.Int64N(int64(d/2)+1))
}

// connState is the state a failure puts the connection in.
func connState(err error) Conn {
	var ae *workshop.APIError
	if errors.As(err, &ae) {
		switch {
		case ae.Status == http.StatusGone:
			return Closed
		case ae.Status == http.StatusUnauthorized || ae.Status == http.StatusForbidden:
			return Refused
		}
	}
	return Offline
}

// send runs the sender: on each wake (an event queued) or poll, it flushes the queue; after a
// failure it waits, backing off.
func (a *Agent) send(ctx context.Context, m *progress.Membership) {
	fails := 0
	poll := time.NewTimer(0)
	defer poll.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-a.wake:
		case <-poll.C:
		}
		err := a.flush(ctx, m)
		if ctx.Err() != nil {
			return
		}
		n, _ := a.q.Queued()
		wait := a.opts.Poll
		if err != nil {
			wait = a.backoff(fails)
			fails++
			a.publish(func(s *Status) {
				s.Queued, s.Err = n, err.Error()
				if s.Conn != Closed {
					s.Conn = connState(err)
				}
			})
		} else {
			fails = 0
			a.publish(func(s *Status) {
				s.Queued = n
				if s.Conn == Offline || s.Conn == Refused {
					s.Err = ""
				}
			})
		}
		if !poll.Stop() {
			select {
			case <-poll.C:
			default:
			}
		}
		poll.Reset(wait)
	}
}

// follow keeps the event stream open, reconnecting with Last-Event-ID after a drop, and
// takes every published state.
func (a *Agent) follow(ctx context.Context, m *progress.Membership) {
	c := a.client(m)
	last := ""
	if m.State.Seq > 0 {
		last = fmt.Sprint(m.State.Seq)
	}
	fails := 0
	for ctx.Err() == nil {
		var err error
		last, err = c.Stream(ctx, workshop.PathStream, last, func(e workshop.SSE) error {
			if fails > 0 || a.Status().Conn != Live {
				fails = 0
				a.publish(func(s *Status) { s.Conn, s.Err = Live, "" })
				a.poke() // back online: send what waited
			}
			if e.Event != workshop.SSEState {
				return nil
			}
			var st workshop.State
			if err := json.Unmarshal([]byte(e.Data), &st); err != nil {
				return err
			}
			a.q.SaveWorkshopState(st)
			a.publish(func(s *Status) {
				s.State = &st
				if st.Closed {
					s.Conn = Closed
				}
			})
			return nil
		})
		if ctx.Err() != nil {
			return
		}
		conn := connState(err)
		a.publish(func(s *Status) {
			if s.Conn != Closed {
				s.Conn = conn
			}
			if err != nil {
				s.Err = err.Error()
			}
		})
		select {
		case <-ctx.Done():
			return
		case <-time.After(a.backoff(fails)):
		}
		fails++
	}
}
