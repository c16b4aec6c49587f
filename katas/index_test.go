package katas

import (
	"flag"
	"io/fs"
	"os"
	"path/filepath"
	"testing"
	"testing/fstest"

	"github.com/kata-mcp/kata/packets"
)

var update = flag.Bool("update", false, "rewrite packets/index.json")

// TestEmbeddedIndex: the embedded packets' index is current (go test ./katas -run
// TestEmbeddedIndex -update rewrites it), so they load by their manifests alone.
func TestEmbeddedIndex(t *testing.T) {
	want, err := BuildIndex(packets.FS)
	if err != nil {
		t.Fatal(err)
	}
	if *update {
		if err := os.WriteFile("../packets/"+IndexFile, want, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	got, err := os.ReadFile("../packets/" + IndexFile)
	if err != nil || string(got) != string(want) {
		t.Fatalf("packets/%s is stale (a packet changed): run go test ./katas -run TestEmbeddedIndex -update (%v)", IndexFile, err)
	}
}

// TestLazyPackets (issue 16, defect 11): a packet the index vouches for is known by its
// manifest and counts until first use, parsed then (once, whoever asks first); a packet whose
// files changed since the index was written is parsed when added, and its problems reported.
func TestLazyPackets(t *testing.T) {
	lib, err := Discover(packets.FS, "embedded")
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range lib.entries {
		if e.lazy == nil || e.lazy.done.Load() {
			t.Fatalf("%s was parsed at start", e.id)
		}
	}
	entries := lib.Entries()
	if len(entries) != 3 {
		t.Fatalf("%d entries", len(entries))
	}
	for _, e := range lib.entries {
		if e.lazy.done.Load() {
			t.Fatalf("Entries parsed %s", e.id)
		}
	}
	p, ok := lib.Get("mcp-structured-errors")
	if !ok || len(p.Items) == 0 || p.Task.Title == "" || p.Fixtures["server"] == nil {
		t.Fatalf("Get did not parse: %+v", p)
	}
	for _, e := range entries {
		q, _ := lib.Get(e.ID)
		if q.Counts() != e.Counts || q.Title != e.Title || q.Source != e.Source {
			t.Errorf("%s: the index says %+v, the packet %+v", e.ID, e.Counts, q.Counts())
		}
	}
	if again, _ := lib.Get("mcp-structured-errors"); again != p {
		t.Error("a second Get parsed again")
	}

	// A copy whose exam.md changed is not vouched for: parsed when added, problems and all.
	fsys := fstest.MapFS{}
	err = copyEmbedded(fsys, "mcp-structured-errors")
	if err != nil {
		t.Fatal(err)
	}
	idx, _ := BuildIndex(packets.FS)
	fsys[IndexFile] = &fstest.MapFile{Data: idx}
	fsys["mcp-structured-errors/exam.md"] = &fstest.MapFile{Data: []byte("# Exam\n\n## not an item\n")}
	lib2, err := Discover(fsys, "changed")
	if err == nil {
		t.Fatal("a changed packet with problems loaded without an error: the index vouched for it")
	}
	if _, ok := lib2.Get("mcp-structured-errors"); ok {
		t.Error("the broken packet loaded")
	}

	// A folder of one's own is parsed whole when added, whatever index it carries (anyone can
	// write one): its problems are reported at once.
	dir := t.TempDir()
	for name, f := range fsys {
		if name == "mcp-structured-errors/exam.md" {
			continue // the original exam.md: the index vouches for every file
		}
		os.MkdirAll(filepath.Join(dir, filepath.Dir(name)), 0o755)
		if err := os.WriteFile(filepath.Join(dir, name), f.Data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	orig, _ := fs.ReadFile(packets.FS, "mcp-structured-errors/exam.md")
	os.WriteFile(filepath.Join(dir, "mcp-structured-errors", "exam.md"), orig, 0o644)
	lib3, err := Discover(packets.FS, "embedded")
	if err != nil {
		t.Fatal(err)
	}
	if err := lib3.AddDir(dir); err != nil {
		t.Fatal(err)
	}
	for _, e := range lib3.entries {
		if e.id == "mcp-structured-errors" && (e.lazy != nil || e.packet.Source != dir) {
			t.Errorf("%s from a folder was added unparsed on the word of its index", e.id)
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
