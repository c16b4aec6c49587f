package grader

import (
	"slices"
	"testing"

	"github.com/kata-mcp/kata/katas"
)

// failedFirst runs the tests that failed last time first, each group in its usual order; ids
// that are no fixture's (a client scenario, a test since removed) change nothing.
func TestFailedFirstOrder(t *testing.T) {
	fs := []katas.Fixture{{ID: "a"}, {ID: "b"}, {ID: "c"}, {ID: "d"}}
	for _, c := range []struct {
		first []string
		want  []int
	}{
		{nil, []int{0, 1, 2, 3}},
		{[]string{"d", "b"}, []int{1, 3, 0, 2}},
		{[]string{"gone", "scenario-1"}, []int{0, 1, 2, 3}},
		{[]string{"a", "b", "c", "d"}, []int{0, 1, 2, 3}},
	} {
		if got := failedFirst(fs, c.first); !slices.Equal(got, c.want) {
			t.Errorf("failedFirst(%v) = %v, want %v", c.first, got, c.want)
		}
	}
}
