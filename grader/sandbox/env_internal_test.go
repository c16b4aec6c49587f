package sandbox

import (
	"strings"
	"testing"
)

// TestCallerSecretsAreNotInherited: a learner process gets PATH and LANG of the caller, the
// sandbox's HOME and TMPDIR and kata's Go settings, and none of the caller's other variables.
func TestCallerSecretsAreNotInherited(t *testing.T) {
	t.Setenv("ANTHROPIC_API_KEY", "sk-ant-secret")
	t.Setenv("PATH", "/usr/bin")
	env := strings.Join(PlainEnv(map[string]string{"ORDERS_API_URL": "u"}), "\n")
	if strings.Contains(env, "sk-ant-secret") || !strings.Contains(env, "PATH=/usr/bin") || !strings.Contains(env, "ORDERS_API_URL=u") {
		t.Errorf("env = %q", env)
	}
	box := &Box{home: "/sandbox/home", tmp: "/sandbox/tmp", ws: "/w", goCache: "/c"}
	if _, ok := box.LookupEnv(nil)("ANTHROPIC_API_KEY"); ok {
		t.Error("a caller variable other than PATH, USER, LANG was expandable")
	}
	if v, _ := box.LookupEnv(nil)("HOME"); v != "/sandbox/home" {
		t.Errorf("${HOME} expands to %q, want the sandbox's HOME", v)
	}
	env = strings.Join(box.Env(map[string]string{"ORDERS_API_URL": "u"}), "\n")
	for _, want := range []string{"PATH=/usr/bin", "HOME=/sandbox/home", "TMPDIR=/sandbox/tmp", "GOCACHE=/c", "ORDERS_API_URL=u"} {
		if !strings.Contains(env, want) {
			t.Errorf("sandbox env lacks %s: %q", want, env)
		}
	}
	if strings.Contains(env, "sk-ant-secret") {
		t.Errorf("sandbox env carries the caller's secret: %q", env)
	}
}
