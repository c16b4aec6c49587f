package packets

import (
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kata-mcp/kata/katas"
)

// TestShimsExistOnce: each protocol shim lives once, under shims/<shim>/<lang>/; no packet's
// templates carry a copy of a shim file (the copies drifted apart before; a fix to one must
// reach every kata, or the same learner code would behave differently per kata).
func TestShimsExistOnce(t *testing.T) {
	shims := katas.ShimsOf(FS)
	if shims == nil || len(shims.Names()) == 0 {
		t.Fatal("no shims/ folder in the embedded packets")
	}
	shimFiles := map[string]string{} // lang/path → shim
	for _, shim := range shims.Names() {
		for _, lang := range []string{"python", "node", "go"} {
			files, err := shims.Files(shim, lang)
			if err != nil {
				t.Fatalf("shim %s/%s: %v", shim, lang, err)
			}
			for _, f := range files {
				shimFiles[lang+"/"+f] = shim
			}
		}
	}
	err := fs.WalkDir(FS, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		packet, rest, _ := strings.Cut(p, "/")
		if inTemplates, ok := strings.CutPrefix(rest, "templates/"); ok && packet != katas.ShimsFolder {
			if shim, dup := shimFiles[inTemplates]; dup {
				t.Errorf("%s copies the %s shim's %s; name the shim in packet.json instead", p, shim, path.Base(inTemplates))
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestInitWritesTheShims: a workspace made by Init has the shims its packet names, for every
// language, with .tmpl removed; a packet without the client shim gets none of its files.
func TestInitWritesTheShims(t *testing.T) {
	lib, err := katas.Discover(FS, "embedded")
	if err != nil {
		t.Fatal(err)
	}
	want := map[string][]string{
		"python": {"mcp_shim.py", "kata_client_shim.py"},
		"node":   {"mcp_shim.mjs", "kata_client_shim.mjs"},
		"go":     {"internal/shim/server.go", "internal/shim/client.go"},
	}
	for _, p := range lib.Packets() {
		for _, lang := range p.Languages {
			dir := filepath.Join(t.TempDir(), "ws")
			if err := p.Init(dir, lang); err != nil {
				t.Fatal(err)
			}
			for i, f := range want[lang] {
				_, err := os.Stat(filepath.Join(dir, filepath.FromSlash(f)))
				wanted := i == 0 || strings.Contains(strings.Join(p.Shims, ","), "client")
				if wanted != (err == nil) {
					t.Errorf("%s/%s: %s present %v, want %v (shims %v)", p.ID, lang, f, err == nil, wanted, p.Shims)
				}
			}
		}
	}
}
