package cli

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"
)

// TestSkippedPacketWarningsGoToTheUI (issue 16, defect 7): loading for the terminal UI writes
// nothing to stderr (it would print behind the full screen and show only after q); the
// warnings come back as lines for the UI to show, naming the folder and the problem.
func TestSkippedPacketWarningsGoToTheUI(t *testing.T) {
	dir := t.TempDir()
	copyShipped(t, "mcp-structured-errors", dir, map[string]func(string) string{
		"packet.json": func(s string) string {
			return strings.Replace(s, `"id": "mcp-structured-errors"`, `"id": "my-structured-errors"`, 1)
		},
	})
	var out, errb bytes.Buffer
	cmd := newRootCmd(&out, &errb)
	if err := cmd.ParseFlags([]string{"--packets", dir}); err != nil {
		t.Fatal(err)
	}
	var warnings strings.Builder
	lib, err := loadLibraryTo(cmd, &warnings)
	if err != nil {
		t.Fatal(err)
	}
	if errb.Len() != 0 {
		t.Errorf("stderr got %q", errb.String())
	}
	lines := warningLines(warnings.String(), nil)
	joined := strings.Join(lines, "\n")
	if len(lines) < 2 || !strings.Contains(joined, "skipped packet(s) from "+dir) ||
		!strings.Contains(joined, filepath.Join(dir, "mcp-structured-errors", "packet.json")) || !strings.Contains(joined, "differs from the folder name") ||
		strings.Contains(joined, "kata: warning:") {
		t.Errorf("warning lines:\n%s", joined)
	}
	if p, ok := lib.Get("mcp-structured-errors"); !ok || p.Source != "embedded" {
		t.Errorf("the embedded packet should stand in: %+v", p)
	}
}
