package class

import (
	"io"
	"os"
	"path/filepath"
	"testing"
)

// TestClassOutputIsPrivate: the class results store and its folder are created 0600 and 0700,
// like kata's own state: they hold every learner's points and the seed.
func TestClassOutputIsPrivate(t *testing.T) {
	out := filepath.Join(t.TempDir(), "out")
	s, err := OpenStore(filepath.Join(out, StoreFile))
	if err != nil {
		t.Fatal(err)
	}
	s.Close()
	for path, want := range map[string]os.FileMode{out: 0o700, filepath.Join(out, StoreFile): 0o600} {
		fi, err := os.Stat(path)
		if err != nil {
			t.Fatal(err)
		}
		if got := fi.Mode().Perm(); got != want {
			t.Errorf("%s: mode %#o, want %#o", filepath.Base(path), got, want)
		}
	}
	dir := filepath.Join(out, "learners")
	if _, err := WriteLearnerFiles(dir, &Report{}); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Stat(dir); err != nil || fi.Mode().Perm() != 0o700 {
		t.Errorf("the learners folder: %v, %v", fi.Mode().Perm(), err)
	}
	p := filepath.Join(out, "x.json")
	if err := writeFile(p, func(w io.Writer) error { return nil }); err != nil {
		t.Fatal(err)
	}
	if fi, _ := os.Stat(p); fi.Mode().Perm() != 0o600 {
		t.Errorf("a learner file: mode %#o, want 0600", fi.Mode().Perm())
	}
}
