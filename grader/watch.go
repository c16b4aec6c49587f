package grader

import (
	"context"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/fsnotify/fsnotify"
)

// DefaultDebounce is how long a workspace must stay quiet after a change before a re-grade:
// editors save in bursts (write a temporary file, rename it, chmod) that last a few
// milliseconds, so 100 ms waits out a save and leaves the rest of a second for the grade.
const DefaultDebounce = 100 * time.Millisecond

// skipDirs are folders whose changes never trigger a re-grade: build output, caches, VCS.
var skipDirs = map[string]bool{".kata": true, "__pycache__": true, "node_modules": true, ".git": true}

// WatchWorkspace calls onChange (from its own goroutine) each time files of the workspace dir
// change and then stay quiet for debounce, until ctx ends. Build output (.kata/), caches and
// editor swap files are ignored. Folders created later are watched too. It returns ctx's
// error, or an error if the watcher cannot start.
func WatchWorkspace(ctx context.Context, dir string, debounce time.Duration, onChange func()) error {
	return WatchWorkspaceChanges(ctx, dir, debounce, func([]string) { onChange() })
}

// WatchWorkspaceChanges is WatchWorkspace that also says what changed: onChange gets the
// paths, relative to dir and sorted, of the files and folders that changed since its last
// call (never an ignored one).
func WatchWorkspaceChanges(ctx context.Context, dir string, debounce time.Duration, onChange func(paths []string)) error {
	w, err := fsnotify.NewWatcher()
	if err != nil {
		return err
	}
	defer w.Close()
	addTree := func(root string) {
		filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
			if err != nil || !d.IsDir() {
				return nil
			}
			if path != root && skipDirs[d.Name()] {
				return filepath.SkipDir
			}
			w.Add(path)
			return nil
		})
	}
	addTree(dir)
	var timer *time.Timer
	fire := make(chan struct{}, 1)
	changed := map[string]bool{} // relative paths since the last onChange
	for {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case err := <-w.Errors:
			if err != nil {
				return err
			}
		case ev := <-w.Events:
			if IgnoredPath(dir, ev.Name) {
				continue
			}
			if rel, err := filepath.Rel(dir, ev.Name); err == nil {
				changed[rel] = true
			}
			if ev.Op&fsnotify.Create != 0 {
				if st, err := os.Stat(ev.Name); err == nil && st.IsDir() {
					addTree(ev.Name)
				}
			}
			if timer != nil {
				timer.Stop()
			}
			timer = time.AfterFunc(debounce, func() {
				select {
				case fire <- struct{}{}:
				default:
				}
			})
		case <-fire:
			paths := slices.Sorted(maps.Keys(changed))
			clear(changed)
			onChange(paths)
		}
	}
}

// ignoredPath reports whether a change to path should not trigger a re-grade.
func IgnoredPath(dir, path string) bool {
	rel, err := filepath.Rel(dir, path)
	if err != nil {
		return true
	}
	for _, part := range strings.Split(rel, string(filepath.Separator)) {
		if skipDirs[part] {
			return true
		}
	}
	base := filepath.Base(path)
	return strings.HasPrefix(base, ".#") || strings.HasSuffix(base, "~") || strings.HasSuffix(base, ".swp") ||
		strings.HasSuffix(base, ".swx") || strings.HasSuffix(base, ".tmp") || base == "4913" || strings.HasSuffix(base, ".pyc")
}
