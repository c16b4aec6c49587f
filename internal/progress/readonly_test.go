//go:build unix

package progress

import (
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestReadOnlyStateFolderIsNamed: a state folder kata may not write to is reported as that
// folder, not as SQLite's "attempt to write a readonly database". Root may write anywhere, so
// as root the test runs itself again as the user nobody.
func TestReadOnlyStateFolderIsNamed(t *testing.T) {
	if dir := os.Getenv("KATA_TEST_READONLY_DIR"); dir != "" {
		_, err := Open(filepath.Join(dir, "progress.db"))
		if err == nil || !strings.Contains(err.Error(), "the folder "+dir+" is not writable") {
			t.Fatalf("Open in a read-only folder: %v", err)
		}
		return
	}
	tmp := t.TempDir()
	dir := filepath.Join(tmp, "state")
	if err := os.Mkdir(dir, 0o555); err != nil {
		t.Fatal(err)
	}
	if os.Getuid() != 0 {
		t.Setenv("KATA_TEST_READONLY_DIR", dir)
		TestReadOnlyStateFolderIsNamed(t)
		return
	}
	// as nobody: a copy of this test binary nobody may run, and a folder nobody owns but may
	// not write to
	bin := filepath.Join(tmp, "progress.test")
	src, err := os.Open(os.Args[0])
	if err != nil {
		t.Fatal(err)
	}
	dst, err := os.OpenFile(bin, os.O_CREATE|os.O_WRONLY, 0o755)
	if err != nil {
		t.Fatal(err)
	}
	io.Copy(dst, src)
	src.Close()
	dst.Close()
	for p := tmp; p != "/" && p != os.TempDir(); p = filepath.Dir(p) {
		os.Chmod(p, 0o755)
	}
	os.Chown(dir, 65534, 65534)
	cmd := exec.Command(bin, "-test.run=^TestReadOnlyStateFolderIsNamed$", "-test.count=1")
	cmd.Env = []string{"KATA_TEST_READONLY_DIR=" + dir, "HOME=" + tmp}
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534}}
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Errorf("as nobody: %v\n%s", err, out)
	}
}
