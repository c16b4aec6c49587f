package record

import (
	"slices"
	"testing"
	"time"

	"github.com/kata-mcp/kata/grader"
)

// TestGradeRunCarriesTestsWithoutText: the run the progress store keeps (and a workshop's
// board is sent) has each test's id, status, step and broken rule ids, and none of its
// message or output.
func TestGradeRunCarriesTestsWithoutText(t *testing.T) {
	rep := &grader.Report{Status: grader.StatusFail, Kata: "k", Workspace: "/w", Tests: []grader.TestResult{
		{ID: "tools-list", Status: grader.StatusPass, Step: 1},
		{ID: "f1", Status: grader.StatusFail, Step: 2, Message: "secret detail", Output: "stderr of the learner", FailedRules: []grader.RuleID{grader.RuleCategory, grader.RuleRetryable}},
	}}
	g := GradeRun(rep, time.Unix(0, 0))
	if g.Passed != 1 || g.Failed != 1 || len(g.Tests) != 2 {
		t.Fatalf("GradeRun %+v", g)
	}
	if tt := g.Tests[1]; tt.ID != "f1" || tt.Status != grader.StatusFail || tt.Step != 2 || !slices.Equal(tt.Rules, []string{"category", "retryable"}) {
		t.Errorf("test %+v", tt)
	}
}
