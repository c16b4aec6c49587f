//go:build !unix

package headless

import "os/exec"

// ownGroup does nothing here: the context's cancellation kills the browser alone.
func ownGroup(*exec.Cmd) {}

// killGroup does nothing here.
func killGroup(*exec.Cmd) {}
