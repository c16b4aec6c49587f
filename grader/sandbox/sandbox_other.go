//go:build !linux

package sandbox

import (
	"errors"
	"os/exec"
	"syscall"

	"github.com/kata-mcp/kata/internal/i18n"
)

// howToIsolate says where isolation is available: bwrap is Linux-only.
func howToIsolate() i18n.Msg { return i18n.M("harness.isolation.needs_linux") }

// detectIsolation: there is no bwrap outside Linux.
func detectIsolation() Isolation {
	return Isolation{Kind: IsolationNone, Reason: "bubblewrap is Linux-only"}
}

// startBwrap is never called outside Linux (DetectIsolation never reports bwrap).
func startBwrap(b *Box, s Spec, program string, p *Process) error {
	return errors.New("bwrap is Linux-only")
}

// startPlain starts program in its own process group; macOS has no PDEATHSIG, no prlimit of
// another process and no /proc (docs/grading.md#not-isolated).
func startPlain(b *Box, s Spec, program string, p *Process) error {
	cmd := exec.Command(program, s.Args...)
	cmd.Args[0] = s.Command
	cmd.Dir = s.Cwd
	cmd.Env = s.Env
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := p.wire(cmd, s); err != nil {
		return err
	}
	if err := cmd.Start(); err != nil {
		return startError(s.Command, err)
	}
	return nil
}

// runMarker is Linux-only: there is no /proc to find a marker in.
func runMarker(seq uint64) uint64 { return 0 }

// shows: there is no bwrap sandbox outside Linux, so nothing is hidden.
func shows(b *Box, path string) bool { return true }
