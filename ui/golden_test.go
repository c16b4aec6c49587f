package ui

import (
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/aymanbagabas/go-udiff"

	"github.com/kata-mcp/kata/grader"
	"github.com/kata-mcp/kata/internal/progress"
	"github.com/kata-mcp/kata/katas"
	"github.com/kata-mcp/kata/packets"
)

var update = flag.Bool("update", false, "rewrite the golden files")

// golden compares the plain-text frame with testdata/<name>.golden.
func golden(t *testing.T, d *driver, name string) {
	t.Helper()
	goldenText(t, d.view(), name)
}

// goldenText compares a frame's text with testdata/<name>.golden.
func goldenText(t *testing.T, got, name string) {
	t.Helper()
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
		t.Errorf("frame differs from %s (run go test -update to accept it):\n%s", path, udiff.Unified(path, "got", string(want), got))
	}
}

// sizes are the terminal sizes every golden screen is pinned at.
var sizes = [][2]int{{60, 20}, {80, 24}, {120, 40}}

// TestGoldenScreens pins the main screens at 60×20, 80×24 and 120×40: catalog (with progress), a
// layer, the quiz answered, the trap table, the task, the help overlay, a mock exam item, its
// result and review, a trap drill answered and a review card.
func TestGoldenScreens(t *testing.T) {
	t.Setenv("NO_COLOR", "")
	for _, size := range sizes {
		w, h := size[0], size[1]
		sz := fmt.Sprintf("-%dx%d", w, h)
		st := newMemStore()
		st.grades = []progress.GradeRun{{Kata: "mini-kata", Workspace: "/nonexistent/kata/mini-kata", Status: "pass", Passed: 9, Seed: 7, Duration: 1200 * time.Millisecond, At: time.Date(2026, 3, 2, 9, 30, 0, 0, time.Local)}}
		opts := Options{Store: st, Workspace: func(id string) string { return "/nonexistent/kata/" + id }}
		d := newDriver(t, opts, w, h)
		golden(t, d, "catalog"+sz)
		d.press("enter")
		golden(t, d, "knowledge"+sz)
		d.press("x", "a", "enter")
		golden(t, d, "exam-answered"+sz)
		d.press("esc", "t")
		golden(t, d, "traps"+sz)
		d.press("esc", "w")
		golden(t, d, "task"+sz)
		d.press("?")
		golden(t, d, "help-task"+sz)
		d.press("esc", "esc", "d")
		d.pick(false)
		golden(t, d, "drill-answered"+sz)
		d.press("esc", "esc", "r")
		golden(t, d, "review"+sz)
		d.press("esc", "x")
		golden(t, d, "mock-question"+sz)
		d.answer(true)
		d.press("f", "n")
		d.answer(false)
		d.press("o")
		golden(t, d, "mock-jump"+sz)
		d.press("esc", "s", "y")
		golden(t, d, "mock-result"+sz)
		d.press("r")
		golden(t, d, "mock-review"+sz)
		d.press("esc", "esc", "?")
		golden(t, d, "help-catalog"+sz)
	}
}

// TestGoldenCodeLayer pins a layer with code wider than the terminal: cut with a marker, then
// scrolled sideways.
func TestGoldenCodeLayer(t *testing.T) {
	t.Setenv("NO_COLOR", "")
	lib := libWith(t, map[string]string{"templates/README.md": templatesWithCode})
	for _, size := range sizes {
		w, h := size[0], size[1]
		sz := fmt.Sprintf("-%dx%d", w, h)
		d := newDriverLib(t, lib, Options{}, w, h)
		d.press("enter", "5")
		golden(t, d, "code-layer"+sz)
		d.press("L", "L", "L")
		golden(t, d, "code-layer-scrolled"+sz)
	}
}

// TestGoldenTaskGraded pins the task screen after a grade (the summary, the first failure in
// focus, the steps with their results) and with a step open beside its tests.
func TestGoldenTaskGraded(t *testing.T) {
	t.Setenv("NO_COLOR", "")
	grade := func(ctx context.Context, dir string, progress func(grader.Event)) *grader.Report { return stubReport() }
	for _, size := range sizes {
		w, h := size[0], size[1]
		sz := fmt.Sprintf("-%dx%d", w, h)
		root := t.TempDir()
		d := newDriver(t, Options{Grade: grade, Workspace: func(id string) string { return root + "/" + id }}, w, h)
		d.press("enter", "w", "i", "g")
		masked := func() string { return strings.ReplaceAll(d.view(), root, "/home/learner/ws") }
		goldenText(t, masked(), "task-graded"+sz)
		d.press("enter")
		goldenText(t, masked(), "task-step"+sz)
	}
}

// TestGoldenSmallTerminals (issue 27) pins what a small terminal used to hide: a mock exam item
// taller than the screen opens at its stem, says there is more below and keeps the scroll keys
// in the key bar; on the embedded packets, an open step's title keeps its step number and
// percentage at 60 columns, and a subagent's front matter reads whole at 60 and 120.
func TestGoldenSmallTerminals(t *testing.T) {
	t.Setenv("NO_COLOR", "")
	d := newDriverLib(t, examLib(t), Options{Start: StartExam, Exam: ExamOptions{Katas: []string{"multi-kata"}}}, 60, 12)
	golden(t, d, "mock-small-60x12")

	lib, err := katas.Discover(packets.FS, "embedded")
	if err != nil {
		t.Fatal(err)
	}
	d = newDriverLib(t, lib, Options{Language: "node"}, 60, 20)
	d.press("down", "down", "enter", "w", "down", "down", "down", "down", "down", "enter")
	first, _, _ := strings.Cut(d.view(), "\n")
	if !strings.Contains(first, "· step 6") || !strings.Contains(first, "%") || !strings.HasPrefix(first, "Task: typed") {
		t.Errorf("the open step's title at 60 columns: %q", first)
	}
	for _, w := range []int{60, 120} {
		d = newDriverLib(t, lib, Options{}, w, 40)
		d.press("down", "down", "enter", "4")
		d.mustSee("description: >-", "does not edit.")
		if v := d.view(); strings.Contains(v, "description: Reviews") {
			t.Errorf("at %d columns the description runs on one line, cut at the edge:\n%s", w, v)
		}
	}
}
