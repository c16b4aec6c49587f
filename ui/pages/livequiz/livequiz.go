// Package livequiz is the instructor's live quiz on a learner's screen: the items the
// instructor started, answered one by one (an answer may change until the reveal), then the
// key, every rationale and how the class answered, once the instructor reveals them.
package livequiz

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"github.com/kata-mcp/kata/internal/progress"
	"github.com/kata-mcp/kata/katas"
	"github.com/kata-mcp/kata/katas/exam"
	"github.com/kata-mcp/kata/katas/srs"
	"github.com/kata-mcp/kata/ui/common"
	"github.com/kata-mcp/kata/ui/components/question"
	"github.com/kata-mcp/kata/ui/components/stem"
	"github.com/kata-mcp/kata/ui/components/viewport"
	"github.com/kata-mcp/kata/ui/keymap"
	"github.com/kata-mcp/kata/workshop"
	"github.com/kata-mcp/kata/workshop/learner"
)

// header is the number of lines above the viewport.
const header = 2

// Model is the live quiz screen.
type Model struct {
	c     common.Common
	quiz  *workshop.Quiz // the quiz on show (nil: none yet)
	over  bool           // the instructor ended it
	items []katas.Item
	idx   int
	a     question.Model
	// chosen are the answers sent, by item id; shown is when the item on show appeared.
	chosen map[string][]string
	shown  time.Time
	note   string
	stem   stem.Model
	vp     *viewport.Model
	follow bool
}

// sentMsg reports an answer recorded (and queued for the instructor).
type sentMsg struct {
	quiz, item string
	err        error
}

// New returns the live quiz screen, with no quiz yet.
func New(c common.Common) *Model {
	return &Model{c: c, vp: viewport.New(), chosen: map[string][]string{}}
}

// ID is the id of the quiz on show ("" for none).
func (m *Model) ID() string {
	if m.quiz == nil {
		return ""
	}
	return m.quiz.ID
}

// Start shows quiz q from its first item; a quiz already on show (same id) keeps its answers.
func (m *Model) Start(q workshop.Quiz) tea.Cmd {
	if m.quiz == nil || m.quiz.ID != q.ID {
		m.chosen, m.idx, m.note = map[string][]string{}, 0, ""
		m.items = nil
		if p, ok := m.c.Lib.Get(q.Kata); ok {
			for _, id := range q.Items {
				if i := slices.IndexFunc(p.Items, func(it katas.Item) bool { return it.ID == id }); i >= 0 {
					m.items = append(m.items, p.Items[i])
				}
			}
		}
		m.begin()
	}
	m.quiz, m.over = &q, false
	return m.requestStem()
}

// revealed reports whether the instructor revealed the quiz.
func (m *Model) revealed() bool { return m.quiz != nil && m.quiz.State == workshop.QuizRevealed }

// begin shows the item at idx afresh (with the answer sent, if any, marked).
func (m *Model) begin() {
	m.shown = m.c.Now()
	if m.idx < len(m.items) {
		it := m.items[m.idx]
		m.a = question.New(choices(it), it.Choose)
		if c := m.chosen[it.ID]; len(c) > 0 {
			m.a.Set(c)
		}
	}
	m.vp.GotoTop()
}

// choices are an item's options in written order: in a room the letters on every screen
// match the projected board's.
func choices(it katas.Item) []question.Choice {
	q := exam.Question{Item: it, Order: make([]int, len(it.Options))}
	for i := range q.Order {
		q.Order[i] = i
	}
	return question.Choices(q)
}

// ShortHelp lists the keys that apply.
func (m *Model) ShortHelp() []key.Binding {
	k := m.c.Keys
	b := []key.Binding{}
	if !m.revealed() && !m.over {
		b = append(b, k.Cursor.Up, k.Question.Mark, k.Question.Answer)
	}
	if len(m.items) > 1 {
		b = append(b, k.LiveQuiz.Next)
	}
	return append(b, k.Scroll.PageUp)
}

// FullHelp lists the screen's keys.
func (m *Model) FullHelp() [][]key.Binding {
	k := m.c.Keys
	return [][]key.Binding{{k.Cursor.Up, k.Question.Mark, k.Question.Answer}, {k.LiveQuiz.Next}, {k.Scroll.Up, k.Scroll.PageUp}}
}

// SetSize sizes the viewport and asks for the stem at the new width.
func (m *Model) SetSize(w, h int) tea.Cmd {
	m.c.SetSize(w, h)
	m.vp.SetSize(w, h-header)
	cmd := m.requestStem()
	m.refresh()
	return cmd
}

func (m *Model) requestStem() tea.Cmd {
	if m.idx >= len(m.items) || m.c.Width == 0 {
		return nil
	}
	it := m.items[m.idx]
	return m.stem.Request(common.RenderKey{Doc: m.quiz.Kata + "#live#" + it.ID, Width: m.c.Width, Style: m.c.MDStyle}, it.Stem)
}

// Update answers, moves between items, and follows the quiz's state.
func (m *Model) Update(msg tea.Msg) tea.Cmd {
	switch msg := msg.(type) {
	case common.WorkshopMsg:
		if m.quiz == nil {
			return nil
		}
		st := msg.Status.State
		switch {
		case st == nil || st.Quiz == nil || st.Closed:
			m.over = true
		case st.Quiz.ID == m.quiz.ID:
			q := *st.Quiz
			m.quiz = &q
		}
	case sentMsg:
		if msg.quiz != m.ID() {
			return nil
		}
		if msg.err != nil {
			m.note = m.c.T("live.not_sent", "Error", msg.err.Error())
		}
	case common.RenderedMsg:
		if !m.stem.Take(msg) {
			return nil
		}
	case tea.MouseWheelMsg:
		m.vp.Wheel(msg)
		return nil
	case tea.KeyPressMsg:
		cmd := m.key(msg)
		m.refresh()
		return cmd
	default:
		return nil
	}
	m.refresh()
	return nil
}

// key handles one key press.
func (m *Model) key(msg tea.KeyPressMsg) tea.Cmd {
	k := m.c.Keys
	if m.vp.PageKey(msg, k.Scroll) || len(m.items) == 0 {
		return nil
	}
	if !m.revealed() && !m.over {
		m.follow = true
		switch m.a.Key(msg, k) {
		case question.Answered:
			return m.send(m.a.Chosen())
		case question.Moved, question.Changed:
			return nil
		}
	} else if m.vp.Key(msg, k.Scroll) {
		return nil
	}
	switch {
	case key.Matches(msg, k.LiveQuiz.Next) && m.idx+1 < len(m.items):
		m.idx++
	case key.Matches(msg, k.LiveQuiz.Prev) && m.idx > 0:
		m.idx--
	default:
		return nil
	}
	m.begin()
	return m.requestStem()
}

// send records the answer to the item on show and queues it for the instructor.
func (m *Model) send(chosen []string) tea.Cmd {
	it := m.items[m.idx]
	m.chosen[it.ID] = chosen
	m.note = ""
	opts := choices(it)
	now := m.c.Now()
	a := progress.Answer{Kata: m.quiz.Kata, ItemID: it.ID, CardID: srs.ItemCardID(m.quiz.Kata, it), Chosen: chosen,
		Correct: question.Exactly(opts, chosen), Elapsed: now.Sub(m.shown), At: now}
	ws, quiz := m.c.Workshop, m.quiz.ID
	if ws == nil {
		return nil
	}
	return func() tea.Msg { return sentMsg{quiz: quiz, item: it.ID, err: ws.AnswerLive(a, quiz)} }
}

// refresh lays the item out in the viewport.
func (m *Model) refresh() {
	if m.c.Width == 0 {
		return
	}
	content, line := m.content()
	m.vp.SetContent(content)
	if m.follow {
		m.vp.Follow(line, false)
		m.follow = false
	}
}

// content lays out the item on show and returns the line to keep in sight.
func (m *Model) content() (string, int) {
	st := m.c.Styles
	w := m.c.Width
	var lines []string
	add := func(s string) { lines = append(lines, strings.Split(s, "\n")...) }
	if len(m.items) == 0 {
		add(common.WrapHanging("  ", m.c.T("live.no_items"), w))
		return strings.Join(lines, "\n"), 0
	}
	it := m.items[m.idx]
	opts := choices(it)
	chosen := m.chosen[it.ID]
	doc := m.quiz.Kata + "#live#" + it.ID
	if m.revealed() {
		add(question.Title(st, it.Title, w))
		add(m.stem.View(doc, it.Stem, w))
		add("")
		switch {
		case len(chosen) == 0:
			add(st.Subtle.Render("  " + m.c.T("live.no_answer") + " — " + m.c.T("question.key_is", "Letters", question.KeyLetters(opts))))
		default:
			add(question.Verdict(st, m.c.Loc, opts, question.Exactly(opts, chosen)))
		}
		verdict := len(lines) - 1
		add("")
		lines = append(lines, question.Reveal(st, m.c.Loc, w, opts, chosen)...)
		add("")
		add(st.Label.Render("  " + m.c.T("live.class_answered")))
		counts := m.quiz.Distribution[it.ID]
		for i, o := range opts {
			add(fmt.Sprintf("  %s) %s", question.Letter(i), m.c.N("count.learner", counts[o.ID])))
		}
		return strings.Join(lines, "\n"), verdict
	}
	add(m.stem.ViewTop(doc, it.Stem, w))
	add("")
	if it.Choose > 1 {
		add(question.ChooseHint(st, m.c.Keys, m.c.Loc, it.Choose, m.a.Marked()))
		add("")
	}
	optLines, cursor := m.a.Lines(st, m.c.Loc, w, true)
	base := len(lines)
	lines = append(lines, optLines...)
	add("")
	switch {
	case m.over:
		add(st.Subtle.Render(common.WrapHanging("  ", m.c.T("live.over_note"), w)))
	case m.note != "":
		add(st.Fail.Render(common.WrapHanging("  ", m.note, w)))
	case len(chosen) > 0 && m.c.WorkshopStatus().Conn != learner.Live:
		// offline: the answer waits in the queue; "sent" would be untrue
		add(st.Accent.Render(common.WrapHanging("  ", m.c.T("live.queued", "Chosen", strings.Join(chosen, ", ")), w)))
	case len(chosen) > 0:
		add(st.Accent.Render(common.WrapHanging("  ", m.c.T("live.sent", "Chosen", strings.Join(chosen, ", ")), w)))
	default:
		add(st.Subtle.Render(common.WrapHanging("  ", m.c.T("live.pick", "Key", keymap.Key(m.c.Keys.Question.Answer)), w)))
	}
	return strings.Join(lines, "\n"), base + cursor
}

// View draws the head line, the item tabs and the viewport.
func (m *Model) View() string {
	st := m.c.Styles
	if m.quiz == nil {
		return st.Title.Render(m.c.T("live.title")) + "\n\n  " + m.c.T("live.none")
	}
	state := m.c.T("live.answering")
	switch {
	case m.over:
		state = m.c.T("live.over")
	case m.revealed():
		state = m.c.T("live.revealed")
	}
	head := st.Title.Render(m.c.T("live.title")) + st.Subtle.Render(" · "+m.quiz.Kata+" · "+state)
	sub := ""
	if n := len(m.items); n > 0 {
		sub = "  " + m.c.T("deck.progress", "Noun", m.c.T("quiz.noun"), "N", m.idx+1, "Total", n)
		if n > 1 {
			sub += " · " + keymap.Says(m.c.Keys.LiveQuiz.Next, m.c.T("key.item"))
		}
	}
	return common.Truncate(head, m.c.Width) + "\n" + st.Subtle.Render(common.Truncate(sub, m.c.Width)) + "\n" + m.vp.View()
}
