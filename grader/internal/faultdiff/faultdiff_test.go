package faultdiff

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestApplyUnifiedDiff(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "s.py"), []byte("a\nb\nc\nd\ne\n"), 0o644)
	diff := "--- a/s.py\n+++ b/s.py\n@@ -2,3 +2,3 @@\n b\n-c\n+C  # FAULT\n d\n--- /dev/null\n+++ b/new/x.txt\n@@ -0,0 +1,1 @@\n+hello\n"
	if err := Apply(dir, diff); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "s.py")); string(b) != "a\nb\nC  # FAULT\nd\ne\n" {
		t.Errorf("patched file: %q", b)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "new", "x.txt")); string(b) != "hello\n" {
		t.Errorf("created file: %q", b)
	}
	// diff -ru output: "diff" lines, timestamps, another first path component
	ru := "diff -ru correct/s.py changed/s.py\n--- correct/s.py\t2026-12-01 04:00:00\n+++ changed/s.py\t2026-12-01 04:01:00\n@@ -1,1 +1,1 @@\n-a\n+A\n"
	if err := Apply(dir, ru); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "s.py")); !strings.HasPrefix(string(b), "A\nb\n") {
		t.Errorf("diff -ru output not applied: %q", b)
	}
	// a diff whose context no longer matches is an error, not a silent no-op
	if err := Apply(dir, "--- a/s.py\n+++ b/s.py\n@@ -1,1 +1,1 @@\n-zzz\n+y\n"); err == nil || !strings.Contains(err.Error(), "does not match") {
		t.Errorf("stale diff: %v", err)
	}
	if err := Apply(dir, "just prose, no diff\n"); err == nil {
		t.Error("a diff without files was accepted")
	}
}
