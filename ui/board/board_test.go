package board

import (
	"context"
	"fmt"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/kata-mcp/kata/internal/i18n"
	"github.com/kata-mcp/kata/katas"
	kw "github.com/kata-mcp/kata/workshop"
	"github.com/kata-mcp/kata/workshop/server"
	"github.com/kata-mcp/kata/workshop/store"
)

// rig is a server.Workshop on a temporary SQLite file, and a board over it driven by hand.
type rig struct {
	t     *testing.T
	class *server.Workshop
	http  *httptest.Server
	m     tea.Model
}

func newRig(t *testing.T) *rig { return newRigIn(t, nil) }

// newRigIn is newRig with the board in loc's language.
func newRigIn(t *testing.T, loc *i18n.Localizer) *rig {
	t.Helper()
	lib, err := katas.Discover(os.DirFS("../../katas/testdata/packets"), "test")
	if err != nil {
		t.Fatal(err)
	}
	st, err := store.Open(context.Background(), filepath.Join(t.TempDir(), "w.db"))
	if err != nil {
		t.Fatal(err)
	}
	srv := server.New(st, lib, server.Options{})
	t.Cleanup(func() { srv.Close(); st.Close() })
	class, _, _, err := srv.Open(context.Background(), []string{"mini-kata"}, server.Opening{Layers: 1, Steps: 1})
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(srv.Handler())
	t.Cleanup(hs.Close)
	r := &rig{t: t, class: class, http: hs, m: New(class, Options{JoinLine: "kata join http://h:1/" + class.Code() + " --name NAME", NoColor: true, Loc: loc,
		Wait: func(<-chan struct{}) tea.Cmd { return nil },
		Tick: func(time.Duration, func(time.Time) tea.Msg) tea.Cmd { return nil }})}
	r.send(tea.WindowSizeMsg{Width: 100, Height: 30})
	return r
}

// send feeds a message and runs the commands that follow (the waits for changes and the
// clock are stubbed: the test says when the board changed).
func (r *rig) send(msg tea.Msg) {
	r.t.Helper()
	queue := []tea.Msg{msg}
	for len(queue) > 0 {
		var cmd tea.Cmd
		r.m, cmd = r.m.Update(queue[0])
		queue = queue[1:]
		if cmd == nil {
			continue
		}
		if out := r.run(cmd); out != nil {
			queue = append(queue, out...)
		}
	}
}

func (r *rig) run(cmd tea.Cmd) []tea.Msg {
	if cmd == nil {
		return nil
	}
	switch msg := cmd().(type) {
	case nil:
		return nil
	case tea.BatchMsg:
		var out []tea.Msg
		for _, c := range msg {
			out = append(out, r.run(c)...)
		}
		return out
	case tea.QuitMsg:
		return nil
	default:
		return []tea.Msg{msg}
	}
}

func (r *rig) key(k string) {
	r.t.Helper()
	r.send(tea.KeyPressMsg{Code: []rune(k)[0], Text: k})
}

func (r *rig) screen() string { return ansi.Strip(r.m.View().Content) }

func (r *rig) mustSee(want ...string) {
	r.t.Helper()
	s := r.screen()
	for _, w := range want {
		if !strings.Contains(s, w) {
			r.t.Fatalf("the board lacks %q:\n%s", w, s)
		}
	}
}

func TestBoardShowsLearnersAndActs(t *testing.T) {
	r := newRig(t)
	r.mustSee("kata serve — workshop "+r.class.Code(), "0 learners", "Join  kata join", "No learner has joined yet.", "layers 1–1 of 5 (up to knowledge)")

	// Two learners report through the server; the board reads the change.
	ctx := context.Background()
	join := func(name string) *kw.Client {
		jr, err := (&kw.Client{Base: r.http.URL}).Join(ctx, r.class.Code(), name)
		if err != nil {
			t.Fatal(err)
		}
		return &kw.Client{Base: r.http.URL, Token: jr.Token}
	}
	at := time.Now()
	if _, err := join("Ana").Send(ctx, []kw.Event{{ID: "a1", Kind: kw.KindLayer, Kata: "mini-kata", Layer: "prompts", At: at},
		{ID: "a2", Kind: kw.KindAnswer, Kata: "mini-kata", At: at, Answer: &kw.Answer{Item: "mk-01", Correct: true}}}); err != nil {
		t.Fatal(err)
	}
	if _, err := join("Ben").Send(ctx, []kw.Event{{ID: "b1", Kind: kw.KindVerdict, Kata: "mini-kata", At: at,
		Verdict: &kw.Verdict{Status: "fail", Passed: 1, Failed: 1, Tests: []kw.TestVerdict{{ID: "f", Status: "fail", Rules: []string{"category"}}}}}}); err != nil {
		t.Fatal(err)
	}
	r.send(changedMsg{})
	r.mustSee("2 learners", "Ana", "2/5 prompts", "1/1", "Ben", "1/2 FAIL category", "Missed most  rules: category (1) · items: none")
	r.key("o")
	r.mustSee("layers 1–2 of 5 (up to prompts)", "mini-kata: layers 1–2 open (up to prompts).")
	if st := r.class.State(); st.Pacing["mini-kata"].Layers != 2 {
		t.Errorf("pacing after o: %+v", st.Pacing)
	}
	r.key("O")
	r.mustSee("layers 1–1 of 5")
	r.key("s")
	r.mustSee("task steps 1–2 of 2")
	r.key("l")
	r.mustSee("Live quiz started: mk-01.", "Quiz  mini-kata · open · open for 0:0", "not done yet: Ana, Ben", "mk-01 · 0 answers: a 0 · b 0 · c 0")
	// the item's stem, rendered from its Markdown: no backticks left
	r.mustSee("A tool fails with", "isRetryable: false", "What does the client do?")
	if strings.Contains(r.screen(), "`isRetryable") {
		t.Errorf("the quiz panel shows the stem's raw Markdown:\n%s", r.screen())
	}
	r.key("r")
	r.mustSee("Quiz  mini-kata · revealed", "key b")
	r.key("e")
	r.mustSee("The live quiz is over.", "Quiz  none")
	r.key("e")
	r.mustSee("Not done: no live quiz is under way")
	// locked, then closed: nothing advertises joining, and q says what kata serve will do
	if _, err := r.class.Lock(ctx, true); err != nil {
		t.Fatal(err)
	}
	r.send(changedMsg{})
	r.mustSee("locked: no new learner")
	if strings.Contains(r.screen(), "Join  kata join") {
		t.Errorf("a locked workshop's board shows the join line:\n%s", r.screen())
	}
	if _, err := r.class.Close(ctx); err != nil {
		t.Fatal(err)
	}
	r.send(changedMsg{})
	r.mustSee("closed", "kata serve again opens a new one")
	if strings.Contains(r.screen(), "Join  kata join") {
		t.Errorf("a closed workshop's board shows the join line:\n%s", r.screen())
	}
	r.key("q")
}

// TestBoardInSpanish: the board's own words, why a learner needs attention, the live quiz's
// state and a refused action's reason are Spanish; rule ids, item ids and names are not
// translated.
func TestBoardInSpanish(t *testing.T) {
	r := newRigIn(t, i18n.New("es"))
	r.mustSee("kata serve — taller "+r.class.Code(), "0 participantes", "Todavía no se ha unido ningún participante.")
	ctx := context.Background()
	jr, err := (&kw.Client{Base: r.http.URL}).Join(ctx, r.class.Code(), "Ben")
	if err != nil {
		t.Fatal(err)
	}
	ben := &kw.Client{Base: r.http.URL, Token: jr.Token}
	var evs []kw.Event
	for i := range 3 {
		evs = append(evs, kw.Event{ID: fmt.Sprintf("b%d", i), Kind: kw.KindVerdict, Kata: "mini-kata", At: time.Now(),
			Verdict: &kw.Verdict{Status: "fail", Passed: 1, Failed: 1, Tests: []kw.TestVerdict{{ID: "f", Status: "fail", Rules: []string{"category"}}}}})
	}
	if _, err := ben.Send(ctx, evs); err != nil {
		t.Fatal(err)
	}
	r.send(changedMsg{})
	r.mustSee("1 participante", "Ben !", "Más falladas  reglas: category (1) · preguntas: ninguna",
		"Atención      Ben: en mini-kata incumple category 3 veces seguidas")
	// The JSON the web board reads keeps the English reason.
	if a := r.class.View().Summary.Attention; len(a) != 1 || a[0].Why != "mini-kata fails category 3× in a row" {
		t.Errorf("attention in the view: %+v", a)
	}
	r.key("e")
	r.mustSee("No se hizo: no hay ningún cuestionario en vivo en curso: empieza uno primero")
	r.key("l")
	r.mustSee("Cuestionario en vivo iniciado: mk-01.", "Cuestionario mini-kata · abierto", "mk-01 · 0 respuestas")
	r.key("r")
	r.mustSee("Cuestionario mini-kata · revelado", "respuesta correcta b")
	if s := r.screen(); strings.Contains(s, "· open") || strings.Contains(s, "revealed") || strings.Contains(s, "in a row") {
		t.Errorf("the Spanish board has English words:\n%s", s)
	}
}
