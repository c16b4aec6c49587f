package katas

import (
	"slices"
	"testing"

	"github.com/kata-mcp/kata/packets"
)

// testWise is the expected score of a learner who knows nothing and picks by length: for a
// single-answer item the longest option, for a multiple-response item the Choose longest
// (the stem says how many). Ties are broken at random, so an item scores the chance that the
// random pick among the tied options is exactly the key set. shortest picks the shortest
// instead (the counter-strategy once keys are written short). chance is the expected score of
// a blind guess: 1/options, or 1/C(options, Choose).
func testWise(items []Item, shortest bool) (score, chance float64) {
	for _, it := range items {
		n, k := len(it.Options), it.Choose
		if n == 0 || k < 1 || k > n {
			continue
		}
		chance += 1 / binom(n, k)
		lens := make([]int, n)
		for i, o := range it.Options {
			lens[i] = optionLength(o)
			if shortest {
				lens[i] = -lens[i]
			}
		}
		sorted := slices.Clone(lens)
		slices.SortFunc(sorted, func(a, b int) int { return b - a })
		cut := sorted[k-1] // the k-th longest length: longer ones are taken, ties drawn
		ok, tied, need := true, 0, k
		for i, o := range it.Options {
			switch {
			case lens[i] > cut:
				need--
				ok = ok && o.Key
			case lens[i] == cut:
				tied++
			}
		}
		keysTied := 0
		for i, o := range it.Options {
			if o.Key && lens[i] == cut {
				keysTied++
			}
			if o.Key && lens[i] < cut {
				ok = false
			}
		}
		if ok && keysTied == need {
			score += 1 / binom(tied, need)
		}
	}
	return score, chance
}

// testWiseMiddle is the expected score of the elimination strategy: strike the longest and the
// shortest option (when that leaves at least Choose options) and guess among the rest.
func testWiseMiddle(items []Item) float64 {
	score := 0.0
	for _, it := range items {
		n, k := len(it.Options), it.Choose
		if n == 0 || k < 1 || k > n {
			continue
		}
		lo, hi := -1, -1
		for _, o := range it.Options {
			l := optionLength(o)
			if lo < 0 || l < lo {
				lo = l
			}
			hi = max(hi, l)
		}
		var rest []Option
		for _, o := range it.Options {
			if l := optionLength(o); l != lo && l != hi {
				rest = append(rest, o)
			}
		}
		if len(rest) < k {
			rest = it.Options
		}
		keys := 0
		for _, o := range rest {
			if o.Key {
				keys++
			}
		}
		if keys == k {
			score += 1 / binom(len(rest), k)
		}
	}
	return score
}

func binom(n, k int) float64 {
	r := 1.0
	for i := 0; i < k; i++ {
		r = r * float64(n-i) / float64(i+1)
	}
	return r
}

// TestTestWiseStrategy reports, per shipped packet, what picking by option length scores on
// the bank against a blind guess (go test -v -run TestTestWise ./katas prints it), and asserts
// that neither the longest nor the shortest option scores above chance, and striking both scores
// within 10 % of it: a key gives nothing away by its length (docs/packets.md, "Item-writing
// checks").
func TestTestWiseStrategy(t *testing.T) {
	lib, err := Discover(packets.FS, "embedded")
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range lib.Packets() {
		long, chance := testWise(p.Items, false)
		short, _ := testWise(p.Items, true)
		middle := testWiseMiddle(p.Items)
		n := float64(len(p.Items))
		t.Logf("test-wise %-22s %d items: longest option %.1f (%.0f%%), shortest %.1f (%.0f%%), neither %.1f (%.0f%%), chance %.1f (%.0f%%)",
			p.ID, len(p.Items), long, 100*long/n, short, 100*short/n, middle, 100*middle/n, chance, 100*chance/n)
		if long > chance || short > chance || middle > 1.1*chance {
			t.Errorf("%s: picking by length beats a blind guess (longest %.1f, shortest %.1f, neither %.1f; chance %.1f of %d items)", p.ID, long, short, middle, chance, len(p.Items))
		}
	}
}
