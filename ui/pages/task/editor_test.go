package task

import (
	"strings"
	"testing"
)

// TestEditorCommand: the editor's fields are run on the workspace, in it; none means vi.
func TestEditorCommand(t *testing.T) {
	if c := editorCommand(nil, "/w"); strings.Join(c.Args, " ") != "vi /w" || c.Dir != "/w" {
		t.Errorf("default editor %v in %s", c.Args, c.Dir)
	}
	if c := editorCommand([]string{"code", "-w"}, "/w"); strings.Join(c.Args, " ") != "code -w /w" || c.Dir != "/w" {
		t.Errorf("editor %v in %s", c.Args, c.Dir)
	}
}
