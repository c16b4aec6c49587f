package kata

import (
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/kata-mcp/kata/katas"
	"github.com/kata-mcp/kata/packets"
	"github.com/kata-mcp/kata/ui/common"
	"github.com/kata-mcp/kata/ui/markdown"
)

// TestLeftLayerIsNotRendered: once another layer is asked for, the request for the layer left
// renders nothing and gives no message; the latest request renders its layer.
func TestLeftLayerIsNotRendered(t *testing.T) {
	lib, err := katas.Discover(packets.FS, "embedded")
	if err != nil {
		t.Fatal(err)
	}
	l := NewLoader(lib)
	p := lib.Packets()[0]
	left := l.Load(p.ID, "knowledge", common.RenderKey{Doc: p.ID + "/knowledge", Width: 70, Style: markdown.StyleASCII})
	latest := l.Load(p.ID, "examples", common.RenderKey{Doc: p.ID + "/examples", Width: 70, Style: markdown.StyleASCII})
	if msg := left(); msg != nil {
		t.Errorf("the layer left gave %#v", msg)
	}
	msg, ok := latest().(common.RenderedMsg)
	if !ok || msg.Err != nil || msg.Out == "" || msg.Key.Doc != p.ID+"/examples" {
		t.Errorf("the latest layer gave %#v", msg)
	}
	if !l.Resident(p.ID, "examples") {
		t.Error("the latest layer is not resident")
	}
}

// TestHostileLayerGivesAnError: a layer nested past the bounds comes back at once as an error
// naming its file and line, which the page shows in place of the layer, instead of a render
// that runs for minutes and grows without bound.
func TestHostileLayerGivesAnError(t *testing.T) {
	root := copyPackets(t, ".")
	lib, err := katas.Discover(packets.FS, "embedded")
	if err != nil {
		t.Fatal(err)
	}
	if err := lib.AddDir(root); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(root, "mcp-structured-errors", "knowledge", "01-mental-model.md"), []byte("# Deep\n\n"+strings.Repeat(">", 100)+" x\n"), 0o644)
	k := common.RenderKey{Doc: "mcp-structured-errors/knowledge", Width: 80, Style: markdown.StyleASCII}
	msg, ok := NewLoader(lib).Load("mcp-structured-errors", "knowledge", k)().(common.RenderedMsg)
	if !ok || msg.Err == nil || !strings.Contains(msg.Err.Error(), "01-mental-model.md:3: the line starts with 100 block-quote or list markers") {
		t.Errorf("a nested layer gave %#v", msg)
	}
}

// TestFallbackMarker: a layer read in Spanish shows no marker; a layer with a file that has no
// Spanish twin says "en inglés" in its header; in English there is never a marker.
func TestFallbackMarker(t *testing.T) {
	const id = "mcp-error-responses"
	root := copyPackets(t, id)
	lib, err := katas.Discover(packets.FS, "embedded")
	if err != nil {
		t.Fatal(err)
	}
	if err := lib.AddDir(root); err != nil {
		t.Fatal(err)
	}
	twins, _ := filepath.Glob(filepath.Join(root, id, "examples", "*.es.md"))
	if len(twins) == 0 {
		t.Fatal("no Spanish examples to remove")
	}
	os.Remove(twins[0])
	header := func(lib *katas.Library, layer int) string {
		p, _ := lib.Get(id)
		c := common.New(lib, common.Config{Style: markdown.StyleASCII})
		c.Width, c.Height = 100, 30
		m := New(c, p, NewLoader(lib))
		cmd := m.selectLayer(layer)
		if cmd == nil {
			cmd = m.request(true)
		}
		m.Update(cmd())
		return strings.SplitN(m.View(), "\n", 2)[0]
	}
	es := lib.Localized("es")
	p, _ := es.Get(id)
	ki, ei := slices.Index(p.Layers, "knowledge"), slices.Index(p.Layers, "examples")
	if h := header(es, ki); strings.Contains(h, "inglés") {
		t.Errorf("the Spanish knowledge layer is marked: %q", h)
	}
	if h := header(es, ei); !strings.Contains(h, "· en inglés") {
		t.Errorf("the examples layer, one file in English, is not marked: %q", h)
	}
	if h := header(lib, ei); strings.Contains(h, ") ·") {
		t.Errorf("the English layer is marked: %q", h)
	}
}

// copyPackets copies folder dir of the embedded packets ("." for all) into a temp folder and
// returns that folder.
func copyPackets(t *testing.T, dir string) string {
	t.Helper()
	root := t.TempDir()
	err := fs.WalkDir(packets.FS, dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, _ := fs.ReadFile(packets.FS, p)
		dst := filepath.Join(root, filepath.FromSlash(p))
		os.MkdirAll(filepath.Dir(dst), 0o755)
		return os.WriteFile(dst, b, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
	return root
}
