// Package workshop is the protocol between `kata serve` (the instructor's server) and the
// learners' apps and boards: the events learners report, the state the instructor publishes
// (pacing, the live quiz), the JSON bodies and errors of the HTTP API, and a client for it.
//
// Every learner event carries an id the learner's app chose when it queued the event, so a
// resend is recognised and never counted twice; the server gives each stored event a
// sequence number (Seq), gapless and increasing per workshop, which is also the id of the
// Server-Sent Events that carry it (the WHATWG HTML Living Standard, §9.2 "Server-sent
// events"), so a client that reconnects with Last-Event-ID misses nothing.
//
// A learner's event never carries the learner's code: a grade verdict is each test's id,
// status, task step and the ids of the rules it broke (docs/grading.md#rules).
package workshop

import (
	"errors"
	"fmt"
	"net/url"
	"regexp"
	"strings"
	"time"
)

// Kind says what an event reports.
type Kind string

// Learner event kinds: what a learner's app reports.
const (
	// KindLayer: a layer of Kata was opened (Layer is its name, e.g. "knowledge").
	KindLayer Kind = "layer"
	// KindAnswer: an exam item was answered in practice, a mock exam or a live quiz (Answer).
	KindAnswer Kind = "answer"
	// KindDrill: a trap drill question was answered (Answer; Item is the trap row's id).
	KindDrill Kind = "drill"
	// KindVerdict: a workspace was graded (Verdict).
	KindVerdict Kind = "verdict"
	// KindExam: a mock exam was submitted (Exam).
	KindExam Kind = "exam"
)

// Server event kinds: written by the server, never accepted from a learner.
const (
	// KindJoined: a learner joined (Name is the name they gave).
	KindJoined Kind = "joined"
	// KindLeft: a learner left with `kata leave`.
	KindLeft Kind = "left"
	// KindPacing: the instructor opened layers or task steps (Pacing).
	KindPacing Kind = "pacing"
	// KindQuiz: the instructor started, revealed or closed a live quiz (Quiz).
	KindQuiz Kind = "quiz"
	// KindClosed: the instructor closed the workshop; its join code no longer works.
	KindClosed Kind = "closed"
	// KindLock: the instructor locked the workshop (Locked: no new learner may join) or
	// unlocked it (Locked false).
	KindLock Kind = "lock"
	// KindSay: the instructor's message to every learner (Message).
	KindSay Kind = "say"
)

// LearnerKinds are the kinds a learner may send.
var LearnerKinds = []Kind{KindLayer, KindAnswer, KindDrill, KindVerdict, KindExam}

// Published reports whether events of kind k are published to the learners (pacing, live
// quizzes, closing); every other kind is seen by the instructor only.
func (k Kind) Published() bool {
	return k == KindPacing || k == KindQuiz || k == KindClosed || k == KindLock || k == KindSay
}

// Event is one thing that happened in a workshop.
type Event struct {
	// Seq is the server's sequence number, 1, 2, … per workshop; 0 until stored.
	Seq int64 `json:"seq,omitempty"`
	// ID is the event's id, chosen by whoever made it (1–64 characters of [A-Za-z0-9_-]);
	// a second event with the same ID from the same learner is a resend and is ignored.
	ID string `json:"id"`
	// Learner is the server's id of the learner it is about; set by the server from the
	// learner's token, never taken from the request. Empty for the instructor's events.
	Learner string `json:"learner,omitempty"`
	Kind    Kind   `json:"kind"`
	// Kata is the packet id the event is about (empty for KindExam over several katas and
	// for KindJoined, KindLeft and KindClosed).
	Kata string `json:"kata,omitempty"`
	// At is when it happened on the sender's clock; Received when the server stored it (its
	// clock, which the board's "no progress for N minutes" uses).
	At       time.Time `json:"at"`
	Received time.Time `json:"received,omitzero"`
	// Name is the learner's name (KindJoined).
	Name string `json:"name,omitempty"`
	// Layer is the layer's name (KindLayer).
	Layer   string   `json:"layer,omitempty"`
	Answer  *Answer  `json:"answer,omitempty"`
	Verdict *Verdict `json:"verdict,omitempty"`
	Exam    *Exam    `json:"exam,omitempty"`
	Pacing  *Pacing  `json:"pacing,omitempty"`
	Quiz    *Quiz    `json:"quiz,omitempty"`
	// Locked is KindLock's: the workshop takes no new learner.
	Locked bool `json:"locked,omitempty"`
	// Message is KindSay's: what the instructor says to every learner (MaxMessage characters).
	Message string `json:"message,omitempty"`
}

// MaxMessage bounds an instructor's message (kata class say), in characters.
const MaxMessage = 500

// Answer sources.
const (
	SourcePractice = "practice" // the kata's quiz or a review of due cards
	SourceExam     = "exam"     // a submitted mock exam
	SourceLive     = "live"     // the instructor's live quiz
)

// Answer is one answered exam item or trap drill question.
type Answer struct {
	// Item is the item id (KindAnswer) or the trap row's id (KindDrill).
	Item string `json:"item"`
	// Chosen are the stable option ids chosen ("a", "b", …).
	Chosen []string `json:"chosen,omitempty"`
	// Correct is whether exactly the keyed options were chosen.
	Correct bool `json:"correct"`
	// ElapsedMS is the time spent answering in milliseconds (0: not measured).
	ElapsedMS int64 `json:"elapsed_ms,omitempty"`
	// Source is SourcePractice, SourceExam or SourceLive.
	Source string `json:"source,omitempty"`
	// Quiz is the live quiz's id (SourceLive).
	Quiz string `json:"quiz,omitempty"`
}

// Verdict is one grading run's outcome, without any of the learner's code or output.
type Verdict struct {
	// Status is "pass", "fail" or "error" (the grade's status, docs/grading.md#exit-codes).
	Status  string `json:"status"`
	Passed  int    `json:"passed"`
	Failed  int    `json:"failed"`
	Errored int    `json:"errored"`
	// Tests are the run's tests in report order.
	Tests []TestVerdict `json:"tests,omitempty"`
}

// Total is the number of tests the verdict counts.
func (v Verdict) Total() int { return v.Passed + v.Failed + v.Errored }

// TestVerdict is one test of a verdict.
type TestVerdict struct {
	// ID is the test's stable id (a fixture id, "tools-list", …).
	ID string `json:"id"`
	// Status is "pass", "fail" or "error".
	Status string `json:"status"`
	// Step is the task step the test grades (task.md "## N.").
	Step int `json:"step,omitempty"`
	// Rules are the ids of the rules it broke (docs/grading.md#rules); empty when it passed.
	Rules []string `json:"rules,omitempty"`
}

// Exam is a submitted mock exam's score.
type Exam struct {
	Katas []string `json:"katas,omitempty"`
	// Points and Max are the raw score; Scaled the 100–1000 scaled score; Passed whether it
	// reached the pass mark.
	Points int  `json:"points"`
	Max    int  `json:"max"`
	Scaled int  `json:"scaled"`
	Passed bool `json:"passed"`
}

// Pacing is what the instructor has opened of one kata: its first Layers layers and its
// first Steps task steps. Learners see the rest as locked.
type Pacing struct {
	Kata   string `json:"kata"`
	Layers int    `json:"layers"`
	Steps  int    `json:"steps"`
}

// Quiz states.
const (
	QuizOpen     = "open"     // learners are answering
	QuizRevealed = "revealed" // the key, the rationales and the distribution are shown to all
	QuizClosed   = "closed"   // over
)

// Quiz is the instructor's live quiz: items of one kata everyone answers at once.
type Quiz struct {
	// ID names the quiz; learners' answers carry it (Answer.Quiz).
	ID string `json:"id"`
	// Kata and Items are the items asked, in order.
	Kata  string   `json:"kata"`
	Items []string `json:"items"`
	// State is QuizOpen, QuizRevealed or QuizClosed.
	State string `json:"state"`
	// Distribution, published when the quiz is revealed, counts for each item the learners
	// whose last answer chose each option id.
	Distribution map[string]map[string]int `json:"distribution,omitempty"`
}

// State is what the instructor has published, as learners see it.
type State struct {
	// Seq is the sequence number of the last event folded in.
	Seq int64 `json:"seq"`
	// Code and Katas are the workshop's join code and katas; Closed says it was closed.
	Code   string   `json:"code,omitempty"`
	Katas  []string `json:"katas,omitempty"`
	Closed bool     `json:"closed,omitempty"`
	// Locked says the workshop takes no new learner (kata class lock).
	Locked bool `json:"locked,omitempty"`
	// Message is the instructor's last message to every learner (kata class say), and
	// MessageSeq the sequence number of its event, to tell a new message from one seen.
	Message    string `json:"message,omitempty"`
	MessageSeq int64  `json:"message_seq,omitempty"`
	// Pacing is what is open of each kata, by kata id.
	Pacing map[string]Pacing `json:"pacing,omitempty"`
	// Quiz is the live quiz under way or just revealed; nil when none.
	Quiz *Quiz `json:"quiz,omitempty"`
}

// Apply folds one published event into the state (other kinds are ignored).
func (s *State) Apply(e Event) {
	if e.Seq > s.Seq {
		s.Seq = e.Seq
	}
	switch e.Kind {
	case KindPacing:
		if e.Pacing == nil {
			return
		}
		if s.Pacing == nil {
			s.Pacing = map[string]Pacing{}
		}
		s.Pacing[e.Pacing.Kata] = *e.Pacing
	case KindQuiz:
		if e.Quiz == nil {
			return
		}
		if e.Quiz.State == QuizClosed {
			s.Quiz = nil
			return
		}
		q := *e.Quiz
		s.Quiz = &q
	case KindClosed:
		s.Closed = true
		s.Quiz = nil
	case KindLock:
		s.Locked = e.Locked
	case KindSay:
		s.Message, s.MessageSeq = e.Message, e.Seq
	}
}

// LayerOpen reports whether layer index i (0-based) of kata is open: always outside a
// workshop or once it is closed, and for a kata the instructor has not paced.
func (s *State) LayerOpen(kata string, i int) bool {
	if s == nil || s.Closed {
		return true
	}
	p, ok := s.Pacing[kata]
	return !ok || i < p.Layers
}

// StepOpen reports whether task step n (1-based, as task.md numbers it) of kata is open.
func (s *State) StepOpen(kata string, n int) bool {
	if s == nil || s.Closed {
		return true
	}
	p, ok := s.Pacing[kata]
	return !ok || n <= p.Steps
}

// Limits on what the server accepts.
const (
	// MaxBody is the largest request body the server reads, in bytes (1 MiB).
	MaxBody = 1 << 20
	// MaxBatch is the most events one request may carry.
	MaxBatch = 500
	// MaxName is the longest learner name, in characters.
	MaxName = 40
)

var (
	idPattern   = regexp.MustCompile(`^[A-Za-z0-9_-]{1,64}$`)
	codePattern = regexp.MustCompile(`^[A-Z]{4}-[0-9]{4}$`)
)

// ValidID reports whether id is a valid event id.
func ValidID(id string) bool { return idPattern.MatchString(id) }

// ValidCode reports whether code looks like a join code ("ABCD-1234").
func ValidCode(code string) bool { return codePattern.MatchString(code) }

// Check validates a learner event, naming the field at fault.
func (e Event) Check() error {
	if !ValidID(e.ID) {
		return fmt.Errorf("id %q: want 1–64 characters of A–Z, a–z, 0–9, _ and -", e.ID)
	}
	short := func(field, v string, n int) error {
		if len(v) > n {
			return fmt.Errorf("%s: longer than %d bytes", field, n)
		}
		return nil
	}
	if err := errors.Join(short("kata", e.Kata, 64), short("layer", e.Layer, 64)); err != nil {
		return err
	}
	if e.At.IsZero() {
		return errors.New("at: missing")
	}
	switch e.Kind {
	case KindLayer:
		if e.Kata == "" || e.Layer == "" {
			return errors.New("a layer event needs kata and layer")
		}
	case KindAnswer, KindDrill:
		if e.Kata == "" || e.Answer == nil || e.Answer.Item == "" {
			return fmt.Errorf("a%s %s event needs kata and answer.item", map[bool]string{true: "n"}[e.Kind == KindAnswer], e.Kind)
		}
		if len(e.Answer.Chosen) > 26 || len(e.Answer.Item) > 128 || len(e.Answer.Quiz) > 64 {
			return errors.New("answer: too many options chosen or an over-long id")
		}
	case KindVerdict:
		if e.Kata == "" || e.Verdict == nil {
			return errors.New("a verdict event needs kata and verdict")
		}
		if len(e.Verdict.Tests) > 1000 {
			return errors.New("verdict.tests: more than 1000 tests")
		}
		for i, t := range e.Verdict.Tests {
			if len(t.ID) > 128 || len(t.Rules) > 64 {
				return fmt.Errorf("verdict.tests[%d]: over-long id or more than 64 rules", i)
			}
		}
	case KindExam:
		if e.Exam == nil {
			return errors.New("an exam event needs exam")
		}
	default:
		return fmt.Errorf("kind %q: a learner sends only %s", e.Kind, kindList(LearnerKinds))
	}
	return nil
}

func kindList(ks []Kind) string {
	s := make([]string, len(ks))
	for i, k := range ks {
		s[i] = string(k)
	}
	return strings.Join(s, ", ")
}

// JoinURL is a workshop's join address: the server's base URL and the join code.
type JoinURL struct {
	// Base is the server's URL without a trailing slash, e.g. "http://10.0.0.5:7878".
	Base string
	// Code is the join code, e.g. "ABCD-1234".
	Code string
}

// String is the join address as `kata serve` prints it: Base + "/" + Code.
func (j JoinURL) String() string { return j.Base + "/" + j.Code }

// ParseJoinURL reads a join address such as "http://10.0.0.5:7878/ABCD-1234" (http or https;
// the code is the last path segment, in any letter case). A path before the code is kept in
// Base, for a server behind a reverse proxy under a prefix.
func ParseJoinURL(raw string) (JoinURL, error) {
	u, err := url.Parse(strings.TrimSpace(raw))
	if err != nil {
		return JoinURL{}, fmt.Errorf("join address %q: %w", raw, err)
	}
	if u.Scheme != "http" && u.Scheme != "https" {
		return JoinURL{}, fmt.Errorf("join address %q: want http:// or https:// followed by the server and the join code, e.g. http://10.0.0.5:7878/ABCD-1234", raw)
	}
	if u.Host == "" {
		return JoinURL{}, fmt.Errorf("join address %q: no server", raw)
	}
	path := strings.TrimRight(u.Path, "/")
	i := strings.LastIndex(path, "/")
	code := strings.ToUpper(path[i+1:])
	if !ValidCode(code) {
		return JoinURL{}, fmt.Errorf("join address %q: the last part should be the join code, like ABCD-1234", raw)
	}
	base := u.Scheme + "://" + u.Host + path[:max(i, 0)]
	return JoinURL{Base: base, Code: code}, nil
}
