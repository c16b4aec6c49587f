package task

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestEditorCommand: the editor's fields are run on the workspace, in it; none means vi.
func TestEditorCommand(t *testing.T) {
	if c := editorCommand(nil, "/w", nil); strings.Join(c.Args, " ") != "vi /w" || c.Dir != "/w" {
		t.Errorf("default editor %v in %s", c.Args, c.Dir)
	}
	if c := editorCommand([]string{"code", "-w"}, "/w", []string{"server.py"}); strings.Join(c.Args, " ") != "code -w /w" || c.Dir != "/w" {
		t.Errorf("editor %v in %s", c.Args, c.Dir)
	}
	// With no editor set, vi opens the files to edit, not the folder (issue 27).
	if c := editorCommand(nil, "/w", []string{"server.py", "client.py"}); strings.Join(c.Args, " ") != "vi server.py client.py" || c.Dir != "/w" {
		t.Errorf("default editor on the files: %v in %s", c.Args, c.Dir)
	}
}

// filesToEdit names the workspace's files to edit that exist, the client's first when the
// first failure is the client's; a workspace of another shape has none.
func TestFilesToEdit(t *testing.T) {
	dir := t.TempDir()
	for _, f := range []string{"cmd/server/main.go", "cmd/client/main.go"} {
		if err := os.MkdirAll(filepath.Join(dir, filepath.Dir(f)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, f), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if got := filesToEdit(dir, "go", false); strings.Join(got, " ") != "cmd/server/main.go cmd/client/main.go" {
		t.Errorf("go: %v", got)
	}
	if got := filesToEdit(dir, "go", true); strings.Join(got, " ") != "cmd/client/main.go cmd/server/main.go" {
		t.Errorf("go, client first: %v", got)
	}
	if got := filesToEdit(dir, "python", false); len(got) != 0 {
		t.Errorf("python files in a go workspace: %v", got)
	}
}
