package references

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kata-mcp/kata/katas"
	"github.com/kata-mcp/kata/packets"
)

// TestWorkspaceLaysTheFaultOverTheCorrectReference: a broken reference's workspace is the
// template, then correct/, then its fault.diff; the reference's notes are not copied; a
// fault.diff that does not apply is an error naming it.
func TestWorkspaceLaysTheFaultOverTheCorrectReference(t *testing.T) {
	lib, err := katas.Discover(packets.FS, "embedded")
	if err != nil {
		t.Fatal(err)
	}
	p, _ := lib.Get("mcp-structured-errors")
	refs := filepath.Join("..", "..", "testdata", "references", "mcp-structured-errors", "python")
	dir := filepath.Join(t.TempDir(), "ws")
	if err := Workspace(p, "python", filepath.Join(refs, "broken-http-date"), dir); err != nil {
		t.Fatal(err)
	}
	server, err := os.ReadFile(filepath.Join(dir, "server.py"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(server), "FAULT") {
		t.Error("server.py does not carry the fault")
	}
	for _, f := range []string{"kata.json", ".mcp.json", "mcp_shim.py", "client.py"} {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			t.Errorf("%s is missing: %v", f, err)
		}
	}
	for _, f := range []string{"README.md", "expect.json", "fault.diff"} {
		if _, err := os.Stat(filepath.Join(dir, f)); err == nil {
			t.Errorf("the reference's %s was copied into the workspace", f)
		}
	}
	// A fault that does not apply to correct/ is an error, never a silent no-op.
	bad := t.TempDir()
	os.WriteFile(filepath.Join(bad, "fault.diff"), []byte("--- a/server.py\n+++ b/server.py\n@@ -1,1 +1,1 @@\n-no such line\n+x\n"), 0o644)
	err = Workspace(p, "python", bad, filepath.Join(t.TempDir(), "ws"))
	if err == nil || !strings.Contains(err.Error(), "fault.diff") {
		t.Errorf("a fault that does not apply: %v; want an error naming fault.diff", err)
	}
}
