// Package reference builds workspaces from the reference submissions kept in the repository's
// testdata/references/<kata>/<lang>/<ref>/ (testdata/references/README.md): a correct one that
// passes every test, and broken ones stored as exactly their one fault, a fault.diff against
// correct/. It lets tests outside the grader, and `kata validate --references`, lay a
// reference the same way the grader's own tests do.
package reference

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/kata-mcp/kata/grader/internal/faultdiff"
	"github.com/kata-mcp/kata/katas"
)

// Correct is the folder name of a kata's correct reference in each language.
const Correct = "correct"

// own lists the files of a reference folder that describe it rather than belong to the
// workspace.
var own = map[string]bool{"README.md": true, "expect.json": true, "fault.diff": true}

// Lay writes kata p's starter workspace for lang into dir (as p.Init does: dir must be empty
// or absent) and lays the reference folder ref over it, in the order the references README
// gives: a broken reference's sibling correct/ first, then ref's own files (all but README.md,
// expect.json, fault.diff and Python byte-code caches), then ref's fault.diff, applied
// strictly (a hunk that does not match is an error naming the file). An empty ref leaves the
// untouched template.
func Lay(p *katas.Packet, lang, ref, dir string) error {
	if err := p.Init(dir, lang); err != nil {
		return err
	}
	if ref == "" {
		return nil
	}
	if filepath.Base(ref) != Correct {
		if correct := filepath.Join(filepath.Dir(ref), Correct); isDir(correct) {
			if err := Overlay(dir, correct); err != nil {
				return err
			}
		}
	}
	if err := Overlay(dir, ref); err != nil {
		return err
	}
	fault := filepath.Join(ref, "fault.diff")
	diff, err := os.ReadFile(fault)
	switch {
	case os.IsNotExist(err):
		return nil
	case err != nil:
		return err
	}
	if err := faultdiff.Apply(dir, string(diff)); err != nil {
		return fmt.Errorf("%s: %w", fault, err)
	}
	return nil
}

// Overlay copies the workspace files of the reference folder ref into dir, replacing files of
// the same name: every file but README.md, expect.json and fault.diff at ref's top, and
// Python byte-code caches.
func Overlay(dir, ref string) error {
	err := filepath.WalkDir(ref, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if d.Name() == "__pycache__" {
				return filepath.SkipDir
			}
			return nil
		}
		rel, err := filepath.Rel(ref, path)
		if err != nil || own[rel] {
			return err
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		dst := filepath.Join(dir, rel)
		if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
			return err
		}
		return os.WriteFile(dst, b, 0o644)
	})
	if err != nil {
		return fmt.Errorf("laying the reference %s: %w", ref, err)
	}
	return nil
}

func isDir(path string) bool {
	st, err := os.Stat(path)
	return err == nil && st.IsDir()
}
