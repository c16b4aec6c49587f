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

// TestSDKReferenceBuildsOnTheLanguagesCorrectReference: a reference in an sdk-* group lays its
// own correct/ over the language's correct/ (so it keeps the correct client), and a broken one
// there lays its fault over both; neither carries node_modules from the reference folder.
func TestSDKReferenceBuildsOnTheLanguagesCorrectReference(t *testing.T) {
	lib, err := katas.Discover(packets.FS, "embedded")
	if err != nil {
		t.Fatal(err)
	}
	p, _ := lib.Get("mcp-structured-errors")
	node := filepath.Join("..", "..", "testdata", "references", "mcp-structured-errors", "node")
	group := filepath.Join(node, "sdk-typescript")
	if got, want := Base(filepath.Join(group, "broken-zod-required")), filepath.Join(group, Correct); got != want {
		t.Errorf("Base(broken-zod-required) = %q, want %q", got, want)
	}
	if got, want := Base(filepath.Join(group, Correct)), filepath.Join(node, Correct); got != want {
		t.Errorf("Base(sdk-typescript/correct) = %q, want %q", got, want)
	}
	if got := Base(filepath.Join(node, Correct)); got != "" {
		t.Errorf("Base(node/correct) = %q, want none: it builds on the template", got)
	}
	dir := filepath.Join(t.TempDir(), "ws")
	if err := Workspace(p, "node", filepath.Join(group, "broken-zod-required"), dir); err != nil {
		t.Fatal(err)
	}
	read := func(name string) string {
		b, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	correctClient, err := os.ReadFile(filepath.Join(node, Correct, "client.mjs"))
	if err != nil {
		t.Fatal(err)
	}
	if read("client.mjs") != string(correctClient) {
		t.Error("client.mjs is not the language's correct client")
	}
	if server := read("server.mjs"); !strings.Contains(server, "McpServer") || !strings.Contains(server, "FAULT") {
		t.Error("server.mjs is not the SDK server with its fault")
	}
	if !strings.Contains(read("package.json"), "@modelcontextprotocol/sdk") || !NeedsInstall(dir) {
		t.Error("the SDK reference's package.json and lock file are not in the workspace")
	}
	if _, err := os.Stat(filepath.Join(dir, "node_modules")); err == nil {
		t.Error("node_modules was copied; it is installed, never laid")
	}
}

// TestOfflineInstallOutput: the words npm and go print when the registry or the module proxy
// cannot be reached mark the failure as the network's; a lock file npm rejects does not.
func TestOfflineInstallOutput(t *testing.T) {
	for out, want := range map[string]bool{
		"npm error code ENOTFOUND\nnpm error network request to https://registry.npmjs.org/zod failed": true,
		"npm error code EAI_AGAIN":                        true,
		`dial tcp: lookup proxy.golang.org: no such host`: true,
		"npm error code EUSAGE\nnpm error `npm ci` can only install packages when your package.json and package-lock.json are in sync": false,
		"verifying github.com/x/y@v1.0.0: checksum mismatch":                                                                           false,
	} {
		if got := offline(out); got != want {
			t.Errorf("offline(%q) = %v, want %v", out, got, want)
		}
	}
}
