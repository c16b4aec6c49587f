package workshop

import (
	"bytes"
	"io"
	"strings"
	"testing"
	"time"
)

func TestParseJoinURL(t *testing.T) {
	for _, c := range []struct{ in, base, code string }{
		{"http://10.0.0.5:7878/ABCD-1234", "http://10.0.0.5:7878", "ABCD-1234"},
		{"https://kata.example.org/class/abcd-1234/", "https://kata.example.org/class", "ABCD-1234"},
		{" http://h:1/WXYZ-0000 ", "http://h:1", "WXYZ-0000"},
	} {
		j, err := ParseJoinURL(c.in)
		if err != nil || j.Base != c.base || j.Code != c.code {
			t.Errorf("ParseJoinURL(%q) = %+v, %v; want %s and %s", c.in, j, err, c.base, c.code)
		}
		if err == nil && j.String() != c.base+"/"+c.code {
			t.Errorf("String() = %q", j.String())
		}
	}
	for _, bad := range []string{"ftp://h/ABCD-1234", "http:///ABCD-1234", "http://h/ABCD", "ABCD-1234", "http://h/"} {
		if _, err := ParseJoinURL(bad); err == nil {
			t.Errorf("ParseJoinURL(%q) accepted it", bad)
		}
	}
}

func TestSSERoundTrip(t *testing.T) {
	var buf bytes.Buffer
	WriteSSE(&buf, SSE{ID: "7", Event: "state", Data: "{\"a\":1}\n{\"b\":2}", Retry: time.Second})
	buf.WriteString(": a comment\n\n")
	WriteSSE(&buf, SSE{Data: "plain"})
	r := NewSSEReader(strings.NewReader(buf.String()), "")
	e, err := r.Next()
	if err != nil || e.ID != "7" || e.Event != "state" || e.Data != "{\"a\":1}\n{\"b\":2}" || e.Retry != time.Second {
		t.Fatalf("first event %+v, %v", e, err)
	}
	e, err = r.Next()
	if err != nil || e.ID != "7" || e.Event != "message" || e.Data != "plain" {
		t.Fatalf("second event %+v, %v: want the id kept, event name message", e, err)
	}
	if _, err := r.Next(); err != io.EOF {
		t.Errorf("end: %v, want EOF", err)
	}
}

func TestEventCheck(t *testing.T) {
	good := Event{ID: "abc_1-2", Kind: KindLayer, Kata: "k", Layer: "knowledge", At: time.Now()}
	if err := good.Check(); err != nil {
		t.Fatalf("a good event: %v", err)
	}
	for name, mut := range map[string]func(e *Event){
		"bad id":           func(e *Event) { e.ID = "a b" },
		"long id":          func(e *Event) { e.ID = strings.Repeat("a", 65) },
		"no time":          func(e *Event) { e.At = time.Time{} },
		"server kind":      func(e *Event) { e.Kind = KindPacing },
		"joined":           func(e *Event) { e.Kind = KindJoined },
		"answer no item":   func(e *Event) { e.Kind = KindAnswer },
		"verdict no body":  func(e *Event) { e.Kind = KindVerdict },
		"layer no layer":   func(e *Event) { e.Layer = "" },
		"over-long kata":   func(e *Event) { e.Kata = strings.Repeat("k", 65) },
		"exam without one": func(e *Event) { e.Kind = KindExam },
	} {
		e := good
		mut(&e)
		if err := e.Check(); err == nil {
			t.Errorf("%s: accepted %+v", name, e)
		}
	}
}

func TestStateLocks(t *testing.T) {
	var none *State
	if !none.LayerOpen("k", 4) || !none.StepOpen("k", 6) {
		t.Error("outside a workshop everything is open")
	}
	s := &State{}
	s.Apply(Event{Seq: 3, Kind: KindPacing, Pacing: &Pacing{Kata: "k", Layers: 2, Steps: 1}})
	if !s.LayerOpen("k", 1) || s.LayerOpen("k", 2) || !s.StepOpen("k", 1) || s.StepOpen("k", 2) {
		t.Errorf("pacing 2 layers, 1 step: %+v", s.Pacing)
	}
	if !s.LayerOpen("other", 4) {
		t.Error("a kata the instructor did not pace is open")
	}
	s.Apply(Event{Seq: 4, Kind: KindQuiz, Quiz: &Quiz{ID: "q", Kata: "k", Items: []string{"i"}, State: QuizOpen}})
	if s.Quiz == nil || s.Seq != 4 {
		t.Errorf("quiz not folded in: %+v", s)
	}
	s.Apply(Event{Seq: 5, Kind: KindClosed})
	if !s.Closed || s.Quiz != nil || !s.LayerOpen("k", 4) || !s.StepOpen("k", 2) {
		t.Errorf("closed: %+v; want no quiz and every layer and step open again", s)
	}
}
