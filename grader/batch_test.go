package grader_test

import (
	"context"
	"path/filepath"
	"slices"
	"sync"
	"testing"

	"github.com/kata-mcp/kata/grader"
	"github.com/kata-mcp/kata/katas"
)

// TestBatchGradeGivesTheSameVerdict: a grade of one learner of a batch (Options.Batch: the
// fixtures that wait for a timeout run on the main server instance, after the others,
// docs/grading.md#instances) gives the same verdict as a grade alone under the same seed —
// the same tests, each with the same status, message, note and broken rules, and the same
// points — on the correct reference and on one whose fault shows in exactly those fixtures
// (broken-no-timeout); and it starts fewer learner processes: the main instance, the refused
// fixtures' instance and the client, where a grade alone starts one more instance per fixture
// that waits. TestReferenceSubmissions grades every other reference's first seed alone and
// its other seeds as a batch does, and holds their failing tests and rules the same.
func TestBatchGradeGivesTheSameVerdict(t *testing.T) {
	lib := library(t)
	const kata, lang = "mcp-structured-errors", "python"
	p, _ := lib.Get(kata)
	waiting := 0
	for _, f := range p.Fixtures["server"].Fixtures {
		if f.Backend.Kind == katas.BackendSlow || f.Backend.SlowPage {
			waiting++
		}
	}
	if waiting == 0 {
		t.Fatalf("%s has no fixture that waits for a timeout: nothing to compare", kata)
	}
	for _, name := range []string{"correct", "broken-no-timeout"} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			ref := filepath.Join("..", "testdata", "references", kata, lang, name)
			// Each mode grades a workspace of its own, both at once.
			reps := make([]*grader.Report, 2)
			var wg sync.WaitGroup
			for i, batch := range []bool{false, true} {
				dir := workspace(t, lib, kata, lang, ref)
				wg.Go(func() {
					reps[i] = grader.Grade(context.Background(), lib, dir, grader.Options{Seed: 5, SeedSet: true, Batch: batch})
					assertNoProcessesIn(t, dir)
				})
			}
			wg.Wait()
			alone, batch := reps[0], reps[1]
			if alone.Status != batch.Status || alone.Message != batch.Message || alone.Points != batch.Points {
				t.Errorf("alone: %s %q %v points; in a batch: %s %q %v points", alone.Status, alone.Message, alone.Points, batch.Status, batch.Message, batch.Points)
			}
			if name == "correct" && alone.Status != grader.StatusPass {
				t.Fatalf("the correct reference did not pass: %s %s", alone.Status, alone.Message)
			}
			if name != "correct" && alone.Status != grader.StatusFail {
				t.Fatalf("the broken reference did not fail: %s %s", alone.Status, alone.Message)
			}
			if len(alone.Tests) != len(batch.Tests) {
				t.Fatalf("%d tests alone, %d in a batch", len(alone.Tests), len(batch.Tests))
			}
			for i, a := range alone.Tests {
				b := batch.Tests[i]
				if a.ID != b.ID || a.Status != b.Status || a.Message != b.Message || a.Note != b.Note || !slices.Equal(a.FailedRules, b.FailedRules) {
					t.Errorf("test %d differs:\n alone:      %s %s %v %q %q\n in a batch: %s %s %v %q %q", i, a.ID, a.Status, a.FailedRules, a.Message, a.Note, b.ID, b.Status, b.FailedRules, b.Message, b.Note)
				}
			}
			// The correct reference never hangs or dies, so no instance is restarted.
			if name == "correct" {
				if got, want := batch.Timings.Processes, 3; got != want {
					t.Errorf("in a batch the grade started %d processes, want %d: the main instance, the refused fixtures' and the client", got, want)
				}
				if got, want := alone.Timings.Processes, 3+waiting; got != want {
					t.Errorf("alone the grade started %d processes, want %d: also one instance per fixture that waits (%d)", got, want, waiting)
				}
			}
		})
	}
}
