// Package server is `kata serve`: the instructor's HTTP server of a live workshop. Learners
// join with the workshop's code and report events (JSON API); the instructor's board — in
// the server's terminal (through Workshop) and as a web page at /board — follows them live over
// Server-Sent Events; the instructor paces the class and runs live quizzes.
//
// Every request is authenticated by a random token, of which the store keeps only the
// SHA-256 hash: a learner's, issued when they join, lets them write their own events and read
// what the instructor published; an instructor's, issued when `kata serve` starts, lets them
// read the board and act. Bodies are capped at workshop.MaxBody, each token and each address
// is rate-limited, and every refusal is a 4xx with a JSON body (workshop.APIError). The
// server stores what learners report and never runs any of their code.
package server

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"sync"
	"time"

	"github.com/kata-mcp/kata/internal/i18n"
	"github.com/kata-mcp/kata/katas"
	"github.com/kata-mcp/kata/workshop"
	"github.com/kata-mcp/kata/workshop/board"
	"github.com/kata-mcp/kata/workshop/store"
)

// Options tune a server. The zero value is usable.
type Options struct {
	// MaxLearners caps a workshop's learners (0: DefaultMaxLearners).
	MaxLearners int
	// Board tunes the board (idle time, repeated failures, rule texts).
	Board board.Options
	// Loc words the web board and the board's attention reasons in the instructor's language
	// (nil: English); it overrides Board.Loc. The API's error messages stay English.
	Loc *i18n.Localizer
	// TrustProxy takes the client's address from the last X-Forwarded-For entry, for a
	// server behind one reverse proxy that sets it; otherwise the connection's address counts.
	TrustProxy bool
	// Secure marks the board cookie Secure (the server or its proxy speaks HTTPS).
	Secure bool
	// Limits are the rate limits (zero fields: the defaults).
	Limits Limits
	// Log receives the server's log (nil: discarded).
	Log io.Writer
	// Now is the clock (nil: time.Now).
	Now func() time.Time
}

// DefaultMaxLearners is a workshop's learner cap when Options.MaxLearners is 0.
const DefaultMaxLearners = 1000

// Server serves the workshops of one store.
type Server struct {
	store *store.Store
	lib   *katas.Library
	opts  Options
	log   *slog.Logger
	now   func() time.Time

	ctx    context.Context
	cancel context.CancelFunc

	mu   sync.Mutex
	hubs map[int64]*hub
	// loading serialises hub loads.
	loading sync.Mutex

	auth   authCache
	limits *limiters
}

// New returns a server over st (the packets from lib). Call Run to follow other replicas on
// PostgreSQL, and Close when done.
func New(st *store.Store, lib *katas.Library, opts Options) *Server {
	if opts.MaxLearners <= 0 {
		opts.MaxLearners = DefaultMaxLearners
	}
	w := opts.Log
	if w == nil {
		w = io.Discard
	}
	s := &Server{store: st, lib: lib, opts: opts, log: slog.New(slog.NewTextHandler(w, nil)), now: opts.Now, hubs: map[int64]*hub{}}
	if s.now == nil {
		s.now = time.Now
	}
	s.ctx, s.cancel = context.WithCancel(context.Background())
	s.limits = newLimiters(opts.Limits.withDefaults(), s.now)
	s.auth.init()
	return s
}

// Close stops the server's background work (the streams end too); it does not close the store.
func (s *Server) Close() { s.cancel() }

// Done is closed when the server is closed: streams end.
func (s *Server) Done() <-chan struct{} { return s.ctx.Done() }

// Run follows the other replicas' appends on PostgreSQL (LISTEN/NOTIFY) until ctx ends or the
// server closes; ready, when not nil, is called once LISTEN is in place. On SQLite it returns
// at once.
func (s *Server) Run(ctx context.Context, ready func()) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	go func() {
		select {
		case <-s.ctx.Done():
			cancel()
		case <-ctx.Done():
		}
	}()
	return s.store.Listen(ctx, func(ws, seq int64) {
		s.mu.Lock()
		var hs []*hub
		if ws == 0 {
			for _, h := range s.hubs {
				hs = append(hs, h)
			}
		} else if h, ok := s.hubs[ws]; ok {
			hs = append(hs, h)
		}
		s.mu.Unlock()
		for _, h := range hs {
			h.signal(seq)
		}
	}, ready)
}

// hub returns the loaded workshop ws, loading it on first use.
func (s *Server) hub(ctx context.Context, ws store.Workshop) (*hub, error) {
	s.mu.Lock()
	h := s.hubs[ws.ID]
	s.mu.Unlock()
	if h != nil {
		return h, nil
	}
	s.loading.Lock()
	defer s.loading.Unlock()
	s.mu.Lock()
	h = s.hubs[ws.ID]
	s.mu.Unlock()
	if h != nil {
		return h, nil
	}
	h, err := s.newHub(ctx, ws)
	if err != nil {
		return nil, err
	}
	s.mu.Lock()
	s.hubs[ws.ID] = h
	s.mu.Unlock()
	return h, nil
}

// hubByID loads the workshop with id.
func (s *Server) hubByID(ctx context.Context, id int64) (*hub, error) {
	s.mu.Lock()
	h := s.hubs[id]
	s.mu.Unlock()
	if h != nil {
		return h, nil
	}
	ws, err := s.store.Workshop(ctx, id)
	if err != nil {
		return nil, err
	}
	return s.hub(ctx, ws)
}

// Opening says what to open of each kata when a workshop is created.
type Opening struct {
	// Layers and Steps are how many layers and task steps are open at first (0: all).
	Layers, Steps int
}

// Open resumes the newest open workshop of exactly these katas, or creates one (with the
// opening pacing), and issues a new instructor token for it. Every kata must be in the
// library. created says a new workshop (and join code) was made.
func (s *Server) Open(ctx context.Context, kataIDs []string, open Opening) (c *Workshop, token string, created bool, err error) {
	return s.OpenWith(ctx, kataIDs, open, "")
}

// OpenWith is Open keeping the instructor token reuse when it is one of the workshop's (the
// token of an earlier start, which the instructor file keeps): a restart keeps the token the
// instructor's web board and kata class commands already have. Any other reuse is ignored
// and a new token issued.
func (s *Server) OpenWith(ctx context.Context, kataIDs []string, open Opening, reuse string) (c *Workshop, token string, created bool, err error) {
	if len(kataIDs) == 0 {
		return nil, "", false, errors.New("no kata: name one or more with --kata")
	}
	for _, id := range kataIDs {
		if _, ok := s.lib.Get(id); !ok {
			return nil, "", false, fmt.Errorf("unknown kata %q (known: %v)", id, s.lib.IDs())
		}
	}
	ws, created, err := s.store.OpenWorkshop(ctx, kataIDs, s.now())
	if err != nil {
		return nil, "", false, err
	}
	if reuse != "" {
		if id, err := s.store.InstructorWorkshop(ctx, hashToken(reuse)); err == nil && id == ws.ID {
			token = reuse
		}
	}
	if token == "" {
		token = newToken()
		if err := s.store.AddInstructor(ctx, ws.ID, hashToken(token), s.now()); err != nil {
			return nil, "", false, err
		}
	}
	h, err := s.hub(ctx, ws)
	if err != nil {
		return nil, "", false, err
	}
	c = &Workshop{h: h}
	if created && (open.Layers > 0 || open.Steps > 0) {
		if _, err := c.Pace(ctx, workshop.PacingRequest{Layers: max(open.Layers, 0), Steps: max(open.Steps, 0)}); err != nil {
			return nil, "", false, err
		}
	}
	return c, token, created, nil
}

// newToken draws a 256-bit token, hex-encoded.
func newToken() string {
	b := make([]byte, 32)
	rand.Read(b)
	return hex.EncodeToString(b)
}

// newID draws a short public id with prefix.
func newID(prefix string) string {
	b := make([]byte, 6)
	rand.Read(b)
	return prefix + hex.EncodeToString(b)
}

// hashToken is the hash the store keeps of a token: SHA-256, hex. A token has 256 random
// bits, so a fast hash suffices (no password stretching needed).
func hashToken(token string) string {
	sum := sha256.Sum256([]byte(token))
	return hex.EncodeToString(sum[:])
}

// Handler is the server's HTTP handler.
func (s *Server) Handler() http.Handler { return s.routes() }
