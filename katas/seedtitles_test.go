package katas

import "testing"

// TestSeedTitles: a list before coverage.md's table titles its seeds (`FILE`: title); other
// lists, items without a code span or a colon, and lists after the table name nothing.
func TestSeedTitles(t *testing.T) {
	src := "# Seed coverage\n\nThe seeds:\n\n- `a.txt`: The first seed (Spanish)\n- `b.txt` without a colon\n- no file: here\n\n" +
		"| Seed | Line | Fact | Covered by |\n| --- | --- | --- | --- |\n| a.txt | 1 | x | `k-01` |\n\n- `c.txt`: after the table\n"
	got := seedTitles([]byte(src))
	if len(got) != 1 || got["a.txt"] != "The first seed (Spanish)" {
		t.Errorf("titles %v", got)
	}
}
