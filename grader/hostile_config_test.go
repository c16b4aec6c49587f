package grader_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kata-mcp/kata/grader"
	"github.com/kata-mcp/kata/grader/sandbox"
)

// TestHostileConfigSymlinkIsRefused: a kata.json or .mcp.json that is a symbolic link to a file
// outside the workspace is refused with a clear error, and nothing of the file it points to
// (not even its first character) reaches the message; a link to a file inside the workspace is
// read as before.
func TestHostileConfigSymlinkIsRefused(t *testing.T) {
	outside := filepath.Join(t.TempDir(), "secret.json")
	if err := os.WriteFile(outside, []byte("Xcanary-secret"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"kata.json", ".mcp.json"} {
		ws := t.TempDir()
		if err := os.Symlink(outside, filepath.Join(ws, name)); err != nil {
			t.Fatal(err)
		}
		var err error
		if name == "kata.json" {
			_, err = grader.LoadKataConfig(ws)
		} else {
			_, err = grader.LoadMCPConfig(ws)
		}
		if err == nil {
			t.Fatalf("%s linked outside the workspace was read", name)
		}
		msg := err.Error()
		if strings.Contains(msg, "canary") || strings.Contains(msg, "'X'") || strings.Contains(msg, `"X"`) {
			t.Errorf("%s: the message leaks the linked file: %q", name, msg)
		}
		if !strings.Contains(msg, name) || !strings.Contains(msg, "outside the workspace") {
			t.Errorf("%s: the message does not say the link leaves the workspace: %q", name, msg)
		}
	}
	ws := t.TempDir()
	os.Mkdir(filepath.Join(ws, "conf"), 0o755)
	os.WriteFile(filepath.Join(ws, "conf", "kata.json"), []byte(`{"kata": "mcp-structured-errors"}`), 0o644)
	os.Symlink(filepath.Join("conf", "kata.json"), filepath.Join(ws, "kata.json"))
	if kc, err := grader.LoadKataConfig(ws); err != nil || kc.Kata != "mcp-structured-errors" {
		t.Errorf("kata.json linked to a file inside the workspace: %v", err)
	}
}

// TestOutsidePathSaysOnlyTheWorkspaceIsVisible: under bwrap, a server whose .mcp.json names a
// file outside the workspace (an absolute path to the learner's script elsewhere) fails to
// start, and the message says that only the workspace and the system folders are visible in
// the sandbox, not just the interpreter's "cannot find module".
func TestOutsidePathSaysOnlyTheWorkspaceIsVisible(t *testing.T) {
	if !sandbox.DetectIsolation().Isolated() {
		t.Skip("bwrap is not available: " + sandbox.DetectIsolation().Reason)
	}
	if _, err := exec.LookPath("python3"); err != nil {
		t.Skip("no python3")
	}
	elsewhere, err := os.MkdirTemp("/var/tmp", "kata-elsewhere-") // not under /tmp, which a sandbox replaces
	if err != nil {
		t.Skipf("no folder outside /tmp: %v", err)
	}
	defer os.RemoveAll(elsewhere)
	script := filepath.Join(elsewhere, "server.py")
	os.WriteFile(script, []byte("print('hi')\n"), 0o644)
	ws := t.TempDir()
	write(ws, "kata.json", `{"kata": "mcp-error-responses"}`)
	write(ws, ".mcp.json", `{"mcpServers": {"orders": {"command": "python3", "args": ["`+script+`"]}}}`)
	rep := grader.Grade(context.Background(), library(t), ws, grader.Options{})
	if rep.Status != grader.StatusError || !strings.Contains(rep.Message, "only the workspace and the system folders are visible") || !strings.Contains(rep.Message, script) {
		t.Errorf("a server file outside the workspace: status %s, message %q", rep.Status, rep.Message)
	}
}
