//go:build !linux

package sandbox

// BecomeSubreaper is Linux-only; elsewhere process groups are the boundary.
func BecomeSubreaper() {}

// ReapEscapees is Linux-only; elsewhere it finds nothing.
func ReapEscapees(dir, token string, marker uint64) int { return 0 }
