package katas

import (
	"fmt"
	"io/fs"
	"maps"
	"path"
	"slices"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/kata-mcp/kata/internal/locale"
	"github.com/kata-mcp/kata/packets"
)

func TestSplitTwin(t *testing.T) {
	for _, c := range []struct {
		name, english, locale string
		ok                    bool
	}{
		{"01-model.es.md", "01-model.md", "es", true},
		{"exam.ru.md", "exam.md", "ru", true},
		{"README.es.md", "README.md", "es", true},
		{"exam.md", "", "", false},
		{"notes.v2.md", "", "", false},
		{"01-model.ES.md", "", "", false},
		{"01-model.esp.md", "", "", false},
		{".es.md", "", "", false},
		{"01-model.es.txt", "", "", false},
	} {
		en, loc, ok := SplitTwin(c.name)
		if en != c.english || loc != c.locale || ok != c.ok {
			t.Errorf("SplitTwin(%q) = %q, %q, %v; want %q, %q, %v", c.name, en, loc, ok, c.english, c.locale, c.ok)
		}
	}
}

// miniWithTwins is mini-kata with a locale twin beside every layer file, exam.md, traps.md and
// task.md: each twin is the English file with edit applied (nil: unchanged).
func miniWithTwins(t *testing.T, locale string, edit map[string]func(string) string) fstest.MapFS {
	t.Helper()
	m := miniPacket(t)
	for p, f := range maps.Collect(maps.All(m)) {
		rel := strings.TrimPrefix(p, "mini-kata/")
		if dir := path.Dir(rel); strings.HasSuffix(p, ".md") && (slices.Contains(LayerNames, dir) || dir == ".") {
			s := string(f.Data)
			if fn := edit[rel]; fn != nil {
				s = fn(s)
			}
			m["mini-kata/"+strings.TrimSuffix(rel, ".md")+"."+locale+".md"] = &fstest.MapFile{Data: []byte(s)}
		}
	}
	return m
}

// The loader leaves twins out: they are no extra layer pages, and the packet loads as before.
func TestLoaderSkipsLocaleTwins(t *testing.T) {
	fsys := miniWithTwins(t, "es", map[string]func(string) string{
		// A twin the loader read as a layer page or a prompt would add problems.
		"prompts/01-review.md": func(s string) string { return s + "\n## Arguments\n\n- `x`: nothing\n" },
	})
	if _, ok := fsys["mini-kata/knowledge/01-basics.es.md"]; !ok {
		t.Fatal("the test packet has no twins")
	}
	// The same problems as without twins (mini-kata has no coverage.md), plus the broken
	// twin's own: validate checks twins, the loader does not read them as packet files.
	plain := ValidatePacket(packetWith(t, "exam.md", mustRead(t, "testdata/packets/mini-kata/exam.md")), "mini-kata", "test", ValidateOptions{MinItems: 2})
	v := ValidatePacket(fsys, "mini-kata", "test", ValidateOptions{MinItems: 2})
	var own Problems
	for _, p := range v.Problems {
		if !strings.HasPrefix(p.File, "mini-kata/prompts/01-review.es.md") {
			own = append(own, p)
		}
	}
	if own.Error() != plain.Problems.Error() || v.Warnings.Error() != plain.Warnings.Error() {
		t.Errorf("twins change what validate reports of the English files:\n%v\n%v\nwithout twins:\n%v\n%v", v.Problems, v.Warnings, plain.Problems, plain.Warnings)
	}
	if len(own) == len(v.Problems) {
		t.Errorf("the broken twin prompt is not reported: %v", v.Problems)
	}
	lib, err := Discover(fsys, "test")
	if err != nil {
		t.Fatal(err)
	}
	for _, layer := range LayerNames {
		l, err := lib.LoadLayer("mini-kata", layer)
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range l.Files() {
			if _, _, twin := SplitTwin(f.Name); twin {
				t.Errorf("layer %s has the twin %s as a page", layer, f.Name)
			}
		}
	}
	if n, _ := lib.LayerSize("mini-kata", "knowledge"); n != int64(len(mustLayer(t, lib, "knowledge"))) {
		t.Errorf("LayerSize counts twins: %d bytes for %d", n, len(mustLayer(t, lib, "knowledge")))
	}
}

func mustLayer(t *testing.T, lib *Library, layer string) string {
	t.Helper()
	l, err := lib.LoadLayer("mini-kata", layer)
	if err != nil {
		t.Fatal(err)
	}
	return l.Markdown()
}

func TestIdenticalTwinsPass(t *testing.T) {
	fsys := miniWithTwins(t, "ru", nil)
	if ps := CheckTwins(fsys, "mini-kata"); len(ps) > 0 {
		t.Errorf("unchanged twins have problems:\n%v", ps)
	}
}

// Every broken twin fails with a problem at the twin's file and line that names the English
// file and line.
func TestBrokenTwinsFailNamingBothFiles(t *testing.T) {
	for _, c := range []struct {
		name, file string
		edit       func(string) string
		want       []string // each in some problem
	}{
		{"moved key", "exam.md", func(s string) string {
			s = strings.Replace(s, "- [ ] Retry, because", "- [x] Retry, because", 1)
			return strings.Replace(s, "- [x] Stop without", "- [ ] Stop without", 1)
		}, []string{
			"mini-kata/exam.es.md:10: item mk-01: option 1 of 3 is a key (checked) here but a distractor (unchecked) in mini-kata/exam.md:10",
			"mini-kata/exam.es.md:12: item mk-01: option 2 of 3 is a distractor (unchecked) here but a key (checked) in mini-kata/exam.md:12",
		}},
		{"missing item", "exam.md", func(s string) string {
			i := strings.Index(s, "## `mk-02`")
			return s[:i]
		}, []string{"mini-kata/exam.es.md:15: item mk-02 of mini-kata/exam.md:17 is missing here"}},
		{"extra item", "exam.md", func(s string) string {
			return s + "\n## `mk-09` Extra\n\nScenario: customer-support\n\nStem.\n\n- [x] A.\n  > Why.\n- [ ] B.\n  > Why not.\n"
		}, []string{"mini-kata/exam.es.md:28: item mk-09 is not in mini-kata/exam.md"}},
		{"an option fewer", "exam.md", func(s string) string {
			return strings.Replace(s, "- [ ] Ask the model to read the text.\n  > That moves a deterministic decision back into the model.\n", "", 1)
		}, []string{"mini-kata/exam.es.md:3: item mk-01 has 2 options here, 3 in mini-kata/exam.md:3"}},
		{"other scenario", "exam.md", func(s string) string {
			return strings.Replace(s, "Scenario: customer-support", "Scenario: claude-code-ci", 1)
		}, []string{"mini-kata/exam.es.md:3: item mk-01: Scenario: claude-code-ci here, customer-support in mini-kata/exam.md:3"}},
		{"swapped items", "exam.md", func(s string) string {
			i := strings.Index(s, "## `mk-02`")
			return "# Exam\n\n" + s[i:] + "\n" + s[len("# Exam\n\n"):i]
		}, []string{"mini-kata/exam.es.md:3: item mk-02 comes where mini-kata/exam.md has item mk-01 (mini-kata/exam.md:3)"}},
		{"changed code", "exam.md", func(s string) string {
			return strings.Replace(s, "What does the client do?", "What does the client do?\n\n```json\n{}\n```", 1)
		}, []string{"mini-kata/exam.es.md:3: item mk-01: 1 code blocks here, 0 in mini-kata/exam.md:3"}},
		{"a trap row fewer", "traps.md", func(s string) string {
			return strings.Replace(s, "| Retry inside the server | Retries multiply | Let the client retry |\n", "", 1)
		}, []string{"mini-kata/traps.es.md:7: trap table 1 (\"Server side\") has 1 rows here, 2 in mini-kata/traps.md:7"}},
		{"a trap table more", "traps.md", func(s string) string {
			return s + "\n## Más\n\n| Trap | Why it fails | Correct pattern |\n| --- | --- | --- |\n| a | b | c |\n"
		}, []string{"mini-kata/traps.es.md:14: trap table 2 (\"Más\") is not in mini-kata/traps.md, which has 1"}},
		{"translated column headers", "traps.md", func(s string) string {
			return strings.Replace(s, "| Trap | Why it fails | Correct pattern |", "| Trampa | Por qué falla | Patrón correcto |", 1)
		}, []string{"mini-kata/traps.es.md:5: a trap table's columns must be Trap | Why it fails | Correct pattern"}},
		{"a step fewer", "task.md", func(s string) string {
			i := strings.Index(s, "## 2.")
			return s[:i]
		}, []string{"mini-kata/task.es.md:", "step 2 of mini-kata/task.md:9 is missing here"}},
		{"changed layer code", "examples/01-good.md", func(s string) string {
			return strings.Replace(s, `"isError": true`, `"isError": verdadero`, 1)
		}, []string{"mini-kata/examples/01-good.es.md:3: code block 1 differs from the one in mini-kata/examples/01-good.md:3"}},
		{"renamed agent", "agents/reviewer.md", func(s string) string {
			return strings.Replace(s, "name: reviewer", "name: revisor", 1)
		}, []string{`mini-kata/agents/reviewer.es.md:2: front matter name: "revisor" here, "reviewer" in mini-kata/agents/reviewer.md:2`}},
	} {
		t.Run(c.name, func(t *testing.T) {
			fsys := miniWithTwins(t, "es", map[string]func(string) string{c.file: c.edit})
			ps := CheckTwins(fsys, "mini-kata")
			if len(ps) == 0 {
				t.Fatal("a broken twin passed")
			}
			got := ps.Error()
			for _, w := range c.want {
				if !strings.Contains(got, w) {
					t.Errorf("no problem says %q; got:\n%s", w, got)
				}
			}
			for _, p := range ps {
				if !strings.Contains(p.Error(), "mini-kata/"+strings.TrimSuffix(c.file, ".md")+".es.md") {
					t.Errorf("problem does not name the twin: %v", p)
				}
			}
		})
	}
}

func TestOrphanTwin(t *testing.T) {
	fsys := miniWithTwins(t, "es", nil)
	fsys["mini-kata/knowledge/09-gone.es.md"] = &fstest.MapFile{Data: []byte("# Nada\n")}
	ps := CheckTwins(fsys, "mini-kata")
	if len(ps) != 1 || !strings.Contains(ps[0].Error(), "mini-kata/knowledge/09-gone.es.md: a locale twin of mini-kata/knowledge/09-gone.md, which cannot be read") {
		t.Errorf("orphan twin: %v", ps)
	}
}

// translated lists the locales every shipped packet is translated into: every layer file,
// exam.md and traps.md has a twin in each language kata speaks but English.
var translated = slices.DeleteFunc(slices.Clone(locale.Supported), func(l string) bool { return l == locale.English })

// The shipped twins match their English files, and the translated packets are complete.
func TestShippedTwins(t *testing.T) {
	lib, err := Discover(packets.FS, "embedded")
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range lib.Packets() {
		if ps := CheckTwins(packets.FS, p.Dir); len(ps) > 0 {
			t.Errorf("%s:\n%v", p.ID, ps)
		}
		for _, loc := range translated {
			want := []string{"exam.md", "traps.md"}
			for _, layer := range p.Layers {
				names, err := layerFiles(packets.FS, p.Dir, layer)
				if err != nil {
					t.Fatal(err)
				}
				for _, n := range names {
					want = append(want, path.Join(layer, n))
				}
			}
			for _, w := range want {
				tw := path.Join(p.Dir, strings.TrimSuffix(w, ".md")+"."+loc+".md")
				if _, err := fs.Stat(packets.FS, tw); err != nil {
					t.Errorf("%s has no %s twin of %s", p.ID, loc, w)
				}
			}
		}
	}
}

// A shipped twin broken on purpose fails, each problem at the twin's line naming the English
// file and its line: a key moved to another option, a missing item, a missing trap row.
func TestBrokenShippedTwinFails(t *testing.T) {
	const dir = "mcp-structured-errors"
	read := func(name string) string {
		b, err := fs.ReadFile(packets.FS, path.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	enExam, twExam := read("exam.md"), read("exam.ru.md")
	enItems, err := ParseExam("en", []byte(enExam))
	if err != nil {
		t.Fatal(err)
	}
	// Move the key of se-02 from its second option to its first, and cut se-05 out.
	se03 := strings.Index(twExam, "## `se-02`")
	se04 := strings.Index(twExam, "## `se-03`")
	item := twExam[se03:se04]
	first := strings.Index(item, "- [ ] ")
	key := strings.Index(item, "- [x] ")
	if first < 0 || key < first {
		t.Fatalf("se-02 in exam.ru.md no longer has a distractor before its key")
	}
	moved := item[:first] + "- [x] " + item[first+6:key] + "- [ ] " + item[key+6:]
	se05 := strings.Index(twExam, "## `se-05`")
	se06 := strings.Index(twExam, "## `se-06`")
	broken := twExam[:se03] + moved + twExam[se04:se05] + twExam[se06:]

	enFile, twFile := dir+"/exam.md", dir+"/exam.ru.md"
	ps := CheckTwin(enFile, []byte(enExam), twFile, []byte(broken))
	byID := map[string]Item{}
	for _, it := range enItems {
		byID[it.ID] = it
	}
	se03en, se05en := byID["se-02"], byID["se-05"]
	if len(se03en.Options) != 4 || !se03en.Options[1].Key {
		t.Fatalf("se-02 in exam.md no longer has four options keyed on the second: %+v", se03en.Options)
	}
	want := []string{
		fmt.Sprintf("item se-02: option 1 of 4 is a key (checked) here but a distractor (unchecked) in %s:%d", enFile, se03en.Options[0].Line),
		fmt.Sprintf("item se-02: option 2 of 4 is a distractor (unchecked) here but a key (checked) in %s:%d", enFile, se03en.Options[1].Line),
		fmt.Sprintf("item se-05 of %s:%d is missing here", enFile, se05en.Line),
	}
	got := ps.Error()
	for _, w := range want {
		if !strings.Contains(got, w) {
			t.Errorf("no problem says %q; got:\n%s", w, got)
		}
	}
	for _, p := range ps {
		if p.File != twFile || p.Line == 0 {
			t.Errorf("problem not at a line of the twin: %v", p)
		}
	}
	if len(ps) != len(want) {
		t.Errorf("%d problems, want %d:\n%s", len(ps), len(want), got)
	}

	enTraps, twTraps := read("traps.md"), read("traps.es.md")
	lines := strings.Split(twTraps, "\n")
	for i, l := range lines {
		if strings.HasPrefix(l, "| `except Exception") {
			lines = append(lines[:i], lines[i+1:]...)
			break
		}
	}
	tables, err := ParseTraps("en", []byte(enTraps))
	if err != nil {
		t.Fatal(err)
	}
	n := len(tables[0].Rows)
	ps = CheckTwin(dir+"/traps.md", []byte(enTraps), dir+"/traps.es.md", []byte(strings.Join(lines, "\n")))
	if len(ps) != 1 || !strings.Contains(ps[0].Error(), dir+"/traps.es.md:") ||
		!strings.Contains(ps[0].Error(), fmt.Sprintf("has %d rows here, %d in %s/traps.md:%d", n-1, n, dir, tables[0].Rows[0].Line)) {
		t.Errorf("a trap row fewer: %v", ps)
	}
}

// A twin writes a payload's message and explanation in its own language, plainly and in the
// escaped text mirror; any other change to the code block, a key or a flag, still fails.
func TestTwinTranslatesPayloadProse(t *testing.T) {
	en := "# Good\n\n```json\n{\"isError\": true, \"message\": \"The order system is slow.\",\n \"content\": [{\"type\": \"text\", \"text\": \"{\\\"explanation\\\": \\\"Page 2 timed out.\\\"}\"}]}\n```\n"
	es := strings.NewReplacer("The order system is slow.", "El sistema de pedidos va lento.", "Page 2 timed out.", "La página 2 no respondió «a tiempo».").Replace(en)
	if ps := CheckTwin("k/examples/01.md", []byte(en), "k/examples/01.es.md", []byte(es)); len(ps) > 0 {
		t.Errorf("a translated message and explanation fail:\n%v", ps)
	}
	for _, broken := range []string{
		strings.Replace(es, `"isError": true`, `"isError": false`, 1),
		strings.Replace(es, `"message"`, `"mensaje"`, 1),
		strings.Replace(es, `\"explanation\"`, `\"explicación\"`, 1),
		strings.Replace(es, `"type": "text"`, `"type": "texto"`, 1),
	} {
		if ps := CheckTwin("k/examples/01.md", []byte(en), "k/examples/01.es.md", []byte(broken)); len(ps) == 0 {
			t.Errorf("a changed code block passed:\n%s", broken)
		}
	}
}

// A layer twin shows the locale twin of the asset it embeds, and the English layer the English
// asset; a twin of another shape, or one without an English asset, is a problem at the twin.
func TestAssetTwins(t *testing.T) {
	fsys := fstest.MapFS{
		"k/assets/rules.json":    {Data: []byte(`[{"rule": "Escalate", "value": "auth"}, {"rule": "Bounded", "value": 3}]`)},
		"k/assets/rules.es.json": {Data: []byte(`[{"regla": "Escalar", "valor": "auth"}, {"regla": "Acotado", "valor": 3}]`)},
	}
	md := []byte("# T\n\n<!-- kata:asset assets/rules.json -->\n")
	es, err := expandAssets(fsys, "k", "k/knowledge/01.es.md", md)
	if err != nil || !strings.Contains(es, "| regla | valor |") || !strings.Contains(es, "| Escalar | auth |") {
		t.Errorf("the Spanish layer shows %q, %v", es, err)
	}
	en, err := expandAssets(fsys, "k", "k/knowledge/01.md", md)
	if err != nil || !strings.Contains(en, "| Escalate | auth |") {
		t.Errorf("the English layer shows %q, %v", en, err)
	}
	ru, err := expandAssets(fsys, "k", "k/knowledge/01.ru.md", md)
	if err != nil || !strings.Contains(ru, "| Escalate | auth |") {
		t.Errorf("a layer twin without an asset twin shows %q, %v", ru, err)
	}
	if ps := checkAssetTwins(fsys, "k"); len(ps) > 0 {
		t.Errorf("a good asset twin has problems: %v", ps)
	}

	fsys["k/assets/rules.es.json"] = &fstest.MapFile{Data: []byte(`[{"regla": "Escalar", "valor": "auth"}]`)}
	fsys["k/assets/gone.ru.json"] = &fstest.MapFile{Data: []byte(`[{"a": 1}]`)}
	got := checkAssetTwins(fsys, "k").Error()
	for _, w := range []string{
		"k/assets/rules.es.json:1: 2 columns and 1 rows here, 2 and 2 in k/assets/rules.json",
		"k/assets/gone.ru.json: a locale twin of k/assets/gone.json, which cannot be read",
	} {
		if !strings.Contains(got, w) {
			t.Errorf("no problem says %q; got:\n%s", w, got)
		}
	}
	if _, err := expandAssets(fsys, "k", "k/knowledge/01.es.md", md); err == nil {
		t.Error("a layer twin embedded an asset twin of another shape")
	}
}
