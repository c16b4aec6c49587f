package grader

import (
	"bytes"
	"flag"
	"os"
	"strings"
	"testing"
)

var updateRuleIndex = flag.Bool("update", false, "rewrite the rule index and the hint table of docs/grading.md from rules.go and hints.go")

// TestRuleIndex: the rule index in docs/grading.md is the one WriteRuleIndex writes from the
// rule tables, so the page and the checks cannot drift apart; every rule of every built-in
// kata has its anchor, and every section a rule points at exists. -update rewrites it.
func TestRuleIndex(t *testing.T) {
	lib := embeddedLibrary(t)
	var want bytes.Buffer
	WriteRuleIndex(&want, lib.Packets())
	doc := generatedBlock(t, "rule-index", "rule index", "rules.go", "TestRuleIndex", want.Bytes())
	for _, p := range lib.Packets() {
		for _, r := range RulesFor(p) {
			if !bytes.Contains(doc, []byte(`<a id="`+r.Section+`">`)) {
				t.Errorf("rule %s points at #%s, which docs/grading.md does not have", r.ID, r.Section)
			}
		}
	}
}

// generatedBlock checks that the block between "<!-- NAME:begin -->" and "<!-- NAME:end -->"
// in docs/grading.md is want, written from source by the test named test; with -update it
// rewrites the block instead. It returns the page.
func generatedBlock(t *testing.T, name, what, source, test string, want []byte) []byte {
	t.Helper()
	const path = "../docs/grading.md"
	begin, end := "<!-- "+name+":begin -->\n", "<!-- "+name+":end -->"
	doc, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	i, j := bytes.Index(doc, []byte(begin)), bytes.Index(doc, []byte(end))
	if i < 0 || j < i {
		t.Fatalf("%s has no %q … %q block", path, strings.TrimSpace(begin), end)
	}
	if got := doc[i+len(begin) : j]; !bytes.Equal(got, want) {
		if *updateRuleIndex {
			doc = append(append(append([]byte{}, doc[:i+len(begin)]...), want...), doc[j:]...)
			if err := os.WriteFile(path, doc, 0o644); err != nil {
				t.Fatal(err)
			}
			return doc
		}
		t.Errorf("the %s in %s differs from %s; run go test ./grader -run %s -update\n%s", what, path, source, test, lineDiff(string(got), string(want)))
	}
	return doc
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
