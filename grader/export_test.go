package grader

import (
	"time"

	"github.com/kata-mcp/kata/katas"
)

// WithHandshakeWait returns o with the wait for a server's answer to initialize set to d, for
// the grader's external tests: a reference that never answers initialize gets the same verdict
// whatever the wait, so its test need not wait out the 10 s a learner's server is given.
func WithHandshakeWait(o Options, d time.Duration) Options {
	o.handshake = d
	return o
}

// MainProcessFixtures lists, in their usual order, the ids of p's server fixtures that run on
// the server's main process, the ones Options.First can move to the front.
func MainProcessFixtures(p *katas.Packet) []string {
	var ids []string
	if set := p.Fixtures["server"]; set != nil {
		for _, f := range set.Fixtures {
			if !(&run{}).onExtraWorker(f) {
				ids = append(ids, f.ID)
			}
		}
	}
	return ids
}
