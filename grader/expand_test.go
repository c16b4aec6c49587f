package grader

import (
	"errors"
	"strings"
	"testing"
)

func TestExpandFollowsClaudeCodeRules(t *testing.T) {
	vars := map[string]string{"URL": "http://127.0.0.1:9", "EMPTY": ""}
	lookup := func(k string) (string, bool) { v, ok := vars[k]; return v, ok }
	cases := []struct{ in, want, err string }{
		{"${URL}", "http://127.0.0.1:9", ""},
		{"x-${URL}-y", "x-http://127.0.0.1:9-y", ""},
		{"${MISSING:-5}", "5", ""},
		{"${EMPTY:-d}", "", ""}, // defined (even empty) wins over the default
		{"$URL", "$URL", ""},    // a bare $VAR is not expanded
		{"${URL}${URL}", "http://127.0.0.1:9http://127.0.0.1:9", ""},
		{"${MISSING}", "", "${MISSING} is not defined"},
		{"${URL", "", "unclosed"},
		{"${1BAD}", "", "not a variable reference"},
	}
	for _, c := range cases {
		got, err := Expand(c.in, lookup)
		if c.err != "" {
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("Expand(%q) error = %v, want %q", c.in, err, c.err)
			}
			continue
		}
		if err != nil || got != c.want {
			t.Errorf("Expand(%q) = %q, %v; want %q", c.in, got, err, c.want)
		}
	}
	var u *UndefinedVarError
	if _, err := Expand("${NOPE}", lookup); !errors.As(err, &u) || u.Name != "NOPE" {
		t.Errorf("want *UndefinedVarError naming NOPE, got %v", err)
	}
}

func TestContainsValueMatchesWholeNumbers(t *testing.T) {
	cases := []struct {
		s    string
		v    any
		want bool
	}{
		{"process_refund order_id=ORD-8821 amount=120", 120.0, true},
		{"amount: 120.0", 120.0, true},
		{"amount 99.5", 99.5, true},
		{"order ORD-1234", -1.0, false},
		{"amount=-1", -1.0, true},
		{"amount 1000", 100.0, false},
		{"order_id: ORD-8821", "ORD-8821", true},
	}
	for _, c := range cases {
		if got := containsValue(c.s, c.v); got != c.want {
			t.Errorf("containsValue(%q, %v) = %v, want %v", c.s, c.v, got, c.want)
		}
	}
}
