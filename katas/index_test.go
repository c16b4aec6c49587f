package katas

import (
	"io/fs"
	"os"
	"path/filepath"
	"testing"
	"testing/fstest"

	"github.com/kata-mcp/kata/packets"
)

// embeddedCached is a library of the embedded packets added with the index cache at cache.
func embeddedCached(t *testing.T, cache string) *Library {
	t.Helper()
	lib := &Library{res: &residency{}}
	if err := lib.AddCached(packets.FS, "embedded", cache); err != nil {
		t.Fatal(err)
	}
	return lib
}

// TestLazyPackets: the first start parses the embedded packets and writes the index cache;
// from the next start on, a packet the index vouches for is known by its manifest and counts
// until first use, parsed then (once, whoever asks first); a packet whose files changed since
// the index was written is parsed when added, and its problems reported. Adding a packet needs
// no step of its own: nothing ships an index.
func TestLazyPackets(t *testing.T) {
	if _, err := fs.Stat(packets.FS, IndexFile); err == nil {
		t.Errorf("packets/%s is embedded: the index is the app's cache, not a file to keep up to date", IndexFile)
	}
	cache := filepath.Join(t.TempDir(), "cache", "kata", IndexFile)
	first := embeddedCached(t, cache)
	for _, e := range first.entries {
		if e.lazy != nil {
			t.Fatalf("%s was vouched for with no index", e.id)
		}
	}
	if st, err := os.Stat(cache); err != nil || st.Mode().Perm() != 0o600 {
		t.Fatalf("the index cache was not written, private: %v %v", st, err)
	}
	lib := embeddedCached(t, cache)
	for _, e := range lib.entries {
		if e.lazy == nil || e.lazy.done.Load() {
			t.Fatalf("%s was parsed at start", e.id)
		}
	}
	entries := lib.Entries()
	if len(entries) != len(first.Entries()) || len(entries) == 0 {
		t.Fatalf("%d entries, %d at the first start", len(entries), len(first.Entries()))
	}
	for _, e := range lib.entries {
		if e.lazy.done.Load() {
			t.Fatalf("Entries parsed %s", e.id)
		}
	}
	id := entries[0].ID
	p, ok := lib.Get(id)
	if !ok || len(p.Items) == 0 || p.Task.Title == "" || p.Fixtures["server"] == nil {
		t.Fatalf("Get did not parse: %+v", p)
	}
	for _, e := range entries {
		q, _ := lib.Get(e.ID)
		if q.Counts() != e.Counts || q.Title != e.Title || q.Source != e.Source {
			t.Errorf("%s: the index says %+v, the packet %+v", e.ID, e.Counts, q.Counts())
		}
	}
	if again, _ := lib.Get(id); again != p {
		t.Error("a second Get parsed again")
	}

	// A copy whose exam.md changed is not vouched for: parsed when added, problems and all.
	fsys := fstest.MapFS{}
	if err := copyEmbedded(fsys, "mcp-structured-errors"); err != nil {
		t.Fatal(err)
	}
	fsys["mcp-structured-errors/exam.md"] = &fstest.MapFile{Data: []byte("# Exam\n\n## not an item\n")}
	lib2 := &Library{res: &residency{}}
	if err := lib2.AddCached(fsys, "changed", cache); err == nil {
		t.Fatal("a changed packet with problems loaded without an error: the index vouched for it")
	}
	if _, ok := lib2.Get("mcp-structured-errors"); ok {
		t.Error("the broken packet loaded")
	}

	// A folder of one's own is parsed whole when added: its problems are reported at once.
	dir := t.TempDir()
	for name, f := range fsys {
		os.MkdirAll(filepath.Join(dir, filepath.Dir(name)), 0o755)
		if err := os.WriteFile(filepath.Join(dir, name), f.Data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	orig, _ := fs.ReadFile(packets.FS, "mcp-structured-errors/exam.md")
	os.WriteFile(filepath.Join(dir, "mcp-structured-errors", "exam.md"), orig, 0o644)
	lib3 := embeddedCached(t, cache)
	if err := lib3.AddDir(dir); err != nil {
		t.Fatal(err)
	}
	for _, e := range lib3.entries {
		if e.id == "mcp-structured-errors" && (e.lazy != nil || e.packet.Source != dir) {
			t.Errorf("%s from a folder was added unparsed", e.id)
		}
	}
}

// copyEmbedded copies embedded packet id (and the shims) into fsys.
func copyEmbedded(fsys fstest.MapFS, id string) error {
	for _, root := range []string{id, ShimsFolder} {
		err := fs.WalkDir(packets.FS, root, func(name string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return err
			}
			b, err := fs.ReadFile(packets.FS, name)
			fsys[name] = &fstest.MapFile{Data: b}
			return err
		})
		if err != nil {
			return err
		}
	}
	return nil
}
