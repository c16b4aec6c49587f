package grader

import (
	"os"
	"testing"

	"github.com/kata-mcp/kata/grader/internal/faultdiff"
)

// applyFault applies a broken reference's fault.diff to the workspace dir (see faultdiff).
func applyFault(t testing.TB, dir, diffPath string) {
	t.Helper()
	src, err := os.ReadFile(diffPath)
	if err != nil {
		t.Fatal(err)
	}
	if err := faultdiff.Apply(dir, string(src)); err != nil {
		t.Fatalf("%s: %v", diffPath, err)
	}
}
