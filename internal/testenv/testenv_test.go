package testenv

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestSkipVersionManagerShims: a python3 on PATH that is a shim (a script that runs the real
// interpreter, as pyenv's does) is passed over: the real interpreter's folder comes first on
// PATH; a PATH without a shim is left alone.
func TestSkipVersionManagerShims(t *testing.T) {
	real, err := exec.LookPath("python3")
	if err != nil {
		t.Skip("no python3")
	}
	out, err := exec.Command(real, "-c", "import sys; print(sys.executable)").Output()
	if err != nil {
		t.Fatal(err)
	}
	want := filepath.Dir(strings.TrimSpace(string(out)))
	shims := t.TempDir()
	shim := "#!/bin/sh\nexec " + strings.TrimSpace(string(out)) + " \"$@\"\n"
	if err := os.WriteFile(filepath.Join(shims, "python3"), []byte(shim), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", shims+string(os.PathListSeparator)+os.Getenv("PATH"))
	SkipVersionManagerShims()
	if first, _, _ := strings.Cut(os.Getenv("PATH"), string(os.PathListSeparator)); first != want {
		t.Errorf("PATH starts with %s, want %s (the real interpreter's folder)", first, want)
	}
	if got, _ := exec.LookPath("python3"); isScript(got) {
		t.Errorf("python3 is still the shim %s", got)
	}
	before := os.Getenv("PATH")
	SkipVersionManagerShims()
	if after := os.Getenv("PATH"); after != before {
		t.Errorf("without a shim PATH changed:\n %s\n %s", before, after)
	}
}
