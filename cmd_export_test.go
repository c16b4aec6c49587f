package main

import (
	"path/filepath"
	"strings"
	"testing"
)

func TestExportSkillCommand(t *testing.T) {
	dir := filepath.Join(t.TempDir(), ".claude")
	out, errOut, code := runKata(t, "export", "skill", "mcp-structured-errors", dir)
	if code != 0 || !strings.Contains(out, filepath.Join(dir, "skills", "mcp-structured-errors", "SKILL.md")) ||
		!strings.Contains(out, filepath.Join(dir, "agents", "error-contract-reviewer.md")) || errOut != "" {
		t.Errorf("exit %d\nstdout %s\nstderr %s", code, out, errOut)
	}
	other := t.TempDir()
	if _, errOut, code := runKata(t, "export", "skill", "mcp-structured-errors", other); code != 0 || !strings.Contains(errOut, "is not a .claude folder") {
		t.Errorf("exporting elsewhere: exit %d, stderr %q", code, errOut)
	}
	if _, errOut, code := runKata(t, "export", "skill", "nope", dir); code != 2 || !strings.Contains(errOut, `unknown kata "nope"`) {
		t.Errorf("an unknown kata: exit %d, stderr %q", code, errOut)
	}
	if out, _, code := runKata(t, "export"); code != 0 || !strings.Contains(out, "skill") {
		t.Errorf("kata export: exit %d, %s", code, out)
	}
}
