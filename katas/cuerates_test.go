package katas

import (
	"testing"

	"github.com/kata-mcp/kata/packets"
)

// TestItemCueRates reports, per shipped packet and language, what each test-wise strategy of
// CueStrategies scores on the single-answer items against a blind guess (go test -v -run
// TestItemCueRates ./katas prints the table), and fails when one scores more than CueMargin
// above chance: the figures kata validate --strict checks, in one place to re-run.
func TestItemCueRates(t *testing.T) {
	lib, err := Discover(packets.FS, "embedded")
	if err != nil {
		t.Fatal(err)
	}
	for _, loc := range []string{English, "es", "ru"} {
		for _, p := range lib.Localized(loc).Packets() {
			for _, r := range CueRates(p.Items) {
				d := 100 * (r.Share() - r.ChanceShare())
				t.Logf("%-22s %s  %-22s %5.1f of %d = %4.1f%%  chance %4.1f%%  %+5.1f points", p.ID, loc, r.Strategy, r.Hits, r.Items, 100*r.Share(), 100*r.ChanceShare(), d)
				if r.Items >= MinCueItems && r.Share() > r.ChanceShare()+CueMargin {
					t.Errorf("%s (%s): %s beats chance by %.1f points (at most %.0f)", p.ID, loc, r.Strategy, d, 100*CueMargin)
				}
			}
		}
	}
}
