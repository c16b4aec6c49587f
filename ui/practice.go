package ui

import (
	"fmt"
	"strings"
	"time"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"github.com/kata-mcp/kata/ui/common"
	"github.com/kata-mcp/kata/ui/components/question"
	"github.com/kata-mcp/kata/ui/components/stem"
	"github.com/kata-mcp/kata/ui/components/viewport"

	"github.com/kata-mcp/kata/katas"
	"github.com/kata-mcp/kata/katas/exam"
	"github.com/kata-mcp/kata/katas/progress"
	"github.com/kata-mcp/kata/katas/srs"
	"github.com/kata-mcp/kata/ui/keymap"
)

// card is one practice question: an exam item or a trap row, answered once with feedback.
type card struct {
	kata   string
	itemID string // the item id, or the trap row's name ("traps.md:<line>")
	cardID string
	head   string // the small line above: "mk-01 · scenario: customer-support"
	title  string // the item title, or "Which pattern avoids this trap?"
	stemMD string // an item's stem (Markdown, rendered in a command); "" for a trap
	trap   string // a trap's text; "" for an item
	why    string // a trap's "why it fails", shown once answered
	opts   []question.Choice
	choose int
}

// itemCard makes the card of a drawn exam item.
func itemCard(q exam.Question) card {
	return card{
		kata: q.Kata, itemID: q.Item.ID, cardID: q.CardID,
		head:  q.Item.ID + " · scenario: " + q.Item.Scenario,
		title: q.Item.Title, stemMD: q.Item.Stem,
		opts: question.Choices(q), choose: q.Item.Choose,
	}
}

// trapCard makes the card of a drill question.
func trapCard(q exam.DrillQuestion) card {
	return card{
		kata: q.Kata, itemID: fmt.Sprintf("traps.md:%d", q.Row.Line), cardID: q.CardID,
		head:  "trap table: " + q.Table,
		title: "Which pattern avoids this trap?", trap: common.Inline(q.Row.Trap), why: common.Inline(q.Row.WhyItFails),
		opts: question.DrillChoices(q), choose: 1,
	}
}

// practiceCards lists a packet's items in written order as cards, options shuffled by seed.
func practiceCards(p *katas.Packet, seed int64) []card {
	refs := make([]string, len(p.Items))
	for i, it := range p.Items {
		refs[i] = exam.Ref(p.ID, it.ID)
	}
	qs, _ := exam.Rebuild([]*katas.Packet{p}, refs, seed) // every ref comes from p: no error
	cs := make([]card, len(qs))
	for i, q := range qs {
		cs[i] = itemCard(q)
	}
	return cs
}

// drillCards lists a packet's trap rows as drill cards.
func drillCards(p *katas.Packet, seed int64) []card {
	var cs []card
	for _, q := range exam.Drill(p, seed) {
		cs = append(cs, trapCard(q))
	}
	return cs
}

// outcome is the answer given to one card.
type outcome struct {
	card    card
	chosen  []string
	correct bool
	rating  srs.Rating
}

// practiceKind selects a practice deck's wording and rules.
type practiceKind int

const (
	quizDeck   practiceKind = iota // a packet's items, in order
	drillDeck                      // a packet's trap rows; misses come back later in the drill
	reviewDeck                     // due and new cards from the store
)

// requeueGap is how many cards later a missed drill card comes back.
const requeueGap = 3

// practiceModel runs a deck of cards: each is answered once, then shows whether it was right,
// every option's rationale and the rating its card got; the answer is recorded (RecordAnswer,
// which also reviews the card). At the end a summary lists the misses.
type practiceModel struct {
	c        *app
	kind     practiceKind
	title    string
	empty    string // what to say when the deck is empty
	deck     []card
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
	width    int
	height   int
}

func newPractice(c *app, kind practiceKind, title, empty string, deck []card) *practiceModel {
	m := &practiceModel{c: c, kind: kind, title: title, empty: empty, vp: viewport.New()}
	m.setDeck(deck)
	return m
}

// setDeck starts over with deck.
func (m *practiceModel) setDeck(deck []card) {
	m.deck = deck
	m.idx, m.finished, m.answer, m.results = 0, false, nil, nil
	m.missed = map[string]bool{}
	m.begin()
}

// begin shows the card at idx afresh.
func (m *practiceModel) begin() {
	m.answer = nil
	m.shown = m.c.Now()
	if m.idx < len(m.deck) {
		m.a = question.New(m.deck[m.idx].opts, m.deck[m.idx].choose)
	}
	m.vp.GotoTop()
}

// Activate restarts the answer clock of an unanswered card when the screen comes into view, so
// time spent elsewhere does not count as time spent answering (and rate a quick answer as slow).
func (m *practiceModel) Activate() {
	if m.answer == nil && !m.finished {
		m.shown = m.c.Now()
	}
}

// cur returns the card on show.
func (m *practiceModel) cur() card { return m.deck[m.idx] }

// ShortHelp lists the keys that apply now.
func (m *practiceModel) ShortHelp() []key.Binding {
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
func (m *practiceModel) FullHelp() [][]key.Binding {
	k := m.c.Keys
	return [][]key.Binding{
		{k.Cursor.Up, k.Question.Mark, k.Question.Answer},
		{k.Practice.Next, k.Practice.Restart},
		{k.Scroll.Up, k.Scroll.PageUp},
	}
}

// SetSize sizes the viewport and asks for the stem at the new width.
func (m *practiceModel) SetSize(w, h int) tea.Cmd {
	m.width, m.height = w, h
	m.vp.SetSize(w, h-2)
	cmd := m.requestStem()
	m.refresh()
	return cmd
}

// requestStem asks for the item stem on show at the current width and style.
func (m *practiceModel) requestStem() tea.Cmd {
	if len(m.deck) == 0 || m.finished || m.width == 0 || m.cur().stemMD == "" {
		return nil
	}
	c := m.cur()
	return m.stem.Request(common.RenderKey{Doc: c.kata + "#" + c.itemID, Width: m.width, Style: m.c.MDStyle}, c.stemMD)
}

// Update answers, moves on and takes stem renderings.
func (m *practiceModel) Update(msg tea.Msg) tea.Cmd {
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
func (m *practiceModel) key(msg tea.KeyPressMsg) tea.Cmd {
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
	if m.a.Key(msg, k, true) == question.Answered {
		return m.give(m.a.Chosen())
	}
	return nil
}

// restart begins the deck again: the quiz and drill from the start (misses forgotten), the
// review with the cards left over.
func (m *practiceModel) restart() {
	deck := m.deck
	if m.kind == drillDeck {
		seen := map[string]bool{}
		var first []card
		for _, c := range deck {
			if !seen[c.cardID] {
				seen[c.cardID] = true
				first = append(first, c)
			}
		}
		deck = first
	}
	m.setDeck(deck)
}

// give records the answer to the card on show.
func (m *practiceModel) give(chosen []string) tea.Cmd {
	c := m.cur()
	now := m.c.Now()
	elapsed := now.Sub(m.shown)
	correct := question.Exactly(c.opts, chosen)
	o := outcome{card: c, chosen: chosen, correct: correct, rating: srs.Rate(correct, elapsed, progress.FastAnswer)}
	m.answer = &o
	m.results = append(m.results, o)
	if !correct {
		m.missed[c.cardID] = true
		if m.kind == drillDeck {
			// The miss comes back a few cards later in this drill, its options rotated so that
			// the answer is not where it was (the letter alone is not remembered).
			at := min(m.idx+1+requeueGap, len(m.deck))
			m.deck = append(m.deck[:at], append([]card{rotated(c)}, m.deck[at:]...)...)
		}
	}
	return m.c.RecordAnswer(progress.Answer{Kata: c.kata, ItemID: c.itemID, CardID: c.cardID, Chosen: chosen, Correct: correct, Elapsed: elapsed, At: now})
}

// rotated returns c with its options moved up one place (the first goes last), so every option,
// the key too, shows under another letter when there are two or more.
func rotated(c card) card {
	if len(c.opts) > 1 {
		c.opts = append(append([]question.Choice(nil), c.opts[1:]...), c.opts[0])
	}
	return c
}

// next moves to the following card, or to the summary after the last.
func (m *practiceModel) next() tea.Cmd {
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
func (m *practiceModel) refresh() {
	if m.width == 0 || len(m.deck) == 0 {
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
func ratingWords(r srs.Rating) string {
	switch r {
	case srs.Again:
		return "rated again: it comes back soon"
	case srs.Easy:
		return "rated easy: right and quick, it comes back much later"
	default:
		return "rated good: it comes back later"
	}
}

// content lays out the card on show and returns the line to keep in sight: the cursor before
// answering, the verdict (put at the top) after.
func (m *practiceModel) content() (string, int, bool) {
	st := m.c.Styles
	w := m.width
	c := m.cur()
	var lines []string
	add := func(s string) { lines = append(lines, strings.Split(s, "\n")...) }
	add(itemHeadText(st, c.title, w))
	switch {
	case c.trap != "":
		add("")
		add(st.Label.Render("  Trap: ") + common.WrapHanging("", c.trap, max(w-8, 1)))
	default:
		add(m.stem.View(c.kata+"#"+c.itemID, c.stemMD, w))
	}
	add("")
	if m.answer == nil {
		if c.choose > 1 {
			add(question.ChooseHint(st, m.c.Keys, c.choose, m.a.Marked()))
			add("")
		}
		opts, cursor := m.a.Lines(st, w, false)
		base := len(lines)
		lines = append(lines, opts...)
		return strings.Join(lines, "\n"), base + cursor, false
	}
	verdict := len(lines)
	add(question.Verdict(st, c.opts, m.answer.correct) + st.Subtle.Render(" · "+ratingWords(m.answer.rating)))
	if c.why != "" {
		add(common.WrapHanging("  Why it fails: ", c.why, w))
	}
	if !m.answer.correct && m.kind == drillDeck {
		add(st.Subtle.Render("  This trap comes back later in the drill."))
	}
	add("")
	lines = append(lines, question.Reveal(st, w, c.opts, m.answer.chosen)...)
	add("")
	nextWord := "next"
	if m.idx+1 >= len(m.deck) {
		nextWord = "see the summary"
	}
	add(st.Subtle.Render("  " + keymap.Says(m.c.Keys.Practice.Next, nextWord)))
	return strings.Join(lines, "\n"), verdict, true
}

// itemHeadText is an item or trap card's title line.
func itemHeadText(st *common.Styles, title string, w int) string {
	return st.Label.Render(common.WrapHanging("  ", title, w))
}

// summary lays out the score and the misses.
func (m *practiceModel) summary() string {
	st := m.c.Styles
	firstTry := map[string]bool{} // card → right the first time it was asked
	asked := map[string]bool{}
	var order []card
	for _, o := range m.results {
		if !asked[o.card.cardID] {
			asked[o.card.cardID] = true
			firstTry[o.card.cardID] = o.correct
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
	b.WriteString(st.Title.Render(fmt.Sprintf("  Score: %d/%d (%d%%)", right, total, pct)))
	if m.kind == drillDeck {
		b.WriteString(st.Subtle.Render(" right the first time"))
	}
	b.WriteString("\n\n")
	var missed []string
	for _, c := range order {
		if firstTry[c.cardID] {
			continue
		}
		label := c.itemID + " " + c.title
		if c.trap != "" {
			label = c.trap
		}
		missed = append(missed, common.WrapHanging("  • ", label, m.width))
	}
	if len(missed) == 0 {
		b.WriteString(st.Pass.Render("  No misses."))
	} else {
		b.WriteString(st.Label.Render("  Missed:"))
		b.WriteString("\n")
		b.WriteString(strings.Join(missed, "\n"))
	}
	b.WriteString("\n\n")
	if m.c.Store != nil {
		b.WriteString(st.Subtle.Render(common.WrapHanging("  ", "Every answer was recorded and its card rescheduled; missed cards come back sooner.", m.width)))
		b.WriteString("\n")
	}
	b.WriteString(st.Subtle.Render("  " + keymap.Says(m.c.Keys.Practice.Restart, "start over") + " · " + keymap.Says(m.c.Keys.Back, "back")))
	return b.String()
}

// View draws the progress line and the card.
func (m *practiceModel) View() string {
	st := m.c.Styles
	if len(m.deck) == 0 {
		return st.Title.Render(m.title) + "\n\n" + common.WrapHanging("  ", m.empty, m.width)
	}
	var head string
	if m.finished {
		head = st.Title.Render(m.title) + " " + st.Subtle.Render("— done")
	} else {
		noun := "Question"
		switch m.kind {
		case drillDeck:
			noun = "Trap"
		case reviewDeck:
			noun = "Card"
		}
		head = st.Title.Render(fmt.Sprintf("%s %d of %d", noun, m.idx+1, len(m.deck))) + " " + st.Subtle.Render("· "+m.cur().head)
	}
	return common.Truncate(head, m.width) + "\n\n" + m.vp.View()
}
