//go:build linux

package cli

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/kata-mcp/kata/grader/references"
	"github.com/kata-mcp/kata/grader/sandbox"
	"github.com/kata-mcp/kata/internal/testenv"
	"github.com/kata-mcp/kata/katas"
	"github.com/kata-mcp/kata/packets"
)

// TestSandboxEndToEnd runs the built kata binary on hostile references, in each sandbox (bwrap
// where the machine has it, and the fallback, forced with KATA_ISOLATION=off):
//   - kata killed with SIGKILL mid-run leaves no learner process (with bwrap none at all; in the
//     fallback the servers die with kata, and only daemons that left their group survive, as
//     docs/grading.md#not-isolated says);
//   - kata stopped with SIGTERM mid-run exits 130 and leaves none;
//   - a spy server finds neither a secret in kata's environment nor a fake ~/.aws/credentials.
func TestSandboxEndToEnd(t *testing.T) {
	t.Parallel() // runs its own kata binary in folders of its own: nothing shared with other tests
	if testing.Short() {
		t.Skip("end-to-end test skipped in -short mode")
	}
	bin := buildKata(t, t.TempDir())
	modes := map[string]string{"fallback": "off"}
	if sandbox.DetectIsolation().Isolated() {
		modes["bwrap"] = ""
	} else {
		t.Logf("bwrap is not available (%s): testing the fallback only", sandbox.DetectIsolation().Reason)
	}
	lib, err := katas.Discover(packets.FS, "embedded")
	if err != nil {
		t.Fatal(err)
	}
	p, _ := lib.Get("mcp-structured-errors")
	refs := filepath.Join("..", "..", "testdata", "references", "mcp-structured-errors", "python")
	for mode, isolation := range modes {
		t.Run(mode+"/sigkill", func(t *testing.T) {
			t.Parallel()
			ws, cmd := startGrade(t, bin, p, filepath.Join(refs, "hostile-daemons"), isolation, nil, "")
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			waitForDaemons(t, ws)
			cmd.Process.Signal(syscall.SIGKILL)
			cmd.Wait()
			left := testenv.SurvivorsOf(ws, 10*time.Second)
			defer testenv.KillProcessesOf(ws)
			for _, l := range left {
				if mode == "bwrap" || !strings.Contains(l, "kata-survivor:") {
					t.Errorf("after kata was killed with SIGKILL, process %s survived", l)
				}
			}
			if mode == "fallback" {
				t.Logf("without isolation, %d daemon(s) that left their process group outlived kata's SIGKILL (docs/grading.md#not-isolated)", len(left))
			}
		})
		t.Run(mode+"/sigterm", func(t *testing.T) {
			t.Parallel()
			ws, cmd := startGrade(t, bin, p, filepath.Join(refs, "hostile-daemons"), isolation, nil, "")
			var errb bytes.Buffer
			cmd.Stderr = &errb
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			waitForDaemons(t, ws)
			cmd.Process.Signal(syscall.SIGTERM)
			err := cmd.Wait()
			if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != exitInterrupted {
				t.Errorf("kata grade stopped with SIGTERM: %v, want exit %d", err, exitInterrupted)
			}
			for _, l := range testenv.SurvivorsOf(ws, 10*time.Second) {
				t.Errorf("after SIGTERM, process %s survived", l)
			}
			// the one-line notice says when learner code ran without isolation, and only then
			if noted := strings.Contains(errb.String(), "runs without isolation"); noted != (mode == "fallback") {
				t.Errorf("mode %s: stderr %q", mode, errb.String())
			}
			testenv.KillProcessesOf(ws)
		})
		t.Run(mode+"/spy", func(t *testing.T) {
			t.Parallel()
			secret := "kata-test-secret-" + randomHex()
			credential := "kata-test-credential-" + randomHex()
			home := t.TempDir()
			if err := os.MkdirAll(filepath.Join(home, ".aws"), 0o700); err != nil {
				t.Fatal(err)
			}
			os.WriteFile(filepath.Join(home, ".aws", "credentials"), []byte("[default]\naws_secret_access_key = "+credential+"\n"), 0o600)
			env := []string{"HOME=" + home, "AWS_SECRET_ACCESS_KEY=" + secret, "MY_TOKEN_SECRET=" + secret}
			// kata runs in the fake home folder, as from a shell there
			ws, cmd := startGrade(t, bin, p, filepath.Join(refs, "hostile-spy"), isolation, env, home)
			if mode == "fallback" && os.Getuid() == 0 {
				// Without namespaces only the kernel's rules on /proc keep kata's environment
				// from learner code of the same user, and root may read anything: the fallback
				// is tested as an ordinary user (docs/grading.md#not-isolated)
				cmd = asNobody(t, cmd, bin, home, filepath.Dir(ws))
			}
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			if err := cmd.Wait(); err != nil {
				t.Errorf("kata grade: %v (the spy behaves once it has looked: every test passes)", err)
			}
			loot, err := os.ReadFile(filepath.Join(ws, "loot.txt"))
			if err != nil || !strings.Contains(string(loot), "own environment:") {
				t.Fatalf("the spy left no loot.txt (%v): the test proves nothing", err)
			}
			for _, line := range strings.Split(string(loot), "\n") {
				if strings.Contains(line, secret) || strings.Contains(line, credential) {
					t.Errorf("the spy read a secret: %q", line)
				}
			}
		})
	}
}

// startGrade lays ref over p's python template in a fresh workspace and prepares
// `kata grade --seed 1` on it with KATA_ISOLATION=isolation, a private state file and extra
// environment entries, in the folder cwd ("" for the test's own); it returns the workspace and
// the command, to start. Whatever is left running is killed when the test ends.
func startGrade(t *testing.T, bin string, p *katas.Packet, ref, isolation string, extra []string, cwd string) (string, *exec.Cmd) {
	t.Helper()
	tmp := t.TempDir()
	ws := filepath.Join(tmp, "ws")
	if err := references.Workspace(p, "python", ref, ws); err != nil {
		t.Fatal(err)
	}
	// kata's own temporary folders go in the test's, so a kata killed with SIGKILL leaves none
	tmpdir := filepath.Join(tmp, "tmp")
	os.Mkdir(tmpdir, 0o755)
	cmd := exec.Command(bin, "grade", "--seed", "1", ws)
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + tmp, "TMPDIR=" + tmpdir, "KATA_STATE=" + filepath.Join(tmp, "state", "progress.db"), "KATA_ISOLATION=" + isolation}
	if v := os.Getenv(sandbox.EnvGoCache); v != "" {
		cmd.Env = append(cmd.Env, sandbox.EnvGoCache+"="+v)
	}
	cmd.Env = append(cmd.Env, extra...)
	cmd.Dir = cwd
	t.Cleanup(func() {
		if cmd.Process != nil {
			cmd.Process.Kill()
		}
		testenv.KillProcessesOf(ws)
	})
	return ws, cmd
}

// asNobody returns cmd set to run as the user nobody (65534), with a PATH of system folders
// only (root's own tool folders are closed to nobody), a Go cache of its own, and the folders
// it needs — bin's, and those of each of dirs — handed over to nobody.
func asNobody(t *testing.T, cmd *exec.Cmd, bin string, dirs ...string) *exec.Cmd {
	t.Helper()
	for _, d := range append([]string{filepath.Dir(bin)}, dirs...) {
		for p := d; p != "/" && p != os.TempDir(); p = filepath.Dir(p) {
			os.Chmod(p, 0o755) // the test's temporary folders are 0700
		}
		filepath.Walk(d, func(path string, _ os.FileInfo, err error) error {
			if err == nil {
				os.Lchown(path, 65534, 65534)
			}
			return nil
		})
	}
	cache := filepath.Join(dirs[len(dirs)-1], "go-cache")
	var env []string
	for _, kv := range cmd.Env {
		if !strings.HasPrefix(kv, "PATH=") && !strings.HasPrefix(kv, sandbox.EnvGoCache+"=") {
			env = append(env, kv)
		}
	}
	cmd.Env = append(env, "PATH=/usr/local/bin:/usr/bin:/bin", sandbox.EnvGoCache+"="+cache)
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534}}
	return cmd
}

// waitForDaemons waits until every daemon of hostile-daemons has started in ws.
func waitForDaemons(t *testing.T, ws string) {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for {
		n := 0
		for _, e := range []string{"setsid", "double-fork", "chdir", "empty-env", "exec"} {
			if _, err := os.Stat(filepath.Join(ws, ".kata", "started-"+e)); err == nil {
				n++
			}
		}
		if n == 5 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("only %d of 5 daemons started within a minute", n)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func randomHex() string {
	b := make([]byte, 8)
	rand.Read(b)
	return hex.EncodeToString(b)
}
