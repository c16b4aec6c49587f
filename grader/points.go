package grader

import (
	"maps"
	"math"
	"slices"

	"github.com/kata-mcp/kata/katas"
)

// StepScore is one task step's share of a score: the points earned and the points the step is
// worth, and how many of its tests ran and passed.
type StepScore struct {
	Step   int     `json:"step"`
	Points float64 `json:"points"`
	Max    float64 `json:"max_points"`
	Tests  int     `json:"tests"`
	Passed int     `json:"passed"`
}

// Score is a report in points (docs/packets.md#points): every task step is worth the points
// packet.json's "points" gives it, shared evenly by the step's tests, or one point per test;
// a test earns its share when it passes. Max is what the kata is worth, whatever the report
// holds, so a submission that could not be graded scores 0 of Max.
type Score struct {
	Points float64     `json:"points"`
	Max    float64     `json:"max_points"`
	Steps  []StepScore `json:"steps"`
	// perTest maps a step to the points one of its tests is worth.
	perTest map[int]float64
}

// Percent is Points as a share of Max, 0–100 (0 when the kata is worth nothing).
func (s Score) Percent() float64 {
	if s.Max == 0 {
		return 0
	}
	return 100 * s.Points / s.Max
}

// TestMax is what one test of the step is worth (one point for a step the kata does not
// list).
func (s Score) TestMax(step int) float64 {
	if v, ok := s.perTest[step]; ok {
		return v
	}
	return 1
}

// Step returns the score of task step n, and whether the kata grades it.
func (s Score) Step(n int) (StepScore, bool) {
	i := slices.IndexFunc(s.Steps, func(st StepScore) bool { return st.Step == n })
	if i < 0 {
		return StepScore{}, false
	}
	return s.Steps[i], true
}

// plannedSteps returns, for each task step, how many tests a full run of the packet reports
// for it: the config rules, tools-list (step 1), the server fixtures, stdout-protocol-only
// and the client scenarios (docs/grading.md#katas), as countTests counts them.
func plannedSteps(p *katas.Packet) map[int]int {
	steps := map[int]int{}
	grades := func(part string) bool { return slices.Contains(p.Graded, part) }
	if p.ConfigRules != nil && grades("config") {
		for _, c := range p.ConfigRules.Rules {
			steps[c.Task]++
		}
	}
	if set := p.Fixtures["server"]; set != nil && grades("server") {
		steps[1]++
		for _, f := range set.Fixtures {
			steps[f.Task]++
		}
		steps[protocolStep(set)]++
	}
	if p.Scenarios != nil && grades("client") {
		for _, s := range p.Scenarios.Scenarios {
			steps[s.Task]++
		}
	}
	return steps
}

// ScoreOf scores the report against packet p (docs/packets.md#points).
func ScoreOf(p *katas.Packet, r *Report) Score {
	planned := plannedSteps(p)
	s := Score{perTest: map[int]float64{}}
	idx := map[int]int{}
	for _, n := range slices.Sorted(maps.Keys(planned)) {
		worth := float64(planned[n])
		if v, ok := p.StepPoints(n); ok {
			worth = v
		}
		s.perTest[n] = worth / float64(planned[n])
		idx[n] = len(s.Steps)
		s.Steps = append(s.Steps, StepScore{Step: n, Max: worth})
		s.Max += worth
	}
	for _, t := range r.Tests {
		i, ok := idx[t.Step]
		if !ok {
			continue // a step the packet does not plan cannot happen; it earns nothing
		}
		st := &s.Steps[i]
		st.Tests++
		if t.Status == StatusPass {
			st.Passed++
			st.Points += s.perTest[t.Step]
		}
	}
	for i := range s.Steps {
		s.Steps[i].Points = round2(s.Steps[i].Points)
		s.Points += s.Steps[i].Points
	}
	s.Points, s.Max = round2(s.Points), round2(s.Max)
	return s
}

// round2 rounds to two decimals, so shares such as 10/3 points add up the way a gradebook
// shows them.
func round2(v float64) float64 { return math.Round(v*100) / 100 }
