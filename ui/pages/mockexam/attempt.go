package mockexam

import (
	"fmt"
	"slices"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/kata-mcp/kata/internal/progress"
	"github.com/kata-mcp/kata/katas/exam"
	"github.com/kata-mcp/kata/ui/common"
	"github.com/kata-mcp/kata/ui/components/question"
	"github.com/kata-mcp/kata/ui/keymap"
)

// newAttempt draws a new exam and stores it as an open attempt.
func (m *Model) newAttempt() tea.Cmd {
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
	m.stage = stageStarting
	gen := m.gen
	return m.c.Read("", func(s common.Store) (tea.Msg, error) {
		id, err := s.StartAttempt(att)
		return attemptStartedMsg{gen: gen, id: id, err: err}, nil
	})
}

// resume rebuilds the offered attempt with its saved answers.
func (m *Model) resume() tea.Cmd {
	att := *m.offer
	qs, err := exam.Rebuild(m.c.Lib.Packets(), att.Items, att.Seed)
	if err != nil {
		m.note = m.c.T("mock.cannot_resume", "Error", err.Error(), "Key", keymap.Name(m.c.Keys.MockExam.New))
		return nil
	}
	m.begin(att, qs, m.offered)
	m.note = m.c.T("mock.resumed", "Started", att.Started.Local().Format(m.c.T("common.date_layout")))
	if m.timeUp() {
		m.note = m.c.T("mock.ran_out_closed")
		return m.submit()
	}
	return tea.Batch(m.tick(), m.requestStem())
}

// begin shows attempt att with its questions and any saved answers.
func (m *Model) begin(att progress.Attempt, qs []exam.Question, saved map[string]progress.ExamAnswer) {
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
	m.stage, m.mode, m.idx, m.pending, m.saved, m.unsaved = stageTaking, modeItems, 0, 0, 0, false
	m.now = m.c.Now()
	m.offer, m.offered = nil, nil
	m.show(0)
}

// show moves to item i.
func (m *Model) show(i int) {
	if len(m.qs) == 0 {
		return
	}
	m.idx = min(max(i, 0), len(m.qs)-1)
	q := m.qs[m.idx]
	m.a = question.New(question.Choices(q), q.Item.Choose)
	m.a.Set(m.chosen[q.Ref])
	m.vp.GotoTop()
	m.follow = false // a new item opens at its stem, not at its options
}

// save stores the answer and flag of ref at once (without a store it only counts as kept in
// memory).
func (m *Model) save(ref string) tea.Cmd {
	if m.c.Store == nil || m.att.ID == 0 {
		return nil
	}
	id, chosen, flagged, at, gen := m.att.ID, append([]string(nil), m.chosen[ref]...), m.flagged[ref], m.c.Now(), m.gen
	m.changed[ref] = at
	m.pending++
	return m.c.Write(fmt.Sprintf("exam:%d:%s", id, ref), m.saveOp(), func(s common.Store) error {
		return s.SaveExamAnswer(id, ref, chosen, flagged, at)
	}, func() tea.Msg { return examSavedMsg{gen: gen} })
}

// answered reports whether ref has a complete answer.
func (m *Model) answered(q exam.Question) bool { return q.Item.Answered(m.chosen[q.Ref]) }

// counts returns how many items are answered and flagged.
func (m *Model) counts() (answered, flagged int) {
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
func (m *Model) scored() map[string][]string {
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
func (m *Model) submit() tea.Cmd {
	m.submitAt = m.c.Now()
	m.mode = modeItems
	if m.c.Store == nil || m.att.ID == 0 {
		return m.finish(nil)
	}
	m.stage = stageSubmitting
	gen, id := m.gen, m.att.ID
	return m.c.Read("", func(s common.Store) (tea.Msg, error) {
		ans, err := s.ExamAnswers(id)
		return submitReadMsg{gen: gen, answers: ans, err: err}, nil
	})
}

// merge takes each saved answer that is newer than this window's own change of the item (an
// answer given in another window on the same exam); it returns how many it took.
func (m *Model) merge(saved map[string]progress.ExamAnswer) int {
	taken := 0
	for _, q := range m.qs {
		sa, ok := saved[q.Ref]
		if !ok || !sa.At.After(m.changed[q.Ref]) {
			continue
		}
		if !slices.Equal(sa.Chosen, m.chosen[q.Ref]) {
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

// finish merges the saved answers (nil: none), scores the exam and stores the finished attempt
// with every answer.
func (m *Model) finish(saved map[string]progress.ExamAnswer) tea.Cmd {
	if n := m.merge(saved); n > 0 {
		note := m.c.N("mock.merged", n)
		if m.note != "" {
			note = m.note + " " + note
		}
		m.note = note
	}
	answers := m.scored()
	m.result = exam.Score(m.qs, answers, m.opts.Scale)
	m.stage, m.mode = stageResult, modeItems
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
	return m.c.Write(fmt.Sprintf("attempt:%d", att.ID), m.c.T("mock.submitting_op"), func(s common.Store) error { return s.FinishAttempt(att, recs) }, common.Changed)
}
