package grader

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/kata-mcp/kata/grader/sandbox"
	"github.com/kata-mcp/kata/katas"
	"github.com/kata-mcp/kata/packets"
)

// clientWorkspace writes the kata's starter workspace with the correct reference client and,
// when fault is set, that broken client over it.
func clientWorkspace(t *testing.T, p *katas.Packet, fault string) string {
	t.Helper()
	dir := t.TempDir()
	if err := p.Init(dir, "python"); err != nil {
		t.Fatal(err)
	}
	refs := filepath.Join("..", "testdata", "references", p.ID, "python")
	b, err := os.ReadFile(filepath.Join(refs, "correct", "client.py"))
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(dir, "client.py"), b, 0o644)
	if fault != "" {
		applyFault(t, dir, filepath.Join(refs, fault, "fault.diff"))
	}
	return dir
}

// playSeeds plays the scenarios of every seed in seeds through one client process and
// returns, per seed, the ids of the scenarios that failed.
func playSeeds(t *testing.T, p *katas.Packet, dir string, seeds int) map[int64][]string {
	t.Helper()
	spec := launchSpec{dir: dir, command: "python3", args: []string{"client.py"}, env: sandbox.PlainEnv(nil)}
	failed := map[int64][]string{}
	var c *clientProc
	defer func() {
		if c != nil {
			c.proc.Kill(0)
		}
	}()
	for seed := int64(1); seed <= int64(seeds); seed++ {
		for _, d := range drawScenarios(p.Scenarios, p.Contract, seed) {
			for _, cs := range d.cases {
				if c == nil {
					var err error
					if c, err = startClient(spec); err != nil {
						t.Fatal(err)
					}
				}
				res := playScenario(context.Background(), c, d, cs)
				if probs := checkScenario(d, cs, res); len(probs) > 0 && !slices.Contains(failed[seed], d.ID) {
					failed[seed] = append(failed[seed], d.ID)
				}
				if res.broken {
					c.proc.Kill(0)
					c = nil
				}
			}
		}
	}
	return failed
}

// TestClientHarnessOverManySeeds: the correct reference client passes every case of every
// scenario on 3 seeds, and each broken client fails the same scenarios on each of 3 seeds
// (docs/grading.md#seed: every run plays every variant, so the verdict does not depend on the
// seed; before, a client that read the prose passed under some seeds). That every run plays the
// same cases under any seed is TestPlanIsTheSameUnderEverySeed's, on 20 seeds without running
// a client; here the seeds vary the values the client sees.
func TestClientHarnessOverManySeeds(t *testing.T) {
	lib, err := katas.Discover(packets.FS, "embedded")
	if err != nil {
		t.Fatal(err)
	}
	const seeds = 3
	for _, p := range lib.Packets() {
		if p.Scenarios == nil {
			continue
		}
		t.Run(p.ID+"/correct", func(t *testing.T) {
			t.Parallel()
			failed := playSeeds(t, p, clientWorkspace(t, p, ""), seeds)
			for seed, ids := range failed {
				t.Errorf("seed %d: the correct client failed %v", seed, ids)
			}
		})
		faults := []string{"client-broken-ignores-retry-after", "client-broken-retries-forever", "client-broken-retries-auth", "client-broken-reads-prose", "client-broken-no-unknown-log"}
		if repairScenarios(p) {
			// A repair loop's faults are its own (TestRepairLoopReferences grades them all).
			faults = []string{"client-broken-same-arguments-loop", "client-broken-reads-prose"}
		}
		for _, fault := range faults {
			t.Run(p.ID+"/"+fault, func(t *testing.T) {
				t.Parallel()
				const brokenSeeds = 3
				failed := playSeeds(t, p, clientWorkspace(t, p, fault), brokenSeeds)
				if len(failed[1]) == 0 {
					t.Errorf("seed 1: %s passed every scenario", fault)
				}
				for seed := int64(2); seed <= brokenSeeds; seed++ {
					if !slices.Equal(failed[seed], failed[1]) {
						t.Errorf("seed %d: %s failed %v; under seed 1 it failed %v", seed, fault, failed[seed], failed[1])
					}
				}
			})
		}
	}
}

// TestOracleFollowsTheRules pins the oracle on hand-written cases of docs/grading.md#client-rules.
func TestOracleFollowsTheRules(t *testing.T) {
	three, one, two := 3, 1.0, 2.0
	pol := katas.Policy{MaxRetries: &three, BaseDelaySeconds: &one, Multiplier: &two,
		Categories: map[string]bool{"auth": false, "rate_limit": true, "transient": true, "validation": false}, Escalate: []string{"auth"}}
	tr := map[string]any{"isError": true, "errorCategory": "transient", "isRetryable": true, "retryAfterSeconds": nil}
	ok := map[string]any{"isError": false}
	cases := []struct {
		name     string
		payloads []map[string]any
		want     string
	}{
		{"success", []map[string]any{ok}, `invoke → outcome success (category null)`},
		{"backoff then success", []map[string]any{tr, tr, ok}, `invoke → sleep 1 → invoke → sleep 2 → invoke → outcome success (category null)`},
		{"exhausted", []map[string]any{tr}, `invoke → sleep 1 → invoke → sleep 2 → invoke → sleep 4 → invoke → outcome exhausted (category "transient")`},
		{"retry-after wins", []map[string]any{{"isError": true, "errorCategory": "rate_limit", "isRetryable": true, "retryAfterSeconds": 17.0}, ok}, `invoke → sleep 17 → invoke → outcome success (category null)`},
		{"escalate before retry", []map[string]any{{"isError": true, "errorCategory": "auth", "isRetryable": true}}, `invoke → outcome escalate (category "auth")`},
		{"unknown", []map[string]any{{"isError": true, "isRetryable": true}}, `invoke → log unknown → outcome abort (category "unknown")`},
		{"string isError is malformed", []map[string]any{{"isError": "true", "errorCategory": "transient"}}, `invoke → log unknown → outcome abort (category "unknown")`},
		{"null isError is malformed", []map[string]any{{"isError": nil, "errorCategory": "transient", "isRetryable": true}}, `invoke → log unknown → outcome abort (category "unknown")`},
		{"numeric isError is malformed", []map[string]any{{"isError": 1.0}}, `invoke → log unknown → outcome abort (category "unknown")`},
		{"absent isError is success", []map[string]any{{"order": map[string]any{}}}, `invoke → outcome success (category null)`},
		{"false isError is success", []map[string]any{{"isError": false, "errorCategory": "transient"}}, `invoke → outcome success (category null)`},
		{"server says no", []map[string]any{{"isError": true, "errorCategory": "transient", "isRetryable": false}}, `invoke → outcome abort (category "transient")`},
		{"string isRetryable is not true", []map[string]any{{"isError": true, "errorCategory": "transient", "isRetryable": "true"}}, `invoke → outcome abort (category "transient")`},
	}
	for _, c := range cases {
		if got := traceString(expectedTrace(pol, c.payloads)); got != c.want {
			t.Errorf("%s:\n got  %s\n want %s", c.name, got, c.want)
		}
	}
}

func copyFile(tb testing.TB, from, to string) {
	tb.Helper()
	b, err := os.ReadFile(from)
	if err != nil {
		tb.Fatal(err)
	}
	if err := os.WriteFile(to, b, 0o644); err != nil {
		tb.Fatal(err)
	}
}
