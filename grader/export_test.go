package grader

import "time"

// WithHandshakeWait returns o with the wait for a server's answer to initialize set to d, for
// the grader's external tests: a reference that never answers initialize gets the same verdict
// whatever the wait, so its test need not wait out the 10 s a learner's server is given.
func WithHandshakeWait(o Options, d time.Duration) Options {
	o.handshake = d
	return o
}
