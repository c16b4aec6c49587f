package cli

import (
	"strings"
	"testing"
)

// TestListAndValidateSpeakTheLocale: kata list and kata validate word their lines in the
// language --lang or the environment picks, with Russian plural forms, while --json stays the
// same bytes in every language.
func TestListAndValidateSpeakTheLocale(t *testing.T) {
	for _, name := range []string{"KATA_LANG", "LC_ALL", "LC_MESSAGES", "LANG"} {
		t.Setenv(name, "")
	}
	en, _, err := runKataErr(t, "list")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(en, "layers: ") || !strings.Contains(en, " traps in ") {
		t.Fatalf("English list:\n%s", en)
	}
	ru, _, err := runKataErr(t, "list", "--lang", "ru")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"слои: ", "источник: ", " ловуш", " таблиц"} {
		if !strings.Contains(ru, want) {
			t.Errorf("Russian list lacks %q:\n%s", want, ru)
		}
	}
	if strings.Contains(ru, "layers: ") || strings.Contains(ru, " traps") {
		t.Errorf("Russian list still has English:\n%s", ru)
	}
	t.Setenv("LANG", "es_ES.UTF-8")
	es, _, err := runKataErr(t, "validate")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(es, "paquetes, ningún problema") {
		t.Errorf("Spanish validate summary:\n%s", es)
	}
	jsonES, _, err := runKataErr(t, "list", "--json")
	if err != nil {
		t.Fatal(err)
	}
	jsonEN, _, err := runKataErr(t, "list", "--json", "--lang", "en")
	if err != nil {
		t.Fatal(err)
	}
	if jsonES != jsonEN {
		t.Error("kata list --json differs between Spanish and English")
	}
}
