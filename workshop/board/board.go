// Package board folds a workshop's events into the live board the instructor watches:
// learners × katas (layer reached, quiz score, last grade passed/total), the rules and items
// the class misses most, who needs attention (no progress for a while, or the same failure
// again and again), and the live quiz with its answer distribution. The terminal board of
// `kata serve` and its web page draw the same View.
//
// A Board is a pure fold: Apply takes events in sequence order (an event at or below the
// last one applied is ignored, so replays are harmless) and View reads the result at a
// given time. It is not safe for concurrent use; the server guards it.
package board

import (
	"cmp"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/kata-mcp/kata/internal/i18n"
	"github.com/kata-mcp/kata/katas"
	"github.com/kata-mcp/kata/workshop"
)

// Defaults of Options.
const (
	// DefaultIdle is how long a learner may go without progress before the board flags it.
	DefaultIdle = 10 * time.Minute
	// DefaultRepeats is how many grades in a row failing the same rule flag a learner.
	DefaultRepeats = 3
	// topMisses is how many rules and items the summary lists.
	topMisses = 8
)

// Options tune a board.
type Options struct {
	// Idle flags a learner with no progress for this long (0: DefaultIdle).
	Idle time.Duration
	// Repeats flags a learner whose grades fail the same rule this many times in a row
	// (0: DefaultRepeats).
	Repeats int
	// RuleText gives a rule id's statement, for the summary (nil: ids only).
	RuleText map[string]string
	// Loc words Row.Flags and Flag.Why, which the web board shows, in the instructor's
	// language (nil: English).
	Loc *i18n.Localizer
}

// Board is the folded state of one workshop.
type Board struct {
	opts     Options
	packets  []*katas.Packet
	code     string
	seq      int64
	state    workshop.State
	learners map[string]*learner
	order    []string // learner ids in joining order
	// live[quiz id][item][learner] is the learner's last answer to the item in that quiz.
	live map[string]map[string]map[string][]string
	// quizAt is when each live quiz began (its event's Received).
	quizAt map[string]time.Time
	// asked[kata] are the items asked live so far.
	asked map[string]map[string]bool
}

// learner is one learner's standing.
type learner struct {
	id, name     string
	left         bool
	joined       time.Time
	lastProgress time.Time
	lastEvent    string // the id of their last event applied
	lastSeq      int64
	katas        map[string]*standing
	examBest     int
}

// standing is a learner's standing in one kata.
type standing struct {
	layer   int             // layers reached: the highest layer index opened + 1
	items   map[string]bool // item id → whether the last answer to it was right
	drills  int
	drillOK int
	verdict *workshop.Verdict
	best    int            // most tests passed in one grade
	streak  map[string]int // rule id → grades in a row failing it
}

// New returns an empty board over the workshop's packets (its katas, in order) with join
// code code.
func New(code string, packets []*katas.Packet, opts Options) *Board {
	if opts.Idle <= 0 {
		opts.Idle = DefaultIdle
	}
	if opts.Repeats <= 0 {
		opts.Repeats = DefaultRepeats
	}
	b := &Board{opts: opts, packets: packets, code: code, learners: map[string]*learner{},
		live: map[string]map[string]map[string][]string{}, asked: map[string]map[string]bool{}, quizAt: map[string]time.Time{}}
	b.state.Code = code
	for _, p := range packets {
		b.state.Katas = append(b.state.Katas, p.ID)
	}
	return b
}

// Seq is the sequence number of the last event applied.
func (b *Board) Seq() int64 { return b.seq }

// State is what the instructor has published (pacing, live quiz), as learners see it.
func (b *Board) State() workshop.State {
	s := b.state
	s.Pacing = maps.Clone(s.Pacing)
	if s.Quiz != nil {
		q := *s.Quiz
		s.Quiz = &q
	}
	return s
}

// packet returns the workshop's packet id, nil when it is not one of them.
func (b *Board) packet(id string) *katas.Packet {
	for _, p := range b.packets {
		if p.ID == id {
			return p
		}
	}
	return nil
}

// Asked reports whether item of kata was asked in a live quiz before.
func (b *Board) Asked(kata, item string) bool { return b.asked[kata][item] }

// Apply folds event e in and returns the id of the learner whose row changed ("" when
// none did: an instructor's event, or e was already applied).
func (b *Board) Apply(e workshop.Event) string {
	if e.Seq != 0 && e.Seq <= b.seq {
		return ""
	}
	if e.Seq > b.seq {
		b.seq = e.Seq
	}
	if e.Learner == "" {
		b.applyInstructor(e)
		return ""
	}
	l := b.learners[e.Learner]
	if l == nil {
		l = &learner{id: e.Learner, name: e.Learner, katas: map[string]*standing{}, joined: e.Received, lastProgress: e.Received}
		b.learners[e.Learner] = l
		b.order = append(b.order, e.Learner)
	}
	l.lastEvent, l.lastSeq = e.ID, e.Seq
	progress := false
	switch e.Kind {
	case workshop.KindJoined:
		l.name, l.left = e.Name, false
		progress = true
	case workshop.KindLeft:
		l.left = true
	case workshop.KindLayer:
		if p := b.packet(e.Kata); p != nil {
			if i := slices.Index(p.Layers, e.Layer); i >= 0 {
				st := l.kata(e.Kata)
				if i+1 > st.layer {
					st.layer, progress = i+1, true
				}
			}
		}
	case workshop.KindAnswer:
		if e.Answer == nil || b.packet(e.Kata) == nil {
			break
		}
		st := l.kata(e.Kata)
		was, seen := st.items[e.Answer.Item]
		st.items[e.Answer.Item] = e.Answer.Correct
		progress = e.Answer.Correct && (!seen || !was)
		if e.Answer.Source == workshop.SourceLive && e.Answer.Quiz != "" {
			byItem := b.live[e.Answer.Quiz]
			if byItem == nil {
				byItem = map[string]map[string][]string{}
				b.live[e.Answer.Quiz] = byItem
			}
			if byItem[e.Answer.Item] == nil {
				byItem[e.Answer.Item] = map[string][]string{}
			}
			byItem[e.Answer.Item][l.id] = slices.Clone(e.Answer.Chosen)
		}
	case workshop.KindDrill:
		if e.Answer == nil || b.packet(e.Kata) == nil {
			break
		}
		st := l.kata(e.Kata)
		st.drills++
		if e.Answer.Correct {
			st.drillOK++
			progress = true
		}
	case workshop.KindVerdict:
		if e.Verdict == nil || b.packet(e.Kata) == nil {
			break
		}
		st := l.kata(e.Kata)
		v := *e.Verdict
		st.verdict = &v
		if v.Passed > st.best {
			st.best, progress = v.Passed, true
		}
		failing := map[string]bool{}
		for _, t := range v.Tests {
			for _, r := range t.Rules {
				failing[r] = true
			}
		}
		for r := range st.streak {
			if !failing[r] {
				delete(st.streak, r)
			}
		}
		for r := range failing {
			st.streak[r]++
		}
	case workshop.KindExam:
		if e.Exam != nil {
			if e.Exam.Scaled > l.examBest {
				l.examBest = e.Exam.Scaled
			}
			progress = true
		}
	}
	if progress {
		l.lastProgress = e.Received
	}
	return l.id
}

// kata returns the learner's standing in kata, creating it.
func (l *learner) kata(id string) *standing {
	st := l.katas[id]
	if st == nil {
		st = &standing{items: map[string]bool{}, streak: map[string]int{}}
		l.katas[id] = st
	}
	return st
}

// applyInstructor folds a published event: pacing, a live quiz, closing.
func (b *Board) applyInstructor(e workshop.Event) {
	b.state.Apply(e)
	if e.Kind == workshop.KindQuiz && e.Quiz != nil && e.Quiz.State == workshop.QuizOpen {
		if _, ok := b.quizAt[e.Quiz.ID]; !ok {
			b.quizAt[e.Quiz.ID] = e.Received
		}
		if b.asked[e.Quiz.Kata] == nil {
			b.asked[e.Quiz.Kata] = map[string]bool{}
		}
		for _, it := range e.Quiz.Items {
			b.asked[e.Quiz.Kata][it] = true
		}
	}
}

// Distribution counts, for each item of live quiz id, the learners whose last answer chose
// each option id.
func (b *Board) Distribution(id string) map[string]map[string]int {
	out := map[string]map[string]int{}
	for item, byLearner := range b.live[id] {
		counts := map[string]int{}
		for _, chosen := range byLearner {
			for _, o := range chosen {
				counts[o]++
			}
		}
		out[item] = counts
	}
	return out
}

// View is the board at one moment: what the terminal and the web page draw.
type View struct {
	// Seq is the last event folded in; At the moment the view was taken.
	Seq int64     `json:"seq"`
	At  time.Time `json:"at"`
	// Code is the join code; Closed says the workshop was closed, Locked that it takes no
	// new learner (kata class lock).
	Code   string `json:"code"`
	Closed bool   `json:"closed,omitempty"`
	Locked bool   `json:"locked,omitempty"`
	// Katas are the columns, in order.
	Katas []Column `json:"katas"`
	// Rows are the learners, in joining order.
	Rows    []Row   `json:"rows"`
	Summary Summary `json:"summary"`
}

// Column describes one kata of the workshop.
type Column struct {
	ID     string   `json:"id"`
	Title  string   `json:"title"`
	Layers []string `json:"layers"`
	Steps  int      `json:"steps"`
	Items  int      `json:"items"`
	// Open is what the instructor has opened of it (nil: not paced, everything open).
	Open *workshop.Pacing `json:"open,omitempty"`
}

// Row is one learner's line.
type Row struct {
	Learner string `json:"learner"`
	Name    string `json:"name"`
	Left    bool   `json:"left,omitempty"`
	// Cells are their standing per kata, in the order of View.Katas.
	Cells []Cell `json:"cells"`
	// ExamBest is their best mock exam scaled score (0: none).
	ExamBest int `json:"exam_best,omitempty"`
	// LastProgress is when they last moved on (a new layer, a right answer, more tests
	// passing); LastEvent the id of their last event and LastSeq its sequence number.
	LastProgress time.Time `json:"last_progress"`
	LastEvent    string    `json:"last_event,omitempty"`
	LastSeq      int64     `json:"last_seq,omitempty"`
	// Flags say why the row needs attention ("no progress for 12 min"), in Options.Loc's
	// language; empty when fine. Reasons are the same as catalog messages, for a reader of
	// another language.
	Flags   []string   `json:"flags,omitempty"`
	Reasons []i18n.Msg `json:"-"`
}

// Cell is a learner's standing in one kata.
type Cell struct {
	// Layer is how many layers they reached (the highest opened, 1-based; 0: none) and
	// LayerName its name.
	Layer     int    `json:"layer"`
	LayerName string `json:"layer_name,omitempty"`
	// Right and Answered count the kata's items answered (any source), the last answer to
	// each counting.
	Right    int `json:"right"`
	Answered int `json:"answered"`
	// Graded says a grade came in; Status, Passed and Total are the last one's.
	Graded bool   `json:"graded"`
	Status string `json:"status,omitempty"`
	Passed int    `json:"passed"`
	Total  int    `json:"total"`
	// Failing are the rule ids the last grade broke.
	Failing []string `json:"failing,omitempty"`
}

// Summary is what the class as a whole needs.
type Summary struct {
	// Rules are the rules most learners' last grades break; Items the items most learners
	// got wrong last time they answered.
	Rules []Miss `json:"rules"`
	Items []Miss `json:"items"`
	// Attention lists the learners flagged, with why.
	Attention []Flag `json:"attention"`
	// Learners counts those in (joined and not left).
	Learners int `json:"learners"`
	// Quiz is the live quiz, nil when none.
	Quiz *QuizView `json:"quiz,omitempty"`
}

// Miss is a rule or item and how many learners miss it.
type Miss struct {
	ID    string `json:"id"`
	Kata  string `json:"kata,omitempty"`
	Text  string `json:"text,omitempty"`
	Count int    `json:"count"`
}

// Flag is a learner needing attention: Why in Options.Loc's language, Reason the same as a
// catalog message.
type Flag struct {
	Learner string   `json:"learner"`
	Name    string   `json:"name"`
	Why     string   `json:"why"`
	Reason  i18n.Msg `json:"-"`
}

// QuizView is the live quiz as the board shows it: the key and rationales only once revealed.
type QuizView struct {
	ID    string     `json:"id"`
	Kata  string     `json:"kata"`
	State string     `json:"state"`
	Items []QuizItem `json:"items"`
	// Started is when the quiz began (the server's clock), for the board's timer.
	Started time.Time `json:"started,omitzero"`
	// Waiting names the learners present who have not answered every item yet.
	Waiting []string `json:"waiting"`
}

// QuizItem is one item of the live quiz with its answer distribution.
type QuizItem struct {
	ID    string `json:"id"`
	Title string `json:"title"`
	// Stem is the question as Markdown (paragraphs and code), for the board to render.
	Stem     string       `json:"stem"`
	Options  []QuizOption `json:"options"`
	Answered int          `json:"answered"`
}

// QuizOption is one option with how many learners chose it; Key and Rationale are set once
// the quiz is revealed.
type QuizOption struct {
	ID        string `json:"id"`
	Text      string `json:"text"`
	Count     int    `json:"count"`
	Key       bool   `json:"key,omitempty"`
	Rationale string `json:"rationale,omitempty"`
}

// View takes the board at now.
func (b *Board) View(now time.Time) View {
	v := View{Seq: b.seq, At: now, Code: b.code, Closed: b.state.Closed, Locked: b.state.Locked, Katas: b.Columns(), Rows: []Row{}}
	for _, id := range b.order {
		v.Rows = append(v.Rows, b.Row(id, now))
	}
	v.Summary = b.Summary(now)
	return v
}

// Columns describes the workshop's katas with what is open of each.
func (b *Board) Columns() []Column {
	cols := make([]Column, 0, len(b.packets))
	for _, p := range b.packets {
		c := Column{ID: p.ID, Title: p.Title, Layers: p.Layers, Steps: len(p.Task.Steps), Items: len(p.Items)}
		if pc, ok := b.state.Pacing[p.ID]; ok {
			c.Open = &pc
		}
		cols = append(cols, c)
	}
	return cols
}

// Row is learner id's row at now (a zero Row for an unknown id).
func (b *Board) Row(id string, now time.Time) Row {
	l := b.learners[id]
	if l == nil {
		return Row{}
	}
	r := Row{Learner: l.id, Name: l.name, Left: l.left, ExamBest: l.examBest, LastProgress: l.lastProgress, LastEvent: l.lastEvent, LastSeq: l.lastSeq}
	for _, p := range b.packets {
		st := l.katas[p.ID]
		if st == nil {
			r.Cells = append(r.Cells, Cell{})
			continue
		}
		c := Cell{Layer: st.layer, Answered: len(st.items)}
		if st.layer > 0 && st.layer <= len(p.Layers) {
			c.LayerName = p.Layers[st.layer-1]
		}
		for id, ok := range st.items {
			if b.sealed(p.ID, id) {
				c.Answered--
			} else if ok {
				c.Right++
			}
		}
		if v := st.verdict; v != nil {
			c.Graded, c.Status, c.Passed, c.Total = true, v.Status, v.Passed, v.Total()
			seen := map[string]bool{}
			for _, t := range v.Tests {
				for _, rule := range t.Rules {
					if !seen[rule] {
						seen[rule] = true
						c.Failing = append(c.Failing, rule)
					}
				}
			}
		}
		r.Cells = append(r.Cells, c)
	}
	r.Reasons = b.flags(l, now)
	for _, m := range r.Reasons {
		r.Flags = append(r.Flags, b.opts.Loc.Say(m))
	}
	return r
}

// LearnerNamed is the id of the learner present (not left) named name, case aside; "" when
// none is.
func (b *Board) LearnerNamed(name string) string {
	name = strings.TrimSpace(name)
	for id, l := range b.learners {
		if !l.left && strings.EqualFold(l.name, name) {
			return id
		}
	}
	return ""
}

// Left reports whether learner id has left (or was removed).
func (b *Board) Left(id string) bool {
	l := b.learners[id]
	return l != nil && l.left
}

// finished reports whether learner l's last grade of every kata of the workshop passed.
func (b *Board) finished(l *learner) bool {
	for _, p := range b.packets {
		st := l.katas[p.ID]
		if st == nil || st.verdict == nil || st.verdict.Status != "pass" {
			return false
		}
	}
	return len(b.packets) > 0
}

// flags says why learner l needs attention at now.
func (b *Board) flags(l *learner, now time.Time) []i18n.Msg {
	if l.left || b.state.Closed {
		return nil
	}
	var out []i18n.Msg
	// a learner whose last grade of every kata passes has finished: no progress is to be made
	if idle := now.Sub(l.lastProgress); !l.lastProgress.IsZero() && idle >= b.opts.Idle && !b.finished(l) {
		out = append(out, i18n.M("workshop.board.idle", "Minutes", int(idle.Minutes())))
	}
	for _, p := range b.packets {
		st := l.katas[p.ID]
		if st == nil {
			continue
		}
		rules := slices.Sorted(maps.Keys(st.streak))
		for _, r := range rules {
			if n := st.streak[r]; n >= b.opts.Repeats {
				out = append(out, i18n.MN("workshop.board.repeats", n, "Kata", p.ID, "Rule", r))
			}
		}
	}
	return out
}

// Summary is the class-wide part of the view at now.
func (b *Board) Summary(now time.Time) Summary {
	var s Summary
	rules := map[string]int{}
	ruleKata := map[string]string{}
	items := map[[2]string]int{}
	for _, id := range b.order {
		l := b.learners[id]
		if !l.left {
			s.Learners++
		}
		for _, p := range b.packets {
			st := l.katas[p.ID]
			if st == nil {
				continue
			}
			if v := st.verdict; v != nil {
				seen := map[string]bool{}
				for _, t := range v.Tests {
					for _, r := range t.Rules {
						if !seen[r] {
							seen[r] = true
							rules[r]++
							ruleKata[r] = p.ID
						}
					}
				}
			}
			for item, ok := range st.items {
				if !ok && !b.sealed(p.ID, item) {
					items[[2]string{p.ID, item}]++
				}
			}
		}
		for _, f := range b.flags(l, now) {
			s.Attention = append(s.Attention, Flag{Learner: l.id, Name: l.name, Why: b.opts.Loc.Say(f), Reason: f})
		}
	}
	for r, n := range rules {
		s.Rules = append(s.Rules, Miss{ID: r, Kata: ruleKata[r], Text: b.opts.RuleText[r], Count: n})
	}
	for k, n := range items {
		m := Miss{ID: k[1], Kata: k[0], Count: n}
		if p := b.packet(k[0]); p != nil {
			if it := item(p, k[1]); it != nil {
				m.Text = it.Title
			}
		}
		s.Items = append(s.Items, m)
	}
	byCount := func(a, b Miss) int {
		return cmp.Or(b.Count-a.Count, cmp.Compare(a.Kata, b.Kata), cmp.Compare(a.ID, b.ID))
	}
	slices.SortFunc(s.Rules, byCount)
	slices.SortFunc(s.Items, byCount)
	s.Rules, s.Items = s.Rules[:min(len(s.Rules), topMisses)], s.Items[:min(len(s.Items), topMisses)]
	s.Quiz = b.quizView()
	return s
}

// sealed reports whether item of kata is in the live quiz still open: until the instructor
// reveals it, the board (often projected) counts no answer to it as right or wrong, so that
// nobody reads the key off a learner's score or off "missed most".
func (b *Board) sealed(kata, item string) bool {
	q := b.state.Quiz
	return q != nil && q.State == workshop.QuizOpen && q.Kata == kata && slices.Contains(q.Items, item)
}

// item finds an item of p by id.
func item(p *katas.Packet, id string) *katas.Item {
	for i := range p.Items {
		if p.Items[i].ID == id {
			return &p.Items[i]
		}
	}
	return nil
}

// quizView is the live quiz with its distribution so far.
func (b *Board) quizView() *QuizView {
	q := b.state.Quiz
	if q == nil {
		return nil
	}
	p := b.packet(q.Kata)
	if p == nil {
		return nil
	}
	revealed := q.State == workshop.QuizRevealed
	dist := b.Distribution(q.ID)
	qv := &QuizView{ID: q.ID, Kata: q.Kata, State: q.State, Started: b.quizAt[q.ID], Waiting: []string{}}
	for _, lid := range b.order {
		l := b.learners[lid]
		if l == nil || l.left {
			continue
		}
		for _, id := range q.Items {
			if _, ok := b.live[q.ID][id][lid]; !ok {
				qv.Waiting = append(qv.Waiting, l.name)
				break
			}
		}
	}
	for _, id := range q.Items {
		it := item(p, id)
		if it == nil {
			continue
		}
		qi := QuizItem{ID: it.ID, Title: it.Title, Stem: it.Stem, Answered: len(b.live[q.ID][id])}
		for _, o := range it.Options {
			qo := QuizOption{ID: o.ID, Text: o.Text, Count: dist[id][o.ID]}
			if revealed {
				qo.Key, qo.Rationale = o.Key, o.Rationale
			}
			qi.Options = append(qi.Options, qo)
		}
		qv.Items = append(qv.Items, qi)
	}
	return qv
}

// Learners counts the learners in the workshop (joined, not left).
func (b *Board) Learners() int {
	n := 0
	for _, l := range b.learners {
		if !l.left {
			n++
		}
	}
	return n
}
