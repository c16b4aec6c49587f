package katas

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/kata-mcp/kata/packets"
)

func TestShippedPacketsValidate(t *testing.T) {
	vs, err := Validate(packets.FS, "embedded", ValidateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	folders, err := packetFolders(packets.FS)
	if err != nil || len(vs) != len(folders) || len(vs) == 0 {
		t.Fatalf("validated %d packets of the %d folders holding packet.json (%v)", len(vs), len(folders), err)
	}
	CheckNearDuplicates(vs, nil)
	CheckGroups(vs, nil)
	for _, v := range vs {
		for _, p := range v.Problems {
			t.Errorf("%v", p)
		}
		for _, w := range v.Warnings {
			t.Errorf("item-writing: %v", w)
		}
		if v.Packet == nil || len(v.Packet.Items) < MinItems || len(v.Packet.Traps) == 0 || len(v.Coverage) == 0 {
			t.Errorf("%s: incomplete packet %+v", v.Dir, v.Packet)
		}
	}
}

// shippedCopy copies shipped packet id into a map file system, with edit applied to each file's
// content (by path inside the packet).
func shippedCopy(t *testing.T, id string, edit map[string]func(string) string) fstest.MapFS {
	t.Helper()
	m := fstest.MapFS{}
	// The built-in shims the packet names come along, as they do in the embedded packets.
	err := fs.WalkDir(packets.FS, ShimsFolder, func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			b, _ := fs.ReadFile(packets.FS, p)
			m[p] = &fstest.MapFile{Data: b}
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	err = fs.WalkDir(packets.FS, id, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := fs.ReadFile(packets.FS, p)
		if fn := edit[strings.TrimPrefix(p, id+"/")]; fn != nil {
			b = []byte(fn(string(b)))
		}
		m[p] = &fstest.MapFile{Data: b}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// lineWith returns the 1-based line of the first line of s containing sub after line from.
func lineWith(t *testing.T, s, sub string, from int) int {
	t.Helper()
	for i, l := range strings.Split(s, "\n") {
		if i+1 > from && strings.Contains(l, sub) {
			return i + 1
		}
	}
	t.Fatalf("no line with %q after %d", sub, from)
	return 0
}

// TestValidateReportsEveryProblem breaks a shipped packet in several files at once and expects
// one problem for each break, with file and line, in one run.
func TestValidateReportsEveryProblem(t *testing.T) {
	const id = "mcp-structured-errors"
	exam, _ := fs.ReadFile(packets.FS, id+"/exam.md")
	server, _ := fs.ReadFile(packets.FS, id+"/fixtures/server.json")
	cov, _ := fs.ReadFile(packets.FS, id+"/coverage.md")
	// Item se-01 gets a second key; item se-02 a rationale naming an option by letter and an
	// unknown scenario; fixture lookup-auth an unknown category; a fixture loses its
	// expectation; coverage gets a row pointing nowhere.
	first := lineWith(t, string(exam), "## `se-01`", 0)
	second := lineWith(t, string(exam), "## `se-02`", 0)
	fsys := shippedCopy(t, id, map[string]func(string) string{
		"exam.md": func(s string) string {
			lines := strings.Split(s, "\n")
			for i := first; i < len(lines); i++ {
				if strings.HasPrefix(lines[i], "- [ ] ") {
					lines[i] = "- [x] " + lines[i][6:]
					break
				}
			}
			for i := second; i < len(lines); i++ {
				if strings.HasPrefix(lines[i], "Scenario: ") {
					lines[i] = "Scenario: bank-heist"
				}
				if strings.HasPrefix(lines[i], "  > ") {
					lines[i] = "  > As option B says, this is wrong."
					break
				}
			}
			return strings.Join(lines, "\n")
		},
		"fixtures/server.json": func(s string) string {
			s = strings.Replace(s, `"expect": {"category": "auth"}`, `"expect": {"category": "teapot"}`, 1)
			return strings.Replace(s, `"expect": {"success": "order"}`, `"expect": {}`, 1)
		},
		"coverage.md": func(s string) string {
			// a new last row of the table
			i := strings.LastIndex(s, "\n| 000_") + 1
			i += strings.Index(s[i:], "\n") + 1
			return s[:i] + "| 000_70b56512b6964d06.txt | 5 | A fact | `se-99`, trap:server-side#99, task:42, trap:nowhere#1 |\n" + s[i:]
		},
	})
	vs, err := Validate(fsys, "test", ValidateOptions{})
	if err != nil || len(vs) != 1 {
		t.Fatalf("validate: %v, %d results", err, len(vs))
	}
	got := vs[0].Problems.Error()
	covRow := lineWith(t, string(cov), "| 000_", 0) + strings.Count(string(cov), "\n| 000_")
	want := []string{
		fmt.Sprintf("%s/exam.md:%d: item se-01 has 2 keys (checked boxes) but is single-answer", id, first),
		fmt.Sprintf("%s/exam.md:%d: item se-02: unknown scenario \"bank-heist\"", id, second),
		fmt.Sprintf("%s/exam.md:%d: item se-02: a rationale refers to an option by letter or position (\"option B\")", id, lineWith(t, string(exam), "  > ", second)-1),
		fmt.Sprintf("%s/fixtures/server.json:%d: fixture 4 (\"lookup-auth\"): category \"teapot\" is not in the contract", id, lineWith(t, string(server), `"lookup-auth"`, 0)),
		fmt.Sprintf("%s/fixtures/server.json:%d: fixture 1 (\"lookup-ok\"): expect needs exactly one of success, category, protocolError", id, lineWith(t, string(server), `"lookup-ok"`, 0)),
		fmt.Sprintf("%s/coverage.md:%d: `se-99`: exam.md has no item \"se-99\"", id, covRow),
		fmt.Sprintf("%s/coverage.md:%d: trap:server-side#99: table \"server-side\" has rows 1–", id, covRow),
		fmt.Sprintf("%s/coverage.md:%d: task:42: task.md has no step 42", id, covRow),
		fmt.Sprintf("%s/coverage.md:%d: trap:nowhere#1: traps.md has no table \"nowhere\"", id, covRow),
	}
	for _, w := range want {
		if !strings.Contains(got, w) {
			t.Errorf("problems do not contain\n  %s\ngot:\n%s", w, got)
		}
	}
	if n := len(vs[0].Problems); n != len(want) {
		t.Errorf("%d problems, want %d:\n%s", n, len(want), got)
	}
	// LoadPacket refuses the packet, with the load problems (not the lint ones) all listed.
	_, err = LoadPacket(fsys, id, "test")
	var ps Problems
	if !errors.As(err, &ps) || len(ps) != 3 {
		t.Errorf("LoadPacket: %d problems, want 3 (two keys, teapot, no expectation): %v", len(ps), err)
	}
}

func TestValidateChecksCompleteness(t *testing.T) {
	// The test packet loads, but it is no shippable packet: two items, no coverage map.
	vs, err := Validate(os.DirFS("testdata/packets"), "testdata", ValidateOptions{})
	if err != nil || len(vs) != 1 {
		t.Fatalf("validate: %v", err)
	}
	got := vs[0].Problems.Error()
	for _, w := range []string{
		"mini-kata/coverage.md: cannot read: ",
		"mini-kata/exam.md:1: 2 items; a packet needs at least 20",
	} {
		if !strings.Contains(got, w) {
			t.Errorf("problems do not contain %q:\n%s", w, got)
		}
	}
	// A missing layer, fixtures for a part that is not graded, no trap table.
	m := packetWith(t, "packet.json", strings.Replace(mustRead(t, "testdata/packets/mini-kata/packet.json"),
		`"layers": ["knowledge", "prompts", "examples", "agents", "templates"]`, `"layers": ["knowledge", "prompts", "examples", "templates"]`, 1)).(fstest.MapFS)
	m["mini-kata/fixtures/client.json"] = &fstest.MapFile{Data: []byte("{}")}
	delete(m, "mini-kata/templates/python/.mcp.json")
	m["mini-kata/traps.md"] = &fstest.MapFile{Data: []byte("# Traps\n\nNone yet.\n")}
	m["mini-kata/exam.md"] = &fstest.MapFile{Data: []byte("# Exam\n\n## `mk-01` Two\n\nScenario: customer-support\n\nChoose: 2\n\nWhich are true?\n\n" +
		"- [x] A\n  > a\n- [x] B\n  > b\n- [ ] C\n  > c\n")}
	vs, _ = Validate(m, "test", ValidateOptions{})
	got = vs[0].Problems.Error()
	for _, w := range []string{
		"mini-kata/packet.json:9: layer \"agents\" is missing",
		"mini-kata/fixtures/client.json: fixtures for \"client\", which packet.json does not grade",
		"mini-kata/traps.md:1: no trap table",
		"templates/python has no .mcp.json: a graded workspace needs it",
		"mini-kata/exam.md:3: item mk-01: a multiple-response stem says how many to pick (\"Choose two.\")",
	} {
		if !strings.Contains(got, w) {
			t.Errorf("problems do not contain %q:\n%s", w, got)
		}
	}
}

func mustRead(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestCoverageSeedLines(t *testing.T) {
	seeds := t.TempDir()
	os.WriteFile(filepath.Join(seeds, "s.txt"), []byte("Title\n\nFact one.\nFact two.\n"), 0o644)
	cov := "# Coverage\n\n| Seed | Line | Fact | Covered by |\n| --- | --- | --- | --- |\n" +
		"| s.txt | 3 | one | `mk-01` |\n" + // line 5: fine
		"| s.txt | 2 | blank | `mk-01` |\n" + // line 6: a blank seed line
		"| s.txt | 9 | past the end | task:1 |\n" + // line 7
		"| gone.txt | 1 | no such seed | task:1 |\n" + // line 8
		"| s.txt | x | no number | whatever |\n" + // line 9: two problems
		"\nA note.\n\n| s.txt | 3 | split off | task:1 |\n" // line 13: outside the table
	m := packetWith(t, "coverage.md", cov)
	vs, _ := Validate(m, "test", ValidateOptions{SeedsDir: seeds})
	got := vs[0].Problems.Error()
	for _, w := range []string{
		"mini-kata/coverage.md:6: line 2 of seed s.txt is blank",
		"mini-kata/coverage.md:7: seed s.txt has 4 lines; line 9 does not exist",
		"mini-kata/coverage.md:8: seed gone.txt: no such file in " + seeds,
		"mini-kata/coverage.md:9: the Line cell must be a line number ≥ 1 in the seed, found \"x\"",
		"mini-kata/coverage.md:9: reference \"whatever\" is none of",
		"mini-kata/coverage.md:13: a table row outside the table",
	} {
		if !strings.Contains(got, w) {
			t.Errorf("problems do not contain %q:\n%s", w, got)
		}
	}
	if strings.Contains(got, "coverage.md:5:") {
		t.Errorf("a good row was reported:\n%s", got)
	}
	s := vs[0].Seeds[0]
	if s.Seed != "s.txt" || s.Facts != 4 || s.TextLines != 3 || fmt.Sprint(s.Uncited) != "[1 4]" {
		t.Errorf("seed summary %+v", s)
	}
	// Without a seeds folder the seed lines are not checked.
	vs, _ = Validate(m, "test", ValidateOptions{})
	if got := vs[0].Problems.Error(); strings.Contains(got, "is blank") || strings.Contains(got, "does not exist") {
		t.Errorf("seed lines checked without --seeds:\n%s", got)
	}
}

func TestLetterReferences(t *testing.T) {
	for s, want := range map[string]string{
		"As option B says.":                  "option B",
		"Answers a and c both miss it.":      "Answers a and",
		"The answer (c) is tempting.":        "answer (c)",
		"Unlike (d), this one waits.":        "(d)",
		"The first option retries.":          "first option",
		"All of the above apply.":            "All of the above",
		"The server answers a missing id.":   "",
		"Options are shown shuffled.":        "",
		"The choice depends on the category": "",
		"It answers a 404 with not_found.":   "",
	} {
		if got := letterRef(s); got != want {
			t.Errorf("letterRef(%q) = %q, want %q", s, got, want)
		}
	}
}

func TestTrapSlug(t *testing.T) {
	for in, want := range map[string]string{
		"Server side":             "server-side",
		"Client and agent side":   "client-and-agent-side",
		"  Errors & retry (v2)  ": "errors-retry-v2",
	} {
		if got := TrapSlug(in); got != want {
			t.Errorf("TrapSlug(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestAddDirOverridesAndSkipsBrokenPackets loads a folder holding a packet that overrides the
// test packet and a broken one: the broken one is skipped with file:line problems under the
// folder's path, the good one replaces the earlier packet and names the folder as its source.
func TestAddDirOverridesAndSkipsBrokenPackets(t *testing.T) {
	lib := testLibrary(t)
	dir := t.TempDir()
	writeFS(t, packetWith(t, "packet.json", strings.Replace(mustRead(t, "testdata/packets/mini-kata/packet.json"), "A minimal kata", "An overriding kata", 1)), dir)
	broken := packetWith(t, "exam.md", "# Exam\n\n## `x-1` T\n\nScenario: customer-support\n\nQ?\n\n- [x] A\n  > a\n- [x] B\n  > b\n")
	for name, f := range broken.(fstest.MapFS) {
		if strings.HasSuffix(name, "packet.json") {
			f = &fstest.MapFile{Data: bytes.Replace(f.Data, []byte(`"mini-kata"`), []byte(`"broken-kata"`), 1)}
		}
		dst := filepath.Join(dir, "broken-kata", strings.TrimPrefix(name, "mini-kata/"))
		os.MkdirAll(filepath.Dir(dst), 0o755)
		os.WriteFile(dst, f.Data, 0o644)
	}
	err := lib.AddDir(dir)
	want := filepath.Join(dir, "broken-kata", "exam.md") + ":3: item x-1 has 2 keys"
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Fatalf("AddDir error %v does not contain %q", err, want)
	}
	p, ok := lib.Get("mini-kata")
	if !ok || p.Title != "An overriding kata" || p.Source != dir {
		t.Errorf("mini-kata = %+v, want the folder's copy", p)
	}
	if _, ok := lib.Get("broken-kata"); ok {
		t.Error("the broken packet was loaded")
	}
	// A packet folder itself may be named.
	lib2 := testLibrary(t)
	if err := lib2.AddDir(filepath.Join(dir, "mini-kata")); err != nil {
		t.Fatal(err)
	}
	if p, _ := lib2.Get("mini-kata"); p.Title != "An overriding kata" {
		t.Errorf("AddDir of a packet folder: %+v", p)
	}
	if err := lib2.AddDir(filepath.Join(dir, "nope")); err == nil || !strings.Contains(err.Error(), "nope") {
		t.Errorf("missing folder: %v", err)
	}
}

// writeFS writes every file of m under dir.
func writeFS(t *testing.T, m fs.FS, dir string) {
	t.Helper()
	err := fs.WalkDir(m, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := fs.ReadFile(m, p)
		if err != nil {
			return err
		}
		dst := filepath.Join(dir, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
			return err
		}
		return os.WriteFile(dst, b, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestShippedCoverageCitesSeedLines checks every cited seed line of the shipped packets against
// the source documents they were written from, copied into testdata/seeds (the files the
// packets' coverage.md names), so it runs on every clone.
func TestShippedCoverageCitesSeedLines(t *testing.T) {
	seeds := filepath.Join("testdata", "seeds") // copies of the source documents the packets cite
	vs, err := Validate(packets.FS, "embedded", ValidateOptions{SeedsDir: seeds})
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range vs {
		for _, p := range v.Problems {
			t.Errorf("%v", p)
		}
		if len(v.Seeds) == 0 || slices.ContainsFunc(v.Seeds, func(s SeedCoverage) bool { return s.TextLines == 0 }) {
			t.Errorf("%s: seed summary %+v", v.Dir, v.Seeds)
		}
	}
}

// TestShims: a packet naming an unknown shim gets a problem on its manifest line; a template
// file at a shim's path overrides the built-in one in the workspace.
func TestShims(t *testing.T) {
	const id = "mcp-error-responses"
	bad := shippedCopy(t, id, map[string]func(string) string{
		"packet.json": func(s string) string {
			return strings.Replace(s, `"shims": ["server"]`, `"shims": ["server", "telepathy"]`, 1)
		},
	})
	vs, err := Validate(bad, "test", ValidateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	src, _ := fs.ReadFile(packets.FS, id+"/packet.json")
	line := jsonKeyLine(src, "shims")
	if msg := vs[0].Problems.Error(); line < 2 || !strings.Contains(msg, fmt.Sprintf(`%s/packet.json:%d: shims names "telepathy", which has no built-in python version`, id, line)) {
		t.Errorf("problems %q; want the unknown shim named with its line", msg)
	}
	own := shippedCopy(t, id, nil)
	own[id+"/templates/python/mcp_shim.py"] = &fstest.MapFile{Data: []byte("# the packet's own shim\n")}
	lib, err := Discover(own, "test")
	if err != nil {
		t.Fatal(err)
	}
	p, _ := lib.Get(id)
	dir := filepath.Join(t.TempDir(), "ws")
	if err := p.Init(dir, "python"); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "mcp_shim.py")); string(b) != "# the packet's own shim\n" {
		t.Errorf("mcp_shim.py is %.40q…; want the packet's own file, not the built-in shim", b)
	}
}

// TestCheckGroups: a group two items share, in one packet or across the validated packets and
// the packets a mock exam draws beside them, passes; a group of one is a warning at its item,
// and the stem keeps no Group: line.
func TestCheckGroups(t *testing.T) {
	item := func(id, groups string) Item {
		return Item{ID: id, Line: 7, Groups: strings.Split(groups, ",")}
	}
	v := Validation{Exam: "p/exam.md", Packet: &Packet{Manifest: Manifest{ID: "p"}, Items: []Item{
		item("p-1", "stated-wait"), item("p-2", "partial-pages"), item("p-3", "stated-wiat"),
	}}}
	other := &Packet{Manifest: Manifest{ID: "q"}, Items: []Item{item("q-1", "stated-wait,partial-pages")}}
	vs := []Validation{v}
	CheckGroups(vs, []*Packet{other})
	if len(vs[0].Warnings) != 1 || !strings.Contains(vs[0].Warnings[0].Error(),
		"p/exam.md:7: item p-3: no other item has Group: stated-wiat (groups of two or more items: partial-pages, stated-wait)") {
		t.Errorf("warnings: %v", vs[0].Warnings)
	}
	// The same packet given as another (a validated packet replaces it) counts once.
	vs = []Validation{{Exam: v.Exam, Packet: v.Packet}}
	CheckGroups(vs, []*Packet{v.Packet})
	if len(vs[0].Warnings) != 3 {
		t.Errorf("without q every group is of one: %v", vs[0].Warnings)
	}

	its, err := ParseExam("exam.md", []byte("## `x-1` T\n\nScenario: customer-support\n\nGroup: stated-wait, partial-pages\n\nStem?\n\n- [x] A\n  > a\n- [ ] B\n  > b\n"))
	if err != nil || len(its) != 1 || strings.Join(its[0].Groups, "|") != "stated-wait|partial-pages" || its[0].Stem != "Stem?" {
		t.Errorf("parsed %+v, %v", its, err)
	}
}
