package common

import (
	"strings"
	"testing"
	"time"
)

// TestClock: mm:ss rounded up, h:mm:ss from an hour, never negative.
func TestClock(t *testing.T) {
	if got := Clock(119*time.Second + time.Millisecond); got != "02:00" {
		t.Errorf("clock rounds up: %s", got)
	}
	if got := Clock(2*time.Hour + 5*time.Second); got != "2:00:05" {
		t.Errorf("clock of 2h5s: %s", got)
	}
	if !strings.Contains(Clock(-time.Second), "00:00") {
		t.Error("negative time")
	}
}

func TestPercentOfRounds(t *testing.T) {
	for _, c := range []struct{ part, total, want int }{{0, 0, 0}, {0, 3, 0}, {1, 3, 33}, {2, 3, 67}, {1, 2, 50}, {1, 8, 13}, {3, 3, 100}} {
		if got := PercentOf(c.part, c.total); got != c.want {
			t.Errorf("PercentOf(%d, %d) = %d, want %d", c.part, c.total, got, c.want)
		}
	}
}
