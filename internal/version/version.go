// Package version says which build of kata is running, for `kata --version` and for the
// serverInfo.version that `kata mcp` sends in initialize.
package version

import "runtime/debug"

// version is set at link time, for a release built by hand or by a packager:
//
//	go build -ldflags "-X github.com/kata-mcp/kata/internal/version.version=v1.2.0" .
//
// Left empty, String reads the version from the build information.
var version string

// String returns the version of this kata binary, the first of:
//   - the version set at link time (see version above);
//   - the module version Go recorded: v1.2.0 for `go install github.com/kata-mcp/kata@v1.2.0`,
//     or, for `go build` or `go install .` in a git clone, a pseudo-version naming the commit
//     (v0.0.0-20261204224734-3032b2a8c11c, with +dirty when files were changed);
//   - "devel+REVISION" (12 hex digits, ".dirty" when files were changed) when Go recorded the
//     commit but no module version;
//   - "devel" for a build that recorded neither: `go run .`, a test binary, or a build with
//     -buildvcs=false.
//
// It never returns Go's own placeholder "(devel)".
func String() string {
	if version != "" {
		return version
	}
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return "devel"
	}
	return fromBuildInfo(bi)
}

// fromBuildInfo is String's reading of bi.
func fromBuildInfo(bi *debug.BuildInfo) string {
	if v := bi.Main.Version; v != "" && v != "(devel)" {
		return v
	}
	var rev string
	dirty := false
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			dirty = s.Value == "true"
		}
	}
	if rev == "" {
		return "devel"
	}
	v := "devel+" + rev[:min(12, len(rev))]
	if dirty {
		v += ".dirty"
	}
	return v
}
