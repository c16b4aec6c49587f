// Package testenv prepares the environment of the tests that grade reference submissions.
package testenv

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// UseGoBuildCache points kata's Go build cache for learner builds (KATA_GO_CACHE, see
// sandbox.GoCacheDir) at the Go build cache of the go command running the tests, unless it is
// set already. The references are the repository's own code, so sharing that cache is safe,
// and a cache that already holds the standard library (the test binary was just built with
// it) saves each Go reference build a minute of compiling it. It also sets GOCACHE, for the
// go commands the tests run themselves (building the kata binary), when it is not set: its
// default is a folder of XDG_CACHE_HOME, which a test may point at a folder of its own, and a
// build in an empty cache compiles the standard library and every dependency again (about 100
// CPU-seconds for kata).
func UseGoBuildCache() {
	if os.Getenv("KATA_GO_CACHE") != "" && os.Getenv("GOCACHE") != "" {
		return
	}
	out, err := exec.Command("go", "env", "GOCACHE").Output()
	dir := strings.TrimSpace(string(out))
	if err != nil || dir == "" || dir == "off" {
		return
	}
	for _, name := range []string{"KATA_GO_CACHE", "GOCACHE"} {
		if os.Getenv(name) == "" {
			os.Setenv(name, dir)
		}
	}
}

// SkipVersionManagerShims puts the folder of the real python3 and node first on PATH when the
// ones PATH names are a version manager's shims (pyenv's, asdf's: a script that works out
// which version to run, on every start). The tests start thousands of learner processes, and
// a shim costs more CPU than the interpreter's own start (pyenv's runs about twenty shell
// processes); the interpreter is the one the shim would run, asked for its own path.
func SkipVersionManagerShims() {
	for _, probe := range []struct {
		name string
		args []string
	}{
		{"python3", []string{"-c", "import sys; print(sys.executable)"}},
		{"node", []string{"-p", "process.execPath"}},
	} {
		found, err := exec.LookPath(probe.name)
		if err != nil || !isScript(found) {
			continue
		}
		out, err := exec.Command(found, probe.args...).Output()
		real := strings.TrimSpace(string(out))
		if err != nil || !filepath.IsAbs(real) || isScript(real) {
			continue
		}
		dir := filepath.Dir(real)
		if st, err := os.Stat(filepath.Join(dir, probe.name)); err != nil || st.IsDir() {
			continue
		}
		os.Setenv("PATH", dir+string(os.PathListSeparator)+os.Getenv("PATH"))
	}
}

// isScript reports whether the file at path starts with "#!".
func isScript(path string) bool {
	f, err := os.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	head := make([]byte, 2)
	n, _ := f.Read(head)
	return n == 2 && string(head) == "#!"
}
