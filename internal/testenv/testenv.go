// Package testenv prepares the environment of the tests that grade reference submissions.
package testenv

import (
	"os"
	"os/exec"
	"strings"
)

// UseGoBuildCache points kata's Go build cache for learner builds (KATA_GO_CACHE, see
// sandbox.GoCacheDir) at the Go build cache of the go command running the tests, unless it is
// set already. The references are the repository's own code, so sharing that cache is safe,
// and a cache that already holds the standard library (the test binary was just built with
// it) saves each Go reference build a minute of compiling it.
func UseGoBuildCache() {
	if os.Getenv("KATA_GO_CACHE") != "" {
		return
	}
	out, err := exec.Command("go", "env", "GOCACHE").Output()
	if dir := strings.TrimSpace(string(out)); err == nil && dir != "" && dir != "off" {
		os.Setenv("KATA_GO_CACHE", dir)
	}
}
