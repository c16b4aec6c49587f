package class

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestDepsFromTheLockFileOnly: a package.json naming dependencies without a lock file, and an
// install that fails, are cannot-grade rows whose grade never runs; a learner with a lock file
// gets npm ci --ignore-scripts with the class's cache, and a go.mod that requires modules gets
// go mod download into the module cache its graded build reads.
func TestDepsFromTheLockFileOnly(t *testing.T) {
	lib := library(t)
	_, learners := fakeClass(t, map[string]string{"nolock": "pass", "locked": "pass", "broken": "pass", "gomod": "pass", "plain": "pass"})
	dirs := map[string]string{}
	for _, l := range learners {
		dirs[l.Name] = l.Dir
	}
	pkg := `{"name": "x", "dependencies": {"@modelcontextprotocol/sdk": "^1.0.0"}}`
	for _, n := range []string{"nolock", "locked", "broken"} {
		mkfile(t, filepath.Join(dirs[n], "package.json"), pkg)
	}
	mkfile(t, filepath.Join(dirs["locked"], "package-lock.json"), "{}")
	mkfile(t, filepath.Join(dirs["broken"], "package-lock.json"), "{}")
	mkfile(t, filepath.Join(dirs["gomod"], "go.mod"), "module x\n\ngo 1.22\n\nrequire example.org/m v1.0.0\n")
	mkfile(t, filepath.Join(dirs["gomod"], "go.sum"), "")
	cache := t.TempDir()
	var ran []string
	d := &Deps{Cache: cache, run: func(_ context.Context, dir string, env []string, name string, args ...string) ([]byte, error) {
		ran = append(ran, filepath.Base(dir)+": "+name+" "+strings.Join(args, " ")+" | "+strings.Join(env, " "))
		if filepath.Base(dir) == "broken" {
			return []byte("npm error code EUSAGE\nnpm error the lock file is out of date"), errors.New("exit status 1")
		}
		return nil, nil
	}}
	store, err := OpenStore(filepath.Join(t.TempDir(), StoreFile))
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	f := &fakeGrader{lib: lib}
	b, err := Run(context.Background(), lib, store, learners, Options{NoIsolation: true, Seed: 1, SeedSet: true, Deps: d, Jobs: 1, grade: f.grade})
	if err != nil {
		t.Fatal(err)
	}
	if graded := f.take(); strings.Join(graded, ",") != "gomod,locked,plain" {
		t.Errorf("graded %v: want the learners whose dependencies are in place", graded)
	}
	r := BuildReport(lib, b, BuildOptions{})
	msgs := map[string]string{}
	for _, l := range r.Learners {
		msgs[l.Name] = l.Message
	}
	if !strings.Contains(msgs["nolock"], "package.json names dependencies and there is no package-lock.json") {
		t.Errorf("no lock file: %q", msgs["nolock"])
	}
	if !strings.Contains(msgs["broken"], "installing the dependencies failed (npm ci --ignore-scripts") || !strings.Contains(msgs["broken"], "the lock file is out of date") {
		t.Errorf("a failed install: %q", msgs["broken"])
	}
	all := strings.Join(ran, "\n")
	for _, want := range []string{"locked: npm ci --ignore-scripts", "--cache " + filepath.Join(cache, "npm"), "gomod: go mod download | GOTOOLCHAIN=local GOVCS=*:off",
		"GOMODCACHE=" + filepath.Join(cache, "go"), "GOMODCACHE=" + filepath.Join(dirs["gomod"], ".kata", "go", "pkg", "mod"), "GOPROXY=file://"} {
		if !strings.Contains(all, want) {
			t.Errorf("the installs lack %q:\n%s", want, all)
		}
	}
	if strings.Contains(all, "plain:") || strings.Contains(all, "nolock:") {
		t.Errorf("an install ran where none should:\n%s", all)
	}
}

// TestNpmCiForReal: npm ci --ignore-scripts installs a lock file's dependency (a local one:
// no network) and runs none of its scripts.
func TestNpmCiForReal(t *testing.T) {
	if _, err := exec.LookPath("npm"); err != nil {
		t.Skip("npm is not installed")
	}
	ws := t.TempDir()
	mkfile(t, filepath.Join(ws, "dep", "package.json"), `{"name": "dep", "version": "1.0.0", "scripts": {"postinstall": "touch ../PWNED"}}`)
	mkfile(t, filepath.Join(ws, "package.json"), `{"name": "ws", "version": "1.0.0", "dependencies": {"dep": "file:dep"}}`)
	mkfile(t, filepath.Join(ws, "package-lock.json"), `{"name": "ws", "version": "1.0.0", "lockfileVersion": 3, "requires": true, "packages": {
  "": {"name": "ws", "version": "1.0.0", "dependencies": {"dep": "file:dep"}},
  "dep": {"version": "1.0.0"},
  "node_modules/dep": {"resolved": "dep", "link": true}}}`)
	// a relative cache (kata class grade's --out is relative) lands beside, not in, the workspace
	t.Chdir(t.TempDir())
	d := &Deps{Cache: filepath.Join("out", "deps-cache")}
	if err := d.Install(context.Background(), ws); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(ws, "out")); err == nil {
		t.Error("the class's cache was made inside the learner's folder")
	}
	if _, err := os.Lstat(filepath.Join(ws, "node_modules", "dep")); err != nil {
		t.Errorf("npm ci installed nothing: %v", err)
	}
	if _, err := os.Stat(filepath.Join(ws, "PWNED")); err == nil {
		t.Error("an install script ran")
	}
}
