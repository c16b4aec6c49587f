package grader

import (
	"bytes"
	"flag"
	"os"
	"strings"
	"testing"
)

var updateRuleIndex = flag.Bool("update", false, "rewrite the rule index of docs/grading.md from rules.go")

// TestRuleIndex: the rule index in docs/grading.md is the one WriteRuleIndex writes from the
// rule tables, so the page and the checks cannot drift apart; every rule of every built-in
// kata has its anchor, and every section a rule points at exists. -update rewrites it.
func TestRuleIndex(t *testing.T) {
	const path = "../docs/grading.md"
	const begin, end = "<!-- rule-index:begin -->\n", "<!-- rule-index:end -->"
	doc, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	i, j := bytes.Index(doc, []byte(begin)), bytes.Index(doc, []byte(end))
	if i < 0 || j < i {
		t.Fatalf("%s has no %q … %q block", path, strings.TrimSpace(begin), end)
	}
	lib := embeddedLibrary(t)
	var want bytes.Buffer
	WriteRuleIndex(&want, lib.Packets())
	got := doc[i+len(begin) : j]
	if !bytes.Equal(got, want.Bytes()) {
		if *updateRuleIndex {
			out := append(append(append([]byte{}, doc[:i+len(begin)]...), want.Bytes()...), doc[j:]...)
			if err := os.WriteFile(path, out, 0o644); err != nil {
				t.Fatal(err)
			}
			return
		}
		t.Errorf("the rule index in %s differs from rules.go; run go test ./grader -run TestRuleIndex -update\n%s", path, lineDiff(string(got), want.String()))
	}
	for _, p := range lib.Packets() {
		for _, r := range RulesFor(p) {
			if !bytes.Contains(doc, []byte(`<a id="`+r.Section+`">`)) {
				t.Errorf("rule %s points at #%s, which docs/grading.md does not have", r.ID, r.Section)
			}
		}
	}
}

// lineDiff lists the lines only in a (-) and only in b (+).
func lineDiff(a, b string) string {
	in := func(s string) map[string]bool {
		m := map[string]bool{}
		for _, l := range strings.Split(s, "\n") {
			m[l] = true
		}
		return m
	}
	ina, inb := in(a), in(b)
	var out []string
	for _, l := range strings.Split(a, "\n") {
		if !inb[l] {
			out = append(out, "- "+l)
		}
	}
	for _, l := range strings.Split(b, "\n") {
		if !ina[l] {
			out = append(out, "+ "+l)
		}
	}
	return strings.Join(out, "\n")
}
