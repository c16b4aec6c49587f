package grader

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"
)

// TestWatchWorkspaceDebouncesSaves: a burst of writes gives one callback; writes under
// .kata/ and __pycache__/ are never reported, even when they come with a real change; a file in
// a new folder is seen.
func TestWatchWorkspaceDebouncesSaves(t *testing.T) {
	dir := t.TempDir()
	os.MkdirAll(filepath.Join(dir, ".kata", "bin"), 0o755)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	changes := make(chan []string, 10)
	go WatchWorkspaceChanges(ctx, dir, 50*time.Millisecond, func(paths []string) { changes <- paths })
	next := func(what string) []string {
		t.Helper()
		select {
		case paths := <-changes:
			return paths
		case <-time.After(10 * time.Second):
			t.Fatalf("no re-grade after %s", what)
			return nil
		}
	}
	// The watcher may start a moment after the goroutine: write until the first callback.
	deadline := time.Now().Add(10 * time.Second)
	for got := false; !got; {
		os.WriteFile(filepath.Join(dir, "server.py"), []byte("x"), 0o644)
		select {
		case <-changes:
			got = true
		case <-time.After(200 * time.Millisecond):
			if time.Now().After(deadline) {
				t.Fatal("the watcher never reported a write")
			}
		}
	}
	// Drain what the first writes' tail may still bring, then a burst is one callback.
	for len(changes) > 0 {
		<-changes
	}
	for i := 0; i < 5; i++ {
		os.WriteFile(filepath.Join(dir, "client.py"), []byte{byte(i)}, 0o644)
	}
	if got := next("a burst of writes"); !slices.Contains(got, "client.py") {
		t.Errorf("a burst of writes to client.py reported %v", got)
	}
	// Build output and caches, then a real change: the callback names only the real one.
	os.WriteFile(filepath.Join(dir, ".kata", "bin", "server"), []byte("bin"), 0o644)
	os.MkdirAll(filepath.Join(dir, "__pycache__"), 0o755)
	os.WriteFile(filepath.Join(dir, "__pycache__", "x.pyc"), []byte("c"), 0o644)
	os.WriteFile(filepath.Join(dir, "notes.pyc"), []byte("c"), 0o644)
	os.MkdirAll(filepath.Join(dir, "pkg"), 0o755)
	got := next("creating a folder")
	for _, p := range got {
		if IgnoredPath(dir, filepath.Join(dir, p)) {
			t.Errorf("an ignored path was reported: %q (all: %v)", p, got)
		}
	}
	if !slices.Contains(got, "pkg") {
		t.Errorf("creating pkg/ reported %v", got)
	}
	os.WriteFile(filepath.Join(dir, "pkg", "mod.py"), []byte("y"), 0o644)
	for got := next("a write in a new folder"); !slices.Contains(got, filepath.Join("pkg", "mod.py")); got = next("a write in a new folder") {
	}
}

// TestIgnoredPath: build output, caches, VCS folders and editor swap files never re-grade.
func TestIgnoredPath(t *testing.T) {
	dir := "/w"
	for path, want := range map[string]bool{
		"/w/server.py": false, "/w/pkg/mod.go": false, "/w/.kata/bin/server": true,
		"/w/__pycache__/x.pyc": true, "/w/node_modules/a/b.js": true, "/w/.git/index": true,
		"/w/.#server.py": true, "/w/server.py~": true, "/w/.server.py.swp": true, "/w/4913": true,
	} {
		if got := IgnoredPath(dir, path); got != want {
			t.Errorf("IgnoredPath(%q) = %v; want %v", path, got, want)
		}
	}
}
