package ui

import (
	"flag"
	"os"
	"path/filepath"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden files")

// golden compares the plain-text frame with testdata/<name>.golden.
func golden(t *testing.T, d *driver, name string) {
	t.Helper()
	got := d.view()
	path := filepath.Join("testdata", name+".golden")
	if *update {
		if err := os.MkdirAll("testdata", 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update)", err)
	}
	if got != string(want) {
		t.Errorf("frame differs from %s:\n%s", path, got)
	}
}

func TestGoldenScreens(t *testing.T) {
	t.Setenv("NO_COLOR", "")
	opts := Options{Workspace: func(id string) string { return "/nonexistent/kata/" + id }}
	d := newDriver(t, opts, 80, 24)
	golden(t, d, "catalog-80x24")
	d.press("enter")
	golden(t, d, "knowledge-80x24")
	d.press("x", "a")
	golden(t, d, "exam-answered-80x24")
	d.press("esc", "t")
	golden(t, d, "traps-80x24")
	d.press("esc", "w")
	golden(t, d, "task-80x24")
}
