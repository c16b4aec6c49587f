package grader_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/kata-mcp/kata/grader"
)

// BenchmarkGradeCorrect reports the wall time of a full grade (build, start-up, every
// fixture and scenario) of each language's correct reference, per kata, as ms/grade, and the
// slowest fixture's own time as slowest-fixture-ms (its name is logged with -v):
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
			b.Run(p.ID+"/"+lang, func(b *testing.B) {
				dir := workspace(b, lib, p.ID, lang, ref)
				// One untimed grade warms the build cache for compiled languages.
				grader.Grade(context.Background(), lib, dir, grader.Options{Seed: 1, SeedSet: true})
				b.ResetTimer()
				var slowest time.Duration
				slowestName := ""
				var total time.Duration
				for i := 0; i < b.N; i++ {
					start := time.Now()
					rep := grader.Grade(context.Background(), lib, dir, grader.Options{Seed: int64(i + 1), SeedSet: true})
					total += time.Since(start)
					if rep.Status != grader.StatusPass {
						b.Fatalf("the correct reference did not pass: %s %s", rep.Status, rep.Message)
					}
					for _, t := range rep.Tests {
						if t.Duration > slowest {
							slowest, slowestName = t.Duration, t.ID
						}
					}
				}
				b.ReportMetric(float64(total.Milliseconds())/float64(b.N), "ms/grade")
				b.ReportMetric(float64(slowest.Milliseconds()), "slowest-fixture-ms")
				b.Logf("slowest fixture: %s (%s)", slowestName, slowest.Round(time.Millisecond))
			})
		}
	}
}
