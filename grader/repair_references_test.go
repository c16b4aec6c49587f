package grader_test

import (
	"context"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/kata-mcp/kata/grader"
	"github.com/kata-mcp/kata/grader/references"
	"github.com/kata-mcp/kata/katas"
	"github.com/kata-mcp/kata/packets"
)

// repairKata is the tiny packet in testdata/packets that grades a repair-loop client only; its
// fixtures/client.json is the validation-retry-error-feedback kata's.
const repairKata = "repair-kata"

// repairReferences is the folder of the repair kata's Python client references: under
// testdata/references once the kata has landed, under staging/ before.
func repairReferences(t *testing.T) string {
	t.Helper()
	for _, dir := range []string{
		filepath.Join("..", "testdata", "references", "validation-retry-error-feedback", "python"),
		filepath.Join("..", "staging", "validation-retry-error-feedback", "references", "python"),
	} {
		if _, err := os.Stat(filepath.Join(dir, references.Correct, "client.py")); err == nil {
			return dir
		}
	}
	t.Fatal("no Python references of validation-retry-error-feedback")
	return ""
}

// repairLibrary is the embedded packets (and their shims) with the tiny repair packet added.
func repairLibrary(t *testing.T) *katas.Library {
	t.Helper()
	lib := katas.NewLibrary()
	if err := lib.Add(packets.FS, "embedded"); err != nil {
		t.Fatal(err)
	}
	if err := lib.AddDir(filepath.Join("testdata", "packets")); err != nil {
		t.Fatal(err)
	}
	return lib
}

// TestRepairLoopReferences grades the repair kata's correct Python client and each broken one
// (client-broken-*, one rule each) against the tiny packet: the correct one passes under two
// seeds, and each broken one fails exactly the scenarios its expect.json names, breaking
// exactly its rules. Each grade plays every scenario through one client process.
func TestRepairLoopReferences(t *testing.T) {
	lib := repairLibrary(t)
	p, ok := lib.Get(repairKata)
	if !ok {
		t.Fatalf("no packet %s", repairKata)
	}
	root := repairReferences(t)
	entries, err := os.ReadDir(root)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		name := e.Name()
		if name != references.Correct && !strings.HasPrefix(name, "client-broken-") {
			continue // a server reference: the tiny packet grades no server
		}
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			ref := filepath.Join(root, name)
			want, err := references.ReadExpectation(ref)
			if err != nil {
				t.Fatal(err)
			}
			dir := filepath.Join(t.TempDir(), "ws")
			if err := references.Workspace(p, "python", ref, dir); err != nil {
				t.Fatal(err)
			}
			seeds := []int64{1}
			if name == references.Correct {
				seeds = []int64{1, 2}
			}
			for _, seed := range seeds {
				rep := grader.Grade(context.Background(), lib, dir, grader.Options{Seed: seed, SeedSet: true})
				var fail []string
				broken := map[string]bool{}
				for _, tr := range rep.Tests {
					if tr.Status == grader.StatusPass {
						continue
					}
					fail = append(fail, tr.ID)
					for _, r := range tr.FailedRules {
						broken[string(r)] = true
					}
				}
				slices.Sort(fail)
				if !slices.Equal(fail, want.Fail) {
					t.Errorf("seed %d: failing scenarios\n got  %v\n want %v", seed, fail, want.Fail)
					for _, tr := range rep.Tests {
						if tr.Status != grader.StatusPass {
							t.Logf("%s: %s", tr.ID, tr.Message)
						}
					}
				}
				if got := slices.Sorted(maps.Keys(broken)); len(want.Rules) > 0 && !slices.Equal(got, want.Rules) {
					t.Errorf("seed %d: broken rules %v, want exactly %v", seed, got, want.Rules)
				}
			}
		})
	}
}

// TestRepairShimIsWritten: a packet that names the server and repair shims gets both in its
// workspace, through the generic shim code, and the repair shim's Go file compiles beside the
// server shim's.
func TestRepairShimIsWritten(t *testing.T) {
	p, _ := repairLibrary(t).Get(repairKata)
	dir := t.TempDir()
	if err := p.Init(dir, "python"); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"mcp_shim.py", "kata_repair_shim.py", "client.py", "kata.json"} {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			t.Errorf("the workspace lacks %s: %v", f, err)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "kata_client_shim.py")); err == nil {
		t.Error("the workspace has the retry client's shim, which the packet does not name")
	}
}
