package learner

import (
	"context"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/kata-mcp/kata/internal/progress"
	"github.com/kata-mcp/kata/katas"
	"github.com/kata-mcp/kata/workshop"
	"github.com/kata-mcp/kata/workshop/server"
	"github.com/kata-mcp/kata/workshop/store"
)

// instructor is a kata serve on loopback that can be stopped and started again on the same
// address and file.
type instructor struct {
	t     *testing.T
	db    string
	addr  string
	st    *store.Store
	srv   *server.Server
	hs    *httptest.Server
	class *server.Workshop
}

func (in *instructor) start() {
	t := in.t
	lib, err := katas.Discover(os.DirFS("../../katas/testdata/packets"), "test")
	if err != nil {
		t.Fatal(err)
	}
	in.st, err = store.Open(context.Background(), in.db)
	if err != nil {
		t.Fatal(err)
	}
	in.srv = server.New(in.st, lib, server.Options{})
	in.class, _, _, err = in.srv.Open(context.Background(), []string{"mini-kata"}, server.Opening{Layers: 1, Steps: 1})
	if err != nil {
		t.Fatal(err)
	}
	in.hs = httptest.NewUnstartedServer(in.srv.Handler())
	if in.addr != "" {
		ln, err := net.Listen("tcp", in.addr)
		if err != nil {
			t.Fatal(err)
		}
		in.hs.Listener.Close()
		in.hs.Listener = ln
	}
	in.hs.Start()
	in.addr = in.hs.Listener.Addr().String()
}

func (in *instructor) stop() {
	if in.hs == nil {
		return
	}
	in.hs.CloseClientConnections()
	in.srv.Close()
	in.hs.Close()
	in.st.Close()
	in.hs = nil
}

func (in *instructor) joinURL() string { return "http://" + in.addr + "/" + in.class.Code() }

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

var t0 = time.Date(2026, 5, 4, 9, 0, 0, 0, time.UTC)

// setup starts an instructor's server and a learner's progress store with an agent over it.
func setup(t *testing.T, opts Options) (*instructor, *progress.Store, *Agent) {
	t.Helper()
	in := &instructor{t: t, db: filepath.Join(t.TempDir(), "workshop.db")}
	in.start()
	t.Cleanup(in.stop)
	ps, err := progress.Open(filepath.Join(t.TempDir(), "progress.db"))
	if err != nil {
		t.Fatal(err)
	}
	a := New(ps, opts)
	t.Cleanup(func() { a.Close(); ps.Close() })
	return in, ps, a
}

// TestAgentSendsFollowsAndSurvivesARestart: a learner joins; their progress reaches the
// board; while the server is down events wait in the queue; after the restart they arrive,
// each once, and the stream comes back by itself with the instructor's pacing.
func TestAgentSendsFollowsAndSurvivesARestart(t *testing.T) {
	in, ps, a := setup(t, Options{Poll: 50 * time.Millisecond, MaxBackoff: 200 * time.Millisecond, HTTP: &http.Client{}})
	ctx := context.Background()

	m, err := a.Join(ctx, in.joinURL(), "Ana")
	if err != nil {
		t.Fatal(err)
	}
	if m.Code != in.class.Code() || m.Katas[0] != "mini-kata" || m.State.LayerOpen("mini-kata", 1) {
		t.Errorf("membership %+v: want the workshop's code and katas, layer 2 locked", m)
	}
	waitFor(t, "the agent is live", func() bool { return a.Status().Conn == Live })
	if err := ps.LayerRead("mini-kata", "knowledge", t0); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the board shows Ana's layer", func() bool {
		v := in.class.View()
		return len(v.Rows) == 1 && v.Rows[0].Name == "Ana" && v.Rows[0].Cells[0].Layer == 1
	})

	in.stop()
	waitFor(t, "the agent notices the server is gone", func() bool { return a.Status().Conn == Offline })
	for _, l := range []string{"prompts", "examples"} {
		if err := ps.LayerRead("mini-kata", l, t0); err != nil {
			t.Fatal(err)
		}
	}
	if err := ps.RecordAnswer(progress.Answer{Kata: "mini-kata", ItemID: "mk-01", CardID: "item:mini-kata:mk-01:0123456789ab", Chosen: []string{"b"}, Correct: true, At: t0}); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "three events wait in the queue", func() bool { return a.Status().Queued == 3 })

	in.start()
	if _, err := in.class.Pace(ctx, workshop.PacingRequest{Layers: 3}); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the agent reconnects and empties the queue", func() bool {
		s := a.Status()
		return s.Conn == Live && s.Queued == 0
	})
	waitFor(t, "the agent sees layer 3 opened", func() bool {
		s := a.Status()
		return s.State != nil && s.State.LayerOpen("mini-kata", 2) && !s.State.LayerOpen("mini-kata", 3)
	})
	waitFor(t, "the board shows the events queued offline", func() bool {
		c := in.class.View().Rows[0].Cells[0]
		return c.Layer == 3 && c.Right == 1
	})
	evs, err := in.st.Events(ctx, 1, 0, 1000, false)
	if err != nil {
		t.Fatal(err)
	}
	layers := 0
	for _, e := range evs {
		if e.Kind == workshop.KindLayer {
			layers++
		}
	}
	if layers != 3 {
		t.Errorf("the server stored %d layer events, want 3 (each once)", layers)
	}
	// The saved state keeps the pacing for an app started offline.
	if mm, _ := ps.Membership(); !mm.State.LayerOpen("mini-kata", 2) {
		t.Errorf("saved state %+v", mm.State)
	}

	// A live quiz reaches the agent; its answer reaches the board's distribution.
	q, err := in.class.StartQuiz(ctx, workshop.QuizRequest{})
	if err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the agent sees the live quiz", func() bool {
		s := a.Status()
		return s.State.Quiz != nil && s.State.Quiz.ID == q.ID
	})
	if err := a.AnswerLive(progress.Answer{Kata: "mini-kata", ItemID: q.Items[0], CardID: "item:mini-kata:" + q.Items[0] + ":0123456789ab", Chosen: []string{"b"}, Correct: true, At: t0}, q.ID); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the distribution counts the answer", func() bool {
		qv := in.class.View().Summary.Quiz
		return qv != nil && qv.Items[0].Answered == 1
	})

	dropped, err := a.Leave(ctx)
	if err != nil || dropped != 0 {
		t.Errorf("Leave: %d dropped, %v", dropped, err)
	}
	if a.Status().Conn != NotJoined {
		t.Errorf("after leaving: %+v", a.Status())
	}
	waitFor(t, "the board shows Ana left", func() bool { return in.class.View().Rows[0].Left })
}

func TestJoinErrors(t *testing.T) {
	in, ps, a := setup(t, Options{})
	ctx := context.Background()
	if _, err := a.Join(ctx, "http://"+in.addr+"/ZZZZ-0000", "Ana"); !workshop.IsCode(err, workshop.ErrNotFound) {
		t.Errorf("an unknown code: %v", err)
	}
	if _, err := a.Join(ctx, "not a url", "Ana"); err == nil {
		t.Error("a bad address was accepted")
	}
	if _, err := in.class.Close(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := a.Join(ctx, in.joinURL(), "Ana"); !workshop.IsCode(err, workshop.ErrClosed) {
		t.Errorf("a closed workshop: %v", err)
	}
	if m, _ := ps.Membership(); m != nil {
		t.Errorf("a failed join left a membership: %+v", m)
	}
}

// TestClosedWorkshopDropsTheQueue: once the instructor closed the workshop, what the learner's
// app queues is refused for good: the queue is dropped and the status says how many events
// went unsent, instead of "waiting to be sent" forever.
func TestClosedWorkshopDropsTheQueue(t *testing.T) {
	in, ps, a := setup(t, Options{Poll: 50 * time.Millisecond, MaxBackoff: 200 * time.Millisecond, HTTP: &http.Client{}})
	ctx := context.Background()
	if _, err := a.Join(ctx, in.joinURL(), "Ana"); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the agent is live", func() bool { return a.Status().Conn == Live })
	if _, err := in.class.Close(ctx); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the agent sees the workshop closed", func() bool { return a.Status().Conn == Closed })
	for _, l := range []string{"knowledge", "prompts"} {
		if err := ps.LayerRead("mini-kata", l, t0); err != nil {
			t.Fatal(err)
		}
	}
	a.poke()
	waitFor(t, "the queue is dropped and said so", func() bool {
		s := a.Status()
		return s.Queued == 0 && s.Dropped == 2 && s.Conn == Closed
	})
}

// TestRunningAppPicksUpAJoinMadeElsewhere: an agent started outside any workshop follows the
// workshop another process (kata join in another terminal) joined through the same store,
// and lets it go when that process leaves.
func TestRunningAppPicksUpAJoinMadeElsewhere(t *testing.T) {
	in, ps, app := setup(t, Options{Poll: 20 * time.Millisecond, MaxBackoff: 100 * time.Millisecond, HTTP: &http.Client{}})
	if err := app.Start(); err != nil {
		t.Fatal(err)
	}
	if app.Status().Conn != NotJoined {
		t.Fatalf("before joining: %+v", app.Status())
	}
	other := New(ps, Options{HTTP: &http.Client{}}) // kata join, in another terminal
	if _, err := other.Join(context.Background(), in.joinURL(), "Ana"); err != nil {
		t.Fatal(err)
	}
	other.Close()
	waitFor(t, "the running app follows the workshop joined elsewhere", func() bool {
		s := app.Status()
		return s.Conn == Live && s.Name == "Ana"
	})
	if _, err := ps.LeaveWorkshop(); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the running app lets it go after a leave elsewhere", func() bool { return app.Status().Conn == NotJoined })
}
