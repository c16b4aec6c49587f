package server

import (
	"context"
	"sync"
	"time"

	"github.com/kata-mcp/kata/katas"
	"github.com/kata-mcp/kata/workshop"
	"github.com/kata-mcp/kata/workshop/board"
	"github.com/kata-mcp/kata/workshop/store"
)

// hub is one workshop as this server process holds it: its board (the fold of its events, in
// sequence order) and the streams watching it. Events reach the board from this process's own
// appends (offer) and, on PostgreSQL, from the other replicas' (signal, then a read).
type hub struct {
	s  *Server
	ws store.Workshop

	mu    sync.Mutex
	board *board.Board
	subs  map[*sub]struct{}
	// changed is closed and replaced on every change, for in-process watchers (the TUI).
	changed chan struct{}
	// summary caches the board's summary by sequence number.
	summary    board.Summary
	summarySeq int64
	summaryAt  time.Time

	wake chan struct{}
}

// sub is one stream watching a hub: a board stream (every learner's row that changed) or a
// learner stream (the published state).
type sub struct {
	learner bool
	ch      chan struct{} // a change is waiting (buffered, one slot)
	// dirty are the rows changed since the stream last wrote (board streams); full asks for
	// the whole view again.
	dirty map[string]bool
	full  bool
}

// poke tells the stream something changed, without blocking.
func (s *sub) poke() {
	select {
	case s.ch <- struct{}{}:
	default:
	}
}

// newHub loads workshop ws and its events and starts its reader.
func (s *Server) newHub(ctx context.Context, ws store.Workshop) (*hub, error) {
	var packets []*katas.Packet
	for _, id := range ws.Katas {
		if p, ok := s.lib.Get(id); ok {
			packets = append(packets, p)
		}
	}
	bo := s.opts.Board
	if s.opts.Loc != nil {
		bo.Loc = s.opts.Loc
	}
	h := &hub{s: s, ws: ws, board: board.New(ws.Code, packets, bo), subs: map[*sub]struct{}{},
		changed: make(chan struct{}), wake: make(chan struct{}, 1)}
	if err := h.catchUp(ctx); err != nil {
		return nil, err
	}
	go h.run(s.ctx)
	return h, nil
}

// readPage is how many events one read of the store takes.
const readPage = 2000

// catchUp reads and applies every stored event after the board's last one.
func (h *hub) catchUp(ctx context.Context) error {
	for {
		h.mu.Lock()
		after := h.board.Seq()
		h.mu.Unlock()
		evs, err := h.s.store.Events(ctx, h.ws.ID, after, readPage, false)
		if err != nil {
			return err
		}
		h.apply(evs)
		if len(evs) < readPage {
			return nil
		}
	}
}

// run reads the store whenever woken (another replica appended, or an append arrived out of
// order), and every resync interval on PostgreSQL in case a notification was lost.
func (h *hub) run(ctx context.Context) {
	var tick <-chan time.Time
	if h.s.store.Postgres() {
		t := time.NewTicker(resyncEvery)
		defer t.Stop()
		tick = t.C
	}
	for {
		select {
		case <-ctx.Done():
			return
		case <-h.wake:
		case <-tick:
		}
		if err := h.catchUp(ctx); err != nil && ctx.Err() == nil {
			h.s.log.Warn("reading events", "workshop", h.ws.Code, "err", err)
		}
	}
}

// resyncEvery is how often a PostgreSQL replica reads its workshops' events unprompted.
const resyncEvery = 5 * time.Second

// poke wakes the reader.
func (h *hub) poke() {
	select {
	case h.wake <- struct{}{}:
	default:
	}
}

// offer takes events this process just stored (in sequence order): applied at once when
// they follow the board's last event, otherwise the reader fills the gap from the store.
func (h *hub) offer(evs []workshop.Event) {
	if len(evs) == 0 {
		return
	}
	h.mu.Lock()
	next := h.board.Seq() + 1
	h.mu.Unlock()
	if evs[0].Seq != next {
		h.poke()
		return
	}
	h.apply(evs)
}

// signal says the workshop has events up to seq (0: unknown, read anyway).
func (h *hub) signal(seq int64) {
	h.mu.Lock()
	behind := seq == 0 || seq > h.board.Seq()
	h.mu.Unlock()
	if behind {
		h.poke()
	}
}

// apply folds events in and tells the watchers.
func (h *hub) apply(evs []workshop.Event) {
	if len(evs) == 0 {
		return
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	changed := false
	published := false
	rows := map[string]bool{}
	for _, e := range evs {
		if e.Seq != h.board.Seq()+1 {
			if e.Seq <= h.board.Seq() {
				continue // already applied
			}
			h.poke() // a gap: read it from the store
			break
		}
		if id := h.board.Apply(e); id != "" {
			rows[id] = true
		}
		changed = true
		published = published || e.Kind.Published()
	}
	if !changed {
		return
	}
	for s := range h.subs {
		if s.learner {
			if published {
				s.poke()
			}
			continue
		}
		for id := range rows {
			s.dirty[id] = true
		}
		if published {
			s.full = true // the columns (pacing) or the quiz changed
		}
		s.poke()
	}
	close(h.changed)
	h.changed = make(chan struct{})
}

// subscribe adds a stream.
func (h *hub) subscribe(learner bool) *sub {
	s := &sub{learner: learner, ch: make(chan struct{}, 1), dirty: map[string]bool{}}
	h.mu.Lock()
	h.subs[s] = struct{}{}
	h.mu.Unlock()
	return s
}

func (h *hub) unsubscribe(s *sub) {
	h.mu.Lock()
	delete(h.subs, s)
	h.mu.Unlock()
}

// view takes the whole board now.
func (h *hub) view() board.View {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.board.View(h.s.now())
}

// learnerNamed is the id of the learner present whose name is name (case aside), or "".
func (h *hub) learnerNamed(name string) string {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.board.LearnerNamed(name)
}

// left reports whether learner id left the workshop or was removed from it.
func (h *hub) left(id string) bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.board.Left(id)
}

// state is the published state.
func (h *hub) state() workshop.State {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.board.State()
}

// update is what a board stream sends after a change: the rows that changed and the
// summary, or (full) the whole view.
type update struct {
	Seq     int64         `json:"seq"`
	At      time.Time     `json:"at"`
	Rows    []board.Row   `json:"rows,omitempty"`
	Summary board.Summary `json:"summary"`
	// Closed and Locked are the view's: the page stops advertising joining.
	Closed bool `json:"closed"`
	Locked bool `json:"locked"`
}

// take returns a board stream's pending update and clears it; full reports that the whole
// view is wanted instead.
func (h *hub) take(s *sub) (u update, full bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	now := h.s.now()
	if s.full {
		s.full = false
		clear(s.dirty)
		return update{}, true
	}
	u = update{Seq: h.board.Seq(), At: now}
	for id := range s.dirty {
		u.Rows = append(u.Rows, h.board.Row(id, now))
	}
	clear(s.dirty)
	u.Summary = h.summaryLocked(now)
	st := h.board.State()
	u.Closed, u.Locked = st.Closed, st.Locked
	return u, false
}

// summaryLocked is the board's summary, recomputed at most once per sequence number and
// second (the idle flags move with the clock).
func (h *hub) summaryLocked(now time.Time) board.Summary {
	if h.summarySeq != h.board.Seq() || now.Sub(h.summaryAt) >= time.Second || h.summaryAt.IsZero() {
		h.summary, h.summarySeq, h.summaryAt = h.board.Summary(now), h.board.Seq(), now
	}
	return h.summary
}
