package version

import (
	"runtime/debug"
	"testing"
)

func TestFromBuildInfo(t *testing.T) {
	for _, c := range []struct {
		bi   debug.BuildInfo
		want string
	}{
		{debug.BuildInfo{Main: debug.Module{Version: "v1.2.0"}}, "v1.2.0"},
		{debug.BuildInfo{Main: debug.Module{Version: "v0.0.0-20261204224734-3032b2a8c11c+dirty"}}, "v0.0.0-20261204224734-3032b2a8c11c+dirty"},
		{debug.BuildInfo{Main: debug.Module{Version: "(devel)"}}, "devel"},
		{debug.BuildInfo{Main: debug.Module{Version: "(devel)"}, Settings: []debug.BuildSetting{
			{Key: "vcs.revision", Value: "3032b2a8c11cdf79043a3957119a6458db4928b8"}, {Key: "vcs.modified", Value: "true"}}}, "devel+3032b2a8c11c.dirty"},
		{debug.BuildInfo{Settings: []debug.BuildSetting{{Key: "vcs.revision", Value: "abc"}}}, "devel+abc"},
	} {
		if got := fromBuildInfo(&c.bi); got != c.want {
			t.Errorf("%+v: %q, want %q", c.bi.Main, got, c.want)
		}
	}
	if v := String(); v == "" || v == "(devel)" {
		t.Errorf("String() = %q", v)
	}
}
