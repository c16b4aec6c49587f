package ui

import (
	"fmt"
	"sort"
	"strings"
	"time"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"
	"github.com/kata-mcp/kata/ui/common"
	"github.com/kata-mcp/kata/ui/components/question"
	"github.com/kata-mcp/kata/ui/components/stem"
	"github.com/kata-mcp/kata/ui/components/viewport"

	"github.com/kata-mcp/kata/katas"
	"github.com/kata-mcp/kata/katas/exam"
	"github.com/kata-mcp/kata/katas/progress"
	"github.com/kata-mcp/kata/ui/keymap"
)

// ExamOptions configure the mock exam.
type ExamOptions struct {
	// Katas are the packet ids to draw from; empty means every packet.
	Katas []string
	// Items is the number of items; 0 means DefaultExamItems. More than there are takes all.
	Items int
	// Time is the time limit; 0 means PerItemTime × items, negative means untimed.
	Time time.Duration
	// Scale maps raw points to the scaled score; the zero value means exam.DefaultScale.
	Scale exam.Scale
}

// DefaultExamItems is the size of a mock exam when none is asked for.
const DefaultExamItems = 10

// PerItemTime is the default time per item: the certification's full form allows 120 minutes
// for 60 items.
const PerItemTime = 2 * time.Minute

// saveOp names the exam answer save in store warnings.
const saveOp = "saving the exam answer"

// mockPhase is where the mock exam is.
type mockPhase int

const (
	mockLoading    mockPhase = iota // asking the store for an unfinished attempt
	mockOffer                       // an unfinished attempt exists: resume or start anew
	mockStarting                    // the new attempt is being stored
	mockTaking                      // answering
	mockSubmitting                  // reading the answers saved by any window before scoring
	mockResult                      // submitted: the scaled score
	mockReview                      // submitted: every item with its key and rationales
)

// mockMode is an overlay over the items while taking the exam.
type mockMode int

const (
	modeItems   mockMode = iota
	modeJump             // the jump list
	modeConfirm          // submit?
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
	mockTickMsg struct {
		gen int
		at  time.Time
	}
)

// mockModel is the timed mock exam across katas: items drawn by exam.Draw with shuffled options,
// a countdown, flags, free movement, a jump list, no feedback until submitted; then the scaled
// score with a breakdown and a review of every item. Each answer change is saved at once.
type mockModel struct {
	c        *app
	opts     ExamOptions
	gen      int
	phase    mockPhase
	mode     mockMode
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
	width    int
	height   int
}

func newMock(c *app, opts ExamOptions) *mockModel {
	if opts.Items == 0 {
		opts.Items = DefaultExamItems
	}
	if opts.Scale == (exam.Scale{}) {
		opts.Scale = exam.DefaultScale
	}
	return &mockModel{c: c, opts: opts, vp: viewport.New()}
}

// packets returns the packets the exam draws from.
func (m *mockModel) packets() []*katas.Packet {
	return m.c.Packets(m.opts.Katas)
}

// Start begins: with a store it first looks for an unfinished attempt to offer; without one it
// draws a new exam at once.
func (m *mockModel) Start() tea.Cmd {
	m.gen = m.c.NextGen()
	m.note = ""
	if m.c.Store == nil {
		return m.newAttempt()
	}
	m.phase = mockLoading
	gen := m.gen
	return m.c.Read("", func(s Store) (tea.Msg, error) {
		att, err := s.OpenAttempt()
		if err != nil || att == nil {
			return openAttemptMsg{gen: gen, err: err}, nil
		}
		ans, err := s.ExamAnswers(att.ID)
		return openAttemptMsg{gen: gen, att: att, answers: ans, err: err}, nil
	})
}

// taking reports whether an exam is under way (so the catalog's x returns to it).
func (m *mockModel) taking() bool {
	return m.phase == mockTaking || m.phase == mockStarting || m.phase == mockSubmitting
}

// newAttempt draws a new exam and stores it as an open attempt.
func (m *mockModel) newAttempt() tea.Cmd {
	seed := m.c.Seed()
	qs := exam.Draw(m.packets(), m.opts.Items, seed)
	limit := m.opts.Time
	switch {
	case limit == 0:
		limit = time.Duration(len(qs)) * PerItemTime
	case limit < 0:
		limit = 0
	}
	var ids []string
	for _, p := range m.packets() {
		ids = append(ids, p.ID)
	}
	att := progress.Attempt{Katas: ids, Seed: seed, Limit: limit, Started: m.c.Now()}
	for _, q := range qs {
		att.Items = append(att.Items, q.Ref)
	}
	m.begin(att, qs, nil)
	if m.c.Store == nil {
		return tea.Batch(m.tick(), m.requestStem())
	}
	m.phase = mockStarting
	gen := m.gen
	return m.c.Read("", func(s Store) (tea.Msg, error) {
		id, err := s.StartAttempt(att)
		return attemptStartedMsg{gen: gen, id: id, err: err}, nil
	})
}

// resume rebuilds the offered attempt with its saved answers.
func (m *mockModel) resume() tea.Cmd {
	att := *m.offer
	qs, err := exam.Rebuild(m.c.Lib.Packets(), att.Items, att.Seed)
	if err != nil {
		m.note = "Cannot resume: " + err.Error() + " — press " + keymap.Name(m.c.Keys.MockExam.New) + " for a new exam."
		return nil
	}
	m.begin(att, qs, m.offered)
	m.note = fmt.Sprintf("Resumed the exam started %s.", att.Started.Local().Format("Jan 2 15:04"))
	if m.timeUp() {
		m.note = "Time ran out while the app was closed: submitted with the answers saved."
		return m.submit()
	}
	return tea.Batch(m.tick(), m.requestStem())
}

// begin shows attempt att with its questions and any saved answers.
func (m *mockModel) begin(att progress.Attempt, qs []exam.Question, saved map[string]progress.ExamAnswer) {
	m.att, m.qs = att, qs
	m.chosen, m.flagged, m.changed = map[string][]string{}, map[string]bool{}, map[string]time.Time{}
	for ref, a := range saved {
		if len(a.Chosen) > 0 {
			m.chosen[ref] = append([]string(nil), a.Chosen...)
		}
		if a.Flagged {
			m.flagged[ref] = true
		}
	}
	m.phase, m.mode, m.idx, m.pending, m.saved, m.unsaved = mockTaking, modeItems, 0, 0, 0, false
	m.now = m.c.Now()
	m.offer, m.offered = nil, nil
	m.show(0)
}

// show moves to item i.
func (m *mockModel) show(i int) {
	if len(m.qs) == 0 {
		return
	}
	m.idx = min(max(i, 0), len(m.qs)-1)
	q := m.qs[m.idx]
	m.a = question.New(question.Choices(q), q.Item.Choose)
	m.a.Set(m.chosen[q.Ref])
	m.vp.GotoTop()
}

// tick schedules the next countdown tick (timed exams only).
func (m *mockModel) tick() tea.Cmd {
	if m.att.Limit <= 0 {
		return nil
	}
	gen := m.gen
	return m.c.Tick(time.Second, func(t time.Time) tea.Msg { return mockTickMsg{gen: gen, at: t} })
}

// deadline is when a timed exam ends.
func (m *mockModel) deadline() time.Time { return m.att.Started.Add(m.att.Limit) }

// timeUp reports whether a timed exam's time has run out.
func (m *mockModel) timeUp() bool { return m.att.Limit > 0 && !m.now.Before(m.deadline()) }

// ShortHelp lists the keys that apply now.
func (m *mockModel) ShortHelp() []key.Binding {
	k, x := m.c.Keys, m.c.Keys.MockExam
	switch m.phase {
	case mockOffer:
		return []key.Binding{x.Resume, x.New}
	case mockTaking:
		switch m.mode {
		case modeJump:
			return []key.Binding{k.Cursor.Up, x.Go, x.Close}
		case modeConfirm:
			return []key.Binding{x.Yes, x.No}
		}
		return []key.Binding{x.Next, x.Flag, x.Jump, x.Submit, k.Question.Mark}
	case mockResult:
		return []key.Binding{x.Review, k.Scroll.Up, k.Scroll.PageUp}
	case mockReview:
		return []key.Binding{x.Next, k.Scroll.Up, k.Scroll.PageUp}
	}
	return nil
}

// FullHelp lists every key of the mock exam's current phase: answering (with the jump list and
// the submit question), the resume offer, or the result and its review.
func (m *mockModel) FullHelp() [][]key.Binding {
	k, x := m.c.Keys, m.c.Keys.MockExam
	switch m.phase {
	case mockOffer:
		return [][]key.Binding{{x.Resume, x.New}}
	case mockTaking:
		return [][]key.Binding{
			{k.Cursor.Up, k.Question.Mark, x.Next, x.Flag, k.Scroll.PageUp},
			{x.Jump, x.Go, x.Close},
			{x.Submit, x.Yes, x.No},
		}
	case mockResult, mockReview:
		return [][]key.Binding{m.ShortHelp()}
	}
	return nil
}

// SetSize sizes the viewport and asks for the stem at the new width.
func (m *mockModel) SetSize(w, h int) tea.Cmd {
	m.width, m.height = w, h
	m.follow = true
	m.vp.SetSize(w, h-3)
	cmd := m.requestStem()
	m.refresh()
	return cmd
}

// requestStem asks for the stem of the item on show.
func (m *mockModel) requestStem() tea.Cmd {
	if len(m.qs) == 0 || m.width == 0 || (m.phase != mockTaking && m.phase != mockReview) || m.mode != modeItems {
		return nil
	}
	q := m.qs[m.idx]
	return m.stem.Request(common.RenderKey{Doc: q.Ref, Width: m.width, Style: m.c.MDStyle}, q.Item.Stem)
}

// Back handles esc inside the exam: it closes the jump list or the confirmation, and returns
// from the review to the result. It reports false when the root should go back.
func (m *mockModel) Back() (tea.Cmd, bool) {
	switch {
	case m.phase == mockTaking && m.mode != modeItems:
		m.mode = modeItems
		m.refresh()
		return m.requestStem(), true
	case m.phase == mockReview:
		m.phase = mockResult
		m.vp.GotoTop()
		m.refresh()
		return nil, true
	}
	return nil, false
}

// Update handles keys, store answers, ticks and stem renderings.
func (m *mockModel) Update(msg tea.Msg) tea.Cmd {
	var cmd tea.Cmd
	switch msg := msg.(type) {
	case openAttemptMsg:
		if msg.gen != m.gen || m.phase != mockLoading {
			return nil
		}
		if msg.err != nil || msg.att == nil {
			// No unfinished exam, or the store cannot tell: start a new one.
			cmd = tea.Batch(common.Warn("looking for an unfinished exam", msg.err), m.newAttempt())
			break
		}
		m.phase, m.offer, m.offered = mockOffer, msg.att, msg.answers
	case attemptStartedMsg:
		if msg.gen != m.gen || m.phase != mockStarting {
			return nil
		}
		// Without a stored attempt (the store failed) the exam still runs, unsaved.
		m.att.ID = msg.id
		m.unsaved = msg.err != nil
		m.phase = mockTaking
		cmd = tea.Batch(common.Warn("starting the exam", msg.err), m.tick(), m.requestStem())
	case submitReadMsg:
		if msg.gen != m.gen || m.phase != mockSubmitting {
			return nil
		}
		cmd = tea.Batch(common.Warn("reading the saved answers", msg.err), m.finish(msg.answers))
	case examSavedMsg:
		if msg.gen == m.gen && m.pending > 0 {
			m.pending--
			m.saved++
			m.failed = false
		}
	case common.StoreErrMsg:
		if msg.Op == saveOp && m.pending > 0 {
			m.pending--
			m.failed = true
		}
	case mockTickMsg:
		if msg.gen != m.gen || m.phase != mockTaking {
			return nil
		}
		m.now = msg.at
		if m.timeUp() {
			m.note = "Time is up: the exam was submitted."
			cmd = m.submit()
			break
		}
		cmd = m.tick()
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

// key handles one key press in the current phase.
func (m *mockModel) key(msg tea.KeyPressMsg) tea.Cmd {
	k, x := m.c.Keys, m.c.Keys.MockExam
	if m.vp.PageKey(msg, k.Scroll) {
		return nil
	}
	switch m.phase {
	case mockOffer:
		switch {
		case key.Matches(msg, x.Resume):
			return m.resume()
		case key.Matches(msg, x.New):
			id := m.offer.ID
			abandon := m.c.Write("", "abandoning the unfinished exam", func(s Store) error { return s.AbandonAttempt(id) }, common.Changed)
			return tea.Batch(abandon, m.newAttempt())
		}
	case mockTaking:
		return m.takingKey(msg)
	case mockResult:
		if key.Matches(msg, x.Review) && len(m.qs) > 0 {
			m.phase = mockReview
			m.show(0)
			return m.requestStem()
		}
		m.vp.Key(msg, k.Scroll)
	case mockReview:
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
func (m *mockModel) takingKey(msg tea.KeyPressMsg) tea.Cmd {
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
	switch m.a.Key(msg, k, false) {
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

// save stores the answer and flag of ref at once (without a store it only counts as kept in
// memory).
func (m *mockModel) save(ref string) tea.Cmd {
	if m.c.Store == nil || m.att.ID == 0 {
		return nil
	}
	id, chosen, flagged, at, gen := m.att.ID, append([]string(nil), m.chosen[ref]...), m.flagged[ref], m.c.Now(), m.gen
	m.changed[ref] = at
	m.pending++
	return m.c.Write(fmt.Sprintf("exam:%d:%s", id, ref), saveOp, func(s Store) error {
		return s.SaveExamAnswer(id, ref, chosen, flagged, at)
	}, func() tea.Msg { return examSavedMsg{gen: gen} })
}

// answered reports whether ref has a complete answer.
func (m *mockModel) answered(q exam.Question) bool { return len(m.chosen[q.Ref]) == q.Item.Choose }

// counts returns how many items are answered and flagged.
func (m *mockModel) counts() (answered, flagged int) {
	for _, q := range m.qs {
		if m.answered(q) {
			answered++
		}
		if m.flagged[q.Ref] {
			flagged++
		}
	}
	return answered, flagged
}

// scored returns the answers that count: complete ones only.
func (m *mockModel) scored() map[string][]string {
	out := map[string][]string{}
	for _, q := range m.qs {
		if m.answered(q) {
			out[q.Ref] = m.chosen[q.Ref]
		}
	}
	return out
}

// submit ends the exam. With a stored attempt it first reads the answers saved for it, so an
// answer given to the same exam in another kata window counts too (see finish); without one it
// scores at once.
func (m *mockModel) submit() tea.Cmd {
	m.submitAt = m.c.Now()
	m.mode = modeItems
	if m.c.Store == nil || m.att.ID == 0 {
		return m.finish(nil)
	}
	m.phase = mockSubmitting
	gen, id := m.gen, m.att.ID
	return m.c.Read("", func(s Store) (tea.Msg, error) {
		ans, err := s.ExamAnswers(id)
		return submitReadMsg{gen: gen, answers: ans, err: err}, nil
	})
}

// merge takes each saved answer that is newer than this window's own change of the item (an
// answer given in another window on the same exam); it returns how many it took.
func (m *mockModel) merge(saved map[string]progress.ExamAnswer) int {
	taken := 0
	for _, q := range m.qs {
		sa, ok := saved[q.Ref]
		if !ok || !sa.At.After(m.changed[q.Ref]) {
			continue
		}
		if !equalIDs(sa.Chosen, m.chosen[q.Ref]) {
			taken++
		}
		if len(sa.Chosen) > 0 {
			m.chosen[q.Ref] = append([]string(nil), sa.Chosen...)
		} else {
			delete(m.chosen, q.Ref)
		}
		m.flagged[q.Ref] = sa.Flagged
	}
	return taken
}

// equalIDs reports whether a and b hold the same ids (both are sorted).
func equalIDs(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// finish merges the saved answers (nil: none), scores the exam and stores the finished attempt
// with every answer.
func (m *mockModel) finish(saved map[string]progress.ExamAnswer) tea.Cmd {
	if n := m.merge(saved); n > 0 {
		verb := "are"
		if n == 1 {
			verb = "is"
		}
		note := common.Count(n, "answer", "answers") + " given in another kata window on this exam " + verb + " included."
		if m.note != "" {
			note = m.note + " " + note
		}
		m.note = note
	}
	answers := m.scored()
	m.result = exam.Score(m.qs, answers, m.opts.Scale)
	m.phase, m.mode = mockResult, modeItems
	m.vp.GotoTop()
	now := m.submitAt
	m.att.Finished = now
	att := m.att
	att.Points, att.Max, att.Scaled, att.Passed = m.result.Points, m.result.Max, m.result.Scaled, m.result.Passed
	var recs []progress.Answer
	for _, q := range m.qs {
		ch := answers[q.Ref]
		recs = append(recs, progress.Answer{Kata: q.Kata, ItemID: q.Item.ID, CardID: q.CardID, Chosen: ch, Correct: len(ch) > 0 && exam.Correct(q.Item, ch), At: now})
	}
	if att.ID == 0 {
		return nil
	}
	return m.c.Write(fmt.Sprintf("attempt:%d", att.ID), "submitting the exam", func(s Store) error { return s.FinishAttempt(att, recs) }, common.Changed)
}

// refresh rebuilds the viewport content for the phase.
func (m *mockModel) refresh() {
	if m.width == 0 {
		return
	}
	if len(m.qs) == 0 && m.phase >= mockTaking {
		m.vp.SetContent("")
		return
	}
	switch m.phase {
	case mockTaking:
		switch m.mode {
		case modeJump:
			content, line := m.jumpContent()
			m.vp.SetContent(content)
			if m.follow {
				m.vp.Follow(line, false)
			}
		case modeConfirm:
			m.vp.SetContent(m.confirmContent())
			m.vp.GotoTop()
		default:
			content, line := m.itemContent()
			m.vp.SetContent(content)
			if m.follow {
				m.vp.Follow(line, false)
			}
		}
		m.follow = false
	case mockResult:
		m.vp.SetContent(m.resultContent())
	case mockReview:
		m.vp.SetContent(m.reviewContent())
	case mockOffer:
		m.vp.SetContent(m.offerContent())
	case mockSubmitting:
		m.vp.SetContent(m.c.Styles.Subtle.Render("  Submitting the exam…"))
	default:
		m.vp.SetContent(m.c.Styles.Subtle.Render("  Preparing the exam…"))
	}
}

// stemLines returns the stem of the item on show: rendered, or plain while it renders.
func (m *mockModel) stemLines(q exam.Question) string {
	return m.stem.View(q.Ref, q.Item.Stem, m.width)
}

// itemContent lays out the item on show for answering, and the cursor's line.
func (m *mockModel) itemContent() (string, int) {
	st := m.c.Styles
	w := m.width
	q := m.qs[m.idx]
	var lines []string
	add := func(s string) { lines = append(lines, strings.Split(s, "\n")...) }
	if m.note != "" {
		add(st.Accent.Render(common.WrapHanging("  ", m.note, w)))
		add("")
	}
	add(question.Title(st, q.Item.Title, w))
	add(m.stemLines(q))
	add("")
	if q.Item.Choose > 1 {
		add(st.Accent.Render(common.WrapHanging("  ", fmt.Sprintf("Choose %d. This item scores only when exactly %d options are marked (%d marked).", q.Item.Choose, q.Item.Choose, m.a.Marked()), w)))
		add("")
	}
	opts, cursor := m.a.Lines(st, w, true)
	base := len(lines)
	lines = append(lines, opts...)
	add("")
	hint := "Mark with the letters (or " + keymap.Key(m.c.Keys.Question.Mark) + " on the cursor). No feedback until you submit; answers are saved as you give them."
	if m.c.Store == nil || m.unsaved {
		hint = "Mark with the letters (or " + keymap.Key(m.c.Keys.Question.Mark) + " on the cursor). No feedback until you submit. Answers are not saved: they are lost if the app closes."
	}
	add(st.Subtle.Render(common.WrapHanging("  ", hint, w)))
	return strings.Join(lines, "\n"), base + cursor
}

// jumpContent lays out the jump list: every item with its answered and flagged state.
func (m *mockModel) jumpContent() (string, int) {
	st := m.c.Styles
	answered, flagged := m.counts()
	lines := []string{st.Label.Render(fmt.Sprintf("  Jump to an item · %d of %d answered · %d flagged", answered, len(m.qs), flagged)), ""}
	cursor := -1
	for i, q := range m.qs {
		mark, flag := "·", " "
		switch {
		case m.answered(q):
			mark = "✓"
		case len(m.chosen[q.Ref]) > 0:
			mark = "~"
		}
		if m.flagged[q.Ref] {
			flag = "⚑"
		}
		marker := "  "
		if i == m.jump {
			marker = "> "
			cursor = len(lines)
		}
		line := common.Truncate(fmt.Sprintf("%s%2d  %s %s  %s", marker, i+1, mark, flag, q.Item.Title), m.width)
		if i == m.jump {
			line = st.Selected.Render(line)
		}
		lines = append(lines, line)
	}
	lines = append(lines, "", st.Subtle.Render("  ✓ answered · ~ partly marked · · not answered · ⚑ flagged"))
	return strings.Join(lines, "\n"), cursor
}

// confirmContent asks whether to submit.
func (m *mockModel) confirmContent() string {
	st := m.c.Styles
	answered, flagged := m.counts()
	lines := []string{
		st.Title.Render("  Submit the exam?"),
		"",
		fmt.Sprintf("  %d of %d items answered · %d flagged for review.", answered, len(m.qs), flagged),
	}
	if left := len(m.qs) - answered; left > 0 {
		lines = append(lines, st.Fail.Render("  "+common.Count(left, "item unanswered scores", "items unanswered score")+" nothing."))
	}
	x := m.c.Keys.MockExam
	lines = append(lines, "", "  "+keymap.Says(x.Yes, "submit and see the score")+" · "+keymap.Says(x.No, "keep going"))
	return strings.Join(lines, "\n")
}

// offerContent offers to resume an unfinished attempt.
func (m *mockModel) offerContent() string {
	st := m.c.Styles
	a := m.offer
	// Count complete answers, as the exam's header does (a half-marked multiple-response item
	// is saved but not answered).
	choose := map[string]int{}
	if qs, err := exam.Rebuild(m.c.Lib.Packets(), a.Items, a.Seed); err == nil {
		for _, q := range qs {
			choose[q.Ref] = q.Item.Choose
		}
	}
	answered := 0
	for ref, ea := range m.offered {
		if n, ok := choose[ref]; ok && len(ea.Chosen) == n {
			answered++
		}
	}
	lines := []string{
		st.Title.Render("  An unfinished exam"),
		"",
		fmt.Sprintf("  Started %s · %d items · %d answered so far", a.Started.Local().Format("Jan 2 15:04"), len(a.Items), answered),
		common.WrapHanging("  ", "Katas: "+strings.Join(a.Katas, ", "), m.width),
	}
	if a.Limit > 0 {
		left := a.Started.Add(a.Limit).Sub(m.c.Now())
		if left > 0 {
			lines = append(lines, fmt.Sprintf("  Time left: %s (the clock ran on while the app was closed).", common.Clock(left)))
		} else {
			lines = append(lines, "  Its time has run out: resuming submits it with the answers saved.")
		}
	}
	x := m.c.Keys.MockExam
	lines = append(lines, "", "  "+keymap.Says(x.Resume, "resume it")+" · "+keymap.Says(x.New, "abandon it and start a new exam"), st.Subtle.Render(common.WrapHanging("     ", "(the new one: "+m.newExamWords()+")", m.width)))
	if m.note != "" {
		lines = append(lines, "", st.Fail.Render(common.WrapHanging("  ", m.note, m.width)))
	}
	return strings.Join(lines, "\n")
}

// newExamWords describes the exam n starts: its size, katas and time limit.
func (m *mockModel) newExamWords() string {
	total := 0
	var ids []string
	for _, p := range m.packets() {
		total += len(p.Items)
		ids = append(ids, p.ID)
	}
	n := min(m.opts.Items, total)
	if m.opts.Items <= 0 {
		n = total
	}
	from := "every kata"
	if len(m.opts.Katas) > 0 {
		from = strings.Join(ids, ", ")
	}
	limit := "untimed"
	switch {
	case m.opts.Time == 0:
		limit = common.Clock(time.Duration(n)*PerItemTime) + " to answer"
	case m.opts.Time > 0:
		limit = common.Clock(m.opts.Time) + " to answer"
	}
	return fmt.Sprintf("%s from %s, %s", common.Count(n, "item", "items"), from, limit)
}

// tallyRows lays out a breakdown table: name, correct/total, percent, sorted by name.
func tallyRows(st *common.Styles, title string, tallies map[string]exam.Tally, w int) []string {
	names := make([]string, 0, len(tallies))
	width := 0
	for n := range tallies {
		names = append(names, n)
		width = max(width, len(n))
	}
	sort.Strings(names)
	width = min(width, max(w-24, 10))
	lines := []string{st.Label.Render("  " + title)}
	for _, n := range names {
		t := tallies[n]
		lines = append(lines, common.Truncate(fmt.Sprintf("    %-*s %3d/%-3d %3d%%", width, common.Truncate(n, width), t.Correct, t.Total, common.PercentOf(t.Correct, t.Total)), w))
	}
	return lines
}

// resultContent lays out the scaled score, the raw score, pass/fail and the breakdowns.
func (m *mockModel) resultContent() string {
	st := m.c.Styles
	r := m.result
	s := m.opts.Scale
	verdict := st.Pass.Render("PASS")
	if !r.Passed {
		verdict = st.Fail.Render("FAIL")
	}
	lines := []string{
		st.Title.Render(fmt.Sprintf("  Scaled score %d", r.Scaled)) + fmt.Sprintf("  (raw %d/%d)  ", r.Points, r.Max) + verdict + st.Subtle.Render(fmt.Sprintf(" (pass mark %d)", s.Pass)),
		st.Subtle.Render(common.WrapHanging("  ", fmt.Sprintf("Raw score: %d of %d items right; an item scores only when exactly its keyed options are chosen.", r.Points, r.Max), m.width)),
		st.Subtle.Render(common.WrapHanging("  ", fmt.Sprintf("Our approximation, not the official scaling: %d + %d × points/max, rounded.", s.Min, s.Max-s.Min), m.width)),
	}
	used := m.att.Finished.Sub(m.att.Started)
	if m.att.Limit > 0 {
		lines = append(lines, fmt.Sprintf("  Time used %s of %s", common.Clock(min(used, m.att.Limit)), common.Clock(m.att.Limit)))
	} else {
		lines = append(lines, fmt.Sprintf("  Time used %s (untimed)", common.Clock(used)))
	}
	if m.note != "" {
		lines = append(lines, st.Accent.Render(common.WrapHanging("  ", m.note, m.width)))
	}
	lines = append(lines, "")
	lines = append(lines, tallyRows(st, "By kata", r.ByKata, m.width)...)
	lines = append(lines, "")
	lines = append(lines, tallyRows(st, "By scenario", r.ByScenario, m.width)...)
	lines = append(lines, "", st.Subtle.Render("  "+keymap.Says(m.c.Keys.MockExam.Review, "review every item with its rationales")+" · "+keymap.Says(m.c.Keys.Back, "back to the catalog")))
	return strings.Join(lines, "\n")
}

// reviewContent lays out one submitted item: the stem, the verdict, every option with the key,
// the learner's choice and its rationale.
func (m *mockModel) reviewContent() string {
	st := m.c.Styles
	w := m.width
	q := m.qs[m.idx]
	chosen := m.scored()[q.Ref]
	opts := question.Choices(q)
	var lines []string
	add := func(s string) { lines = append(lines, strings.Split(s, "\n")...) }
	add(question.Title(st, q.Item.Title, w))
	add(m.stemLines(q))
	add("")
	switch {
	case len(chosen) == 0:
		add(st.Fail.Render("  ✗ not answered") + " — the key is " + question.KeyLetters(opts))
	default:
		add(question.Verdict(st, opts, exam.Correct(q.Item, chosen)))
	}
	add("")
	lines = append(lines, question.Reveal(st, w, opts, chosen)...)
	add("")
	add(st.Subtle.Render("  " + keymap.Says(m.c.Keys.MockExam.Next, "other items") + " · " + keymap.Says(m.c.Keys.Back, "back to the score")))
	return strings.Join(lines, "\n")
}

// View draws the status line (item, counts, save state, countdown) and the phase's content.
func (m *mockModel) View() string {
	st := m.c.Styles
	if len(m.qs) == 0 && m.phase >= mockTaking {
		return st.Title.Render("Mock exam") + "\n\n  There are no exam items in the chosen katas."
	}
	var left, right, second string
	switch m.phase {
	case mockTaking:
		answered, flagged := m.counts()
		left = st.Title.Render(fmt.Sprintf("Mock exam · item %d of %d", m.idx+1, len(m.qs))) +
			st.Subtle.Render(fmt.Sprintf(" · %d answered · %d flagged", answered, flagged))
		if m.att.Limit > 0 {
			right = "left " + common.Clock(m.deadline().Sub(m.now))
			if m.deadline().Sub(m.now) < time.Minute {
				right = st.Fail.Render(right)
			} else {
				right = st.Accent.Render(right)
			}
		}
		q := m.qs[m.idx]
		second = st.Subtle.Render(q.Kata + " · scenario: " + q.Item.Scenario)
		if m.flagged[q.Ref] {
			second += " " + st.Accent.Render("⚑ flagged")
		}
		// The save state always shows whole: the kata and scenario give way.
		if state := m.saveState(); state != "" {
			second = common.Truncate(second, max(m.width-lipgloss.Width(state)-2, 1)) + "  " + state
		}
	case mockResult:
		left = st.Title.Render("Mock exam · result")
		second = st.Subtle.Render(fmt.Sprintf("%d items from %s", len(m.qs), strings.Join(m.att.Katas, ", ")))
	case mockReview:
		q := m.qs[m.idx]
		left = st.Title.Render(fmt.Sprintf("Exam review · item %d of %d", m.idx+1, len(m.qs)))
		second = st.Subtle.Render(q.Kata + " · " + q.Item.ID + " · scenario: " + q.Item.Scenario)
	default:
		left = st.Title.Render("Mock exam")
	}
	head := left
	if right != "" {
		// The countdown always shows whole: the counts give way.
		left = common.Truncate(left, max(m.width-lipgloss.Width(right)-1, 1))
		head = left + strings.Repeat(" ", max(m.width-lipgloss.Width(left)-lipgloss.Width(right), 1)) + right
	}
	return common.Truncate(head, m.width) + "\n" + common.Truncate(second, m.width) + "\n\n" + m.vp.View()
}

// saveState says whether the answers are saved.
func (m *mockModel) saveState() string {
	st := m.c.Styles
	switch {
	case m.c.Store == nil:
		return st.Subtle.Render("not saved: no progress store")
	case m.unsaved:
		return st.Fail.Render("not saved: the store failed")
	case m.failed:
		return st.Fail.Render("last answer not saved")
	case m.att.ID == 0:
		return st.Subtle.Render("starting…")
	case m.pending > 0:
		return st.Subtle.Render("saving…")
	case m.saved > 0:
		return st.Subtle.Render("saved")
	}
	return ""
}
