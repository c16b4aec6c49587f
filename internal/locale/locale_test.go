package locale

import "testing"

func TestResolve(t *testing.T) {
	for _, c := range []struct {
		flag string
		env  map[string]string
		want string
	}{
		{"", nil, "en"},
		{"ru", map[string]string{"LANG": "es_ES.UTF-8"}, "ru"},
		{"", map[string]string{"KATA_LANG": "es", "LANG": "ru_RU.UTF-8"}, "es"},
		{"", map[string]string{"LANG": "ru_RU.UTF-8"}, "ru"},
		{"", map[string]string{"LC_MESSAGES": "es_MX.UTF-8", "LANG": "ru_RU.UTF-8"}, "es"},
		{"", map[string]string{"LC_ALL": "C", "LANG": "ru_RU.UTF-8"}, "en"},
		{"", map[string]string{"LC_ALL": "fr_FR.UTF-8", "LANG": "ru_RU.UTF-8"}, "en"},
		{"fr", map[string]string{"LANG": "es_ES"}, "es"},
		{"", map[string]string{"KATA_LANG": "es-419"}, "es"},
		{"EN", map[string]string{"LANG": "ru_RU"}, "en"},
	} {
		got := Resolve(c.flag, func(k string) string { return c.env[k] })
		if got != c.want {
			t.Errorf("Resolve(%q, %v) = %q, want %q", c.flag, c.env, got, c.want)
		}
	}
}
