package main

import (
	"strings"
	"testing"
)

// TestShowRules: `kata show KATA --rules` lists the kata's rules by id with the kata's own
// behaviour → category table under "category", and only the rules its contract has.
func TestShowRules(t *testing.T) {
	out, _, code := runKata(t, "show", "mcp-structured-errors", "--rules")
	if code != 0 {
		t.Fatalf("exit %d", code)
	}
	for _, want := range []string{"retry-after ", "client-5 ", "lookup_order: expired token (401/403) → auth", "docs/grading.md"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "attempted-query") {
		t.Errorf("mcp-structured-errors has no attemptedQuery field, yet its rules list attempted-query:\n%s", out)
	}
	if _, errOut, code := runKata(t, "show", "nope", "--rules"); code != 2 || !strings.Contains(errOut, `unknown kata "nope"`) {
		t.Errorf("unknown kata: exit %d, stderr %q", code, errOut)
	}
}
