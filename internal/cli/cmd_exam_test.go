package cli

import (
	"bytes"
	"strings"
	"testing"
)

// TestExamAndReviewRejectBadInput: every bad flag or kata is an error naming it, before any
// terminal is opened.
func TestExamAndReviewRejectBadInput(t *testing.T) {
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"exam", "no-such-kata"}, `unknown kata "no-such-kata"`},
		{[]string{"exam", "--items", "0"}, "--items 0"},
		{[]string{"exam", "--pass", "2000"}, "--pass"},
		{[]string{"exam", "--time", "-5m"}, "--time -5m0s"},
		{[]string{"exam", "--theme", "purple"}, `--theme "purple"`},
		{[]string{"review", "nope"}, `unknown kata "nope"`},
		{[]string{"review", "--theme", "sepia"}, `--theme "sepia"`},
	}
	for _, c := range cases {
		var out, errb bytes.Buffer
		root := newRootCmd(&out, &errb)
		root.SetArgs(c.args)
		err := root.Execute()
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("kata %s: error %v, want one naming %q", strings.Join(c.args, " "), err, c.want)
		}
	}
}
