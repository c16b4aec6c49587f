// Package faultdiff applies the fault.diff of a broken reference submission (testdata/
// references/<kata>/<lang>/<ref>/fault.diff) on top of the correct reference, so that each
// broken reference is stored as exactly its one fault. Only the tests use it. Parsing and
// applying are go-gitdiff's (the fork gitleaks maintains, already a dependency of the grader).
package faultdiff

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/gitleaks/go-gitdiff/gitdiff"
)

// Apply applies diff, a unified diff (`diff -ru correct changed`, git diff, Python difflib), to
// the files under dir. Paths are read like `patch -p1`: their first component ("a/", "b/",
// "changed/") is dropped. Application is strict: a hunk whose context or removed lines do not
// match the file is an error naming the file, never a silent no-op; a diff with no file in it
// is an error too. "--- /dev/null" creates a file.
func Apply(dir, diff string) error {
	parsed, err := gitdiff.Parse(strings.NewReader(diff))
	if err != nil {
		return err
	}
	var files []*gitdiff.File
	for f := range parsed { // read to the end: the parser's goroutine ends when drained
		files = append(files, f)
	}
	if len(files) == 0 {
		return errors.New("no file changes in the diff")
	}
	for _, f := range files {
		name := f.NewName
		if f.IsDelete {
			name = f.OldName
		}
		if _, rest, ok := strings.Cut(name, "/"); ok {
			name = rest
		}
		path := filepath.Join(dir, filepath.FromSlash(name))
		if f.IsDelete {
			if err := os.Remove(path); err != nil {
				return err
			}
			continue
		}
		var src []byte
		if !f.IsNew {
			if src, err = os.ReadFile(path); err != nil {
				return fmt.Errorf("%s: %w", name, err)
			}
		}
		var out bytes.Buffer
		if err := gitdiff.Apply(&out, bytes.NewReader(src), f); err != nil {
			return fmt.Errorf("%s does not match the diff: %w", name, err)
		}
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(path, out.Bytes(), 0o644); err != nil {
			return err
		}
	}
	return nil
}
