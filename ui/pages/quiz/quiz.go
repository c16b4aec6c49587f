// Package quiz is a packet's quiz: its exam items in written order, options shuffled, as a
// practice deck answered one at a time with feedback.
package quiz

import (
	"github.com/kata-mcp/kata/katas"
	"github.com/kata-mcp/kata/ui/common"
	"github.com/kata-mcp/kata/ui/components/deck"
)

// New returns the quiz of packet p, options shuffled by c's seed.
func New(c common.Common, p *katas.Packet) *deck.Model {
	return deck.New(c, deck.Options{Title: c.T("quiz.title"), Noun: c.T("quiz.noun"), Empty: c.T("quiz.empty")}, deck.ItemCards(p, c.Seed(), c.Loc))
}
