package grader_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/kata-mcp/kata/grader"
)

// TestDeclaredToolFeedback grades a tiny Python server of returns-mini (testdata/packets), a
// packet whose create_return is declared as data, in its correct form and in one broken form
// per feedback rule: each broken form fails exactly its rule, on every test it shows in.
func TestDeclaredToolFeedback(t *testing.T) {
	if _, err := exec.LookPath("python3"); err != nil {
		t.Skip("python3 not installed")
	}
	lib := repairLibrary(t) // the built-in packets (for their shims), then testdata/packets
	p, ok := lib.Get("returns-mini")
	if !ok {
		t.Fatal("returns-mini did not load")
	}
	cases := []struct {
		fault string
		want  []grader.RuleID
	}{
		{"", nil},
		{"first-only", []grader.RuleID{grader.RuleViolationsAllAtOnce}},
		{"vague", []grader.RuleID{grader.RuleViolationExpected}},
		{"echo", []grader.RuleID{grader.RuleNoSecretEcho}},
		{"backend", []grader.RuleID{grader.RuleNoRequestInvalid}},
		{"invent", []grader.RuleID{grader.RuleViolationsNoFalse}},
		{"stringify", []grader.RuleID{grader.RuleViolationReceived}},
		{"no-required", []grader.RuleID{grader.RuleToolsList}},
		// a constraint a model cannot read leaves it nothing to repair
		{"range", []grader.RuleID{grader.RuleRepair, grader.RuleViolationConstraint}},
	}
	for _, c := range cases {
		t.Run("fault="+c.fault, func(t *testing.T) {
			t.Parallel()
			dir := filepath.Join(t.TempDir(), "ws")
			if err := p.Init(dir, "python"); err != nil {
				t.Fatal(err)
			}
			server := filepath.Join(dir, "server.py")
			src, err := os.ReadFile(server)
			if err != nil {
				t.Fatal(err)
			}
			edited := strings.Replace(string(src), `FAULT = ""`, `FAULT = "`+c.fault+`"`, 1)
			if err := os.WriteFile(server, []byte(edited), 0o644); err != nil {
				t.Fatal(err)
			}
			rep := grader.Grade(context.Background(), lib, dir, grader.Options{Seed: 7, SeedSet: true})
			var broken []grader.RuleID
			var msgs []string
			for _, tr := range rep.Tests {
				for _, r := range tr.FailedRules {
					if !slices.Contains(broken, r) {
						broken = append(broken, r)
					}
				}
				if tr.Status != "pass" {
					msgs = append(msgs, tr.ID+": "+tr.Status+": "+tr.Message)
				}
			}
			if len(rep.Tests) == 0 {
				t.Fatalf("no test ran: %+v", rep)
			}
			if testing.Verbose() {
				for _, tr := range rep.Tests {
					t.Logf("%s %s %v\n%s", tr.ID, tr.Status, tr.FailedRules, tr.Message)
				}
			}
			slices.Sort(broken)
			if !slices.Equal(broken, c.want) {
				t.Errorf("broke %v, want %v\n%s", broken, c.want, strings.Join(msgs, "\n\n"))
			}
		})
	}
}
