package katas

import (
	"io/fs"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/kata-mcp/kata/packets"
)

// miniLocalized is the library of mini-kata with files added (paths inside the packet).
func miniLocalized(t *testing.T, files map[string]string) *Library {
	t.Helper()
	m := miniPacket(t)
	for name, text := range files {
		m["mini-kata/"+name] = &fstest.MapFile{Data: []byte(text)}
	}
	lib, err := Discover(m, "test")
	if err != nil {
		t.Fatal(err)
	}
	return lib
}

func TestLocalizedReadsTwinsAndFallsBack(t *testing.T) {
	en := miniPacket(t)["mini-kata/exam.md"].Data
	examES := strings.Replace(string(en), "Flags or prose", "Indicadores o prosa", 1)
	lib := miniLocalized(t, map[string]string{
		"knowledge/01-basics.es.md": "# Conocimiento\n\nLos errores llevan **indicadores**.\n",
		"exam.es.md":                examES,
		// a twin whose steps differ from task.md's disagrees with it: task.md stands in
		"task.es.md": "# Tarea\n\nEscribe un servidor.\n\n## 2. Validar\n\nTexto.\n",
	})
	es := lib.Localized("es")
	if es.Locale() != "es" || lib.Locale() != "" {
		t.Fatalf("locales %q and %q", es.Locale(), lib.Locale())
	}
	p, ok := es.Get("mini-kata")
	if !ok {
		t.Fatal("mini-kata missing from the localized view")
	}
	pen, _ := lib.Get("mini-kata")
	if p.Items[0].Title != "Indicadores o prosa" || pen.Items[0].Title != "Flags or prose" {
		t.Errorf("item titles %q (es), %q (en)", p.Items[0].Title, pen.Items[0].Title)
	}
	for i := range pen.Items {
		if p.Items[i].ID != pen.Items[i].ID {
			t.Errorf("item %d: id %s in es, %s in en", i, p.Items[i].ID, pen.Items[i].ID)
		}
	}
	if p.InEnglish("exam.md") || !p.InEnglish("traps.md") || !p.InEnglish("task.md") {
		t.Errorf("fallback %v; want traps.md and task.md", p.Fallback)
	}
	if p.Task.Markdown != pen.Task.Markdown {
		t.Errorf("task.md: a twin that disagrees was read:\n%s", p.Task.Markdown)
	}
	if pen.InEnglish("traps.md") {
		t.Error("an English packet reports a fallback")
	}

	l, err := es.LoadLayer("mini-kata", "knowledge")
	if err != nil {
		t.Fatal(err)
	}
	md := l.Markdown()
	if !strings.Contains(md, "Conocimiento") || !strings.Contains(md, "more") && !slices.Equal(l.Fallback, []string{"02-more.md"}) {
		t.Errorf("es knowledge layer: fallback %v, markdown:\n%s", l.Fallback, md)
	}
	if !slices.Equal(l.Fallback, []string{"02-more.md"}) || l.Files()[0].Name != "01-basics.md" {
		t.Errorf("fallback %v, first file %q", l.Fallback, l.Files()[0].Name)
	}
	// one resident layer across the views: the English layer releases the Spanish one
	le, err := lib.LoadLayer("mini-kata", "knowledge")
	if err != nil {
		t.Fatal(err)
	}
	if !l.Released() || strings.Contains(le.Markdown(), "Conocimiento") || le.Fallback != nil {
		t.Errorf("English layer after the Spanish one: released %v, fallback %v", l.Released(), le.Fallback)
	}
	size, err := es.LayerSize("mini-kata", "knowledge")
	if err != nil {
		t.Fatal(err)
	}
	l, _ = es.LoadLayer("mini-kata", "knowledge")
	if int(size) != len(l.Markdown()) {
		t.Errorf("LayerSize %d, the localized layer is %d bytes", size, len(l.Markdown()))
	}
}

func TestLocalizedEnglishIsTheLibrary(t *testing.T) {
	lib := testLibrary(t)
	for _, loc := range []string{"", English} {
		if lib.Localized(loc) != lib {
			t.Errorf("Localized(%q) is another library", loc)
		}
	}
	if es := lib.Localized("es"); es.Localized("es") != es {
		t.Error("Localized of a view in its own locale makes another view")
	}
}

// TestLocalizedEmbedded reads every embedded packet in every locale: each file with a twin is
// read from it (none falls back), and ids, keys, trap rows and steps are the English ones.
func TestLocalizedEmbedded(t *testing.T) {
	cache := filepath.Join(t.TempDir(), IndexFile)
	embeddedCached(t, cache) // the first start writes the index
	lib := embeddedCached(t, cache)
	// a localized view lists the packets, as the catalog does, without parsing one
	if n := len(lib.Localized("ru").Entries()); n != len(lib.entries) {
		t.Fatalf("%d entries in Russian, %d in English", n, len(lib.entries))
	}
	for _, e := range lib.entries {
		if e.lazy == nil || e.lazy.done.Load() {
			t.Fatalf("listing the Russian view parsed %s", e.id)
		}
	}
	for _, loc := range []string{"es", "ru"} {
		view := lib.Localized(loc)
		for _, en := range lib.Packets() {
			p, ok := view.Get(en.ID)
			if !ok {
				t.Fatalf("%s: %s missing", loc, en.ID)
			}
			for _, name := range parsedFiles {
				_, err := fs.Stat(packets.FS, TwinName(path.Join(en.Dir, name), loc))
				if p.InEnglish(name) != (err != nil) {
					t.Errorf("%s %s %s: in English %v, twin exists %v", loc, en.ID, name, p.InEnglish(name), err == nil)
				}
			}
			if len(p.Items) != len(en.Items) || len(p.Traps) != len(en.Traps) || len(p.Task.Steps) != len(en.Task.Steps) {
				t.Fatalf("%s %s: %d items, %d trap tables, %d steps; English %d, %d, %d", loc, en.ID,
					len(p.Items), len(p.Traps), len(p.Task.Steps), len(en.Items), len(en.Traps), len(en.Task.Steps))
			}
			for i, it := range en.Items {
				q := p.Items[i]
				keys := func(it Item) []bool {
					var ks []bool
					for _, o := range it.Options {
						ks = append(ks, o.Key)
					}
					return ks
				}
				if q.ID != it.ID || !slices.Equal(keys(q), keys(it)) {
					t.Errorf("%s %s: item %s (keys %v) where English has %s (keys %v)", loc, en.ID, q.ID, keys(q), it.ID, keys(it))
				}
			}
			if !p.InEnglish("exam.md") && p.Items[0].Stem == en.Items[0].Stem {
				t.Errorf("%s %s: the first stem is the English one", loc, en.ID)
			}
			for _, layer := range en.Layers {
				l, err := view.LoadLayer(en.ID, layer)
				if err != nil {
					t.Fatalf("%s %s %s: %v", loc, en.ID, layer, err)
				}
				if len(l.Fallback) > 0 {
					t.Errorf("%s %s %s: read in English: %v", loc, en.ID, layer, l.Fallback)
				}
			}
			checkEmbeddedFixtureTwins(t, loc, en, p)
		}
	}
}

// checkEmbeddedFixtureTwins: every graded part of the embedded packet en has a fixture twin in
// loc that the localized packet p reads (none falls back to English), and the twin words most
// of its tests in its own language (an untranslated copy of the English names fails).
func checkEmbeddedFixtureTwins(t *testing.T, loc string, en, p *Packet) {
	t.Helper()
	if len(en.Graded) == 0 {
		t.Errorf("%s: grades no part", en.ID)
	}
	for _, part := range en.Graded {
		file := path.Join("fixtures", part+".json")
		if _, err := fs.Stat(packets.FS, FixtureTwinName(path.Join(en.Dir, file), loc)); err != nil {
			t.Errorf("%s %s: no twin of %s: %v", loc, en.ID, file, err)
			continue
		}
		if p.InEnglish(file) {
			t.Errorf("%s %s: %s read in English (the twin disagrees with it)", loc, en.ID, file)
			continue
		}
		texts := en.partTexts(part)
		if len(texts) == 0 {
			t.Errorf("%s %s: %s has no tests", loc, en.ID, file)
		}
		same := 0
		for _, e := range texts {
			got, ok := p.TestText(e.ID)
			if !ok || got.ID != e.ID || got.Rule == "" {
				t.Errorf("%s %s: test %s reads %+v", loc, en.ID, e.ID, got)
			}
			if got.Name == e.Name {
				same++
			}
		}
		if 2*same >= len(texts) {
			t.Errorf("%s %s: %d of %d test names in %s are the English ones", loc, en.ID, same, len(texts), FixtureTwinName(file, loc))
		}
	}
}

// The catalog's title and summary come from packet.json's translations in a localized view,
// for a listed (not parsed) packet and a parsed one alike; a locale without one shows English.
func TestManifestTranslations(t *testing.T) {
	lib, err := Discover(packets.FS, "embedded")
	if err != nil {
		t.Fatal(err)
	}
	en := lib.Entries()
	ru := lib.Localized("ru").Entries()
	for i := range en {
		tr, ok := en[i].Translations["ru"]
		if !ok {
			t.Fatalf("%s has no Russian title", en[i].ID)
		}
		if ru[i].Title != tr.Title || ru[i].Summary != tr.Summary || en[i].Title == tr.Title {
			t.Errorf("%s in ru: %q, want %q (English %q)", en[i].ID, ru[i].Title, tr.Title, en[i].Title)
		}
		p, _ := lib.Localized("ru").Get(en[i].ID)
		if p.Title != tr.Title {
			t.Errorf("%s parsed in ru: title %q, want %q", en[i].ID, p.Title, tr.Title)
		}
		if m := en[i].Manifest.In("fr"); m.Title != en[i].Title {
			t.Errorf("a locale without a translation: %q", m.Title)
		}
	}
	var ps Problems
	parseManifest("x/packet.json", []byte(`{"format_version":1,"id":"x","title":"X","summary":"s","layers":["knowledge"],"translations":{"EN":{"title":"t","summary":"s"},"es":{"title":"","summary":"s"}}}`), &ps)
	if got := ps.Error(); !strings.Contains(got, `key "EN" is not a two-letter locale`) || !strings.Contains(got, `"es" needs both a title and a summary`) {
		t.Errorf("bad translations: %v", got)
	}
}
