package grader

import (
	"maps"
	"slices"
	"testing"

	"github.com/kata-mcp/kata/katas"
	"github.com/kata-mcp/kata/packets"
)

// fullReport returns a report with one test per planned test of p, all passing but those of
// the steps in failing (each of those fails its first test).
func fullReport(p *katas.Packet, failing ...int) *Report {
	r := &Report{}
	for _, n := range slices.Sorted(maps.Keys(plannedSteps(p))) {
		for i := range plannedSteps(p)[n] {
			status := StatusPass
			if i == 0 && slices.Contains(failing, n) {
				status = StatusFail
			}
			r.Tests = append(r.Tests, TestResult{Step: n, Status: status})
		}
	}
	return r
}

// TestScoreOf: without "points" every test is worth one point; with it a step is worth its
// points, shared by its tests; a report with no tests scores 0 of the kata's worth; and the
// planned tests are exactly the tests a run reports.
func TestScoreOf(t *testing.T) {
	lib, err := katas.Discover(packets.FS, "embedded")
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range lib.Packets() {
		total := 0
		for _, n := range plannedSteps(p) {
			total += n
		}
		if want := (&run{packet: p}).countTests(); total != want {
			t.Errorf("%s: %d planned tests, a run reports %d", p.ID, total, want)
		}
	}
	p, _ := lib.Get("mcp-structured-errors")
	planned := plannedSteps(p)
	all := 0
	for _, n := range planned {
		all += n
	}
	s := ScoreOf(p, fullReport(p, 2))
	if s.Max != float64(all) || s.Points != float64(all-1) {
		t.Errorf("unweighted: %v of %v, want %d of %d", s.Points, s.Max, all-1, all)
	}
	if st, ok := s.Step(2); !ok || st.Max != float64(planned[2]) || st.Passed != planned[2]-1 || st.Tests != planned[2] {
		t.Errorf("unweighted step 2: %+v (ok %v), want %d tests worth one point each", st, ok, planned[2])
	}

	weighted := *p
	weighted.Points = map[string]float64{"2": 10}
	s = ScoreOf(&weighted, fullReport(&weighted, 2))
	wantMax := float64(all-planned[2]) + 10
	wantPoints := round2(wantMax - 10.0/float64(planned[2]))
	if s.Max != wantMax || s.Points != wantPoints {
		t.Errorf("weighted: %v of %v, want %v of %v", s.Points, s.Max, wantPoints, wantMax)
	}
	if got := s.TestMax(2); got != 10/float64(planned[2]) {
		t.Errorf("TestMax(2) = %v, want %v", got, 10/float64(planned[2]))
	}
	if s.TestMax(1) != 1 {
		t.Errorf("TestMax(1) = %v, want 1 (step 1 is not weighed)", s.TestMax(1))
	}
	if pct := s.Percent(); pct <= 0 || pct >= 100 {
		t.Errorf("Percent = %v", pct)
	}

	s = ScoreOf(p, &Report{Status: StatusError, Tests: []TestResult{}})
	if s.Points != 0 || s.Max != float64(all) {
		t.Errorf("an error report: %v of %v, want 0 of %d", s.Points, s.Max, all)
	}
	if got := FormatPoints(10.0 / 3); got != "3.33" {
		t.Errorf("FormatPoints(10/3) = %q", got)
	}
}
