// Package headless runs a page in a real headless browser, Debian's chromium, for the tests
// that check what a person would see: the DOM as the browser built it, and a screenshot.
package headless

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"time"
)

// InstallHint says how to get the browser the tests use.
const InstallHint = "chromium is not installed: apt-get install -y chromium (.ci/run installs it)"

// Find returns the path of a chromium binary on PATH, or "" when there is none.
func Find() string {
	for _, name := range []string{"chromium", "chromium-browser"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	return ""
}

// flags are chromium's flags for a hermetic run: headless, no sandbox (the tests run as root
// in CI), no GPU, no crash reporter (it would outlive the browser), and none of the background
// traffic (updates, sync, first-run pages).
var flags = []string{"--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
	"--disable-component-update", "--disable-sync", "--no-first-run", "--disable-default-apps",
	"--disable-extensions", "--hide-scrollbars", "--mute-audio", "--disable-crash-reporter", "--disable-breakpad"}

// run starts chromium on the file with the extra flags, in a profile folder of its own that is
// removed afterwards, and returns its stdout.
func run(ctx context.Context, bin, file string, extra ...string) ([]byte, error) {
	profile, err := os.MkdirTemp("", "kata-chromium-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(profile)
	abs, err := filepath.Abs(file)
	if err != nil {
		return nil, err
	}
	args := append(append(append([]string{}, flags...), "--user-data-dir="+profile), extra...)
	args = append(args, "file://"+abs)
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Dir = profile
	// chromium starts helper processes (zygote, GPU, network) that inherit its stdout and
	// stderr; one left behind would hold the pipes open and Output would never return. They
	// run in a process group of their own, killed whole when the context ends and once the
	// browser has exited; WaitDelay bounds the wait for the pipes after that.
	ownGroup(cmd)
	cmd.WaitDelay = 10 * time.Second
	defer killGroup(cmd)
	var stderr []byte
	out, err := cmd.Output()
	if ee, ok := err.(*exec.ExitError); ok {
		stderr = ee.Stderr
	}
	if err != nil {
		return out, fmt.Errorf("chromium: %v\n%s", err, stderr)
	}
	return out, nil
}

// DumpDOM loads the file and returns the DOM chromium built from it, serialised.
func DumpDOM(ctx context.Context, bin, file string) (string, error) {
	out, err := run(ctx, bin, file, "--dump-dom")
	return string(out), err
}

// Screenshot loads the file in a window of width × height pixels and writes a PNG of it to png.
func Screenshot(ctx context.Context, bin, file, png string, width, height int) error {
	abs, err := filepath.Abs(png)
	if err != nil {
		return err
	}
	if _, err := run(ctx, bin, file, "--screenshot="+abs, fmt.Sprintf("--window-size=%d,%d", width, height)); err != nil {
		return err
	}
	if st, err := os.Stat(abs); err != nil || st.Size() == 0 {
		return fmt.Errorf("chromium wrote no screenshot to %s", abs)
	}
	return nil
}
