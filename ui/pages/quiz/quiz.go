// Package quiz is a packet's quiz: its exam items in written order, options shuffled, as a
// practice deck answered one at a time with feedback.
package quiz

import (
	"github.com/kata-mcp/kata/internal/i18n"
	"github.com/kata-mcp/kata/katas"
	"github.com/kata-mcp/kata/katas/exam"
	"github.com/kata-mcp/kata/ui/common"
	"github.com/kata-mcp/kata/ui/components/deck"
	"github.com/kata-mcp/kata/ui/components/question"
)

// New returns the quiz of packet p, options shuffled by c's seed.
func New(c common.Common, p *katas.Packet) *deck.Model {
	return deck.New(c, deck.Options{Title: c.T("quiz.title"), Noun: c.T("quiz.noun"), Empty: c.T("quiz.empty")}, Cards(p, c.Seed(), c.Loc))
}

// Cards lists a packet's items in written order as cards, options shuffled by seed, worded
// in loc's language. Items read in English although the packet was asked in another locale
// (katas.Packet.InEnglish) say so in each card's head.
func Cards(p *katas.Packet, seed int64, loc *i18n.Localizer) []deck.Card {
	refs := make([]string, len(p.Items))
	for i, it := range p.Items {
		refs[i] = exam.Ref(p.ID, it.ID)
	}
	qs, _ := exam.Rebuild([]*katas.Packet{p}, refs, seed) // every ref comes from p: no error
	cs := make([]deck.Card, len(qs))
	for i, q := range qs {
		cs[i] = Card(q, loc)
		if p.InEnglish("exam.md") {
			cs[i].Head += " · " + common.InEnglish(p.Locale)
		}
	}
	return cs
}

// Card makes the card of a drawn exam item, worded in loc's language.
func Card(q exam.Question, loc *i18n.Localizer) deck.Card {
	return deck.Card{
		Kata: q.Kata, ItemID: q.Item.ID, CardID: q.CardID,
		Head:  q.Item.ID + " · " + loc.T("quiz.scenario", "Scenario", q.Item.Scenario),
		Title: q.Item.Title, StemMD: q.Item.Stem,
		Opts: question.Choices(q), Choose: q.Item.Choose,
	}
}
