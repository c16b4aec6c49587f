package katas

import (
	"errors"
	"io/fs"
	"os"
	"strings"
	"testing"
	"testing/fstest"
)

func testLibrary(t *testing.T) *Library {
	t.Helper()
	lib, err := Discover(os.DirFS("testdata/packets"), "testdata")
	if err != nil {
		t.Fatal(err)
	}
	return lib
}

func TestDiscoverParsesThePacket(t *testing.T) {
	lib := testLibrary(t)
	p, ok := lib.Get("mini-kata")
	if !ok {
		t.Fatalf("mini-kata not found; have %v", lib.IDs())
	}
	if len(p.Items) != 2 || p.Items[0].ID != "mk-01" || p.Items[0].Scenario != "customer-support" {
		t.Errorf("items: %+v", p.Items)
	}
	it := p.Items[0]
	if got := it.Keys(); len(got) != 1 || got[0] != "b" {
		t.Errorf("keys = %v, want [b]", got)
	}
	if !strings.Contains(it.Stem, "`isRetryable: false`") || strings.Contains(it.Stem, "Scenario:") {
		t.Errorf("stem = %q", it.Stem)
	}
	for _, o := range it.Options {
		if o.Rationale == "" {
			t.Errorf("option %s has no rationale", o.ID)
		}
	}
	if p.TrapCount() != 2 || p.Traps[0].Rows[0].Trap != "Return `{\"error\": \"failed\"}`" {
		t.Errorf("traps: %+v", p.Traps)
	}
	if len(p.Task.Steps) != 2 || p.Task.Steps[1].Title != "Map failures" || p.Task.Intro != "Write a server." {
		t.Errorf("task: %+v", p.Task)
	}
	if p.FixtureCount() != 2 {
		t.Errorf("fixtures = %d", p.FixtureCount())
	}
}

// countingFS counts file reads per path.
type countingFS struct {
	fs.FS
	reads map[string]int
}

func (c *countingFS) Open(name string) (fs.File, error) {
	c.reads[name]++
	return c.FS.Open(name)
}

func TestAtMostOneLayerIsResident(t *testing.T) {
	cfs := &countingFS{FS: os.DirFS("testdata/packets"), reads: map[string]int{}}
	lib, err := Discover(cfs, "testdata")
	if err != nil {
		t.Fatal(err)
	}
	// Discovery reads no layer content.
	for name := range cfs.reads {
		if strings.HasSuffix(name, ".md") && strings.Contains(name, "/knowledge/") {
			t.Errorf("discovery read layer file %s", name)
		}
	}
	know, err := lib.LoadLayer("mini-kata", "knowledge")
	if err != nil {
		t.Fatal(err)
	}
	if len(know.Files()) != 2 || !strings.Contains(know.Markdown(), "flags") {
		t.Fatalf("knowledge layer: %+v", know.Files())
	}
	again, _ := lib.LoadLayer("mini-kata", "knowledge")
	if again != know || cfs.reads["mini-kata/knowledge/01-basics.md"] != 1 {
		t.Errorf("asking for the resident layer again re-read it (%d reads)", cfs.reads["mini-kata/knowledge/01-basics.md"])
	}
	ex, err := lib.LoadLayer("mini-kata", "examples")
	if err != nil {
		t.Fatal(err)
	}
	if !know.Released() || know.Files() != nil || know.Markdown() != "" {
		t.Errorf("loading examples did not release knowledge")
	}
	if lib.Resident() != ex || ex.Released() {
		t.Errorf("resident = %+v, want the examples layer", lib.Resident())
	}
	for _, name := range LayerNames {
		l, err := lib.LoadLayer("mini-kata", name)
		if err != nil {
			t.Fatal(err)
		}
		if lib.Resident() != l {
			t.Fatalf("after loading %s the resident layer is %s", name, lib.Resident().Name)
		}
	}
	lib.ReleaseLayer()
	if lib.Resident() != nil {
		t.Error("ReleaseLayer left a resident layer")
	}
	if _, err := lib.LoadLayer("mini-kata", "nope"); err == nil || !strings.Contains(err.Error(), "no layer") {
		t.Errorf("unknown layer: %v", err)
	}
}

func TestAgentFrontMatterRendersAsCode(t *testing.T) {
	lib := testLibrary(t)
	l, _ := lib.LoadLayer("mini-kata", "agents")
	if !strings.HasPrefix(l.Markdown(), "```yaml\nname: reviewer") {
		t.Errorf("front matter not fenced: %q", l.Markdown())
	}
}

// packetWith returns a copy of mini-kata with one file replaced.
func packetWith(t *testing.T, file, content string) fs.FS {
	t.Helper()
	m := fstest.MapFS{}
	base := os.DirFS("testdata/packets")
	fs.WalkDir(base, "mini-kata", func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			b, _ := fs.ReadFile(base, p)
			m[p] = &fstest.MapFile{Data: b}
		}
		return nil
	})
	if content == "" {
		delete(m, "mini-kata/"+file)
	} else {
		m["mini-kata/"+file] = &fstest.MapFile{Data: []byte(content)}
	}
	return m
}

func TestParseErrorsNameFileAndLine(t *testing.T) {
	item := func(options string) string {
		return "# Exam\n\n## `x-1` Title\n\nScenario: customer-support\n\nStem?\n\n" + options
	}
	cases := []struct {
		name, file, content, want string
	}{
		{"two keys", "exam.md", item("- [x] A\n  > a\n- [x] B\n  > b\n"), "exam.md:3: item x-1 has 2 keys"},
		{"no key", "exam.md", item("- [ ] A\n  > a\n- [ ] B\n  > b\n"), "exam.md:3: item x-1 has 0 keys"},
		{"no rationale", "exam.md", item("- [x] A\n  > a\n- [ ] B\n"), "exam.md:11: option \"B\" has no rationale"},
		{"no scenario", "exam.md", "## `x-1` T\n\nStem?\n\n- [x] A\n  > a\n", "exam.md:1: item x-1 has no 'Scenario:'"},
		{"no id", "exam.md", "# E\n\n## Title\n\nScenario: s\n", "exam.md:3: an item heading must start with its id"},
		{"duplicate id", "exam.md", item("- [x] A\n  > a\n- [ ] B\n  > b\n") + "\n## `x-1` Again\n\nScenario: s\n\nQ\n\n- [x] A\n  > a\n- [ ] B\n  > b\n", "exam.md:14: item id \"x-1\" is used twice"},
		{"group not an id", "exam.md", item("Group: Stated_Wait, ok-one\n\n- [x] A\n  > a\n- [ ] B\n  > b\n"), `exam.md:9: item x-1: Group: "Stated_Wait" is not a group id`},
		{"group named twice", "exam.md", item("Group: stated-wait, stated-wait\n\n- [x] A\n  > a\n- [ ] B\n  > b\n"), `exam.md:9: item x-1: Group: names "stated-wait" twice`},
		{"group empty", "exam.md", item("Group:\n\n- [x] A\n  > a\n- [ ] B\n  > b\n"), "exam.md:9: item x-1: Group: names no group"},
		{"second group paragraph", "exam.md", item("Group: a-b\n\nGroup: c-d\n\n- [x] A\n  > a\n- [ ] B\n  > b\n"), "exam.md:11: item x-1 has a second Group: paragraph"},
		{"trap columns", "traps.md", "# T\n\n## S\n\n| Trap | Fix |\n| --- | --- |\n| a | b |\n", "traps.md:5: a trap table's columns"},
		{"step sequence", "task.md", "# T\n\nIntro\n\n## 1. A\n\nx\n\n## 3. C\n\ny\n", "task.md:9: step 3 is out of sequence"},
		{"manifest syntax", "packet.json", "{\n  \"id\": \"mini-kata\",\n  oops\n}", "packet.json:3: invalid JSON"},
		{"manifest unknown field", "packet.json", "{\n  \"format_version\": 1,\n  \"id\": \"mini-kata\",\n  \"titel\": \"x\"\n}", "packet.json:4: unknown field \"titel\""},
		{"missing layer", "prompts/01-review.md", "", "mini-kata/packet.json:9: layer \"prompts\": the folder mini-kata/prompts is missing"},
		{"fixture category", "fixtures/server.json", `{"part": "server", "fixtures": [
  {"id": "f1", "name": "n", "task": 1, "tool": "lookup_order", "arguments": {},
   "backend": {"kind": "none"}, "expect": {"category": "teapot"}}]}`, "fixtures/server.json:2: fixture 1 (\"f1\"): category \"teapot\" is not in the contract"},
		{"fixture without expectation", "fixtures/server.json", `{"part": "server", "fixtures": [
  {"id": "f1", "name": "n", "task": 1, "tool": "lookup_order", "arguments": {},
   "backend": {"kind": "none"}, "expect": {}}]}`, "fixtures/server.json:2: fixture 1 (\"f1\"): expect needs exactly one"},
		{"fixture unknown step", "fixtures/server.json", `{"part": "server", "fixtures": [
  {"id": "f1", "name": "n", "task": 9, "tool": "lookup_order", "arguments": {},
   "backend": {"kind": "none"}, "expect": {"category": "validation"}}]}`, "fixtures/server.json:2: fixture \"f1\" grades task step 9"},
	}
	manifest, err := os.ReadFile("testdata/packets/mini-kata/packet.json")
	if err != nil {
		t.Fatal(err)
	}
	withPoints := func(points string) string {
		return strings.Replace(string(manifest), `"languages": ["python"],`, `"languages": ["python"],`+"\n  \"points\": "+points+",", 1)
	}
	cases = append(cases, []struct{ name, file, content, want string }{
		{"points key not a step", "packet.json", withPoints(`{"two": 3}`), `packet.json:13: points: key "two" is not a task step number`},
		{"points key with zero", "packet.json", withPoints(`{"02": 3}`), `points: key "02" is not a task step number`},
		{"points not positive", "packet.json", withPoints(`{"2": 0}`), "packet.json:13: points: step 2 is worth 0 points; a step is worth more than 0 and at most 10000"},
		{"points too many", "packet.json", withPoints(`{"2": 1e9}`), "points: step 2 is worth 1e+09 points"},
		{"points not a number", "packet.json", withPoints(`{"2": "ten"}`), `packet.json:13: field "points": expected a JSON number, found JSON string`},
		{"points step missing", "packet.json", withPoints(`{"7": 5}`), "packet.json:13: points: task.md has no step 7"},
	}...)
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := Discover(packetWith(t, c.file, c.content), "test")
			if err == nil {
				t.Fatal("no error")
			}
			var pe *ParseError
			if !errors.As(err, &pe) {
				t.Fatalf("error %v is not a *ParseError", err)
			}
			if !strings.Contains(err.Error(), c.want) {
				t.Errorf("error\n %q\ndoes not contain\n %q", err.Error(), c.want)
			}
		})
	}
}

// TestStepPoints: a packet that weighs a step gives its points; a step it leaves out has
// none (one point per test), and GradedSteps names the steps graded tests grade.
func TestStepPoints(t *testing.T) {
	manifest, err := os.ReadFile("testdata/packets/mini-kata/packet.json")
	if err != nil {
		t.Fatal(err)
	}
	src := strings.Replace(string(manifest), `"languages": ["python"],`, `"languages": ["python"], "points": {"2": 12.5},`, 1)
	lib, err := Discover(packetWith(t, "packet.json", src), "test")
	if err != nil {
		t.Fatal(err)
	}
	p, _ := lib.Get("mini-kata")
	if v, ok := p.StepPoints(2); !ok || v != 12.5 {
		t.Errorf("StepPoints(2) = %v, %v; want 12.5, true", v, ok)
	}
	if v, ok := p.StepPoints(1); ok {
		t.Errorf("StepPoints(1) = %v, true; step 1 is not weighed", v)
	}
	if got := p.GradedSteps(); !got[1] || !got[2] || len(got) != 2 {
		t.Errorf("GradedSteps = %v, want steps 1 (tools/list) and 2", got)
	}
	// A step no test grades cannot be weighed: its points could never be earned.
	fsys := packetWith(t, "packet.json", strings.Replace(src, `"2": 12.5`, `"3": 4`, 1)).(fstest.MapFS)
	task, _ := fs.ReadFile(fsys, "mini-kata/task.md")
	fsys["mini-kata/task.md"] = &fstest.MapFile{Data: append(task, "\n## 3. Write it up\n\nNo test grades this.\n"...)}
	if _, err := Discover(fsys, "test"); err == nil || !strings.Contains(err.Error(), "packet.json:12: points: no graded test grades step 3") {
		t.Errorf("weighing an ungraded step: %v", err)
	}
}

func TestInitNeverOverwrites(t *testing.T) {
	lib := testLibrary(t)
	p, _ := lib.Get("mini-kata")
	dir := t.TempDir()
	if err := p.Init(dir, "python"); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(dir + "/TASK.md"); !strings.Contains(string(b), "Validate arguments") {
		t.Errorf("TASK.md = %q", b)
	}
	os.WriteFile(dir+"/server.py", []byte("my work"), 0o644)
	if err := p.Init(dir, "python"); !errors.Is(err, ErrWorkspaceExists) {
		t.Errorf("second init: %v", err)
	}
	if b, _ := os.ReadFile(dir + "/server.py"); string(b) != "my work" {
		t.Error("init overwrote the learner's work")
	}
	if err := p.Init(t.TempDir(), "cobol"); err == nil {
		t.Error("unknown language accepted")
	}
}

// TestContractRoles: a field's role comes from its "role" or its standard name; a role that
// needs another type, a role given twice, an unknown role and a contract without the three
// roles every typed error has are problems naming packet.json and the field's line.
func TestContractRoles(t *testing.T) {
	manifest := func(fields string) string {
		return `{
  "format_version": 1, "id": "mini-kata", "title": "A minimal kata", "version": "0.1.0",
  "summary": "s", "scenarios": ["customer-support"], "related": [],
  "layers": ["knowledge", "prompts", "examples", "agents", "templates"],
  "graded": ["server"], "tools": ["lookup_order"], "languages": ["python"],
  "contract": {"categories": {"transient": true, "validation": false, "rate_limit": true},
    "fields": {` + fields + `}}
}`
	}
	base := `"isError": {"type": "boolean", "required": true},
      "errorCategory": {"type": "string", "required": true},
      "isRetryable": {"type": "boolean", "required": true}`
	lib, err := Discover(packetWith(t, "packet.json", manifest(base+`,
      "wait": {"type": "integer-or-null", "role": "retry-after", "carried_by": ["rate_limit", "transient"]}`)), "test")
	if err != nil {
		t.Fatal(err)
	}
	c := lib.Packets()[0].Contract
	if name, _, ok := c.Field(RoleRetryAfter); !ok || name != "wait" {
		t.Errorf("Field(retry-after) = %q, %v; want the field named by its role", name, ok)
	}
	if name, _, _ := c.Field(RoleCategory); name != "errorCategory" {
		t.Errorf("Field(category) = %q; want errorCategory, by its standard name", name)
	}
	if !c.CarriesWait("transient") || c.CarriesWait("validation") {
		t.Errorf("CarriesWait follows carried_by: transient %v, validation %v", c.CarriesWait("transient"), c.CarriesWait("validation"))
	}
	cases := []struct{ name, fields, want string }{
		{"wrong type for the role", base + `,
      "retryAfterSeconds": {"type": "string"}`, `packet.json:10: contract field "retryAfterSeconds" has role "retry-after", which needs type "integer-or-null"`},
		{"role twice", base + `,
      "kind": {"type": "string", "role": "category"}`, `contract fields "errorCategory" and "kind" both have role "category"`},
		{"unknown role", base + `,
      "x": {"type": "string", "role": "colour"}`, `contract field "x" has unknown role "colour"`},
		{"carried_by on another role", base + `,
      "note": {"type": "string", "carried_by": ["transient"]}`, `contract field "note" has carried_by`},
		{"no retryable role", `"isError": {"type": "boolean", "required": true},
      "errorCategory": {"type": "string", "required": true}`, `the contract has no field with role "retryable"`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Discover(packetWith(t, "packet.json", manifest(tc.fields)), "test")
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %v\ndoes not contain %q", err, tc.want)
			}
		})
	}
}
