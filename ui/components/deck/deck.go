// Package deck runs a deck of practice cards (exam items or trap rows): each answered once, then
// shown right or wrong with every rationale and the rating its card got, the answer recorded;
// at the end a summary of the misses. The quiz, the trap drill and the review are decks.
package deck

import (
	"strings"
	"time"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"

	"github.com/kata-mcp/kata/internal/progress"
	"github.com/kata-mcp/kata/katas/srs"
	"github.com/kata-mcp/kata/ui/common"
	"github.com/kata-mcp/kata/ui/components/question"
	"github.com/kata-mcp/kata/ui/components/stem"
	"github.com/kata-mcp/kata/ui/components/viewport"
	"github.com/kata-mcp/kata/ui/keymap"
)

// Card is one practice question: an exam item or a trap row, answered once with feedback.
type Card struct {
	Kata   string
	ItemID string // the item id, or the trap row's name ("traps.md:<line>")
	CardID string
	Head   string // the small line above: "mk-01 · scenario: customer-support"
	Title  string // the item title, or "Which pattern avoids this trap?"
	StemMD string // an item's stem (Markdown, rendered in a command); "" for a trap
	Trap   string // a trap's text; "" for an item
	Why    string // a trap's "why it fails", shown once answered
	Opts   []question.Choice
	Choose int
}

// outcome is the answer given to one card.
type outcome struct {
	card    Card
	chosen  []string
	correct bool
	rating  srs.Rating
}

// Options set a deck's wording and rules.
type Options struct {
	// Title heads the page ("Quiz"); Noun counts the cards ("Question 1 of 2"); Empty is what
	// an empty deck says.
	Title, Noun, Empty string
	// Requeue brings a missed card back requeueGap cards later with its options rotated, and
	// scores each card by its first answer (the trap drill).
	Requeue bool
}

// requeueGap is how many cards later a missed drill card comes back.
const requeueGap = 3

// Model runs a deck of cards: each is answered once, then shows whether it was right,
// every option's rationale and the rating its card got; the answer is recorded (RecordAnswer,
// which also reviews the card). At the end a summary lists the misses.
type Model struct {
	c        common.Common
	opts     Options
	deck     []Card
	idx      int
	a        question.Model
	shown    time.Time // when the card on show appeared (for Elapsed)
	answer   *outcome  // the answer to the card on show, nil until given
	results  []outcome // every answer, in order
	missed   map[string]bool
	finished bool
	follow   bool
	stem     stem.Model
	vp       *viewport.Model
}

// New returns the deck of cards with opts.
func New(c common.Common, opts Options, deck []Card) *Model {
	m := &Model{c: c, opts: opts, vp: viewport.New()}
	m.SetDeck(deck)
	return m
}

// SetDeck starts over with deck.
func (m *Model) SetDeck(deck []Card) {
	m.deck = deck
	m.idx, m.finished, m.answer, m.results = 0, false, nil, nil
	m.missed = map[string]bool{}
	m.begin()
}

// begin shows the card at idx afresh.
func (m *Model) begin() {
	m.answer = nil
	m.shown = m.c.Now()
	if m.idx < len(m.deck) {
		m.a = question.New(m.deck[m.idx].Opts, m.deck[m.idx].Choose)
	}
	m.vp.GotoTop()
}

// Activate restarts the answer clock of an unanswered card when the screen comes into view, so
// time spent elsewhere does not count as time spent answering (and rate a quick answer as slow).
func (m *Model) Activate() {
	if m.answer == nil && !m.finished {
		m.shown = m.c.Now()
	}
}

// cur returns the card on show.
func (m *Model) cur() Card { return m.deck[m.idx] }

// Current is the card on show (the deck must not be empty).
func (m *Model) Current() Card { return m.cur() }

// ShortHelp lists the keys that apply now.
func (m *Model) ShortHelp() []key.Binding {
	k := m.c.Keys
	switch {
	case len(m.deck) == 0:
		return nil
	case m.finished:
		return []key.Binding{k.Practice.Restart, k.Scroll.Up, k.Scroll.PageUp}
	case m.answer != nil:
		return []key.Binding{k.Practice.Next, k.Scroll.Up, k.Scroll.PageUp}
	default:
		return []key.Binding{k.Cursor.Up, k.Question.Mark, k.Question.Answer, k.Scroll.PageUp}
	}
}

// FullHelp lists every key of the deck.
func (m *Model) FullHelp() [][]key.Binding {
	k := m.c.Keys
	return [][]key.Binding{
		{k.Cursor.Up, k.Question.Mark, k.Question.Answer},
		{k.Practice.Next, k.Practice.Restart},
		{k.Scroll.Up, k.Scroll.PageUp},
	}
}

// SetSize sizes the viewport and asks for the stem at the new width.
func (m *Model) SetSize(w, h int) tea.Cmd {
	m.c.SetSize(w, h)
	m.vp.SetSize(w, h-2)
	cmd := m.requestStem()
	m.refresh()
	return cmd
}

// requestStem asks for the item stem on show at the current width and style.
func (m *Model) requestStem() tea.Cmd {
	if len(m.deck) == 0 || m.finished || m.c.Width == 0 || m.cur().StemMD == "" {
		return nil
	}
	c := m.cur()
	return m.stem.Request(common.RenderKey{Doc: c.Kata + "#" + c.ItemID, Width: m.c.Width, Style: m.c.MDStyle}, c.StemMD)
}

// Update answers, moves on and takes stem renderings.
func (m *Model) Update(msg tea.Msg) tea.Cmd {
	switch msg := msg.(type) {
	case common.RenderedMsg:
		if m.stem.Take(msg) {
			m.refresh()
		}
	case tea.MouseWheelMsg:
		m.vp.Wheel(msg)
	case tea.KeyPressMsg:
		if len(m.deck) == 0 {
			return nil
		}
		cmd := m.key(msg)
		m.refresh()
		return cmd
	}
	return nil
}

// key handles one key press.
func (m *Model) key(msg tea.KeyPressMsg) tea.Cmd {
	k := m.c.Keys
	if m.vp.PageKey(msg, k.Scroll) {
		return nil
	}
	if (m.finished || m.answer != nil) && m.vp.Key(msg, k.Scroll) {
		return nil
	}
	if m.finished {
		if key.Matches(msg, k.Practice.Restart) {
			m.restart()
			return m.requestStem()
		}
		return nil
	}
	if m.answer != nil {
		if key.Matches(msg, k.Practice.Next) {
			return m.next()
		}
		return nil
	}
	m.follow = true
	if m.a.Key(msg, k) == question.Answered {
		return m.give(m.a.Chosen())
	}
	return nil
}

// restart begins the deck again: the quiz and drill from the start (misses forgotten), the
// review with the cards left over.
func (m *Model) restart() {
	deck := m.deck
	if m.opts.Requeue {
		seen := map[string]bool{}
		var first []Card
		for _, c := range deck {
			if !seen[c.CardID] {
				seen[c.CardID] = true
				first = append(first, c)
			}
		}
		deck = first
	}
	m.SetDeck(deck)
}

// give records the answer to the card on show.
func (m *Model) give(chosen []string) tea.Cmd {
	c := m.cur()
	now := m.c.Now()
	elapsed := now.Sub(m.shown)
	correct := question.Exactly(c.Opts, chosen)
	o := outcome{card: c, chosen: chosen, correct: correct, rating: srs.Rate(correct, elapsed, progress.FastAnswer)}
	m.answer = &o
	m.results = append(m.results, o)
	if !correct {
		m.missed[c.CardID] = true
		if m.opts.Requeue {
			// The miss comes back a few cards later in this drill, its options rotated so that
			// the answer is not where it was (the letter alone is not remembered).
			at := min(m.idx+1+requeueGap, len(m.deck))
			m.deck = append(m.deck[:at], append([]Card{rotated(c)}, m.deck[at:]...)...)
		}
	}
	return m.c.RecordAnswer(progress.Answer{Kata: c.Kata, ItemID: c.ItemID, CardID: c.CardID, Chosen: chosen, Correct: correct, Elapsed: elapsed, At: now})
}

// rotated returns c with its options moved up one place (the first goes last), so every option,
// the key too, shows under another letter when there are two or more.
func rotated(c Card) Card {
	if len(c.Opts) > 1 {
		c.Opts = append(append([]question.Choice(nil), c.Opts[1:]...), c.Opts[0])
	}
	return c
}

// next moves to the following card, or to the summary after the last.
func (m *Model) next() tea.Cmd {
	if m.idx+1 >= len(m.deck) {
		m.finished = true
		m.answer = nil
		m.vp.GotoTop()
		return nil
	}
	m.idx++
	m.begin()
	return m.requestStem()
}

// refresh rebuilds the viewport content and keeps the cursor (or the verdict) in sight.
func (m *Model) refresh() {
	if m.c.Width == 0 || len(m.deck) == 0 {
		return
	}
	if m.finished {
		m.vp.SetContent(m.summary())
		return
	}
	content, line, top := m.content()
	m.vp.SetContent(content)
	if m.follow {
		m.vp.Follow(line, top)
	}
	m.follow = false
}

// ratingWords says what a rating means for the card.
func (m *Model) ratingWords(r srs.Rating) string {
	switch r {
	case srs.Again:
		return m.c.T("deck.rated_again")
	case srs.Easy:
		return m.c.T("deck.rated_easy")
	default:
		return m.c.T("deck.rated_good")
	}
}

// content lays out the card on show and returns the line to keep in sight: the cursor before
// answering, the verdict (put at the top) after.
func (m *Model) content() (string, int, bool) {
	st := m.c.Styles
	w := m.c.Width
	c := m.cur()
	var lines []string
	add := func(s string) { lines = append(lines, strings.Split(s, "\n")...) }
	// An item's title shows only once it is answered: while answering it could cue the key
	// (item-writing practice: the stem alone poses the question). A trap card's title is its
	// question and always shows.
	titled := c.Trap != "" || m.answer != nil
	if titled {
		add(question.Title(st, c.Title, w))
	}
	switch {
	case c.Trap != "":
		add("")
		label := "  " + m.c.T("deck.trap") + " "
		add(st.Label.Render(label) + common.WrapHanging("", c.Trap, max(w-lipgloss.Width(label), 1)))
	default:
		if titled {
			add(m.stem.View(c.Kata+"#"+c.ItemID, c.StemMD, w))
		} else {
			add(m.stem.ViewTop(c.Kata+"#"+c.ItemID, c.StemMD, w))
		}
	}
	add("")
	if m.answer == nil {
		if c.Choose > 1 {
			add(question.ChooseHint(st, m.c.Keys, m.c.Loc, c.Choose, m.a.Marked()))
			add("")
		}
		opts, cursor := m.a.Lines(st, m.c.Loc, w, true)
		base := len(lines)
		lines = append(lines, opts...)
		if m.a.HasNote() { // the note on a refused key ends the options: keep it in sight
			cursor = len(opts) - 1
		}
		return strings.Join(lines, "\n"), base + cursor, false
	}
	verdict := len(lines)
	add(common.HangUnder(question.Verdict(st, m.c.Loc, c.Opts, m.answer.correct)+st.Subtle.Render(" · "+m.ratingWords(m.answer.rating)), 4, w))
	if c.Why != "" {
		add(common.WrapHanging("  "+m.c.T("deck.why")+" ", c.Why, w))
	}
	if !m.answer.correct && m.opts.Requeue {
		add(st.Subtle.Render("  " + m.c.T("deck.requeued")))
	}
	add("")
	lines = append(lines, question.Reveal(st, m.c.Loc, w, c.Opts, m.answer.chosen)...)
	add("")
	nextWord := m.c.T("deck.next")
	if m.idx+1 >= len(m.deck) {
		nextWord = m.c.T("deck.see_summary")
	}
	add(st.Subtle.Render("  " + keymap.Says(m.c.Keys.Practice.Next, nextWord)))
	return strings.Join(lines, "\n"), verdict, true
}

// summary lays out the score and the misses.
func (m *Model) summary() string {
	st := m.c.Styles
	firstTry := map[string]bool{} // card → right the first time it was asked
	asked := map[string]bool{}
	var order []Card
	for _, o := range m.results {
		if !asked[o.card.CardID] {
			asked[o.card.CardID] = true
			firstTry[o.card.CardID] = o.correct
			order = append(order, o.card)
		}
	}
	right := 0
	for _, ok := range firstTry {
		if ok {
			right++
		}
	}
	total := len(order)
	pct := common.PercentOf(right, total)
	var b strings.Builder
	b.WriteString(st.Title.Render("  " + m.c.T("deck.score", "Right", right, "Total", total, "Percent", pct)))
	if m.opts.Requeue {
		b.WriteString(st.Subtle.Render(" " + m.c.T("deck.first_time")))
	}
	b.WriteString("\n\n")
	var missed []string
	for _, c := range order {
		if firstTry[c.CardID] {
			continue
		}
		label := c.ItemID + " " + c.Title
		if c.Trap != "" {
			label = c.Trap
		}
		missed = append(missed, common.WrapHanging("  • ", label, m.c.Width))
	}
	if len(missed) == 0 {
		b.WriteString(st.Pass.Render("  " + m.c.T("deck.no_misses")))
	} else {
		b.WriteString(st.Label.Render("  " + m.c.T("deck.missed")))
		b.WriteString("\n")
		b.WriteString(strings.Join(missed, "\n"))
	}
	b.WriteString("\n\n")
	if m.c.Store != nil {
		b.WriteString(st.Subtle.Render(common.WrapHanging("  ", m.c.T("deck.recorded"), m.c.Width)))
		b.WriteString("\n")
	}
	b.WriteString(st.Subtle.Render("  " + keymap.Says(m.c.Keys.Practice.Restart, m.c.T("key.start_over")) + " · " + keymap.Says(m.c.Keys.Back, m.c.T("key.back"))))
	return b.String()
}

// View draws the progress line and the card.
func (m *Model) View() string {
	st := m.c.Styles
	if len(m.deck) == 0 {
		return st.Title.Render(m.opts.Title) + "\n\n" + common.WrapHanging("  ", m.opts.Empty, m.c.Width)
	}
	var head string
	if m.finished {
		head = st.Title.Render(m.opts.Title) + " " + st.Subtle.Render("— "+m.c.T("deck.done"))
	} else {
		noun := m.opts.Noun
		head = st.Title.Render(m.c.T("deck.progress", "Noun", noun, "N", m.idx+1, "Total", len(m.deck))) + " " + st.Subtle.Render("· "+m.cur().Head)
	}
	return common.Truncate(head, m.c.Width) + "\n\n" + m.vp.View()
}

// Reset starts over with cards, saying empty when there are none; the command renders the
// first card's stem.
func (m *Model) Reset(cards []Card, empty string) tea.Cmd {
	m.opts.Empty = empty
	m.SetDeck(cards)
	m.refresh()
	return m.requestStem()
}

// Len is the number of cards in the deck (a missed drill card counts again).
func (m *Model) Len() int { return len(m.deck) }

// Finished reports whether the summary is on show.
func (m *Model) Finished() bool { return m.finished }

// Overflows reports whether the card on show is longer than the screen: the key bar then keeps
// the scroll keys.
func (m *Model) Overflows() bool { return m.vp.Overflows() }
