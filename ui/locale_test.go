package ui

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/x/ansi"

	"github.com/kata-mcp/kata/grader"
	"github.com/kata-mcp/kata/internal/progress"
)

// TestGoldenLocales pins, in Spanish and Russian, the screens TestGoldenScreens pins (the
// catalog, a layer page, a quiz item answered, a trap table, the task screen and its help, a
// drill card, a review card, the mock exam's item, jump list, confirmation, result and review,
// the catalog's help) at 60×20, 80×24 and 120×40, no line wider than the terminal. The packet stays in
// English (the mini-kata has no locale twins); the interface's text is translated.
func TestGoldenLocales(t *testing.T) {
	t.Setenv("NO_COLOR", "")
	for _, lang := range []string{"es", "ru"} {
		for _, size := range sizes {
			w, h := size[0], size[1]
			sz := fmt.Sprintf("-%s-%dx%d", lang, w, h)
			st := newMemStore()
			st.grades = []progress.GradeRun{{Kata: "mini-kata", Workspace: "/nonexistent/kata/mini-kata", Status: "pass", Passed: 9, Seed: 7, Duration: 1200 * time.Millisecond, At: time.Date(2026, 3, 2, 9, 30, 0, 0, time.Local)}}
			opts := Options{Store: st, Locale: lang, Workspace: func(id string) string { return "/nonexistent/kata/" + id }}
			d := newDriver(t, opts, w, h)
			shot := func(name string) {
				t.Helper()
				frame := d.view()
				for i, l := range strings.Split(frame, "\n") {
					if ansi.StringWidth(l) > w {
						t.Errorf("%s%s: line %d is %d columns wide, more than %d: %q", name, sz, i+1, ansi.StringWidth(l), w, l)
					}
				}
				goldenText(t, frame, name+sz)
			}
			shot("catalog")
			d.press("enter")
			shot("knowledge")
			d.press("x", "a", "enter")
			shot("exam-answered")
			d.press("esc", "t")
			shot("traps")
			d.press("esc", "w")
			shot("task")
			d.press("?")
			shot("help-task")
			// The help note is a long paragraph: wrapped by display width, Cyrillic fills the
			// line, where wrapping by bytes (two a letter) would stop near half of it.
			widest := 0
			for _, l := range strings.Split(d.view(), "\n") {
				widest = max(widest, ansi.StringWidth(l))
			}
			if widest < w*3/4 {
				t.Errorf("help-task%s: the widest line is %d columns of %d: the text wraps too early", sz, widest, w)
			}
			d.press("esc", "esc", "d")
			d.pick(false)
			shot("drill-answered")
			d.press("esc", "esc", "r")
			shot("review")
			d.press("esc", "x")
			shot("mock-question")
			d.answer(true)
			d.press("f", "n")
			d.answer(false)
			d.press("o")
			shot("mock-jump")
			d.press("esc", "s")
			shot("mock-confirm")
			d.press("y")
			shot("mock-result")
			d.press("r")
			shot("mock-review")
			d.press("esc", "esc", "?")
			shot("help-catalog")
		}
	}
}

// TestGoldenLocalesTaskGraded pins the graded task screen (summary, first failure, steps) and
// a step open beside its tests, in Spanish and Russian.
func TestGoldenLocalesTaskGraded(t *testing.T) {
	t.Setenv("NO_COLOR", "")
	grade := func(ctx context.Context, dir string, progress func(grader.Event)) *grader.Report { return stubReport() }
	for _, lang := range []string{"es", "ru"} {
		for _, size := range sizes {
			w, h := size[0], size[1]
			sz := fmt.Sprintf("-%s-%dx%d", lang, w, h)
			root := t.TempDir()
			d := newDriver(t, Options{Grade: grade, Locale: lang, Workspace: func(id string) string { return root + "/" + id }}, w, h)
			d.press("enter", "w", "i", "g")
			masked := func() string { return strings.ReplaceAll(d.view(), root, "/home/learner/ws") }
			goldenText(t, masked(), "task-graded"+sz)
			d.press("enter")
			goldenText(t, masked(), "task-step"+sz)
		}
	}
}
