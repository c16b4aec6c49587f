package cli

import (
	"io"
	"os"
	"path/filepath"
	"testing"
)

// TestClassReportFilesArePrivate: the files kata class grade writes into its --out folder
// (report.html, the CSV and JSON) are created 0600 in a folder created 0700.
func TestClassReportFilesArePrivate(t *testing.T) {
	out := filepath.Join(t.TempDir(), "out")
	page := filepath.Join(out, "report.html")
	if err := writeFileWith(page, func(w io.Writer) error { _, err := io.WriteString(w, "<html>"); return err }); err != nil {
		t.Fatal(err)
	}
	for path, want := range map[string]os.FileMode{out: 0o700, page: 0o600} {
		if fi, err := os.Stat(path); err != nil || fi.Mode().Perm() != want {
			t.Errorf("%s: %v, %v; want mode %#o", path, fi.Mode().Perm(), err, want)
		}
	}
}
