package server

import (
	"math"
	"net"
	"net/http"
	"net/netip"
	"strings"
	"sync"
	"time"

	"golang.org/x/time/rate"

	"github.com/kata-mcp/kata/workshop/store"
)

// Limits are the server's rate limits: token buckets (golang.org/x/time/rate) of a rate per
// second and a burst.
type Limits struct {
	// PerToken limits each learner's or instructor's requests (default 20/s, burst 60).
	PerToken, PerTokenBurst float64
	// Joins limits joins from one address (default 10/s, burst 100: a classroom behind one
	// NAT address joins at once, then the limit holds brute force of join codes back).
	Joins, JoinsBurst float64
	// BadTokens limits requests with a missing or unknown token from one address (default
	// 5/s, burst 30).
	BadTokens, BadTokensBurst float64
	// Streams caps the event streams one token may hold open at once (default 8).
	Streams int
	// SeatsPerAddress caps the learners one address may add to a workshop (default 60: a
	// classroom behind one NAT address fits; one machine cannot fill the workshop). They are
	// counted in the store (store.JoinLimits), so a restart or another replica keeps the count.
	// Negative: no cap.
	SeatsPerAddress int
	// EventsPerLearner caps the events a workshop stores of one learner (default 20000, far
	// beyond a day's work; a token replaying events cannot fill the disk). Negative: no cap.
	EventsPerLearner int
}

func (l Limits) withDefaults() Limits {
	def := func(v *float64, d float64) {
		if *v <= 0 {
			*v = d
		}
	}
	def(&l.PerToken, 20)
	def(&l.PerTokenBurst, 60)
	def(&l.Joins, 10)
	def(&l.JoinsBurst, 100)
	def(&l.BadTokens, 5)
	def(&l.BadTokensBurst, 30)
	if l.Streams <= 0 {
		l.Streams = 8
	}
	if l.SeatsPerAddress == 0 {
		l.SeatsPerAddress = DefaultSeatsPerAddress
	}
	if l.EventsPerLearner == 0 {
		l.EventsPerLearner = 20000
	}
	return l
}

// DefaultSeatsPerAddress is Limits.SeatsPerAddress when unset, and kata serve's
// --seats-per-address default: a classroom behind one NAT address fits, one machine cannot
// fill a workshop.
const DefaultSeatsPerAddress = 60

// limiters holds a token bucket per key (a token's hash, or an address), forgetting keys idle
// for forgetAfter.
type limiters struct {
	l   Limits
	now func() time.Time
	mu  sync.Mutex
	m   map[string]*bucket
	// swept is when idle buckets were last dropped.
	swept time.Time
	// streams counts each token's open streams.
	streams map[string]int
	// events counts each learner's stored events (read from the store the first time).
	events map[string]int
}

// eventRoom returns how many more events learner may store, asking count the first time.
func (ls *limiters) eventRoom(learner string, count func() (int, error)) (int, error) {
	if ls.l.EventsPerLearner < 0 {
		return math.MaxInt, nil
	}
	ls.mu.Lock()
	n, ok := ls.events[learner]
	ls.mu.Unlock()
	if !ok {
		c, err := count()
		if err != nil {
			return 0, err
		}
		ls.mu.Lock()
		if n, ok = ls.events[learner]; !ok {
			n = c
			ls.events[learner] = c
		}
		ls.mu.Unlock()
	}
	return max(ls.l.EventsPerLearner-n, 0), nil
}

// stored counts n more events of learner.
func (ls *limiters) stored(learner string, n int) {
	ls.mu.Lock()
	defer ls.mu.Unlock()
	if _, ok := ls.events[learner]; ok {
		ls.events[learner] += n
	}
}

type bucket struct {
	lim  *rate.Limiter
	last time.Time
}

// forgetAfter is how long an idle bucket is kept (it would be full again by then).
const forgetAfter = 10 * time.Minute

func newLimiters(l Limits, now func() time.Time) *limiters {
	return &limiters{l: l, now: now, m: map[string]*bucket{}, streams: map[string]int{}, events: map[string]int{}}
}

// allow takes one request from key's bucket (rate r, burst b); when empty it returns false
// and how long until a request would be allowed.
func (ls *limiters) allow(key string, r, b float64) (bool, time.Duration) {
	ls.mu.Lock()
	defer ls.mu.Unlock()
	now := ls.now()
	if now.Sub(ls.swept) > time.Minute {
		for k, bk := range ls.m {
			if now.Sub(bk.last) > forgetAfter {
				delete(ls.m, k)
			}
		}
		ls.swept = now
	}
	bk := ls.m[key]
	if bk == nil {
		bk = &bucket{lim: rate.NewLimiter(rate.Limit(r), int(b))}
		ls.m[key] = bk
	}
	bk.last = now
	if bk.lim.AllowN(now, 1) {
		return true, 0
	}
	res := bk.lim.ReserveN(now, 1)
	d := res.DelayFrom(now)
	res.CancelAt(now)
	return false, d
}

// openStream counts one more stream of key; false when it already has its most.
func (ls *limiters) openStream(key string) bool {
	ls.mu.Lock()
	defer ls.mu.Unlock()
	if ls.streams[key] >= ls.l.Streams {
		return false
	}
	ls.streams[key]++
	return true
}

func (ls *limiters) closeStream(key string) {
	ls.mu.Lock()
	defer ls.mu.Unlock()
	if ls.streams[key]--; ls.streams[key] <= 0 {
		delete(ls.streams, key)
	}
}

// retrySeconds is a Retry-After value (RFC 9110 §10.2.3, delay-seconds): d rounded up, at
// least 1.
func retrySeconds(d time.Duration) int {
	return max(int(math.Ceil(d.Seconds())), 1)
}

// clientAddr is the address a request counts against: the connection's, or with
// TrustProxy the last X-Forwarded-For entry (the one the proxy in front of us added). An IP
// address is written one way (netip: IPv4-mapped IPv6 as IPv4, IPv6 in RFC 5952 form), so
// that one client is one key however its address was spelt.
func (s *Server) clientAddr(r *http.Request) string {
	addr := r.RemoteAddr
	if host, _, err := net.SplitHostPort(addr); err == nil {
		addr = host
	}
	if s.opts.TrustProxy {
		if xff := r.Header.Values("X-Forwarded-For"); len(xff) > 0 {
			parts := strings.Split(xff[len(xff)-1], ",")
			if a := strings.TrimSpace(parts[len(parts)-1]); a != "" {
				addr = a
			}
		}
	}
	if ip, err := netip.ParseAddr(addr); err == nil {
		return ip.Unmap().String()
	}
	return addr
}

// authCache remembers token hashes already checked against the store.
type authCache struct {
	mu          sync.Mutex
	learners    map[string]store.Learner
	instructors map[string]int64
}

func (a *authCache) init() {
	a.learners, a.instructors = map[string]store.Learner{}, map[string]int64{}
}

func (a *authCache) learner(hash string) (store.Learner, bool) {
	a.mu.Lock()
	defer a.mu.Unlock()
	l, ok := a.learners[hash]
	return l, ok
}

func (a *authCache) putLearner(hash string, l store.Learner) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if len(a.learners) > 100_000 {
		clear(a.learners)
	}
	a.learners[hash] = l
}

func (a *authCache) dropLearner(hash string) {
	a.mu.Lock()
	defer a.mu.Unlock()
	delete(a.learners, hash)
}

func (a *authCache) instructor(hash string) (int64, bool) {
	a.mu.Lock()
	defer a.mu.Unlock()
	id, ok := a.instructors[hash]
	return id, ok
}

func (a *authCache) putInstructor(hash string, id int64) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.instructors[hash] = id
}
