package progress

import (
	"slices"
	"sync/atomic"
	"testing"
	"time"

	"github.com/kata-mcp/kata/workshop"
)

func member() Membership {
	return Membership{Base: "http://127.0.0.1:7878", Code: "ABCD-1234", Learner: "L1", Token: "tok", Name: "Ana", Katas: []string{"k"}, Joined: t0}
}

func kinds(evs []workshop.Event) []workshop.Kind {
	var ks []workshop.Kind
	for _, e := range evs {
		ks = append(ks, e.Kind)
	}
	return ks
}

// TestWorkshopQueueOutsideAWorkshop: self-study queues nothing.
func TestWorkshopQueueOutsideAWorkshop(t *testing.T) {
	s, _ := openTemp(t)
	must(t, s.LayerRead("k", "knowledge", t0))
	must(t, s.RecordAnswer(Answer{Kata: "k", ItemID: "i1", CardID: itemCard("k", "i1"), Correct: true, At: t0}))
	must(t, s.RecordGrade(GradeRun{Kata: "k", Status: GradePass, At: t0}))
	if n, err := s.Queued(); err != nil || n != 0 {
		t.Errorf("queued %d, %v outside a workshop", n, err)
	}
	if m, err := s.Membership(); err != nil || m != nil {
		t.Errorf("Membership: %+v, %v", m, err)
	}
}

func TestWorkshopQueuesEveryKindOfProgress(t *testing.T) {
	s, path := openTemp(t)
	var woken atomic.Int32
	s.OnQueue(func() { woken.Add(1) })
	must(t, s.JoinWorkshop(member()))
	must(t, s.LayerRead("k", "knowledge", t0))
	must(t, s.LayerRead("other", "knowledge", t0)) // not a workshop kata: not queued
	must(t, s.RecordAnswer(Answer{Kata: "k", ItemID: "i1", CardID: itemCard("k", "i1"), Chosen: []string{"b"}, Correct: true, Elapsed: 4200 * time.Millisecond, At: t0}))
	must(t, s.RecordAnswer(Answer{Kata: "k", ItemID: "traps.md:12", CardID: "trap:k:traps.md:12:0123456789ab", Chosen: []string{"a"}, At: t0}))
	must(t, s.RecordLiveAnswer(Answer{Kata: "k", ItemID: "i2", CardID: itemCard("k", "i2"), Chosen: []string{"c"}, At: t0}, "q1"))
	g := GradeRun{Kata: "k", Workspace: "/home/ana/secret-project", Status: GradeFail, Passed: 1, Failed: 1, At: t0,
		Tests: []GradeTest{{ID: "tools-list", Status: "pass", Step: 1}, {ID: "f1", Status: "fail", Step: 2, Rules: []string{"category"}}}}
	must(t, s.RecordGrade(g))
	id, err := s.StartAttempt(Attempt{Katas: []string{"k"}, Seed: 1, Items: []string{"k/i1"}, Started: t0})
	must(t, err)
	must(t, s.FinishAttempt(Attempt{ID: id, Katas: []string{"k"}, Points: 1, Max: 1, Scaled: 1000, Passed: true, Finished: t0},
		[]Answer{{Kata: "k", ItemID: "i1", CardID: itemCard("k", "i1"), Chosen: []string{"b"}, Correct: true, At: t0}}))
	if woken.Load() == 0 {
		t.Error("the OnQueue hook was never called")
	}

	evs, err := s.Outbox(100)
	must(t, err)
	want := []workshop.Kind{workshop.KindLayer, workshop.KindAnswer, workshop.KindDrill, workshop.KindAnswer, workshop.KindVerdict, workshop.KindAnswer, workshop.KindExam}
	if !slices.Equal(kinds(evs), want) {
		t.Fatalf("queued %v, want %v", kinds(evs), want)
	}
	ids := map[string]bool{}
	for _, e := range evs {
		if err := e.Check(); err != nil {
			t.Errorf("queued event %+v fails the server's check: %v", e, err)
		}
		ids[e.ID] = true
	}
	if len(ids) != len(evs) {
		t.Errorf("event ids repeat: %v", ids)
	}
	if a := evs[1].Answer; a.Item != "i1" || !a.Correct || a.ElapsedMS != 4200 || a.Source != workshop.SourcePractice || !slices.Equal(a.Chosen, []string{"b"}) {
		t.Errorf("practice answer %+v", a)
	}
	if a := evs[3].Answer; a.Source != workshop.SourceLive || a.Quiz != "q1" {
		t.Errorf("live answer %+v", a)
	}
	v := evs[4].Verdict
	if v.Status != "fail" || v.Passed != 1 || len(v.Tests) != 2 || !slices.Equal(v.Tests[1].Rules, []string{"category"}) || v.Tests[1].Step != 2 {
		t.Errorf("verdict %+v", v)
	}
	if evs[5].Answer.Source != workshop.SourceExam || evs[6].Exam.Scaled != 1000 {
		t.Errorf("exam events %+v %+v", evs[5].Answer, evs[6].Exam)
	}

	// The queue and the membership survive a restart; Sent empties the queue.
	s.Close()
	s2, err := Open(path)
	must(t, err)
	defer s2.Close()
	m, err := s2.Membership()
	if err != nil || m == nil || m.Code != "ABCD-1234" || m.Token != "tok" || !slices.Equal(m.Katas, []string{"k"}) || m.JoinURL() != "http://127.0.0.1:7878/ABCD-1234" {
		t.Fatalf("membership after reopening: %+v, %v", m, err)
	}
	again, err := s2.Outbox(3)
	must(t, err)
	if len(again) != 3 || again[0].ID != evs[0].ID {
		t.Fatalf("outbox after reopening: %d events", len(again))
	}
	must(t, s2.Sent([]string{again[0].ID, again[1].ID}))
	if n, _ := s2.Queued(); n != len(evs)-2 {
		t.Errorf("after sending 2: %d queued, want %d", n, len(evs)-2)
	}
	st := workshop.State{Seq: 9, Pacing: map[string]workshop.Pacing{"k": {Kata: "k", Layers: 2, Steps: 1}}}
	must(t, s2.SaveWorkshopState(st))
	if m, _ := s2.Membership(); m.State.Seq != 9 || m.State.LayerOpen("k", 2) {
		t.Errorf("saved state %+v", m.State)
	}
	dropped, err := s2.LeaveWorkshop()
	if err != nil || dropped != len(evs)-2 {
		t.Errorf("LeaveWorkshop dropped %d, %v", dropped, err)
	}
	if m, _ := s2.Membership(); m != nil {
		t.Errorf("still a member after leaving: %+v", m)
	}
	must(t, s2.LayerRead("k", "prompts", t0))
	if n, _ := s2.Queued(); n != 0 {
		t.Errorf("after leaving, %d events queued", n)
	}
}

func TestJoiningAnotherWorkshopDropsTheOldQueue(t *testing.T) {
	s, _ := openTemp(t)
	must(t, s.JoinWorkshop(member()))
	must(t, s.LayerRead("k", "knowledge", t0))
	m := member()
	m.Code, m.Learner = "WXYZ-0000", "L2"
	must(t, s.JoinWorkshop(m))
	if n, _ := s.Queued(); n != 0 {
		t.Errorf("the old workshop's %d events were kept for the new one", n)
	}
	if got, _ := s.Membership(); got.Code != "WXYZ-0000" {
		t.Errorf("membership %+v", got)
	}
}
