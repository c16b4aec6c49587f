package grader_test

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/kata-mcp/kata/grader"
	"github.com/kata-mcp/kata/katas"
)

// BenchmarkGradeCorrect reports the wall time of a full grade (build, start-up, every
// fixture and scenario) of each language's correct reference, per kata, as ms/grade; the
// slowest fixture's own time as slowest-fixture-ms (its name is logged with -v); the parts of
// a grade (grader.Timings: prepare-ms, server-start-ms, server-phase-ms, client-phase-ms);
// ratio, ms/grade over (slowest fixture + start-up: prepare and server start); and what a
// grade costs the machine: cpu-s/grade (the grader's and every learner process's CPU, user +
// system) and processes/grade (the learner processes it started). Each is graded alone, as
// kata grade does, and as one learner of a batch (…/batch: grader.Options.Batch, as kata class
// grade does):
//
//	go test ./grader -run '^$' -bench GradeCorrect -benchtime 5x
func BenchmarkGradeCorrect(b *testing.B) {
	lib := library(b)
	root := filepath.Join("..", "testdata", "references")
	for _, p := range lib.Packets() {
		for _, lang := range p.Languages {
			ref := filepath.Join(root, p.ID, lang, "correct")
			if _, err := os.Stat(ref); err != nil {
				continue
			}
			for _, batch := range []bool{false, true} {
				name := p.ID + "/" + lang
				if batch {
					name += "/batch"
				}
				b.Run(name, func(b *testing.B) { benchmarkGrade(b, lib, p.ID, lang, ref, batch) })
			}
		}
	}
}

// benchmarkGrade is BenchmarkGradeCorrect for one kata, language and mode.
func benchmarkGrade(b *testing.B, lib *katas.Library, kata, lang, ref string, batch bool) {
	dir := workspace(b, lib, kata, lang, ref)
	// One untimed grade warms the build cache for compiled languages.
	grader.Grade(context.Background(), lib, dir, grader.Options{Seed: 1, SeedSet: true, Batch: batch})
	b.ResetTimer()
	cpu0 := cpuTime()
	procs := 0
	var slowest time.Duration
	slowestName := ""
	var total time.Duration
	var sum grader.Timings
	for i := 0; i < b.N; i++ {
		start := time.Now()
		rep := grader.Grade(context.Background(), lib, dir, grader.Options{Seed: int64(i + 1), SeedSet: true, Batch: batch})
		total += time.Since(start)
		procs += rep.Timings.Processes
		if rep.Status != grader.StatusPass {
			b.Fatalf("the correct reference did not pass: %s %s", rep.Status, rep.Message)
		}
		for _, t := range rep.Tests {
			if t.Duration > slowest {
				slowest, slowestName = t.Duration, t.ID
			}
		}
		sum.Prepare += rep.Timings.Prepare
		sum.ServerStart += rep.Timings.ServerStart
		sum.ServerPhase += rep.Timings.ServerPhase
		sum.ClientPhase += rep.Timings.ClientPhase
	}
	ms := func(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 / float64(b.N) }
	b.ReportMetric(ms(total), "ms/grade")
	b.ReportMetric(float64(slowest.Milliseconds()), "slowest-fixture-ms")
	b.ReportMetric(ms(sum.Prepare), "prepare-ms")
	b.ReportMetric(ms(sum.ServerStart), "server-start-ms")
	b.ReportMetric(ms(sum.ServerPhase), "server-phase-ms")
	b.ReportMetric(ms(sum.ClientPhase), "client-phase-ms")
	// The goal: a grade within 1.2 × (the slowest fixture + the server's start-up),
	// where start-up is everything before the first server answers initialize: the
	// build (a compiled language's start-up; cached here) and the launch.
	floor := float64(slowest.Microseconds())/1000 + ms(sum.Prepare) + ms(sum.ServerStart)
	b.ReportMetric(ms(total)/floor, "ratio")
	b.ReportMetric((cpuTime()-cpu0).Seconds()/float64(b.N), "cpu-s/grade")
	b.ReportMetric(float64(procs)/float64(b.N), "processes/grade")
	b.Logf("slowest fixture: %s (%s)", slowestName, slowest.Round(time.Millisecond))
}

// cpuTime is the CPU time, user and system, of the test process and of every child it has
// waited for (which include the sandboxes and the learner processes in them).
func cpuTime() time.Duration {
	var self, children syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &self)
	syscall.Getrusage(syscall.RUSAGE_CHILDREN, &children)
	return time.Duration(self.Utime.Nano() + self.Stime.Nano() + children.Utime.Nano() + children.Stime.Nano())
}

// BenchmarkWatchToVerdict reports, as ms/verdict, the time from saving a file of a watched
// workspace (each language's correct reference of mcp-structured-errors) to the end of the
// re-grade it sets off: the debounce (grader.DefaultDebounce) plus a full grade, which is what
// `kata grade --watch` and the task screen take before they show the verdict. With failed-first
// (Options.First) it also reports ms/first-verdict, the time from the save to the verdict of
// the tests that failed last time; standing in for those here are the two fixtures the
// server's main process would otherwise run last (the worst case for them). Goals, reported and not
// asserted: first verdict within 300 ms, full verdict within 1 s on 2 cores.
//
//	go test ./grader -run '^$' -bench WatchToVerdict -benchtime 3x
func BenchmarkWatchToVerdict(b *testing.B) {
	lib := library(b)
	p, ok := lib.Get("mcp-structured-errors")
	if !ok {
		b.Skip("no mcp-structured-errors packet")
	}
	for _, lang := range p.Languages {
		ref := filepath.Join("..", "testdata", "references", p.ID, lang, "correct")
		if _, err := os.Stat(ref); err != nil {
			continue
		}
		b.Run(lang, func(b *testing.B) {
			dir := workspace(b, lib, p.ID, lang, ref)
			grader.Grade(context.Background(), lib, dir, grader.Options{Seed: 1, SeedSet: true}) // warm the build cache
			main := grader.MainProcessFixtures(p)
			first := main[max(len(main)-2, 0):]
			var firstAt atomic.Int64 // when the last of first finished, in ns since the save
			var saved atomic.Int64
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			verdicts := make(chan *grader.Report)
			watching := make(chan error, 1)
			go func() {
				watching <- grader.WatchWorkspace(ctx, dir, grader.DefaultDebounce, func() {
					left := len(first)
					verdicts <- grader.Grade(ctx, lib, dir, grader.Options{Seed: 1, SeedSet: true, First: first, OnEvent: func(e grader.Event) {
						if e.Kind == grader.EventTestFinished && slices.Contains(first, e.TestID) {
							if left--; left == 0 {
								firstAt.Store(time.Now().UnixNano() - saved.Load())
							}
						}
					}})
				})
			}()
			// A file of the workspace to save: the first one kata.json's server command names
			// or, failing that, kata.json itself.
			file := filepath.Join(dir, "kata.json")
			for _, name := range []string{"server.py", "server.mjs", "main.go", "server.go"} {
				if _, err := os.Stat(filepath.Join(dir, name)); err == nil {
					file = filepath.Join(dir, name)
					break
				}
			}
			src, err := os.ReadFile(file)
			if err != nil {
				b.Fatal(err)
			}
			// The watcher adds its folders before it reads events; a first save, waited for with
			// a deadline, shows it is ready.
			ready := time.After(time.Minute)
			for primed := false; !primed; {
				os.WriteFile(file, src, 0o644)
				select {
				case <-verdicts:
					primed = true
				case err := <-watching:
					b.Fatalf("the watcher stopped: %v", err)
				case <-time.After(2 * time.Second):
				case <-ready:
					b.Fatal("the watcher never saw a save")
				}
			}
			b.ResetTimer()
			var total, firstTotal time.Duration
			for i := 0; i < b.N; i++ {
				start := time.Now()
				saved.Store(start.UnixNano())
				firstAt.Store(0)
				if err := os.WriteFile(file, src, 0o644); err != nil {
					b.Fatal(err)
				}
				rep := <-verdicts
				total += time.Since(start)
				firstTotal += time.Duration(firstAt.Load())
				if rep.Status != grader.StatusPass {
					b.Fatalf("the correct reference did not pass: %s %s", rep.Status, rep.Message)
				}
			}
			b.ReportMetric(float64(total.Microseconds())/1000/float64(b.N), "ms/verdict")
			b.ReportMetric(float64(firstTotal.Microseconds())/1000/float64(b.N), "ms/first-verdict")
			b.Logf("failed-first stand-ins: %v", first)
		})
	}
}
