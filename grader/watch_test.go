package grader

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// TestWatchWorkspaceDebouncesSaves: a burst of writes gives one callback; writes under
// .kata/ and __pycache__/ give none; a file in a new folder is seen.
func TestWatchWorkspaceDebouncesSaves(t *testing.T) {
	dir := t.TempDir()
	os.MkdirAll(filepath.Join(dir, ".kata", "bin"), 0o755)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	changes := make(chan struct{}, 10)
	ready := make(chan struct{})
	go func() {
		close(ready)
		WatchWorkspace(ctx, dir, 50*time.Millisecond, func() { changes <- struct{}{} })
	}()
	<-ready
	wait := func(what string) {
		t.Helper()
		select {
		case <-changes:
		case <-time.After(10 * time.Second):
			t.Fatalf("no re-grade after %s", what)
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
	for i := 0; i < 5; i++ {
		os.WriteFile(filepath.Join(dir, "server.py"), []byte{byte(i)}, 0o644)
	}
	wait("a burst of writes")
	os.WriteFile(filepath.Join(dir, ".kata", "bin", "server"), []byte("bin"), 0o644)
	os.MkdirAll(filepath.Join(dir, "__pycache__"), 0o755)
	os.WriteFile(filepath.Join(dir, "__pycache__", "x.pyc"), []byte("c"), 0o644)
	os.MkdirAll(filepath.Join(dir, "pkg"), 0o755)
	wait("creating a folder")
	os.WriteFile(filepath.Join(dir, "pkg", "mod.py"), []byte("y"), 0o644)
	wait("a write in a new folder")
	select {
	case <-changes:
		t.Error("an extra re-grade: build output or caches triggered one")
	case <-time.After(300 * time.Millisecond):
	}
}
