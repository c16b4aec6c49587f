package deck

import (
	"fmt"

	"github.com/kata-mcp/kata/internal/i18n"
	"github.com/kata-mcp/kata/katas"
	"github.com/kata-mcp/kata/katas/exam"
	"github.com/kata-mcp/kata/ui/common"
	"github.com/kata-mcp/kata/ui/components/question"
)

// ItemCards lists a packet's items in written order as cards, options shuffled by seed, worded
// in loc's language. Items read in English although the packet was asked in another locale
// (katas.Packet.InEnglish) say so in each card's head.
func ItemCards(p *katas.Packet, seed int64, loc *i18n.Localizer) []Card {
	refs := make([]string, len(p.Items))
	for i, it := range p.Items {
		refs[i] = exam.Ref(p.ID, it.ID)
	}
	qs, _ := exam.Rebuild([]*katas.Packet{p}, refs, seed) // every ref comes from p: no error
	cs := make([]Card, len(qs))
	for i, q := range qs {
		cs[i] = ItemCard(q, loc)
		if p.InEnglish("exam.md") {
			cs[i].Head += " · " + common.InEnglish(p.Locale)
		}
	}
	return cs
}

// ItemCard makes the card of a drawn exam item, worded in loc's language.
func ItemCard(q exam.Question, loc *i18n.Localizer) Card {
	return Card{
		Kata: q.Kata, ItemID: q.Item.ID, CardID: q.CardID,
		Head:  q.Item.ID + " · " + loc.T("quiz.scenario", "Scenario", q.Item.Scenario),
		Title: q.Item.Title, StemMD: q.Item.Stem,
		Opts: question.Choices(q), Choose: q.Item.Choose,
	}
}

// TrapCards lists a packet's trap rows as drill cards, worded in loc's language. Rows read in
// English although the packet was asked in another locale (katas.Packet.InEnglish) say so in
// each card's head.
func TrapCards(p *katas.Packet, seed int64, loc *i18n.Localizer) []Card {
	var cs []Card
	for _, q := range exam.Drill(p, seed) {
		c := TrapCard(q, loc)
		if p.InEnglish("traps.md") {
			c.Head += " · " + common.InEnglish(p.Locale)
		}
		cs = append(cs, c)
	}
	return cs
}

// TrapCard makes the card of a drill question, worded in loc's language. Its item id is the row's
// line in the English traps.md, in every locale (katas.Trap.English).
func TrapCard(q exam.DrillQuestion, loc *i18n.Localizer) Card {
	line := q.Row.Line
	if o := q.Row.English; o != nil {
		line = o.Row.Line
	}
	return Card{
		Kata: q.Kata, ItemID: fmt.Sprintf("traps.md:%d", line), CardID: q.CardID,
		Head:  loc.T("drill.head", "Table", q.Table),
		Title: loc.T("drill.question"), Trap: common.Inline(q.Row.Trap), Why: common.Inline(q.Row.WhyItFails),
		Opts: question.DrillChoices(q, loc), Choose: 1,
	}
}
