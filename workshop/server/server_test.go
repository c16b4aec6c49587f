package server

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/kata-mcp/kata/katas"
	"github.com/kata-mcp/kata/workshop"
	"github.com/kata-mcp/kata/workshop/board"
	"github.com/kata-mcp/kata/workshop/pgtest"
	"github.com/kata-mcp/kata/workshop/store"
)

func TestMain(m *testing.M) { os.Exit(pgtest.Main(m)) }

// testLib loads the test packets (mini-kata).
func testLib(t testing.TB) *katas.Library {
	t.Helper()
	lib, err := katas.Discover(os.DirFS("../../katas/testdata/packets"), "test")
	if err != nil {
		t.Fatal(err)
	}
	return lib
}

// rig is a running server on loopback with one workshop.
type rig struct {
	t     *testing.T
	dsn   string
	addr  string // where the server listens, kept across restarts
	st    *store.Store
	srv   *Server
	http  *httptest.Server
	class *Workshop
	// token is the instructor's.
	token string
}

// startRig serves the database dsn (a new SQLite file when empty) with opts.
func startRig(t *testing.T, dsn string, opts Options) *rig {
	t.Helper()
	if dsn == "" {
		dsn = filepath.Join(t.TempDir(), "workshop.db")
	}
	r := &rig{t: t, dsn: dsn}
	r.start(opts)
	return r
}

func (r *rig) start(opts Options) {
	t := r.t
	t.Helper()
	ctx := context.Background()
	st, err := store.Open(ctx, r.dsn)
	if err != nil {
		t.Fatal(err)
	}
	r.st = st
	r.srv = New(st, testLib(t), opts)
	r.class, r.token, _, err = r.srv.Open(ctx, []string{"mini-kata"}, Opening{Layers: 1, Steps: 1})
	if err != nil {
		t.Fatal(err)
	}
	r.http = httptest.NewUnstartedServer(r.srv.Handler())
	if r.addr != "" {
		// A restart listens where the first start did, as kata serve --addr would.
		ln, err := net.Listen("tcp", r.addr)
		if err != nil {
			t.Fatal(err)
		}
		r.http.Listener.Close()
		r.http.Listener = ln
	}
	r.http.Start()
	r.addr = r.http.Listener.Addr().String()
	t.Cleanup(r.stop)
}

// stop closes the server; a second call does nothing.
func (r *rig) stop() {
	if r.http == nil {
		return
	}
	r.http.CloseClientConnections()
	r.srv.Close()
	r.http.Close()
	r.st.Close()
	r.http = nil
}

func (r *rig) client(token string) *workshop.Client {
	return &workshop.Client{Base: r.http.URL, Token: token}
}

func (r *rig) join(name string) (*workshop.Client, *workshop.JoinResponse) {
	r.t.Helper()
	jr, err := r.client("").Join(context.Background(), r.class.Code(), name)
	if err != nil {
		r.t.Fatalf("join %s: %v", name, err)
	}
	return r.client(jr.Token), jr
}

// joinFrom joins name as if from addr (the server must trust X-Forwarded-For) and returns
// the status, the answer and the JSON error.
func (r *rig) joinFrom(addr, name string) (int, workshop.JoinResponse, workshop.APIError) {
	r.t.Helper()
	req, _ := http.NewRequest("POST", r.http.URL+workshop.PathJoin, strings.NewReader(fmt.Sprintf(`{"code":%q,"name":%q}`, r.class.Code(), name)))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("X-Forwarded-For", addr)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		r.t.Fatal(err)
	}
	defer resp.Body.Close()
	var jr workshop.JoinResponse
	var ae workshop.APIError
	b, _ := io.ReadAll(resp.Body)
	json.Unmarshal(b, &jr)
	json.Unmarshal(b, &ae)
	return resp.StatusCode, jr, ae
}

// raw sends a request with a body and returns the status and the decoded JSON error.
func (r *rig) raw(method, path, token, ctype string, body io.Reader) (int, workshop.APIError, http.Header) {
	r.t.Helper()
	req, _ := http.NewRequest(method, r.http.URL+path, body)
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	if ctype != "" {
		req.Header.Set("Content-Type", ctype)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		r.t.Fatal(err)
	}
	defer resp.Body.Close()
	var ae workshop.APIError
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode >= 400 {
		if err := json.Unmarshal(b, &ae); err != nil || ae.Code == "" || ae.Message == "" {
			r.t.Errorf("%s %s answered %d with %q: want a JSON error with error and message", method, path, resp.StatusCode, b)
		}
		if ct := resp.Header.Get("Content-Type"); ct != "application/json" {
			r.t.Errorf("%s %s: error Content-Type %q", method, path, ct)
		}
	}
	return resp.StatusCode, ae, resp.Header
}

var t0 = time.Date(2026, 5, 4, 9, 0, 0, 0, time.UTC)

func layer(id, name string) workshop.Event {
	return workshop.Event{ID: id, Kind: workshop.KindLayer, Kata: "mini-kata", Layer: name, At: t0}
}

// waitFor polls cond until it holds or the deadline passes.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("never: %s", what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// boardStream follows a board stream in the background, keeping the latest rows by learner.
type boardStream struct {
	mu     sync.Mutex
	rows   map[string]board.Row
	quiz   *board.QuizView
	seq    int64
	fulls  int
	cancel context.CancelFunc
	done   chan struct{}
	err    error
}

func followBoard(t *testing.T, c *workshop.Client, lastID string) *boardStream {
	ctx, cancel := context.WithCancel(context.Background())
	b := &boardStream{rows: map[string]board.Row{}, cancel: cancel, done: make(chan struct{})}
	go func() {
		defer close(b.done)
		_, b.err = c.Stream(ctx, workshop.PathBoardStream, lastID, func(e workshop.SSE) error {
			b.mu.Lock()
			defer b.mu.Unlock()
			switch e.Event {
			case workshop.SSEBoard:
				var v board.View
				if err := json.Unmarshal([]byte(e.Data), &v); err != nil {
					return err
				}
				b.fulls++
				b.seq, b.quiz = v.Seq, v.Summary.Quiz
				for _, r := range v.Rows {
					b.rows[r.Name] = r
				}
			case workshop.SSEUpdate:
				var u update
				if err := json.Unmarshal([]byte(e.Data), &u); err != nil {
					return err
				}
				b.seq, b.quiz = u.Seq, u.Summary.Quiz
				for _, r := range u.Rows {
					b.rows[r.Name] = r
				}
			}
			return nil
		})
	}()
	t.Cleanup(func() { cancel(); <-b.done })
	return b
}

func (b *boardStream) row(name string) (board.Row, bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	r, ok := b.rows[name]
	return r, ok
}

func TestLearnersReportToTheBoard(t *testing.T) {
	r := startRig(t, "", Options{})
	ctx := context.Background()
	bs := followBoard(t, r.client(r.token), "")
	ana, jr := r.join("Ana")
	if jr.Learner == "" || len(jr.Token) != 64 || jr.Workshop.Code != r.class.Code() {
		t.Fatalf("join response %+v", jr)
	}
	if p := jr.State.Pacing["mini-kata"]; p.Layers != 1 || p.Steps != 1 {
		t.Errorf("the joining learner sees pacing %+v, want 1 layer and 1 step open", p)
	}
	ben, _ := r.join("Ben")
	if _, err := ana.Send(ctx, []workshop.Event{layer("e1", "knowledge"), {ID: "e2", Kind: workshop.KindAnswer, Kata: "mini-kata", At: t0,
		Answer: &workshop.Answer{Item: "mk-01", Chosen: []string{"b"}, Correct: true, ElapsedMS: 4200, Source: workshop.SourcePractice}}}); err != nil {
		t.Fatal(err)
	}
	if _, err := ben.Send(ctx, []workshop.Event{{ID: "g1", Kind: workshop.KindVerdict, Kata: "mini-kata", At: t0, Verdict: &workshop.Verdict{
		Status: "fail", Passed: 1, Failed: 2, Tests: []workshop.TestVerdict{{ID: "tools-list", Status: "pass"}, {ID: "f1", Status: "fail", Step: 2, Rules: []string{"category"}}}}}}); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the board stream shows Ana's answer and Ben's grade", func() bool {
		a, ok1 := bs.row("Ana")
		b, ok2 := bs.row("Ben")
		return ok1 && ok2 && len(a.Cells) == 1 && a.Cells[0].Right == 1 && a.Cells[0].Layer == 1 && b.Cells[0].Graded && b.Cells[0].Passed == 1 && b.Cells[0].Total == 3
	})
	var v board.View
	req, _ := http.NewRequest("GET", r.http.URL+workshop.PathBoard, nil)
	req.Header.Set("Authorization", "Bearer "+r.token)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	json.NewDecoder(resp.Body).Decode(&v)
	resp.Body.Close()
	if len(v.Summary.Rules) != 1 || v.Summary.Rules[0].ID != "category" || v.Summary.Learners != 2 {
		t.Errorf("board summary %+v: want category missed by 1, 2 learners", v.Summary)
	}
}

func TestSecurity(t *testing.T) {
	r := startRig(t, "", Options{})
	ctx := context.Background()
	ana, ajr := r.join("Ana")
	_, bjr := r.join("Ben")
	batch := func(evs ...workshop.Event) io.Reader {
		b, _ := json.Marshal(workshop.EventsRequest{Events: evs})
		return bytes.NewReader(b)
	}
	check := func(what string, status int, code string, gotStatus int, ae workshop.APIError) {
		t.Helper()
		if gotStatus != status || ae.Code != code {
			t.Errorf("%s: %d %q (%s), want %d %q", what, gotStatus, ae.Code, ae.Message, status, code)
		}
	}

	s, ae, h := r.raw("POST", workshop.PathEvents, "", "application/json", batch(layer("x", "knowledge")))
	check("no token", 401, workshop.ErrNoToken, s, ae)
	if !strings.HasPrefix(h.Get("WWW-Authenticate"), "Bearer") {
		t.Errorf("401 without WWW-Authenticate: %v", h)
	}
	s, ae, _ = r.raw("POST", workshop.PathEvents, strings.Repeat("0", 64), "application/json", batch(layer("x", "knowledge")))
	check("unknown token", 401, workshop.ErrBadToken, s, ae)

	// Ben's token cannot write Ana's events: the request names her and is refused whole.
	forged := layer("forged", "templates")
	forged.Learner = ajr.Learner
	s, ae, _ = r.raw("POST", workshop.PathEvents, bjr.Token, "application/json", batch(forged))
	check("another learner's events", 403, workshop.ErrForbidden, s, ae)
	// A learner's token reads neither the board nor its stream, and cannot pace.
	for _, p := range []struct{ method, path string }{{"GET", workshop.PathBoard}, {"GET", workshop.PathBoardStream}, {"POST", workshop.PathPacing}, {"POST", workshop.PathQuiz}, {"POST", workshop.PathClose}} {
		var body io.Reader
		if p.method == "POST" {
			body = strings.NewReader(`{}`)
		}
		s, ae, _ = r.raw(p.method, p.path, ajr.Token, "application/json", body)
		check("a learner token on "+p.path, 403, workshop.ErrForbidden, s, ae)
	}
	s, ae, _ = r.raw("POST", workshop.PathEvents, r.token, "application/json", batch(layer("i", "knowledge")))
	check("the instructor token writing learner events", 403, workshop.ErrForbidden, s, ae)

	s, ae, _ = r.raw("POST", workshop.PathEvents, ajr.Token, "application/json", strings.NewReader(`{"events": [`))
	check("malformed JSON", 400, workshop.ErrMalformed, s, ae)
	s, ae, _ = r.raw("POST", workshop.PathEvents, ajr.Token, "application/json", strings.NewReader(`{"events": "many"}`))
	check("wrong JSON type", 400, workshop.ErrMalformed, s, ae)
	s, ae, _ = r.raw("POST", workshop.PathEvents, ajr.Token, "text/plain", strings.NewReader(`{}`))
	check("text/plain body", 415, workshop.ErrContentType, s, ae)
	s, ae, _ = r.raw("GET", workshop.PathEvents, ajr.Token, "", nil)
	check("GET on a POST path", 405, workshop.ErrMethod, s, ae)
	s, ae, _ = r.raw("GET", "/api/nothing", ajr.Token, "", nil)
	check("unknown API path", 404, workshop.ErrNotFound, s, ae)

	// 10 MB: refused from Content-Length, and without one (chunked) once 1 MiB is read.
	big := bytes.Repeat([]byte("a"), 10<<20)
	body := append(append([]byte(`{"events": [{"id": "`), big...), []byte(`"}]}`)...)
	s, ae, _ = r.raw("POST", workshop.PathEvents, ajr.Token, "application/json", bytes.NewReader(body))
	check("a 10 MB body", 413, workshop.ErrTooLarge, s, ae)
	s, ae, _ = r.raw("POST", workshop.PathEvents, ajr.Token, "application/json", io.MultiReader(bytes.NewReader(body)))
	check("a 10 MB chunked body", 413, workshop.ErrTooLarge, s, ae)
	many := make([]workshop.Event, workshop.MaxBatch+1)
	for i := range many {
		many[i] = layer(fmt.Sprintf("m%d", i), "knowledge")
	}
	s, ae, _ = r.raw("POST", workshop.PathEvents, ajr.Token, "application/json", batch(many...))
	check("more than MaxBatch events", 413, workshop.ErrTooLarge, s, ae)

	// Replayed events: stored once, reported as duplicates, counted once on the board.
	evs := []workshop.Event{layer("r1", "knowledge"), {ID: "r2", Kind: workshop.KindAnswer, Kata: "mini-kata", At: t0, Answer: &workshop.Answer{Item: "mk-02", Correct: false}}}
	first, err := ana.Send(ctx, evs)
	if err != nil || first.Accepted != 2 {
		t.Fatalf("first send: %+v, %v", first, err)
	}
	again, err := ana.Send(ctx, evs)
	if err != nil || again.Accepted != 0 || again.Duplicates != 2 {
		t.Errorf("replay: %+v, %v; want 0 accepted, 2 duplicates", again, err)
	}
	v := r.class.View()
	if v.Summary.Items[0].ID != "mk-02" || v.Summary.Items[0].Count != 1 {
		t.Errorf("after a replay the board counts %+v", v.Summary.Items)
	}
	stored, _ := r.st.Events(ctx, 1, 0, 1000, false)
	n := 0
	for _, e := range stored {
		if e.ID == "r1" || e.ID == "r2" {
			n++
		}
	}
	if n != 2 {
		t.Errorf("the store holds %d copies of the replayed events, want 2", n)
	}
	// A bad event is rejected alone; the rest of the batch is stored.
	resp, err := ana.Send(ctx, []workshop.Event{layer("ok1", "prompts"), {ID: "bad", Kind: workshop.KindPacing, At: t0}})
	if err != nil || resp.Accepted != 1 || len(resp.Rejected) != 1 || resp.Rejected[0].ID != "bad" {
		t.Errorf("a batch with a bad event: %+v, %v", resp, err)
	}

	// An expired code: after closing, joining and sending are refused with 410.
	if _, err := r.class.Close(ctx); err != nil {
		t.Fatal(err)
	}
	s, ae, _ = r.raw("POST", workshop.PathJoin, "", "application/json", strings.NewReader(`{"code":"`+r.class.Code()+`","name":"Late"}`))
	check("joining with an expired code", 410, workshop.ErrClosed, s, ae)
	s, ae, _ = r.raw("POST", workshop.PathEvents, ajr.Token, "application/json", batch(layer("late", "knowledge")))
	check("sending to a closed workshop", 410, workshop.ErrClosed, s, ae)
	s, ae, _ = r.raw("POST", workshop.PathJoin, "", "application/json", strings.NewReader(`{"code":"ZZZZ-0000","name":"Who"}`))
	check("an unknown code", 404, workshop.ErrNotFound, s, ae)
}

// TestThousandJoinsFromOneAddress: the join limit per address lets a classroom's burst in,
// then answers 429 with Retry-After; no more learners are added than were let in.
func TestThousandJoinsFromOneAddress(t *testing.T) {
	// the bucket never refills; no cap of seats per address (TestTheRoom has it)
	r := startRig(t, "", Options{Now: func() time.Time { return t0 }, Limits: Limits{SeatsPerAddress: -1}})
	ok, limited := 0, 0
	for i := range 1000 {
		s, ae, h := r.raw("POST", workshop.PathJoin, "", "application/json", strings.NewReader(fmt.Sprintf(`{"code":%q,"name":"L%d"}`, r.class.Code(), i)))
		switch s {
		case http.StatusCreated:
			ok++
		case http.StatusTooManyRequests:
			limited++
			if ae.Code != workshop.ErrRateLimited || h.Get("Retry-After") == "" {
				t.Fatalf("429 %+v without Retry-After", ae)
			}
		default:
			t.Fatalf("join %d: %d %+v", i, s, ae)
		}
	}
	n, err := r.st.Learners(context.Background(), 1)
	if err != nil {
		t.Fatal(err)
	}
	if ok != 100 || limited != 1000-ok || n != ok {
		t.Errorf("%d joins let in, %d limited, %d learners stored; want the burst of 100 in, the rest limited", ok, limited, n)
	}
}

func TestTokenRateLimit(t *testing.T) {
	r := startRig(t, "", Options{Limits: Limits{PerToken: 1, PerTokenBurst: 5}})
	_, jr := r.join("Ana")
	limited := false
	for i := range 10 {
		s, ae, h := r.raw("GET", workshop.PathState, jr.Token, "", nil)
		if s == http.StatusTooManyRequests {
			limited = true
			if ae.Code != workshop.ErrRateLimited || h.Get("Retry-After") != "1" {
				t.Errorf("429 %+v, Retry-After %q", ae, h.Get("Retry-After"))
			}
			break
		}
		if s != 200 {
			t.Fatalf("request %d: %d", i, s)
		}
	}
	if !limited {
		t.Error("10 quick requests with a 5-request burst were never limited")
	}
}

// TestLearnerStreamFollowsPacingAndQuiz: a learner's stream carries the published state,
// and only that; reconnecting with Last-Event-ID does not repeat it.
func TestLearnerStreamFollowsPacingAndQuiz(t *testing.T) {
	r := startRig(t, "", Options{})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	ana, _ := r.join("Ana")
	states := make(chan workshop.SSE, 20)
	done := make(chan string, 1)
	go func() {
		last, _ := ana.Stream(ctx, workshop.PathStream, "", func(e workshop.SSE) error {
			if e.Event == workshop.SSEState {
				states <- e
			}
			return nil
		})
		done <- last
	}()
	next := func(what string) workshop.State {
		t.Helper()
		select {
		case e := <-states:
			var st workshop.State
			if err := json.Unmarshal([]byte(e.Data), &st); err != nil {
				t.Fatal(err)
			}
			if e.ID != fmt.Sprint(st.Seq) {
				t.Errorf("state event id %q, want its seq %d", e.ID, st.Seq)
			}
			return st
		case <-time.After(20 * time.Second):
			t.Fatalf("no state event: %s", what)
		}
		return workshop.State{}
	}
	if st := next("on connect"); st.Pacing["mini-kata"].Layers != 1 {
		t.Fatalf("first state %+v", st)
	}
	ben, _ := r.join("Ben")
	ben.Send(ctx, []workshop.Event{layer("b1", "knowledge")}) // not published: no state event
	if _, err := r.class.Pace(ctx, workshop.PacingRequest{Layers: 2}); err != nil {
		t.Fatal(err)
	}
	st := next("after pacing")
	if st.Pacing["mini-kata"].Layers != 2 {
		t.Errorf("after opening layer 2: %+v", st.Pacing)
	}
	q, err := r.class.StartQuiz(ctx, workshop.QuizRequest{})
	if err != nil || len(q.Items) != 1 || q.Items[0] != "mk-01" {
		t.Fatalf("StartQuiz: %+v, %v", q, err)
	}
	if st := next("after the quiz started"); st.Quiz == nil || st.Quiz.ID != q.ID || st.Quiz.State != workshop.QuizOpen {
		t.Errorf("quiz state %+v", st.Quiz)
	}
	cancel()
	last := <-done
	// Reconnect from the last id: nothing is repeated until the next published event.
	ctx2, cancel2 := context.WithCancel(context.Background())
	defer cancel2()
	go ana.Stream(ctx2, workshop.PathStream, last, func(e workshop.SSE) error {
		if e.Event == workshop.SSEState {
			states <- e
		}
		return nil
	})
	if _, err := r.class.Reveal(ctx2); err != nil {
		t.Fatal(err)
	}
	if st := next("after the reveal"); st.Quiz == nil || st.Quiz.State != workshop.QuizRevealed {
		t.Errorf("after reconnecting from %s the first state is %+v, want the reveal (nothing repeated)", last, st.Quiz)
	}
}

// TestRestartLosesNothing stops the server and starts it again on the same file: the board
// comes back the same, the tokens still work, and a board stream that reconnects with its
// Last-Event-ID gets no repeat.
func TestRestartLosesNothing(t *testing.T) {
	r := startRig(t, "", Options{})
	ctx := context.Background()
	ana, _ := r.join("Ana")
	ana.Send(ctx, []workshop.Event{layer("a1", "examples")})
	r.class.Pace(ctx, workshop.PacingRequest{Layers: 3})
	before := r.class.View()
	code := r.class.Code()
	r.stop()
	r.start(Options{})
	if r.class.Code() != code {
		t.Fatalf("after a restart the workshop is %s, want %s resumed", r.class.Code(), code)
	}
	after := r.class.View()
	if after.Seq != before.Seq || len(after.Rows) != 1 || after.Rows[0].Cells[0].Layer != 3 || after.Katas[0].Open.Layers != 3 {
		t.Errorf("after a restart: %+v, want what was there before (%+v)", after, before)
	}
	ana.Base = r.http.URL
	if resp, err := ana.Send(ctx, []workshop.Event{layer("a1", "examples"), layer("a2", "agents")}); err != nil || resp.Accepted != 1 || resp.Duplicates != 1 {
		t.Errorf("the learner's token after a restart: %+v, %v; want a1 a duplicate, a2 stored", resp, err)
	}
}

// TestTwoReplicasOnPostgres: two servers on one PostgreSQL database; an event posted to one
// appears on a board stream connected to the other.
func TestTwoReplicasOnPostgres(t *testing.T) {
	dsn := pgtest.DB(t)
	a := startRig(t, dsn, Options{})
	b := startRig(t, dsn, Options{})
	if a.class.Code() != b.class.Code() {
		t.Fatalf("the replicas opened different workshops: %s and %s", a.class.Code(), b.class.Code())
	}
	ready := make(chan struct{}, 1)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go b.srv.Run(ctx, func() { ready <- struct{}{} })
	select {
	case <-ready:
	case <-time.After(30 * time.Second):
		t.Fatal("replica b never listened")
	}
	bs := followBoard(t, b.client(b.token), "")
	ana, _ := a.join("Ana") // joins through replica a
	if _, err := ana.Send(ctx, []workshop.Event{layer("x1", "prompts")}); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "replica b's board shows Ana's layer posted to replica a", func() bool {
		row, ok := bs.row("Ana")
		return ok && row.Cells[0].Layer == 2
	})
	// The instructor's token issued by a works on b too (one store).
	if _, err := b.client(a.token).State(ctx); err != nil {
		t.Errorf("a's instructor token on b: %v", err)
	}
}

func TestStreamEndsWhenServerCloses(t *testing.T) {
	r := startRig(t, "", Options{})
	ana, _ := r.join("Ana")
	done := make(chan error, 1)
	go func() {
		_, err := ana.Stream(context.Background(), workshop.PathStream, "", func(workshop.SSE) error { return nil })
		done <- err
	}()
	waitFor(t, "the stream is open", func() bool {
		r.class.h.mu.Lock()
		defer r.class.h.mu.Unlock()
		return len(r.class.h.subs) == 1
	})
	r.srv.Close()
	select {
	case err := <-done:
		if err == nil || errors.Is(err, context.Canceled) {
			t.Errorf("stream ended with %v", err)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("the stream outlived the server")
	}
}

// TestTheRoom: one address cannot take more than its seats while a learner elsewhere still
// joins; a name already present is made unique; a learner's events for a kata the workshop
// does not have, and past the learner's quota, are refused one by one with why.
func TestTheRoom(t *testing.T) {
	r := startRig(t, "", Options{TrustProxy: true, Limits: Limits{SeatsPerAddress: 3, EventsPerLearner: 2}})
	join := r.joinFrom
	for i := range 5 {
		s, _, ae := join("10.0.0.1", fmt.Sprintf("bot%d", i))
		if (i < 3) != (s == http.StatusCreated) || (i >= 3 && (s != http.StatusForbidden || ae.Code != workshop.ErrTooManyJoins)) {
			t.Errorf("join %d from the flooding address: %d %+v", i, s, ae)
		}
	}
	s, ben, _ := join("10.0.0.2", "Ben")
	if s != http.StatusCreated || ben.Name != "Ben" {
		t.Fatalf("a real learner: %d %+v", s, ben)
	}
	if s, ben2, _ := join("10.0.0.3", " ben "); s != http.StatusCreated || ben2.Name != "ben (2)" {
		t.Errorf("a second Ben: %d, named %q", s, ben2.Name)
	}
	c := r.client(ben.Token)
	resp, err := c.Send(context.Background(), []workshop.Event{layer("e1", "knowledge"),
		{ID: "e2", Kind: workshop.KindLayer, Kata: "other-kata", Layer: "knowledge", At: t0}, layer("e3", "examples"), layer("e4", "traps")})
	if err != nil {
		t.Fatal(err)
	}
	// Ben's joined event counts toward his quota of 2: e1 is stored, e3 and e4 are past it
	var why []string
	for _, rj := range resp.Rejected {
		why = append(why, rj.ID+": "+rj.Error)
	}
	if resp.Accepted != 1 || len(resp.Rejected) != 3 || !strings.Contains(why[0], `e2: kata "other-kata" is not one of this workshop's katas`) ||
		!strings.Contains(why[1], "the most a workshop keeps of one learner") {
		t.Errorf("accepted %d, rejected %q", resp.Accepted, why)
	}
}

// TestSeatsPerAddressSurviveARestart: one address fills its 60 seats, the server restarts
// on the same store (SQLite, PostgreSQL), and the 61st join from that address is refused as
// before the restart, while a learner from another address still joins.
func TestSeatsPerAddressSurviveARestart(t *testing.T) {
	for _, db := range []struct {
		name string
		dsn  func(t testing.TB) string
	}{
		{"sqlite", func(t testing.TB) string { return filepath.Join(t.TempDir(), "workshop.db") }},
		{"postgres", pgtest.DB},
	} {
		t.Run(db.name, func(t *testing.T) {
			opts := Options{TrustProxy: true}
			r := startRig(t, db.dsn(t), opts)
			const flood = "203.0.113.7"
			for i := range 60 {
				if s, _, ae := r.joinFrom(flood, fmt.Sprintf("bot%d", i)); s != http.StatusCreated {
					t.Fatalf("join %d of 60 from one address: %d %+v", i+1, s, ae)
				}
			}
			s, _, before := r.joinFrom(flood, "bot60")
			if s != http.StatusForbidden || before.Code != workshop.ErrTooManyJoins {
				t.Fatalf("the 61st join before the restart: %d %+v, want 403 %s", s, before, workshop.ErrTooManyJoins)
			}
			r.stop()
			r.start(opts)
			s, _, after := r.joinFrom(flood, "bot61")
			if s != http.StatusForbidden || after != before {
				t.Errorf("the 61st join after the restart: %d %+v, want the refusal of before (403 %+v)", s, after, before)
			}
			if s, jr, ae := r.joinFrom("198.51.100.2", "Ana"); s != http.StatusCreated || jr.Name != "Ana" {
				t.Errorf("a learner from another address after the restart: %d %+v %+v", s, jr, ae)
			}
		})
	}
}

// TestRestartKeepsTheToken: opening the workshop again with its instructor token keeps it;
// with a token that is not the workshop's, a new one is issued.
func TestRestartKeepsTheToken(t *testing.T) {
	r := startRig(t, "", Options{})
	ctx := context.Background()
	if _, tok, _, err := r.srv.OpenWith(ctx, []string{"mini-kata"}, Opening{}, r.token); err != nil || tok != r.token {
		t.Errorf("reopened with its token: %v, token kept %v", err, tok == r.token)
	}
	if _, tok, _, err := r.srv.OpenWith(ctx, []string{"mini-kata"}, Opening{}, strings.Repeat("0", 64)); err != nil || tok == r.token || len(tok) != 64 {
		t.Errorf("reopened with a stranger's token: %v, %q", err, tok)
	}
}

// TestLockSayRemove: a locked workshop refuses joins while its learners carry on; a message
// reaches the published state; a removed learner leaves the board and their token stops
// working, and a name nobody has is a 404.
func TestLockSayRemove(t *testing.T) {
	r := startRig(t, "", Options{})
	ctx := context.Background()
	ins := r.client(r.token)
	ana, _ := r.join("Ana")
	if st, err := ins.Lock(ctx, true); err != nil || !st.Locked {
		t.Fatalf("lock: %v %+v", err, st)
	}
	if _, err := r.client("").Join(ctx, r.class.Code(), "Late"); !isAPIError(err, workshop.ErrLocked) {
		t.Errorf("joining a locked workshop: %v", err)
	}
	if _, err := ana.Send(ctx, []workshop.Event{layer("e1", "knowledge")}); err != nil {
		t.Errorf("a learner in a locked workshop: %v", err)
	}
	if _, err := ins.Lock(ctx, false); err != nil {
		t.Fatal(err)
	}
	ben, _ := r.join("Ben")
	if st, err := ins.Say(ctx, "  Break: back at 11:00  "); err != nil || st.Message != "Break: back at 11:00" || st.MessageSeq == 0 {
		t.Errorf("say: %v %+v", err, st)
	}
	if st, err := ana.State(ctx); err != nil || st.Message != "Break: back at 11:00" {
		t.Errorf("the learner's state: %v %+v", err, st)
	}
	if _, err := ins.Say(ctx, "\x1b[2J"); !isAPIError(err, workshop.ErrInvalid) {
		t.Errorf("a message with a control character: %v", err)
	}
	if rr, err := ins.Remove(ctx, "ben"); err != nil || rr.Name != "ben" {
		t.Fatalf("remove: %v %+v", err, rr)
	}
	if _, err := ben.Send(ctx, []workshop.Event{layer("b1", "knowledge")}); !isAPIError(err, workshop.ErrRemoved) {
		t.Errorf("a removed learner's events: %v", err)
	}
	if v := r.class.View(); v.Summary.Learners != 1 {
		t.Errorf("after removing Ben the board counts %d learners", v.Summary.Learners)
	}
	if _, err := ins.Remove(ctx, "Zed"); !isAPIError(err, workshop.ErrNotFound) {
		t.Errorf("removing nobody: %v", err)
	}
	// The join page of a locked, then a closed workshop advertises no join line.
	page := func() (int, string) {
		resp, err := http.Get(r.http.URL + "/" + r.class.Code())
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	ins.Lock(ctx, true)
	if code, body := page(); code != http.StatusForbidden || strings.Contains(body, "kata join") {
		t.Errorf("a locked workshop's join page: %d %q", code, body)
	}
	ins.CloseWorkshop(ctx)
	if code, body := page(); code != http.StatusGone || strings.Contains(body, "kata join") {
		t.Errorf("a closed workshop's join page: %d %q", code, body)
	}
}

// isAPIError reports whether err is an API error with code.
func isAPIError(err error, code string) bool {
	var ae *workshop.APIError
	return errors.As(err, &ae) && ae.Code == code
}
