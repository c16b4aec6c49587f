package cli

import (
	"io"
	"maps"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kata-mcp/kata/internal/progress"
	"github.com/kata-mcp/kata/katas"
	"github.com/kata-mcp/kata/katas/srs"
	"github.com/kata-mcp/kata/ui/components/deck"
)

// TestLocalizedCardsAreTheEnglishOnes: an item or trap row read in Spanish or Russian is the
// English card, and an answer given in Spanish is counted by kata stats (in English).
func TestLocalizedCardsAreTheEnglishOnes(t *testing.T) {
	path := hermeticState(t)
	lib, err := loadLibrary(newRootCmd(io.Discard, io.Discard))
	if err != nil {
		t.Fatal(err)
	}
	en := lib.Packets()[0]
	for _, loc := range []string{"es", "ru"} {
		p, _ := lib.Localized(loc).Get(en.ID)
		if p.Items[0].Stem == en.Items[0].Stem || p.Traps[0].Rows[0].Trap == en.Traps[0].Rows[0].Trap {
			t.Fatalf("%s: the first item or trap row is the English one", loc)
		}
		for i, it := range en.Items {
			if a, b := srs.ItemCardID(p.ID, p.Items[i]), srs.ItemCardID(en.ID, it); a != b {
				t.Errorf("%s: item %s is card %s, %s in English", loc, it.ID, a, b)
			}
		}
		for i, tbl := range en.Traps {
			for j, row := range tbl.Rows {
				lt := p.Traps[i]
				if a, b := srs.TrapCardID(p.ID, lt.Title, lt.Rows[j]), srs.TrapCardID(en.ID, tbl.Title, row); a != b {
					t.Errorf("%s: trap row %d.%d is card %s, %s in English", loc, i, j, a, b)
				}
			}
		}
	}
	// the trap drill's cards: the same item ids and card ids in every locale
	drillIDs := func(p *katas.Packet) map[string]bool {
		ids := map[string]bool{}
		for _, c := range deck.TrapCards(p, 1, nil) {
			ids[c.ItemID+" "+c.CardID] = true
		}
		return ids
	}
	for _, loc := range []string{"es", "ru"} {
		p, _ := lib.Localized(loc).Get(en.ID)
		if a, b := drillIDs(p), drillIDs(en); !maps.Equal(a, b) {
			t.Errorf("%s: the drill's cards differ from the English ones:\n%v\n%v", loc, a, b)
		}
	}
	// answered in Spanish
	es, _ := lib.Localized("es").Get(en.ID)
	it := es.Items[0]
	s, err := progress.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.RecordAnswer(progress.Answer{Kata: es.ID, ItemID: it.ID, CardID: srs.ItemCardID(es.ID, it), Chosen: it.Keys(), Correct: true}); err != nil {
		t.Fatal(err)
	}
	s.Close()
	out, _, err := runKataErr(t, "stats", "--items")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out, en.ID+"\n  "+it.ID+"  ") || !strings.Contains(out, "p = 1.00 (1 of 1 answer right)") {
		t.Errorf("kata stats --items does not count the answer given in Spanish:\n%s", out)
	}
}

// TestInitWritesTaskInTheUserLanguage: kata init writes TASK.md from task.<locale>.md when the
// packet has one, and from task.md in English or when it has none; the template files are the
// same in every language.
func TestInitWritesTaskInTheUserLanguage(t *testing.T) {
	hermeticState(t)
	pk := t.TempDir()
	const id = "mcp-error-responses"
	copyShipped(t, id, pk, nil)
	task, err := os.ReadFile(filepath.Join(pk, id, "task.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, title, _ := strings.Cut(strings.SplitN(string(task), "\n", 2)[0], "# ")
	twin := strings.Replace(string(task), title, "Tarea de prueba", 1)
	os.Remove(filepath.Join(pk, id, "task.es.md"))
	if err := os.WriteFile(filepath.Join(pk, id, "task.es.md"), []byte(twin), 0o644); err != nil {
		t.Fatal(err)
	}
	os.Remove(filepath.Join(pk, id, "task.ru.md"))
	ws := t.TempDir()
	for _, c := range []struct{ lang, want string }{{"es_ES.UTF-8", twin}, {"ru_RU.UTF-8", string(task)}, {"C", string(task)}} {
		t.Setenv("KATA_LANG", "")
		t.Setenv("LC_ALL", "")
		t.Setenv("LC_MESSAGES", "")
		t.Setenv("LANG", c.lang)
		dir := filepath.Join(ws, c.lang)
		if _, errOut, code := runKata(t, "--packets", pk, "init", id, dir); code != 0 {
			t.Fatalf("LANG=%s: exit %d: %s", c.lang, code, errOut)
		}
		got, err := os.ReadFile(filepath.Join(dir, "TASK.md"))
		if err != nil || string(got) != c.want {
			t.Errorf("LANG=%s: TASK.md is not the expected file (%v):\n%.200s", c.lang, err, got)
		}
		if c.lang != "C" {
			for _, f := range []string{"kata.json", ".mcp.json"} {
				a, errA := os.ReadFile(filepath.Join(dir, f))
				b, errB := os.ReadFile(filepath.Join(ws, "C", f))
				if errB == nil && (errA != nil || string(a) != string(b)) {
					t.Errorf("LANG=%s: %s differs from the English workspace's", c.lang, f)
				}
			}
		}
	}
	// `kata show` in English is the English layer, byte for byte
	lib, err := loadLibrary(newRootCmd(io.Discard, io.Discard))
	if err != nil {
		t.Fatal(err)
	}
	l, err := lib.Localized(katas.English).LoadLayer(id, "knowledge")
	if err != nil {
		t.Fatal(err)
	}
	want := l.Markdown() + "\n"
	t.Setenv("LANG", "")
	if out, _, code := runKata(t, "show", id); code != 0 || out != want {
		t.Errorf("kata show in English differs from the English layer (exit %d)", code)
	}
	if out, _, _ := runKata(t, "--lang", "es", "show", id); out == want || !strings.Contains(out, "```") {
		t.Errorf("kata --lang es show printed the English layer")
	}
}
