package katas

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"github.com/adrg/xdg"
)

// DefaultWorkspace is where the TUI keeps a kata's workspace when the learner names none:
// $XDG_DATA_HOME/kata/workspaces/<id> (~/.local/share/kata/workspaces/<id> on Linux).
func DefaultWorkspace(id string) string {
	return filepath.Join(xdg.DataHome, "kata", "workspaces", id)
}

// TemplateSuffix is stripped from template file names when a workspace is written
// ("main.go.tmpl" becomes "main.go").
const TemplateSuffix = ".tmpl"

// ErrWorkspaceExists is returned by Init when the target folder already holds files: a
// learner's work is never overwritten.
var ErrWorkspaceExists = errors.New("workspace folder is not empty")

// Init writes a starter workspace for lang into dir: the files of templates/<lang>/, the
// built-in shims the manifest names (ShimsFolder; the packet's own file wins where both have
// one) and TASK.md (the packet's task.md, naming lang's functions and types: TaskIn). dir is created if needed and must be empty; an
// existing non-empty folder gives ErrWorkspaceExists and is left untouched. Python byte-code
// caches are skipped, and a trailing TemplateSuffix is removed from file names. The workspace is
// written into a temporary folder beside dir and renamed to dir once complete, so a failure
// (a template that is a link, a name that is not a plain path, a full disk) leaves no partial
// workspace and a second try can succeed.
func (p *Packet) Init(dir, lang string) error {
	if !slices.Contains(p.Languages, lang) {
		return fmt.Errorf("kata %s has no %q template (languages: %s)", p.ID, lang, strings.Join(p.Languages, ", "))
	}
	if entries, err := os.ReadDir(dir); err == nil && len(entries) > 0 {
		return fmt.Errorf("%s: %w; choose another folder or remove it", dir, ErrWorkspaceExists)
	}
	parent := filepath.Dir(filepath.Clean(dir))
	if err := os.MkdirAll(parent, 0o755); err != nil {
		return err
	}
	tmp, err := os.MkdirTemp(parent, "."+filepath.Base(dir)+".kata-init-")
	if err != nil {
		return fmt.Errorf("writing workspace %s: %w", dir, err)
	}
	done := false
	defer func() {
		if !done {
			os.RemoveAll(tmp)
		}
	}()
	if err := p.writeWorkspace(tmp, lang); err != nil {
		return fmt.Errorf("writing workspace %s: %w", dir, err)
	}
	if err := os.Chmod(tmp, 0o755); err != nil {
		return err
	}
	// an empty folder is replaced; os.Remove never removes one that holds files
	if err := os.Remove(dir); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("%s: %w; choose another folder or remove it", dir, ErrWorkspaceExists)
	}
	if err := os.Rename(tmp, dir); err != nil {
		return fmt.Errorf("writing workspace %s: %w", dir, err)
	}
	done = true
	return nil
}

// writeWorkspace writes Init's files into the empty folder dir.
func (p *Packet) writeWorkspace(dir, lang string) error {
	root := path.Join(p.Dir, "templates", lang)
	err := fs.WalkDir(p.fsys, root, func(name string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() && !d.Type().IsRegular() {
			return fmt.Errorf("%s: %s; templates are plain files and folders", name, fileKind(d.Type()))
		}
		rel := strings.TrimPrefix(strings.TrimPrefix(name, root), "/")
		if d.IsDir() {
			if d.Name() == "__pycache__" {
				return fs.SkipDir
			}
			if rel != "" {
				return os.MkdirAll(filepath.Join(dir, filepath.FromSlash(rel)), 0o755)
			}
			return nil
		}
		// Go sources and go.mod are stored as *.tmpl: the Go tool would otherwise compile a
		// template as part of this module, and go:embed skips folders holding a go.mod.
		out, ok := workspaceName(rel)
		if !ok {
			return fmt.Errorf("%s: the template name becomes %q, which is not a plain path in the workspace", name, out)
		}
		if err := plainFile(p.fsys, name); err != nil {
			return err
		}
		b, err := fs.ReadFile(p.fsys, name)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dir, filepath.FromSlash(out)), b, 0o644)
	})
	if err == nil {
		err = p.writeShims(dir, lang)
	}
	if err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, "TASK.md"), []byte(p.TaskIn(lang).Markdown), 0o644)
}
