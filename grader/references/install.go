package references

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/kata-mcp/kata/grader/sandbox"
)

// ErrUnavailable marks an Install that could not run here: npm or go is not installed, or the
// npm registry or the Go module proxy cannot be reached. A test may skip on it; any other
// Install error is the reference's own (a lock file npm rejects, a go.sum that does not match).
var ErrUnavailable = errors.New("cannot install dependencies here")

// installDeadline bounds each install command.
const installDeadline = 5 * time.Minute

// NeedsInstall reports whether the workspace in dir has dependencies to install before it is
// graded: a package-lock.json (Node packages) or a go.sum (Go modules).
func NeedsInstall(dir string) bool {
	for _, f := range []string{"package-lock.json", "go.sum"} {
		if _, err := os.Stat(filepath.Join(dir, f)); err == nil {
			return true
		}
	}
	return false
}

// Install installs the workspace's dependencies as a learner does before `kata grade`, which
// installs nothing itself (docs/grading.md#kata-json): with a package-lock.json, `npm ci` (the
// exact versions of the lock file, into dir/node_modules, no install scripts); with a go.sum,
// `go mod download` into the module cache of the GOPATH the grader's build gets
// (sandbox.GoPath: .kata/go in the workspace, docs/grading.md#environment), left writable so the
// workspace can be removed. An error wraps ErrUnavailable when the tool is missing or the
// network is the cause, and carries the command's last output lines.
func Install(ctx context.Context, dir string) error {
	if _, err := os.Stat(filepath.Join(dir, "package-lock.json")); err == nil {
		if err := run(ctx, dir, nil, "npm", "ci", "--no-audit", "--no-fund", "--ignore-scripts", "--prefer-offline", "--loglevel=error"); err != nil {
			return err
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "go.sum")); err == nil {
		gopath := sandbox.GoPath(dir)
		env := append(os.Environ(), "GOPATH="+gopath, "GOMODCACHE="+filepath.Join(gopath, "pkg", "mod"), "GOFLAGS=-modcacherw")
		if err := run(ctx, dir, env, "go", "mod", "download"); err != nil {
			return err
		}
	}
	return nil
}

// run runs the command in dir with env (nil: the caller's), under installDeadline; a failure
// names the command and quotes the end of its output.
func run(ctx context.Context, dir string, env []string, name string, args ...string) error {
	if _, err := exec.LookPath(name); err != nil {
		return fmt.Errorf("%w: %s is not installed", ErrUnavailable, name)
	}
	ctx, cancel := context.WithTimeout(ctx, installDeadline)
	defer cancel()
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Dir = dir
	cmd.Env = env
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		out := strings.TrimSpace(stderr.String() + "\n" + stdout.String())
		if lines := strings.Split(out, "\n"); len(lines) > 12 {
			out = strings.Join(lines[len(lines)-12:], "\n")
		}
		msg := fmt.Errorf("%s %s in %s: %v\n%s", name, strings.Join(args, " "), dir, err, out)
		if offline(out) {
			return fmt.Errorf("%w: %w", ErrUnavailable, msg)
		}
		return msg
	}
	return nil
}

// offlineMarks are what npm and go print when the registry or the module proxy cannot be
// reached.
var offlineMarks = []string{"ENOTFOUND", "EAI_AGAIN", "ECONNREFUSED", "ECONNRESET", "ETIMEDOUT", "ENETUNREACH", "EHOSTUNREACH",
	"network request", "dial tcp", "no such host", "connection refused", "i/o timeout", "TLS handshake timeout", "proxyconnect", "network is unreachable"}

// offline reports whether a failed install's output says the network is the cause.
func offline(out string) bool {
	for _, m := range offlineMarks {
		if strings.Contains(out, m) {
			return true
		}
	}
	return false
}
