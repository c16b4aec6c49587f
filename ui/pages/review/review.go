// Package review is the spaced-repetition review: the cards due now (items and trap rows, most
// overdue first) loaded from the store, then new ones, as a practice deck.
package review

import (
	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"github.com/kata-mcp/kata/internal/progress"
	"github.com/kata-mcp/kata/katas"
	"github.com/kata-mcp/kata/ui/common"
	"github.com/kata-mcp/kata/ui/components/deck"
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

// Model runs the spaced-repetition review: the cards due now (items and trap rows, most
// overdue first), then up to NewCardsPerSession new ones, each answered once and rated from
// the answer (wrong → again, right → good, right and fast → easy) by RecordAnswer.
type Model struct {
	*deck.Model
	c       common.Common
	katas   []string
	gen     int
	loading bool
	due     int // how many of the deck were due (the rest are new)
}

// New returns a review of the cards of the packets ids (every packet when empty); Start loads it.
func New(c common.Common, ids []string) *Model {
	return &Model{Model: deck.New(c, deck.Options{Title: c.T("review.title"), Noun: c.T("review.noun")}, nil), c: c, katas: ids}
}

// packets returns the packets the session covers.
func (m *Model) packets() []*katas.Packet {
	return m.c.Packets(m.katas)
}

// Start loads the due cards (or, without a store, builds a deck of new cards at once).
func (m *Model) Start() tea.Cmd {
	m.gen = m.c.NextGen()
	if m.c.Store == nil {
		return m.build(nil, nil)
	}
	m.loading = true
	gen, ids, now := m.gen, m.katas, m.c.Now()
	var kataIDs []string
	for _, p := range m.packets() {
		kataIDs = append(kataIDs, p.ID)
	}
	return m.c.Read("", func(s common.Store) (tea.Msg, error) {
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
func (m *Model) build(due []progress.DueCard, known map[string]bool) tea.Cmd {
	seed := m.c.Seed()
	items := map[string]deck.Card{}
	traps := map[string]deck.Card{}
	var perKata [][]deck.Card // never-seen cards of each packet, items first
	for _, p := range m.packets() {
		var fresh []deck.Card
		for _, c := range deck.ItemCards(p, seed, m.c.Loc) {
			items[c.CardID] = c
			if !known[c.CardID] {
				fresh = append(fresh, c)
			}
		}
		for _, c := range deck.TrapCards(p, seed, m.c.Loc) {
			traps[c.CardID] = c
			if !known[c.CardID] {
				fresh = append(fresh, c)
			}
		}
		perKata = append(perKata, fresh)
	}
	// New cards are taken in turn from each kata.
	var fresh []deck.Card
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
	var cards []deck.Card
	for _, d := range due {
		if c, ok := items[d.CardID]; ok {
			cards = append(cards, c)
		} else if c, ok := traps[d.CardID]; ok {
			cards = append(cards, c)
		}
	}
	m.due = len(cards)
	cards = append(cards, fresh[:min(len(fresh), NewCardsPerSession)]...)
	m.loading = false
	return m.Reset(cards, m.c.T("review.empty"))
}

// Update takes the loaded cards, then runs the deck.
func (m *Model) Update(msg tea.Msg) tea.Cmd {
	if msg, ok := msg.(reviewLoadedMsg); ok {
		if msg.gen != m.gen {
			return nil
		}
		return tea.Batch(common.Warn(m.c.T("review.loading_warn"), msg.err), m.build(msg.due, msg.known))
	}
	if k, ok := msg.(tea.KeyPressMsg); ok && m.Finished() && key.Matches(k, m.c.Keys.Practice.Restart) {
		// Start over means a fresh session: what is due now, and new cards.
		return m.Start()
	}
	return m.Model.Update(msg)
}

// ShortHelp lists the keys that apply now.
func (m *Model) ShortHelp() []key.Binding {
	if m.loading {
		return nil
	}
	return m.Model.ShortHelp()
}

// View draws the session, or a loading line.
func (m *Model) View() string {
	st := m.c.Styles
	if m.loading {
		return st.Title.Render(m.c.T("review.title")) + "\n\n" + st.Subtle.Render("  "+m.c.T("review.loading"))
	}
	v := m.Model.View()
	if m.Len() > 0 && !m.Finished() {
		v = common.Truncate(st.Title.Render(m.c.T("review.title"))+" "+st.Subtle.Render("· "+m.c.T("review.counts", "Due", m.due, "New", m.Len()-m.due)), m.c.Width) + "\n" + v
	}
	return v
}

// SetSize leaves a line for the session's own header.
func (m *Model) SetSize(w, h int) tea.Cmd {
	m.c.SetSize(w, h)
	return m.Model.SetSize(w, max(h-1, 1))
}
