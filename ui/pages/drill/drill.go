// Package drill is a packet's trap drill: each trap row asks for its correct pattern among the
// other rows' patterns, and a miss comes back a few cards later with its options rotated.
package drill

import (
	"fmt"

	"github.com/kata-mcp/kata/internal/i18n"
	"github.com/kata-mcp/kata/katas"
	"github.com/kata-mcp/kata/katas/exam"
	"github.com/kata-mcp/kata/ui/common"
	"github.com/kata-mcp/kata/ui/components/deck"
	"github.com/kata-mcp/kata/ui/components/question"
)

// New returns the trap drill of packet p, drawn by c's seed.
func New(c common.Common, p *katas.Packet) *deck.Model {
	return deck.New(c, deck.Options{Title: c.T("drill.title"), Noun: c.T("drill.noun"), Empty: c.T("drill.empty"), Requeue: true}, Cards(p, c.Seed(), c.Loc))
}

// Cards lists a packet's trap rows as drill cards, worded in loc's language. Rows read in
// English although the packet was asked in another locale (katas.Packet.InEnglish) say so in
// each card's head.
func Cards(p *katas.Packet, seed int64, loc *i18n.Localizer) []deck.Card {
	var cs []deck.Card
	for _, q := range exam.Drill(p, seed) {
		c := Card(q, loc)
		if p.InEnglish("traps.md") {
			c.Head += " · " + common.InEnglish(p.Locale)
		}
		cs = append(cs, c)
	}
	return cs
}

// Card makes the card of a drill question, worded in loc's language. Its item id is the row's
// line in the English traps.md, in every locale (katas.Trap.English).
func Card(q exam.DrillQuestion, loc *i18n.Localizer) deck.Card {
	line := q.Row.Line
	if o := q.Row.English; o != nil {
		line = o.Row.Line
	}
	return deck.Card{
		Kata: q.Kata, ItemID: fmt.Sprintf("traps.md:%d", line), CardID: q.CardID,
		Head:  loc.T("drill.head", "Table", q.Table),
		Title: loc.T("drill.question"), Trap: common.Inline(q.Row.Trap), Why: common.Inline(q.Row.WhyItFails),
		Opts: question.DrillChoices(q, loc), Choose: 1,
	}
}
