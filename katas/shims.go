package katas

import (
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
)

// ShimsFolder is the folder, at the root of the built-in packets' file system, that holds the
// protocol shims every workspace of a language shares: shims/<shim>/<lang>/<files>, each file
// at the path it takes in a workspace ("shims/server/go/internal/shim/server.go.tmpl"). A packet
// names the shims its workspaces get in packet.json ("shims": ["server", "client"]); `kata init`
// writes them beside the packet's own templates, so each shim exists once (docs/packets.md,
// "Templates and shims").
const ShimsFolder = "shims"

// Shims is a set of built-in protocol shims: a file system laid out as ShimsFolder describes,
// rooted at that folder.
type Shims struct{ fsys fs.FS }

// ShimsOf returns the shims under ShimsFolder in fsys, or nil when fsys has none.
func ShimsOf(fsys fs.FS) *Shims {
	sub, err := fs.Sub(fsys, ShimsFolder)
	if err != nil {
		return nil
	}
	if _, err := fs.Stat(sub, "."); err != nil {
		return nil
	}
	return &Shims{fsys: sub}
}

// Names lists the shims, sorted.
func (s *Shims) Names() []string {
	if s == nil {
		return nil
	}
	entries, _ := fs.ReadDir(s.fsys, ".")
	var out []string
	for _, e := range entries {
		if e.IsDir() {
			out = append(out, e.Name())
		}
	}
	return out
}

// Has reports whether the shim exists for lang.
func (s *Shims) Has(shim, lang string) bool {
	if s == nil {
		return false
	}
	st, err := fs.Stat(s.fsys, path.Join(shim, lang))
	return err == nil && st.IsDir()
}

// Files lists the shim's files for lang as workspace-relative slash paths (TemplateSuffix kept),
// sorted.
func (s *Shims) Files(shim, lang string) ([]string, error) {
	root := path.Join(shim, lang)
	var out []string
	err := fs.WalkDir(s.fsys, root, func(name string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		out = append(out, strings.TrimPrefix(name, root+"/"))
		return nil
	})
	slices.Sort(out)
	return out, err
}

// checkShims reports, in ps, each shim the manifest names that shims lacks for one of its
// languages, and a manifest that names both client loops.
func checkShims(file string, src []byte, m *Manifest, shims *Shims, ps *Problems) {
	if slices.Contains(m.Shims, "client") && slices.Contains(m.Shims, "repair") {
		// One client command plays every scenario, and the two shims' Go files share a package.
		ps.add(file, jsonKeyLine(src, "shims"), "shims names both \"client\" and \"repair\": a workspace has one client loop, the retry loop or the repair loop")
	}
	for _, shim := range m.Shims {
		for _, lang := range m.Languages {
			if !shims.Has(shim, lang) {
				ps.add(file, jsonKeyLine(src, "shims"), "shims names %q, which has no built-in %s version (built-in shims: %s)", shim, lang, strings.Join(shims.Names(), ", "))
			}
		}
	}
}

// writeShims writes the files of each shim the packet names for lang into the workspace dir,
// with TemplateSuffix stripped. A file the packet's own template already wrote is left as it is:
// the packet's copy overrides the built-in one.
func (p *Packet) writeShims(dir, lang string) error {
	for _, shim := range p.Shims {
		if !p.shims.Has(shim, lang) {
			return fmt.Errorf("kata %s names the shim %q, which this build has no %s version of", p.ID, shim, lang)
		}
		files, err := p.shims.Files(shim, lang)
		if err != nil {
			return err
		}
		for _, rel := range files {
			dst := filepath.Join(dir, filepath.FromSlash(strings.TrimSuffix(rel, TemplateSuffix)))
			if _, err := os.Stat(dst); err == nil {
				continue
			}
			b, err := fs.ReadFile(p.shims.fsys, path.Join(shim, lang, rel))
			if err != nil {
				return err
			}
			if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
				return err
			}
			if err := os.WriteFile(dst, b, 0o644); err != nil {
				return err
			}
		}
	}
	return nil
}
