package ui

import (
	"context"
	"strings"
	"sync"
	"testing"

	"github.com/kata-mcp/kata/internal/progress"
	"github.com/kata-mcp/kata/ui/common"
	"github.com/kata-mcp/kata/ui/pages/kata"
	"github.com/kata-mcp/kata/workshop"
	"github.com/kata-mcp/kata/workshop/learner"
)

// fakeWorkshop is a workshop link for the model tests: the tests hand its statuses to the
// root as WorkshopMsg (Updates is nil), and it keeps what the interface asked of it.
type fakeWorkshop struct {
	mu      sync.Mutex
	status  learner.Status
	joins   [][2]string
	left    int
	answers []progress.Answer
	quizzes []string
}

func (f *fakeWorkshop) Join(_ context.Context, url, name string) (*progress.Membership, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.joins = append(f.joins, [2]string{url, name})
	return &progress.Membership{}, nil
}

func (f *fakeWorkshop) Leave(context.Context) (int, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.left++
	return 0, nil
}

func (f *fakeWorkshop) Status() learner.Status {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.status
}

func (f *fakeWorkshop) Updates() <-chan learner.Status { return nil }

func (f *fakeWorkshop) AnswerLive(a progress.Answer, quiz string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.answers = append(f.answers, a)
	f.quizzes = append(f.quizzes, quiz)
	return nil
}

// joined is the status of a learner in workshop ABCD-1234 with mini-kata paced to layers
// and steps open.
func joined(layers, steps int, quiz *workshop.Quiz) learner.Status {
	return learner.Status{Conn: learner.Live, Code: "ABCD-1234", Name: "Ana", URL: "http://h:1/ABCD-1234", Katas: []string{"mini-kata"},
		State: &workshop.State{Seq: 5, Pacing: map[string]workshop.Pacing{"mini-kata": {Kata: "mini-kata", Layers: layers, Steps: steps}}, Quiz: quiz}}
}

func TestWorkshopLocksLayersAndSteps(t *testing.T) {
	st := newMemStore()
	ws := &fakeWorkshop{status: joined(1, 1, nil)}
	d := newDriver(t, Options{Store: st, Workshop: ws}, 80, 24)
	d.mustSee("workshop ABCD-1234: live")
	d.press("enter")
	d.mustSee("Errors carry")
	d.press("2")
	d.mustSee("Locked: the prompts layer opens when your instructor says.")
	if st.layers["mini-kata/prompts"] {
		t.Error("a locked layer was recorded as read")
	}
	d.press("w")
	d.mustSee("1. Validate arguments", "2. locked: opens when your instructor says")
	d.press("esc")
	// The instructor opens layer 2 and step 2: the layer on show loads, the step shows.
	d.send(common.WorkshopMsg{Status: joined(2, 2, nil)})
	d.mustNotSee("Locked")
	// Once open it is read as any layer is: on screen for its time (it fits the screen).
	d.advance(kata.MinReadTime)
	if !st.layers["mini-kata/prompts"] {
		t.Error("the layer opened by the instructor was not recorded as read")
	}
	d.press("w")
	d.mustSee("2. Map failures")
	// Leaving the workshop: self-study, every layer open.
	d.press("esc")
	d.send(common.WorkshopMsg{Status: learner.Status{}})
	d.press("5")
	d.mustNotSee("Locked")
}

func TestWorkshopOfflineWordAndNoWorkshop(t *testing.T) {
	ws := &fakeWorkshop{status: joined(5, 2, nil)}
	ws.status.Conn = learner.Offline
	d := newDriver(t, Options{Workshop: ws}, 80, 24)
	d.mustSee("workshop ABCD-1234: offline")
	// Without a workshop link j is not the join key and nothing is locked.
	d2 := newDriver(t, Options{}, 80, 24)
	d2.mustNotSee("workshop")
	d2.press("j")
	d2.mustSee("kata — MCP engineering katas")
}

func TestJoinScreenTakesTextAndJoins(t *testing.T) {
	ws := &fakeWorkshop{}
	d := newDriver(t, Options{Workshop: ws}, 80, 24)
	d.press("j")
	d.mustSee("Join your instructor's workshop", "Address", "Your name")
	for _, r := range "http://10.0.0.5:7878/abcd-1234" {
		d.press(string(r))
	}
	d.press("tab")
	for _, r := range "quinn?" { // q and ? are text here, not quit and help
		d.press(string(r))
	}
	if d.quit {
		t.Fatal("typing q in the name quit the app")
	}
	d.mustSee("quinn?")
	d.press("enter")
	if len(ws.joins) != 1 || ws.joins[0] != [2]string{"http://10.0.0.5:7878/abcd-1234", "quinn?"} {
		t.Fatalf("joins %v", ws.joins)
	}
	d.mustSee("Joined.")
	d.send(common.WorkshopMsg{Status: joined(1, 1, nil)})
	d.mustSee("In workshop ABCD-1234 as Ana — live.", "L: leave")
	d.press("L")
	if ws.left != 1 {
		t.Errorf("leave was not asked: %d", ws.left)
	}
	d.press("esc")
	d.mustSee("kata — MCP engineering katas")
}

func TestJoinScreenRefusesABadAddress(t *testing.T) {
	ws := &fakeWorkshop{}
	d := newDriver(t, Options{Workshop: ws}, 80, 24)
	d.press("j")
	for _, r := range "not-an-address" {
		d.press(string(r))
	}
	d.press("tab", "A", "enter")
	if len(ws.joins) != 0 {
		t.Errorf("a bad address was sent: %v", ws.joins)
	}
	d.mustSee("join address")
}

func TestLiveQuizOpensAnswersAndReveals(t *testing.T) {
	ws := &fakeWorkshop{status: joined(5, 2, nil)}
	d := newDriver(t, Options{Workshop: ws}, 80, 30)
	d.press("enter") // the kata screen
	d.mustSee("Errors carry")
	q := &workshop.Quiz{ID: "q1", Kata: "mini-kata", Items: []string{"mk-01", "mk-02"}, State: workshop.QuizOpen}
	d.send(common.WorkshopMsg{Status: joined(5, 2, q)})
	d.mustSee("Live quiz", "answering", "Question 1 of 2")
	d.mustNotSee("Flags or prose") // the title could cue the key: shown once revealed
	d.press("b", "enter")
	d.mustSee("Sent: b.")
	if len(ws.answers) != 1 || ws.quizzes[0] != "q1" || ws.answers[0].ItemID != "mk-01" || !ws.answers[0].Correct {
		t.Fatalf("live answers %+v %v", ws.answers, ws.quizzes)
	}
	d.press("n")
	d.mustSee("Question 2 of 2")
	// offline, an answer is queued, not sent
	off := joined(5, 2, q)
	off.Conn = learner.Offline
	d.send(common.WorkshopMsg{Status: off})
	d.press("a", "enter")
	if len(ws.answers) != 2 || ws.answers[1].ItemID != "mk-02" {
		t.Fatalf("second answer %+v", ws.answers)
	}
	d.mustSee("Queued: a")
	d.mustNotSee("Sent: a")
	d.press("p")
	rq := *q
	rq.State, rq.Distribution = workshop.QuizRevealed, map[string]map[string]int{"mk-01": {"b": 7, "a": 2}}
	d.send(common.WorkshopMsg{Status: joined(5, 2, &rq)})
	d.mustSee("revealed", "Flags or prose", "✓ correct", "How the class answered", "b) 7 learners", "a) 2 learners")
	v := d.view()
	if !strings.Contains(v, "flag") {
		t.Errorf("no rationale after the reveal:\n%s", v)
	}
	// esc goes back to the screen the quiz opened over.
	d.press("esc")
	d.mustSee("Errors carry")
	// The quiz ends; a new one opens again.
	d.send(common.WorkshopMsg{Status: joined(5, 2, nil)})
	q2 := &workshop.Quiz{ID: "q2", Kata: "mini-kata", Items: []string{"mk-02"}, State: workshop.QuizOpen}
	d.send(common.WorkshopMsg{Status: joined(5, 2, q2)})
	d.mustSee("Question 1 of 1")
}

// TestInstructorMessageShows: kata class say's message shows on the learner's screen once,
// until the next key.
func TestInstructorMessageShows(t *testing.T) {
	st := joined(5, 2, nil)
	ws := &fakeWorkshop{status: st}
	d := newDriver(t, Options{Workshop: ws}, 80, 30)
	said := st
	s := *said.State
	s.Message, s.MessageSeq = "Break: back at 11:00", 9
	said.State = &s
	d.send(common.WorkshopMsg{Status: said})
	d.mustSee("Your instructor: Break: back at 11:00")
	d.press("down")
	d.send(common.WorkshopMsg{Status: said}) // the same message again: not shown again
	d.mustNotSee("Your instructor")
}
