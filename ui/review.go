package ui

import (
	"fmt"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"github.com/kata-mcp/kata/katas"
	"github.com/kata-mcp/kata/katas/progress"
	"github.com/kata-mcp/kata/ui/common"
)

// NewCardsPerSession is how many cards never reviewed a review session adds after the due ones.
const NewCardsPerSession = 10

// reviewLoadedMsg carries what a review session needs from the store: the due cards and the
// ids of every card already scheduled.
type reviewLoadedMsg struct {
	gen   int
	due   []progress.DueCard
	known map[string]bool
	err   error
}

// reviewModel runs the spaced-repetition review: the cards due now (items and trap rows, most
// overdue first), then up to NewCardsPerSession new ones, each answered once and rated from
// the answer (wrong → again, right → good, right and fast → easy) by RecordAnswer.
type reviewModel struct {
	*practiceModel
	katas   []string
	gen     int
	loading bool
	due     int // how many of the deck were due (the rest are new)
}

func newReview(c *app, ids []string) *reviewModel {
	return &reviewModel{practiceModel: newPractice(c, reviewDeck, "Review", "", nil), katas: ids}
}

// packets returns the packets the session covers.
func (m *reviewModel) packets() []*katas.Packet {
	return m.c.Packets(m.katas)
}

// Start loads the due cards (or, without a store, builds a deck of new cards at once).
func (m *reviewModel) Start() tea.Cmd {
	m.gen = m.c.NextGen()
	if m.c.Store == nil {
		m.build(nil, nil)
		return m.requestStem()
	}
	m.loading = true
	gen, ids, now := m.gen, m.katas, m.c.Now()
	var kataIDs []string
	for _, p := range m.packets() {
		kataIDs = append(kataIDs, p.ID)
	}
	return m.c.Read("", func(s Store) (tea.Msg, error) {
		due, err := s.Due(now, ids)
		if err != nil {
			return reviewLoadedMsg{gen: gen, err: err}, nil
		}
		known := map[string]bool{}
		for _, id := range kataIDs {
			cards, err := s.Cards(id)
			if err != nil {
				return reviewLoadedMsg{gen: gen, due: due, err: err}, nil
			}
			for cid := range cards {
				known[cid] = true
			}
		}
		return reviewLoadedMsg{gen: gen, due: due, known: known}, nil
	})
}

// build makes the deck: the due cards still in the library (an edited item's old card is
// skipped), then up to NewCardsPerSession new cards taken in turn from each kata, items before
// trap rows.
func (m *reviewModel) build(due []progress.DueCard, known map[string]bool) {
	seed := m.c.Seed()
	items := map[string]card{}
	traps := map[string]card{}
	var perKata [][]card // never-seen cards of each packet, items first
	for _, p := range m.packets() {
		var fresh []card
		for _, c := range practiceCards(p, seed) {
			items[c.cardID] = c
			if !known[c.cardID] {
				fresh = append(fresh, c)
			}
		}
		for _, c := range drillCards(p, seed) {
			traps[c.cardID] = c
			if !known[c.cardID] {
				fresh = append(fresh, c)
			}
		}
		perKata = append(perKata, fresh)
	}
	// New cards are taken in turn from each kata.
	var fresh []card
	for more := true; more; {
		more = false
		for i := range perKata {
			if len(perKata[i]) > 0 {
				fresh = append(fresh, perKata[i][0])
				perKata[i] = perKata[i][1:]
				more = true
			}
		}
	}
	var deck []card
	for _, d := range due {
		if c, ok := items[d.CardID]; ok {
			deck = append(deck, c)
		} else if c, ok := traps[d.CardID]; ok {
			deck = append(deck, c)
		}
	}
	m.due = len(deck)
	taken := 0
	for _, c := range fresh {
		if taken == NewCardsPerSession {
			break
		}
		deck = append(deck, c)
		taken++
	}
	m.loading = false
	m.empty = "Nothing is due and every card has been seen: come back later."
	m.setDeck(deck)
}

// Update takes the loaded cards, then runs the deck.
func (m *reviewModel) Update(msg tea.Msg) tea.Cmd {
	if msg, ok := msg.(reviewLoadedMsg); ok {
		if msg.gen != m.gen {
			return nil
		}
		m.build(msg.due, msg.known)
		cmd := tea.Batch(common.Warn("loading the due cards", msg.err), m.requestStem())
		m.refresh()
		return cmd
	}
	if k, ok := msg.(tea.KeyPressMsg); ok && m.finished && key.Matches(k, m.c.Keys.Practice.Restart) {
		// Start over means a fresh session: what is due now, and new cards.
		return m.Start()
	}
	return m.practiceModel.Update(msg)
}

// ShortHelp lists the keys that apply now.
func (m *reviewModel) ShortHelp() []key.Binding {
	if m.loading {
		return nil
	}
	return m.practiceModel.ShortHelp()
}

// View draws the session, or a loading line.
func (m *reviewModel) View() string {
	st := m.c.Styles
	if m.loading {
		return st.Title.Render("Review") + "\n\n" + st.Subtle.Render("  Loading the due cards…")
	}
	v := m.practiceModel.View()
	if len(m.deck) > 0 && !m.finished {
		v = common.Truncate(fmt.Sprintf("%s %s", st.Title.Render("Review"), st.Subtle.Render(fmt.Sprintf("· %d due · %d new", m.due, len(m.deck)-m.due))), m.width) + "\n" + v
	}
	return v
}

// SetSize leaves a line for the session's own header.
func (m *reviewModel) SetSize(w, h int) tea.Cmd {
	return m.practiceModel.SetSize(w, max(h-1, 1))
}
