// Package drill is a packet's trap drill: each trap row asks for its correct pattern among the
// other rows' patterns, and a miss comes back a few cards later with its options rotated.
package drill

import (
	"github.com/kata-mcp/kata/katas"
	"github.com/kata-mcp/kata/ui/common"
	"github.com/kata-mcp/kata/ui/components/deck"
)

// New returns the trap drill of packet p, drawn by c's seed.
func New(c common.Common, p *katas.Packet) *deck.Model {
	return deck.New(c, deck.Options{Title: c.T("drill.title"), Noun: c.T("drill.noun"), Empty: c.T("drill.empty"), Requeue: true}, deck.TrapCards(p, c.Seed(), c.Loc))
}
