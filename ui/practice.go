package ui

import (
	"fmt"
	"strings"
	"time"

	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/viewport"
	tea "charm.land/bubbletea/v2"

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
	opts   []choice
	choose int
}

// itemCard makes the card of a drawn exam item.
func itemCard(q exam.Question) card {
	return card{
		kata: q.Kata, itemID: q.Item.ID, cardID: q.CardID,
		head:  q.Item.ID + " · scenario: " + q.Item.Scenario,
		title: q.Item.Title, stemMD: q.Item.Stem,
		opts: choicesOf(q), choose: q.Item.Choose,
	}
}

// trapCard makes the card of a drill question.
func trapCard(q exam.DrillQuestion) card {
	return card{
		kata: q.Kata, itemID: fmt.Sprintf("traps.md:%d", q.Row.Line), cardID: q.CardID,
		head:  "trap table: " + q.Table,
		title: "Which pattern avoids this trap?", trap: inline(q.Row.Trap), why: inline(q.Row.WhyItFails),
		opts: drillChoices(q), choose: 1,
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
	c        *common
	kind     practiceKind
	title    string
	empty    string // what to say when the deck is empty
	deck     []card
	idx      int
	a        ask
	shown    time.Time // when the card on show appeared (for Elapsed)
	answer   *outcome  // the answer to the card on show, nil until given
	results  []outcome // every answer, in order
	missed   map[string]bool
	finished bool
	follow   bool
	stem     stemView
	vp       viewport.Model
	width    int
	height   int
}

func newPractice(c *common, kind practiceKind, title, empty string, deck []card) *practiceModel {
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
	m.shown = m.c.now()
	if m.idx < len(m.deck) {
		m.a = newAsk(m.deck[m.idx].opts, m.deck[m.idx].choose)
	}
	m.vp.GotoTop()
}

// Activate restarts the answer clock of an unanswered card when the screen comes into view, so
// time spent elsewhere does not count as time spent answering (and rate a quick answer as slow).
func (m *practiceModel) Activate() {
	if m.answer == nil && !m.finished {
		m.shown = m.c.now()
	}
}

// cur returns the card on show.
func (m *practiceModel) cur() card { return m.deck[m.idx] }

// ShortHelp lists the keys that apply now.
func (m *practiceModel) ShortHelp() []key.Binding {
	k := m.c.keys
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
	k := m.c.keys
	return [][]key.Binding{
		{k.Cursor.Up, k.Question.Mark, k.Question.Answer},
		{k.Practice.Next, k.Practice.Restart},
		{k.Scroll.Up, k.Scroll.PageUp},
	}
}

// SetSize sizes the viewport and asks for the stem at the new width.
func (m *practiceModel) SetSize(w, h int) tea.Cmd {
	m.width, m.height = w, h
	m.vp.SetWidth(w)
	m.vp.SetHeight(max(h-2, 1))
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
	return m.stem.request(renderKey{doc: c.kata + "#" + c.itemID, width: m.width, style: m.c.mdStyle}, c.stemMD)
}

// Update answers, moves on and takes stem renderings.
func (m *practiceModel) Update(msg tea.Msg) tea.Cmd {
	switch msg := msg.(type) {
	case renderedMsg:
		if m.stem.take(msg) {
			m.refresh()
		}
	case tea.MouseWheelMsg:
		wheel(&m.vp, msg)
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
	k := m.c.keys
	if page(&m.vp, k.Scroll, msg) {
		return nil
	}
	if (m.finished || m.answer != nil) && scroll(&m.vp, k.Scroll, msg) {
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
	if m.a.key(msg, k, true) == askAnswered {
		return m.give(m.a.chosen())
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
	now := m.c.now()
	elapsed := now.Sub(m.shown)
	correct := exactly(c.opts, chosen)
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
	return m.c.recordAnswer(progress.Answer{Kata: c.kata, ItemID: c.itemID, CardID: c.cardID, Chosen: chosen, Correct: correct, Elapsed: elapsed, At: now})
}

// rotated returns c with its options moved up one place (the first goes last), so every option,
// the key too, shows under another letter when there are two or more.
func rotated(c card) card {
	if len(c.opts) > 1 {
		c.opts = append(append([]choice(nil), c.opts[1:]...), c.opts[0])
	}
	return c
}

// exactly reports whether chosen is exactly the keyed options.
func exactly(opts []choice, chosen []string) bool {
	n := 0
	for _, o := range opts {
		if o.key {
			n++
			if !contains(chosen, o.id) {
				return false
			}
		}
	}
	return n == len(chosen)
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
	follow(&m.vp, m.follow, line, top)
	m.follow = false
}

// follow scrolls vp to keep line in sight (at the top when top is set); line < 0 does nothing.
func follow(vp *viewport.Model, on bool, line int, top bool) {
	switch {
	case !on || line < 0:
	case top:
		vp.SetYOffset(line)
	case line < vp.YOffset():
		vp.SetYOffset(line)
	case line >= vp.YOffset()+vp.Height():
		vp.SetYOffset(line - vp.Height() + 1)
	}
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
	st := m.c.st
	w := m.width
	c := m.cur()
	var lines []string
	add := func(s string) { lines = append(lines, strings.Split(s, "\n")...) }
	add(itemHeadText(st, c.title, w))
	switch {
	case c.trap != "":
		add("")
		add(st.label.Render("  Trap: ") + wrapHanging("", c.trap, max(w-8, 1)))
	case m.stem.out != "":
		add(m.stem.out)
	default:
		add("")
		add(wrapHanging("  ", c.stemMD, w))
	}
	add("")
	if m.answer == nil {
		if c.choose > 1 {
			add(chooseHint(st, m.c.keys, c.choose, len(m.a.marked)))
			add("")
		}
		opts, cursor := m.a.choiceLines(st, w, false)
		base := len(lines)
		lines = append(lines, opts...)
		return strings.Join(lines, "\n"), base + cursor, false
	}
	verdict := len(lines)
	add(verdictLine(st, c.opts, m.answer.correct) + st.subtle.Render(" · "+ratingWords(m.answer.rating)))
	if c.why != "" {
		add(wrapHanging("  Why it fails: ", c.why, w))
	}
	if !m.answer.correct && m.kind == drillDeck {
		add(st.subtle.Render("  This trap comes back later in the drill."))
	}
	add("")
	lines = append(lines, revealLines(st, w, c.opts, m.answer.chosen)...)
	add("")
	nextWord := "next"
	if m.idx+1 >= len(m.deck) {
		nextWord = "see the summary"
	}
	add(st.subtle.Render("  " + keymap.Says(m.c.keys.Practice.Next, nextWord)))
	return strings.Join(lines, "\n"), verdict, true
}

// itemHeadText is an item or trap card's title line.
func itemHeadText(st styles, title string, w int) string {
	return st.label.Render(wrapHanging("  ", title, w))
}

// summary lays out the score and the misses.
func (m *practiceModel) summary() string {
	st := m.c.st
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
	pct := percentOf(right, total)
	var b strings.Builder
	b.WriteString(st.title.Render(fmt.Sprintf("  Score: %d/%d (%d%%)", right, total, pct)))
	if m.kind == drillDeck {
		b.WriteString(st.subtle.Render(" right the first time"))
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
		missed = append(missed, wrapHanging("  • ", label, m.width))
	}
	if len(missed) == 0 {
		b.WriteString(st.pass.Render("  No misses."))
	} else {
		b.WriteString(st.label.Render("  Missed:"))
		b.WriteString("\n")
		b.WriteString(strings.Join(missed, "\n"))
	}
	b.WriteString("\n\n")
	if m.c.store != nil {
		b.WriteString(st.subtle.Render(wrapHanging("  ", "Every answer was recorded and its card rescheduled; missed cards come back sooner.", m.width)))
		b.WriteString("\n")
	}
	b.WriteString(st.subtle.Render("  " + keymap.Says(m.c.keys.Practice.Restart, "start over") + " · " + keymap.Says(m.c.keys.Back, "back")))
	return b.String()
}

// View draws the progress line and the card.
func (m *practiceModel) View() string {
	st := m.c.st
	if len(m.deck) == 0 {
		return st.title.Render(m.title) + "\n\n" + wrapHanging("  ", m.empty, m.width)
	}
	var head string
	if m.finished {
		head = st.title.Render(m.title) + " " + st.subtle.Render("— done")
	} else {
		noun := "Question"
		switch m.kind {
		case drillDeck:
			noun = "Trap"
		case reviewDeck:
			noun = "Card"
		}
		head = st.title.Render(fmt.Sprintf("%s %d of %d", noun, m.idx+1, len(m.deck))) + " " + st.subtle.Render("· "+m.cur().head)
	}
	return truncate(head, m.width) + "\n\n" + m.vp.View()
}

// stemView holds the rendering of one item stem: the key asked for and the result.
type stemView struct {
	want renderKey
	out  string
}

// request asks for md at k unless it is already wanted.
func (s *stemView) request(k renderKey, md string) tea.Cmd {
	if k == s.want {
		return nil
	}
	s.want, s.out = k, ""
	return renderMarkdown(k, md)
}

// take keeps a rendering that is the one wanted and reports whether it did.
func (s *stemView) take(msg renderedMsg) bool {
	if msg.key != s.want {
		return false
	}
	s.out = ""
	if msg.err == nil {
		s.out = strings.TrimRight(msg.out, "\n ")
	}
	return true
}

// wheel scrolls vp by three lines per wheel notch.
func wheel(vp *viewport.Model, msg tea.MouseWheelMsg) {
	switch msg.Button {
	case tea.MouseWheelUp:
		vp.ScrollUp(3)
	case tea.MouseWheelDown:
		vp.ScrollDown(3)
	}
}
