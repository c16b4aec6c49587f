package class

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/kata-mcp/kata/grader"
	"github.com/kata-mcp/kata/grader/sandbox"
	"github.com/kata-mcp/kata/internal/i18n"
)

// DepsTimeout bounds one learner's dependency install.
const DepsTimeout = 5 * time.Minute

// Deps installs the dependencies of SDK learners before they are graded: a workspace with a
// package.json that names dependencies gets `npm ci --ignore-scripts` (from package-lock.json
// only: no script of any package runs), one whose go.mod requires modules gets `go mod
// download` (from go.sum) into the module cache its graded build reads (GOPATH .kata/go, as
// docs/grading.md#environment says). Both draw on one cache shared by the class, in Cache.
// Installs run before the graded run and outside its sandbox, since they need the network
// the graded run does not have; they run none of the learner's code. A workspace whose
// manifest names dependencies without a lock file, or whose install fails, cannot be graded,
// and its row says why.
type Deps struct {
	// Cache is the class's shared download cache (npm/ and go/ inside it).
	Cache string
	// run runs a command (tests); nil runs it.
	run func(ctx context.Context, dir string, env []string, name string, args ...string) ([]byte, error)
}

// Install installs the dependencies of the workspace dir; the error is a catalog message
// saying why the learner cannot be graded.
func (d *Deps) Install(ctx context.Context, dir string) error {
	// the commands run in the learner's folder: a relative cache would land inside it
	if abs, err := filepath.Abs(d.Cache); err == nil {
		d.Cache = abs
	}
	if err := d.node(ctx, dir); err != nil {
		return err
	}
	return d.goModules(ctx, dir)
}

// exec runs name with args in dir with env added to this process's environment, within
// DepsTimeout, and returns its combined output.
func (d *Deps) exec(ctx context.Context, dir string, env []string, name string, args ...string) ([]byte, error) {
	if d.run != nil {
		return d.run(ctx, dir, env, name, args...)
	}
	ctx, cancel := context.WithTimeout(ctx, DepsTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), env...)
	cmd.WaitDelay = 5 * time.Second
	return cmd.CombinedOutput()
}

// node runs npm ci for a package.json that names dependencies.
func (d *Deps) node(ctx context.Context, dir string) error {
	b, err := os.ReadFile(filepath.Join(dir, "package.json"))
	if err != nil {
		return nil // no package.json: nothing to install
	}
	var pkg struct {
		Dependencies    map[string]any `json:"dependencies"`
		DevDependencies map[string]any `json:"devDependencies"`
	}
	if err := json.Unmarshal(b, &pkg); err != nil {
		return i18n.Err("class.deps.bad_manifest", "File", "package.json", "Error", err.Error())
	}
	if len(pkg.Dependencies)+len(pkg.DevDependencies) == 0 {
		return nil
	}
	if !isFile(filepath.Join(dir, "package-lock.json")) && !isFile(filepath.Join(dir, "npm-shrinkwrap.json")) {
		return i18n.Err("class.deps.no_lock", "Manifest", "package.json", "Lock", "package-lock.json", "Fix", "npm install")
	}
	// The flags on the command line win over the workspace's own .npmrc: the class's cache,
	// no install script, and the machine's git, whatever the learner configured.
	out, err := d.exec(ctx, dir, []string{"npm_config_update_notifier=false"}, "npm", "ci", "--ignore-scripts", "--no-audit", "--no-fund",
		"--cache", filepath.Join(d.Cache, "npm"), "--prefer-offline", "--git", "git", "--loglevel", "error")
	if err != nil {
		return i18n.Err("class.deps.failed", "Command", "npm ci --ignore-scripts", "Error", err.Error(), "Output", tail(out))
	}
	return nil
}

// goModules runs go mod download for a go.mod that requires modules: into the class's cache
// (from the network, checked against go.sum), then from that cache alone into the module
// cache the workspace's graded build reads.
func (d *Deps) goModules(ctx context.Context, dir string) error {
	b, err := os.ReadFile(filepath.Join(dir, "go.mod"))
	if err != nil || !bytes.Contains(b, []byte("require")) {
		return nil
	}
	if !isFile(filepath.Join(dir, "go.sum")) {
		return i18n.Err("class.deps.no_lock", "Manifest", "go.mod", "Lock", "go.sum", "Fix", "go mod tidy")
	}
	shared := filepath.Join(d.Cache, "go")
	// No version control tools (a module comes from a proxy or not at all), no toolchain
	// download, and go.sum as it is: the download may not change the workspace.
	common := []string{"GOTOOLCHAIN=local", "GOVCS=*:off", "GOFLAGS=-mod=readonly -modcacherw", "GOWORK=off"}
	if out, err := d.exec(ctx, dir, append(common, "GOMODCACHE="+shared), "go", "mod", "download"); err != nil {
		return i18n.Err("class.deps.failed", "Command", "go mod download", "Error", err.Error(), "Output", tail(out))
	}
	local := append(common, "GOMODCACHE="+filepath.Join(sandbox.GoPath(dir), "pkg", "mod"),
		"GOPROXY=file://"+filepath.ToSlash(filepath.Join(shared, "cache", "download")), "GOSUMDB=off")
	if out, err := d.exec(ctx, dir, local, "go", "mod", "download"); err != nil {
		return i18n.Err("class.deps.failed", "Command", "go mod download", "Error", err.Error(), "Output", tail(out))
	}
	return nil
}

// tail is the last lines of a command's output, for a cannot-grade row.
func tail(out []byte) string {
	s := strings.TrimSpace(string(out))
	if r := []rune(s); len(r) > 800 {
		s = "…" + string(r[len(r)-800:])
	}
	if s == "" {
		return "(no output)"
	}
	return s
}

// depsReport is the report of a learner whose dependencies could not be installed.
func depsReport(l Learner, seed int64, err error) *grader.Report {
	msg := i18n.ErrMsg(err)
	rep := errorReport(l, seed, fmt.Sprint(err))
	rep.Why = &msg
	rep.Kata = NamedKata(l.Dir)
	return rep
}
