package grader

import (
	"slices"
	"testing"
	"time"
)

// TestGradeRunCarriesTestsWithoutText: the run the progress store keeps (and a workshop's
// board is sent) has each test's id, status, step and broken rule ids, and none of its
// message or output.
func TestGradeRunCarriesTestsWithoutText(t *testing.T) {
	rep := &Report{Status: StatusFail, Kata: "k", Workspace: "/w", Tests: []TestResult{
		{ID: "tools-list", Status: StatusPass, TaskID: 1},
		{ID: "f1", Status: StatusFail, TaskID: 2, Message: "secret detail", Output: "stderr of the learner", FailedRules: []RuleID{RuleCategory, RuleRetryable}},
	}}
	g := rep.GradeRun(time.Unix(0, 0))
	if g.Passed != 1 || g.Failed != 1 || len(g.Tests) != 2 {
		t.Fatalf("GradeRun %+v", g)
	}
	if tt := g.Tests[1]; tt.ID != "f1" || tt.Status != StatusFail || tt.Step != 2 || !slices.Equal(tt.Rules, []string{"category", "retryable"}) {
		t.Errorf("test %+v", tt)
	}
}
