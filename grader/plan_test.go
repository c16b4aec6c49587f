package grader_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/kata-mcp/kata/grader"
)

// TestPlanIsTheSameUnderEverySeed: the plan of a grade — every config rule, every case of every
// server fixture and every case of every client scenario it runs — is the same under 20 seeds,
// for every kata, computed without running learner code (docs/grading.md#seed: the seed varies
// values, never coverage). A variant drawn by seed (a status, a malformed form, a category, a
// wording of the prose) changes the plan and fails here.
func TestPlanIsTheSameUnderEverySeed(t *testing.T) {
	lib := library(t)
	for _, id := range lib.IDs() {
		p, _ := lib.Get(id)
		base := grader.Plan(p, 1)
		if len(base) == 0 {
			continue
		}
		// Every fixture and scenario is in the plan.
		ids := map[string]int{}
		for _, it := range base {
			ids[it.ID]++
		}
		if set := p.Fixtures["server"]; set != nil {
			for _, f := range set.Fixtures {
				if ids[f.ID] == 0 {
					t.Errorf("%s: fixture %s is not in the plan", id, f.ID)
				}
			}
		}
		if p.Scenarios != nil {
			for _, s := range p.Scenarios.Scenarios {
				if ids[s.ID] == 0 {
					t.Errorf("%s: scenario %s is not in the plan", id, s.ID)
				}
			}
			// The scenario of an unknown category (client-unknown-category, or
			// repair-unknown-category in a repair loop) plays all seven forms in every run.
			unknown := 0
			for sid, n := range ids {
				if strings.HasSuffix(sid, "-unknown-category") {
					unknown++
					if n != 7 {
						t.Errorf("%s: %s has %d cases, want 7", id, sid, n)
					}
				}
			}
			if unknown == 0 {
				t.Errorf("%s: no scenario of an unknown category", id)
			}
		}
		t.Logf("%s: %d cases in the plan", id, len(base))
		for seed := int64(2); seed <= 20; seed++ {
			got := grader.Plan(p, seed*7919)
			if d := planDiff(base, got); d != "" {
				t.Errorf("%s: the plan under seed %d differs from seed 1's: %s", id, seed*7919, d)
				break
			}
		}
	}
}

// planDiff names the first item where two plans differ, or "".
func planDiff(a, b []grader.PlanItem) string {
	for i := range max(len(a), len(b)) {
		var x, y string
		if i < len(a) {
			x = a[i].String()
		}
		if i < len(b) {
			y = b[i].String()
		}
		if x != y {
			return fmt.Sprintf("item %d:\n  %s\n  %s", i+1, x, y)
		}
	}
	return ""
}
