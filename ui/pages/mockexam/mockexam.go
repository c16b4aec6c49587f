// Package mockexam is the timed mock exam across katas: items drawn with shuffled options, a
// countdown, flags and a jump list, each answer saved at once and resumable, no feedback until
// submitted; then the scaled score with its breakdown and a review of every item.
package mockexam

import (
	"time"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"github.com/kata-mcp/kata/internal/progress"
	"github.com/kata-mcp/kata/katas"
	"github.com/kata-mcp/kata/katas/exam"
	"github.com/kata-mcp/kata/ui/common"
	"github.com/kata-mcp/kata/ui/components/question"
	"github.com/kata-mcp/kata/ui/components/stem"
	"github.com/kata-mcp/kata/ui/components/viewport"
)

// Options configure the mock exam.
type Options struct {
	// Katas are the packet ids to draw from; empty means every packet.
	Katas []string
	// Items is the number of items; 0 means DefaultItems. More than there are takes all.
	Items int
	// Time is the time limit; 0 means PerItemTime × items, negative means untimed.
	Time time.Duration
	// Scale maps raw points to the scaled score; the zero value means exam.DefaultScale.
	Scale exam.Scale
}

// DefaultItems is the size of a mock exam when none is asked for.
const DefaultItems = 10

// PerItemTime is the default time per item: the certification's full form allows 120 minutes
// for 60 items.
const PerItemTime = 2 * time.Minute

// stage is where the mock exam is.
type stage int

const (
	stageLoading    stage = iota // asking the store for an unfinished attempt
	stageOffer                   // an unfinished attempt exists: resume or start anew
	stageStarting                // the new attempt is being stored
	stageTaking                  // answering
	stageSubmitting              // reading the answers saved by any window before scoring
	stageResult                  // submitted: the scaled score
	stageReview                  // submitted: every item with its key and rationales
)

// mode is an overlay over the items while taking the exam.
type mode int

const (
	modeItems   mode = iota
	modeJump         // the jump list
	modeConfirm      // submit?
)

// Messages of the mock exam. gen tells one exam's messages from a previous one's.
type (
	openAttemptMsg struct {
		gen     int
		att     *progress.Attempt
		answers map[string]progress.ExamAnswer
		err     error
	}
	attemptStartedMsg struct {
		gen int
		id  int64
		err error
	}
	examSavedMsg struct{ gen int }
	// submitReadMsg carries the attempt's saved answers, read when the exam is submitted.
	submitReadMsg struct {
		gen     int
		answers map[string]progress.ExamAnswer
		err     error
	}
	tickMsg struct {
		gen int
		at  time.Time
	}
)

// Model is the timed mock exam across katas: items drawn by exam.Draw with shuffled options,
// a countdown, flags, free movement, a jump list, no feedback until submitted; then the scaled
// score with a breakdown and a review of every item. Each answer change is saved at once.
type Model struct {
	c        common.Common
	opts     Options
	gen      int
	stage    stage
	mode     mode
	offer    *progress.Attempt // the unfinished attempt offered for resuming
	offered  map[string]progress.ExamAnswer
	att      progress.Attempt
	qs       []exam.Question
	chosen   map[string][]string // ref → chosen option ids
	flagged  map[string]bool
	idx      int
	a        question.Model
	jump     int // the jump list's cursor
	now      time.Time
	unsaved  bool                 // the store could not start the attempt: answers stay in memory only
	failed   bool                 // the last answer could not be saved
	pending  int                  // saves in flight
	changed  map[string]time.Time // ref → when this window last changed its answer or flag
	submitAt time.Time            // when the exam was submitted (the time it finished)
	saved    int                  // saves done
	note     string               // a one-line notice ("time is up: submitted", "resumed …")
	result   exam.Result
	stem     stem.Model
	follow   bool // the next refresh scrolls the cursor into sight (after a key, not a tick or wheel)
	vp       *viewport.Model
}

// New returns a mock exam with opts; Start begins it.
func New(c common.Common, opts Options) *Model {
	if opts.Items == 0 {
		opts.Items = DefaultItems
	}
	if opts.Scale == (exam.Scale{}) {
		opts.Scale = exam.DefaultScale
	}
	return &Model{c: c, opts: opts, vp: viewport.New()}
}

// packets returns the packets the exam draws from.
func (m *Model) packets() []*katas.Packet {
	return m.c.Packets(m.opts.Katas)
}

// Start begins: with a store it first looks for an unfinished attempt to offer; without one it
// draws a new exam at once.
func (m *Model) Start() tea.Cmd {
	m.gen = m.c.NextGen()
	m.note = ""
	if m.c.Store == nil {
		return m.newAttempt()
	}
	m.stage = stageLoading
	gen := m.gen
	return m.c.Read("", func(s common.Store) (tea.Msg, error) {
		att, err := s.OpenAttempt()
		if err != nil || att == nil {
			return openAttemptMsg{gen: gen, err: err}, nil
		}
		ans, err := s.ExamAnswers(att.ID)
		return openAttemptMsg{gen: gen, att: att, answers: ans, err: err}, nil
	})
}

// Taking reports whether a mock exam is under way (so the catalog's key returns to it).
func (m *Model) Taking() bool {
	return m.stage == stageTaking || m.stage == stageStarting || m.stage == stageSubmitting
}

// tick schedules the next countdown tick (timed exams only).
func (m *Model) tick() tea.Cmd {
	if m.att.Limit <= 0 {
		return nil
	}
	gen := m.gen
	return m.c.Tick(time.Second, func(t time.Time) tea.Msg { return tickMsg{gen: gen, at: t} })
}

// deadline is when a timed exam ends.
func (m *Model) deadline() time.Time { return m.att.Started.Add(m.att.Limit) }

// timeUp reports whether a timed exam's time has run out.
func (m *Model) timeUp() bool { return m.att.Limit > 0 && !m.now.Before(m.deadline()) }

// ShortHelp lists the keys that apply now.
func (m *Model) ShortHelp() []key.Binding {
	k, x := m.c.Keys, m.c.Keys.MockExam
	switch m.stage {
	case stageOffer:
		return []key.Binding{x.Resume, x.New}
	case stageTaking:
		switch m.mode {
		case modeJump:
			return []key.Binding{k.Cursor.Up, x.Go, x.Close}
		case modeConfirm:
			return []key.Binding{x.Yes, x.No}
		}
		b := []key.Binding{x.Next, x.Flag, x.Jump, x.Submit, k.Question.Mark}
		if m.vp.Overflows() {
			b = append(b, k.Scroll.PageUp)
		}
		return b
	case stageResult:
		return []key.Binding{x.Review, k.Scroll.Up, k.Scroll.PageUp}
	case stageReview:
		return []key.Binding{x.Next, k.Scroll.Up, k.Scroll.PageUp}
	}
	return nil
}

// FullHelp lists every key of the mock exam's current stage: answering (with the jump list and
// the submit question), the resume offer, or the result and its review.
func (m *Model) FullHelp() [][]key.Binding {
	k, x := m.c.Keys, m.c.Keys.MockExam
	switch m.stage {
	case stageOffer:
		return [][]key.Binding{{x.Resume, x.New}}
	case stageTaking:
		return [][]key.Binding{
			{k.Cursor.Up, k.Question.Mark, x.Next, x.Flag, k.Scroll.PageUp},
			{x.Jump, x.Go, x.Close},
			{x.Submit, x.Yes, x.No},
		}
	case stageResult, stageReview:
		return [][]key.Binding{m.ShortHelp()}
	}
	return nil
}

// SetSize sizes the viewport and asks for the stem at the new width.
func (m *Model) SetSize(w, h int) tea.Cmd {
	m.c.SetSize(w, h)
	// A new size keeps the item where it is: following the cursor here would open a long
	// item scrolled past its stem (the cursor is on the first option).
	m.follow = m.mode == modeJump
	m.vp.SetSize(w, h-3)
	cmd := m.requestStem()
	m.refresh()
	return cmd
}

// requestStem asks for the stem of the item on show.
func (m *Model) requestStem() tea.Cmd {
	if len(m.qs) == 0 || m.c.Width == 0 || (m.stage != stageTaking && m.stage != stageReview) || m.mode != modeItems {
		return nil
	}
	q := m.qs[m.idx]
	return m.stem.Request(common.RenderKey{Doc: q.Ref, Width: m.c.Width, Style: m.c.MDStyle}, q.Item.Stem)
}

// Back handles esc inside the exam: it closes the jump list or the confirmation, and returns
// from the review to the result. It reports false when the root should go back.
func (m *Model) Back() (tea.Cmd, bool) {
	switch {
	case m.stage == stageTaking && m.mode != modeItems:
		m.mode = modeItems
		m.refresh()
		return m.requestStem(), true
	case m.stage == stageReview:
		m.stage = stageResult
		m.vp.GotoTop()
		m.refresh()
		return nil, true
	}
	return nil, false
}

// Update handles keys, store answers, ticks and stem renderings.
func (m *Model) Update(msg tea.Msg) tea.Cmd {
	var cmd tea.Cmd
	switch msg := msg.(type) {
	case openAttemptMsg:
		if msg.gen != m.gen || m.stage != stageLoading {
			return nil
		}
		if msg.err != nil || msg.att == nil {
			// No unfinished exam, or the store cannot tell: start a new one.
			cmd = tea.Batch(common.Warn(m.c.T("mock.warn_looking"), msg.err), m.newAttempt())
			break
		}
		m.stage, m.offer, m.offered = stageOffer, msg.att, msg.answers
	case attemptStartedMsg:
		if msg.gen != m.gen || m.stage != stageStarting {
			return nil
		}
		// Without a stored attempt (the store failed) the exam still runs, unsaved.
		m.att.ID = msg.id
		m.unsaved = msg.err != nil
		m.stage = stageTaking
		cmd = tea.Batch(common.Warn(m.c.T("mock.warn_starting"), msg.err), m.tick(), m.requestStem())
	case submitReadMsg:
		if msg.gen != m.gen || m.stage != stageSubmitting {
			return nil
		}
		cmd = tea.Batch(common.Warn(m.c.T("mock.warn_reading"), msg.err), m.finish(msg.answers))
	case examSavedMsg:
		if msg.gen == m.gen && m.pending > 0 {
			m.pending--
			m.saved++
			m.failed = false
		}
	case common.StoreErrMsg:
		if msg.Op == m.saveOp() && m.pending > 0 {
			m.pending--
			m.failed = true
		}
	case tickMsg:
		if msg.gen != m.gen || m.stage != stageTaking {
			return nil
		}
		m.now = msg.at
		if m.timeUp() {
			m.note = m.c.T("mock.time_up")
			cmd = m.submit()
			break
		}
		// The countdown is in the header, drawn by View: the content stays as laid out.
		return m.tick()
	case common.RenderedMsg:
		if !m.stem.Take(msg) {
			return nil
		}
	case tea.MouseWheelMsg:
		m.vp.Wheel(msg)
		return nil
	case tea.KeyPressMsg:
		cmd = m.key(msg)
	default:
		return nil
	}
	m.refresh()
	return cmd
}

// key handles one key press in the current stage.
func (m *Model) key(msg tea.KeyPressMsg) tea.Cmd {
	k, x := m.c.Keys, m.c.Keys.MockExam
	if m.vp.PageKey(msg, k.Scroll) {
		return nil
	}
	switch m.stage {
	case stageOffer:
		switch {
		case key.Matches(msg, x.Resume):
			return m.resume()
		case key.Matches(msg, x.New):
			id := m.offer.ID
			abandon := m.c.Write("", m.c.T("mock.abandoning"), func(s common.Store) error { return s.AbandonAttempt(id) }, common.Changed)
			return tea.Batch(abandon, m.newAttempt())
		}
	case stageTaking:
		return m.takingKey(msg)
	case stageResult:
		if key.Matches(msg, x.Review) && len(m.qs) > 0 {
			m.stage = stageReview
			m.show(0)
			return m.requestStem()
		}
		m.vp.Key(msg, k.Scroll)
	case stageReview:
		switch {
		case key.Matches(msg, x.Next):
			if m.idx+1 < len(m.qs) {
				m.show(m.idx + 1)
			}
			return m.requestStem()
		case key.Matches(msg, x.Prev):
			m.show(m.idx - 1)
			return m.requestStem()
		}
		m.vp.Key(msg, k.Scroll)
	}
	return nil
}

// takingKey handles a key while the exam is under way.
func (m *Model) takingKey(msg tea.KeyPressMsg) tea.Cmd {
	m.note = ""
	m.follow = true
	k, x := m.c.Keys, m.c.Keys.MockExam
	switch m.mode {
	case modeConfirm:
		switch {
		case key.Matches(msg, x.Yes):
			return m.submit()
		case key.Matches(msg, x.No):
			m.mode = modeItems
			return m.requestStem()
		}
		return nil
	case modeJump:
		switch {
		case key.Matches(msg, k.Cursor.Up):
			m.jump = max(m.jump-1, 0)
		case key.Matches(msg, k.Cursor.Down):
			m.jump = min(m.jump+1, len(m.qs)-1)
		case key.Matches(msg, x.Go):
			m.mode = modeItems
			m.show(m.jump)
			return m.requestStem()
		case key.Matches(msg, x.Close):
			m.mode = modeItems
			return m.requestStem()
		}
		return nil
	}
	if len(m.qs) == 0 {
		return nil
	}
	q := m.qs[m.idx]
	switch {
	case key.Matches(msg, x.Next):
		m.show(m.idx + 1)
		return m.requestStem()
	case key.Matches(msg, x.Prev):
		m.show(m.idx - 1)
		return m.requestStem()
	case key.Matches(msg, x.Flag):
		m.flagged[q.Ref] = !m.flagged[q.Ref]
		return m.save(q.Ref)
	case key.Matches(msg, x.Jump):
		m.mode, m.jump = modeJump, m.idx
		return nil
	case key.Matches(msg, x.Submit):
		m.mode = modeConfirm
		return nil
	}
	switch m.a.Key(msg, k) {
	case question.Changed:
		m.chosen[q.Ref] = m.a.Chosen()
		return m.save(q.Ref)
	case question.Answered:
		// enter on a complete answer moves on.
		if m.idx+1 < len(m.qs) {
			m.show(m.idx + 1)
			return m.requestStem()
		}
	}
	return nil
}

// Current is the item on show (the exam must have items).
func (m *Model) Current() exam.Question { return m.qs[m.idx] }

// Questions are the exam's items in order.
func (m *Model) Questions() []exam.Question { return m.qs }

// Chosen returns the options marked so far on item ref.
func (m *Model) Chosen(ref string) []string { return m.chosen[ref] }

// Attempt is the attempt on show: its items, katas, seed and times.
func (m *Model) Attempt() progress.Attempt { return m.att }

// saveOp names the exam answer save in store warnings, and tells its failures apart.
func (m *Model) saveOp() string { return m.c.T("store.saving_exam_answer") }
