package cli

import (
	"os"
	"path/filepath"
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
	for _, want := range []string{"retry-after ", "client-5 ", "lookup_order: expired token (401/403) → auth", "kata show mcp-structured-errors --rules ID explains one"} {
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

// TestShowRefusesHostileLayers: `kata show` of a layer nested past the bound says where, at
// once, instead of rendering for minutes; a packet with a layer that is a link to /etc/passwd
// is not loaded at all, so its content is never printed; `kata validate` names both.
func TestShowRefusesHostileLayers(t *testing.T) {
	dir := t.TempDir()
	copyShipped(t, "mcp-structured-errors", dir, map[string]func(string) string{
		"knowledge/01-mental-model.md": func(string) string { return "# Deep\n\n" + strings.Repeat(">", 100) + " x\n" },
	})
	_, errs, code := runKata(t, "--packets", dir, "show", "mcp-structured-errors")
	if code != 2 || !strings.Contains(errs, "knowledge/01-mental-model.md:3: the line starts with 100 block-quote or list markers") {
		t.Errorf("show of a nested layer: exit %d, stderr %q", code, errs)
	}
	out, _, code := runKata(t, "validate", dir)
	if code != 1 || !strings.Contains(out, "01-mental-model.md:3:") {
		t.Errorf("validate of a nested layer: exit %d\n%s", code, out)
	}

	linked := t.TempDir()
	copyShipped(t, "mcp-error-responses", linked, nil)
	if err := os.Symlink("/etc/passwd", filepath.Join(linked, "mcp-error-responses", "knowledge", "00-passwd.md")); err != nil {
		t.Fatal(err)
	}
	out, errs, _ = runKata(t, "--packets", linked, "show", "mcp-error-responses")
	if strings.Contains(out, "root:") || !strings.Contains(errs, "00-passwd.md: a symbolic link") {
		t.Errorf("show of a packet with a linked layer file: stdout %q, stderr %q", out, errs)
	}
	out, _, code = runKata(t, "validate", linked)
	if code != 1 || !strings.Contains(out, "00-passwd.md: a symbolic link") {
		t.Errorf("validate of a linked layer file: exit %d\n%s", code, out)
	}
}

// Issue 27: kata show KATA --rules RULE explains one rule (what a hint points at, for a user
// with only the binary); --layer takes the app's numbers 1–5; a mistyped kata id suggests the
// one meant.
func TestShowOneRuleLayerNumberAndTypo(t *testing.T) {
	out, errOut, code := runKata(t, "show", "mcp-structured-errors", "--rules", "failure-is-result")
	if code != 0 || !strings.HasPrefix(out, "failure-is-result (server)\n  a tool failure is a tools/call result") || errOut != "" {
		t.Errorf("--rules failure-is-result: exit %d\n%s%s", code, out, errOut)
	}
	if _, errOut, code := runKata(t, "show", "mcp-structured-errors", "--rules", "nosuch"); code != 2 || !strings.Contains(errOut, `grades no rule "nosuch" (its rules: tools-list,`) {
		t.Errorf("--rules nosuch: exit %d %s", code, errOut)
	}
	if _, errOut, code := runKata(t, "show", "mcp-structured-errors", "stray"); code != 2 || !strings.Contains(errOut, "with --rules") {
		t.Errorf("a second argument without --rules: exit %d %s", code, errOut)
	}
	byNumber, _, code := runKata(t, "show", "mcp-structured-errors", "--layer", "4")
	byName, _, _ := runKata(t, "show", "mcp-structured-errors", "--layer", "agents")
	if code != 0 || byNumber != byName || !strings.Contains(byNumber, "error-contract-reviewer") {
		t.Errorf("--layer 4 is not the agents layer (exit %d):\n%.300s", code, byNumber)
	}
	for _, typo := range []string{"mcp-structured-erors", "structured-errors"} {
		if _, errOut, code := runKata(t, "show", typo); code != 2 || !strings.Contains(errOut, "did you mean mcp-structured-errors?") {
			t.Errorf("kata show %s: exit %d %s", typo, code, errOut)
		}
	}
	if _, errOut, _ := runKata(t, "show", "zzzz"); strings.Contains(errOut, "did you mean") {
		t.Errorf("a far-off id suggests one: %s", errOut)
	}
}
