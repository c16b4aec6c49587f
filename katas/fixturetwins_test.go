package katas

import (
	"strings"
	"testing"
	"testing/fstest"
)

// A fixture twin words the tests in its locale; the grader's fixtures stay the English file's.
func TestFixtureTwinWordsTheTests(t *testing.T) {
	lib := miniLocalized(t, map[string]string{
		"fixtures/server.es.json": `{"tests": [
  {"id": "lookup-ok", "name": "lookup_order: un pedido que existe", "rule": "un éxito devuelve {\"order\": ...}"},
  {"id": "lookup-unavailable", "name": "lookup_order: 503", "rule": "un 503 es transitorio"}
]}`,
	})
	es, _ := lib.Localized("es").Get("mini-kata")
	en, _ := lib.Get("mini-kata")
	if got, ok := es.TestText("lookup-ok"); !ok || got.Name != "lookup_order: un pedido que existe" {
		t.Errorf("es lookup-ok: %+v %v", got, ok)
	}
	if got, _ := en.TestText("lookup-ok"); got.Name != "lookup_order: an existing order" {
		t.Errorf("en lookup-ok: %+v", got)
	}
	if es.Fixtures["server"].Fixtures[0].Name != "lookup_order: an existing order" {
		t.Error("the twin changed the fixture the grader plays")
	}
	if es.InEnglish("fixtures/server.json") {
		t.Errorf("fallback %v", es.Fallback)
	}
	if _, ok := es.TestText("tools-list"); ok {
		t.Error("a run-wide test has words in the packet")
	}
	// no Russian twin: English words, and the packet says so
	ru, _ := lib.Localized("ru").Get("mini-kata")
	if got, _ := ru.TestText("lookup-ok"); got.Name != "lookup_order: an existing order" || !ru.InEnglish("fixtures/server.json") {
		t.Errorf("ru: %+v, fallback %v", got, ru.Fallback)
	}
}

// A twin that moves, drops or adds a test fails validate naming both files; such a twin is not
// read.
func TestFixtureTwinMismatchFailsValidate(t *testing.T) {
	m := miniPacket(t)
	m["mini-kata/fixtures/server.ru.json"] = &fstest.MapFile{Data: []byte(`{"tests": [
  {"id": "lookup-unavailable", "name": "lookup_order: 503", "rule": "503 — временная ошибка"},
  {"id": "lookup-ok", "name": "lookup_order: заказ есть", "rule": ""},
  {"id": "lookup-extra", "name": "лишний", "rule": "лишний"}
]}`)}
	m["mini-kata/fixtures/client.es.json"] = &fstest.MapFile{Data: []byte(`{"tests": []}`)}
	vs, err := Validate(m, "test", ValidateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	got := vs[0].Problems.Error()
	for _, w := range []string{
		`mini-kata/fixtures/server.ru.json:3: test "lookup-ok" has no rule`,
		`mini-kata/fixtures/server.ru.json:4: test "lookup-extra" is not in mini-kata/fixtures/server.json`,
		`mini-kata/fixtures/client.es.json: not a locale twin of a graded part's fixtures`,
	} {
		if !strings.Contains(got, w) {
			t.Errorf("problems do not contain %q:\n%s", w, got)
		}
	}
	if strings.Contains(got, "which packet.json does not grade") || strings.Contains(got, "keep the English order") {
		t.Errorf("a twin was taken for a part:\n%s", got)
	}
	lib, err := Discover(m, "test")
	if err != nil {
		t.Fatal(err)
	}
	ru, _ := lib.Localized("ru").Get("mini-kata")
	if got, _ := ru.TestText("lookup-ok"); got.Name != "lookup_order: an existing order" || !ru.InEnglish("fixtures/server.json") {
		t.Errorf("a disagreeing twin was read: %+v", got)
	}
}

// A twin missing one test, or with two tests swapped, gets one problem naming the test and
// both files, not one for every test after it.
func TestFixtureTwinMissingOrMovedIsOneProblem(t *testing.T) {
	for name, tc := range map[string]struct{ twin, want string }{
		"missing": {`{"tests": [
  {"id": "lookup-unavailable", "name": "lookup_order: 503", "rule": "503 — временная ошибка"}
]}`, `mini-kata/fixtures/server.ru.json:2: test "lookup-ok" of mini-kata/fixtures/server.json (mini-kata/fixtures/server.json:`},
		"moved": {`{"tests": [
  {"id": "lookup-unavailable", "name": "lookup_order: 503", "rule": "503 — временная ошибка"},
  {"id": "lookup-ok", "name": "lookup_order: заказ есть", "rule": "успех"}
]}`, `mini-kata/fixtures/server.ru.json:2: test "lookup-unavailable" is at position 1 here, and mini-kata/fixtures/server.json has "lookup-ok" there (mini-kata/fixtures/server.json:`},
	} {
		m := miniPacket(t)
		m["mini-kata/fixtures/server.ru.json"] = &fstest.MapFile{Data: []byte(tc.twin)}
		vs, err := Validate(m, "test", ValidateOptions{})
		if err != nil {
			t.Fatal(err)
		}
		var twin []string
		for _, p := range vs[0].Problems {
			if strings.Contains(p.Error(), "server.ru.json") {
				twin = append(twin, p.Error())
			}
		}
		if len(twin) != 1 || !strings.Contains(twin[0], tc.want) {
			t.Errorf("%s: problems %q; want one containing %q", name, twin, tc.want)
		}
	}
}
