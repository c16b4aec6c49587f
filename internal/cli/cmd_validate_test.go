package cli

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/kata-mcp/kata/katas"
	"github.com/kata-mcp/kata/packets"
)

// runKata runs the CLI in-process and returns its stdout, stderr and exit code (0, the code of
// an exitError, or 2 for any other error, as main does).
func runKata(t *testing.T, args ...string) (string, string, int) {
	t.Helper()
	var out, errb bytes.Buffer
	cmd := newRootCmd(&out, &errb)
	cmd.SetArgs(args)
	err := cmd.Execute()
	var ee exitError
	switch {
	case err == nil:
		return out.String(), errb.String(), 0
	case errors.As(err, &ee):
		return out.String(), errb.String(), ee.code
	default:
		return out.String(), errb.String() + "kata: " + err.Error() + "\n", 2
	}
}

// copyShipped copies embedded packet id into dir/<id>, applying edit to the files it names
// (paths inside the packet).
func copyShipped(t *testing.T, id, dir string, edit map[string]func(string) string) {
	t.Helper()
	err := fs.WalkDir(packets.FS, id, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := fs.ReadFile(packets.FS, p)
		if err != nil {
			return err
		}
		if fn := edit[strings.TrimPrefix(p, id+"/")]; fn != nil {
			b = []byte(fn(string(b)))
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

// lineOf returns the 1-based line of the first line of s containing sub.
func lineOf(t *testing.T, s, sub string) int {
	t.Helper()
	for i, l := range strings.Split(s, "\n") {
		if strings.Contains(l, sub) {
			return i + 1
		}
	}
	t.Fatalf("no line contains %q", sub)
	return 0
}

func TestValidateShippedPackets(t *testing.T) {
	out, errs, code := runKata(t, "validate")
	if code != 0 {
		t.Fatalf("exit %d\n%s%s", code, out, errs)
	}
	lib, err := katas.Discover(packets.FS, "embedded")
	if err != nil {
		t.Fatal(err)
	}
	shipped := len(lib.Entries())
	for _, want := range []string{"mcp-structured-errors    ok · embedded", "mcp-error-responses      ok", "mcp-engineering          ok", fmt.Sprintf("%d packet(s), no problem", shipped),
		// issue 16: a seed is named by its title, not only by its file name
		"seed “Kata 06, structured errors in MCP (Spanish)” (000_70b56512b6964d06.txt): "} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "coverage of 000_") {
		t.Errorf("a seed is named by its file alone:\n%s", out)
	}
}

// TestValidateBrokenPackets: an item with two keys and a fixture with an unknown category,
// in two packets of one folder, are both reported with file:line, and the exit code is 1.
func TestValidateBrokenPackets(t *testing.T) {
	dir := t.TempDir()
	exam, _ := fs.ReadFile(packets.FS, "mcp-structured-errors/exam.md")
	server, _ := fs.ReadFile(packets.FS, "mcp-error-responses/fixtures/server.json")
	copyShipped(t, "mcp-structured-errors", dir, map[string]func(string) string{
		"exam.md": func(s string) string {
			// the first distractor of se-01 becomes a second key
			i := strings.Index(s, "## `se-01`")
			j := i + strings.Index(s[i:], "- [ ] ")
			return s[:j] + "- [x] " + s[j+6:]
		},
	})
	copyShipped(t, "mcp-error-responses", dir, map[string]func(string) string{
		"fixtures/server.json": func(s string) string {
			return strings.Replace(s, `"category": "permission"`, `"category": "teapot"`, 1)
		},
	})
	out, _, code := runKata(t, "validate", dir)
	if code != 1 {
		t.Fatalf("exit %d, want 1\n%s", code, out)
	}
	teapot := lineOf(t, strings.Replace(string(server), `"category": "permission"`, "HERE", 1), "HERE")
	// The fixture's line is that of its "id"; find the id preceding the edited category.
	lines := strings.Split(string(server), "\n")
	for teapot > 1 && !strings.Contains(lines[teapot-1], `"id"`) {
		teapot--
	}
	for _, want := range []string{
		fmt.Sprintf("%s:%d: item se-01 has 2 keys (checked boxes) but is single-answer", filepath.Join(dir, "mcp-structured-errors", "exam.md"), lineOf(t, string(exam), "## `se-01`")),
		fmt.Sprintf("%s:%d: fixture ", filepath.Join(dir, "mcp-error-responses", "fixtures", "server.json"), teapot),
		`category "teapot" is not in the contract`,
		"mcp-structured-errors    1 problem(s) · " + dir,
		"mcp-error-responses      1 problem(s)",
		"2 packet(s), 2 problem(s)",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	// Loading the same folder warns with the same file:line and still loads the rest.
	out, errs, code := runKata(t, "list", "--json", "--packets", dir)
	if code != 0 {
		t.Fatalf("list exit %d: %s", code, errs)
	}
	if !strings.Contains(errs, "skipped packet(s) from "+dir) || !strings.Contains(errs, filepath.Join(dir, "mcp-structured-errors", "exam.md")+":") {
		t.Errorf("no file:line warning on stderr:\n%s", errs)
	}
	var rows []packetSummary
	shipped, _ := katas.Discover(packets.FS, "embedded")
	if err := json.Unmarshal([]byte(out), &rows); err != nil || len(rows) != len(shipped.Entries()) {
		t.Fatalf("list --json: %v\n%s", err, out)
	}
	for _, r := range rows {
		if r.Source != "embedded" {
			t.Errorf("%s comes from %s; the broken copy must not replace the embedded one", r.ID, r.Source)
		}
	}
}

// TestPacketsFromFolders: --packets and KATA_PATH add and override packets, and list shows
// each packet's source.
func TestPacketsFromFolders(t *testing.T) {
	a, b := t.TempDir(), t.TempDir()
	retitle := func(title string) map[string]func(string) string {
		return map[string]func(string) string{"packet.json": func(s string) string {
			return regexp.MustCompile(`"title": "[^"]*"`).ReplaceAllString(s, `"title": "`+title+`"`)
		}}
	}
	copyShipped(t, "mcp-engineering", a, retitle("from A"))
	copyShipped(t, "mcp-engineering", b, retitle("from B"))
	copyShipped(t, "mcp-error-responses", b, retitle("errors from B"))
	t.Setenv("KATA_PATH", a+string(os.PathListSeparator)+b+string(os.PathListSeparator)+filepath.Join(a, "missing"))

	out, errs, code := runKata(t, "list", "--json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	got := map[string]packetSummary{}
	var rows []packetSummary
	json.Unmarshal([]byte(out), &rows)
	for _, r := range rows {
		got[r.ID] = r
	}
	// In KATA_PATH the earlier folder wins, as in PATH.
	if r := got["mcp-engineering"]; r.Title != "from A" || r.Source != a {
		t.Errorf("mcp-engineering = %q from %s, want A's", r.Title, r.Source)
	}
	if r := got["mcp-error-responses"]; r.Title != "errors from B" || r.Source != b {
		t.Errorf("mcp-error-responses = %q from %s, want B's", r.Title, r.Source)
	}
	if r := got["mcp-structured-errors"]; r.Source != "embedded" {
		t.Errorf("mcp-structured-errors from %s", r.Source)
	}
	if !strings.Contains(errs, "missing") {
		t.Errorf("a missing KATA_PATH folder gave no warning: %q", errs)
	}
	// --packets beats KATA_PATH; a packet folder can be named directly.
	out, _, _ = runKata(t, "list", "--packets", filepath.Join(b, "mcp-engineering"))
	if !strings.Contains(out, "from B") || !strings.Contains(out, "source: "+filepath.Join(b, "mcp-engineering")) {
		t.Errorf("--packets did not override, or list shows no source:\n%s", out)
	}
	// A --packets folder that does not exist is an error.
	if _, errs, code := runKata(t, "list", "--packets", filepath.Join(a, "nope")); code != 2 || !strings.Contains(errs, "nope") {
		t.Errorf("missing --packets folder: exit %d, %q", code, errs)
	}
}

// docExample extracts the fenced code blocks of docs/packets.md whose info string names a
// file (```json file=hello-kata/packet.json) and writes them under dir.
func docExample(t *testing.T, dir string) []string {
	t.Helper()
	f, err := os.Open(filepath.Join("..", "..", "docs", "packets.md"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	open := regexp.MustCompile("^(`{3,}|~{3,})\\S*\\s+file=(\\S+)\\s*$")
	var files []string
	var fence, name string
	var body strings.Builder
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		switch {
		case fence == "":
			if m := open.FindStringSubmatch(line); m != nil {
				fence, name = m[1], m[2]
				body.Reset()
			}
		case strings.TrimSpace(line) == fence:
			dst := filepath.Join(dir, filepath.FromSlash(name))
			os.MkdirAll(filepath.Dir(dst), 0o755)
			if err := os.WriteFile(dst, []byte(body.String()), 0o644); err != nil {
				t.Fatal(err)
			}
			files = append(files, name)
			fence = ""
		default:
			body.WriteString(line + "\n")
		}
	}
	if fence != "" {
		t.Fatalf("docs/packets.md: the block for %s is not closed", name)
	}
	return files
}

// TestDocsExamplePacketLoads keeps "a packet written from docs/packets.md alone loads" true:
// the minimal example's files, extracted from the page, load with --packets, write a
// workspace, and validate with only the small item bank reported.
func TestDocsExamplePacketLoads(t *testing.T) {
	dir := t.TempDir()
	files := docExample(t, dir)
	if len(files) < 10 {
		t.Fatalf("extracted only %v", files)
	}
	out, errs, code := runKata(t, "list", "--json", "--packets", dir)
	if code != 0 || errs != "" {
		t.Fatalf("list: exit %d, stderr %q", code, errs)
	}
	var rows []packetSummary
	json.Unmarshal([]byte(out), &rows)
	var hello *packetSummary
	for i := range rows {
		if rows[i].ID == "hello-kata" {
			hello = &rows[i]
		}
	}
	if hello == nil || hello.Source != dir || hello.Items != 2 || hello.Traps != 1 || hello.TaskSteps != 2 || hello.Fixtures != 2 || len(hello.Layers) != 5 {
		t.Fatalf("hello-kata = %+v", hello)
	}
	ws := filepath.Join(t.TempDir(), "ws")
	if _, errs, code := runKata(t, "init", "hello-kata", "--lang", "python", "--packets", dir, ws); code != 0 {
		t.Fatalf("init: %s", errs)
	}
	if _, err := os.Stat(filepath.Join(ws, ".mcp.json")); err != nil {
		t.Errorf("workspace: %v", err)
	}
	out, _, code = runKata(t, "validate", filepath.Join(dir, "hello-kata"))
	want := filepath.Join(dir, "hello-kata", "exam.md") + ":1: 2 items; a packet needs at least 20 (a smaller workshop packet: kata validate --min-items N)\n"
	if code != 1 || !strings.HasPrefix(out, want) || !strings.Contains(out, "1 packet(s), 1 problem(s)") {
		t.Errorf("validate: exit %d, want 1 with the one problem %q:\n%s", code, want, out)
	}
	// a workshop packet of two items is whole once the minimum is lowered
	out, _, code = runKata(t, "validate", "--min-items", "2", filepath.Join(dir, "hello-kata"))
	if code != 0 || !strings.Contains(out, "1 packet(s), no problem") {
		t.Errorf("validate --min-items 2: exit %d, want 0:\n%s", code, out)
	}
}

// TestValidateReferences grades one kata's template and reference through validate: the
// template fails and the reference passes; an empty reference is reported as not passing,
// a missing one as missing.
func TestValidateReferences(t *testing.T) {
	if testing.Short() {
		t.Skip("grades four workspaces")
	}
	pk := t.TempDir()
	copyShipped(t, "mcp-error-responses", pk, map[string]func(string) string{
		"packet.json": func(s string) string {
			return regexp.MustCompile(`"languages": \[[^]]*\]`).ReplaceAllString(s, `"languages": ["python"]`)
		},
	})
	out, errs, code := runKata(t, "validate", pk, "--references", filepath.Join("..", "..", "testdata", "references"))
	if code != 0 {
		t.Fatalf("exit %d\n%s%s", code, out, errs)
	}
	if !strings.Contains(out, "template fails (") {
		t.Errorf("output lacks the template's failure:\n%s", out)
	}
	if m := regexp.MustCompile(`correct passes \((\d+)/(\d+) tests pass\)`).FindStringSubmatch(out); m == nil || m[1] != m[2] {
		t.Errorf("output lacks \"correct passes (n/n tests pass)\":\n%s", out)
	}
	refs := t.TempDir()
	os.MkdirAll(filepath.Join(refs, "mcp-error-responses", "python", "correct"), 0o755)
	out, _, code = runKata(t, "validate", pk, "--references", refs)
	want := filepath.Join(refs, "mcp-error-responses", "python", "correct") + ": the reference solution must pass grading (exit 0); it gave exit 1; not passing: "
	if code != 1 || !strings.Contains(out, want) {
		t.Errorf("empty reference: exit %d, want 1 and %q:\n%s", code, want, out)
	}
}

func TestValidateMissingReference(t *testing.T) {
	if testing.Short() {
		t.Skip("grades a workspace")
	}
	pk := t.TempDir()
	copyShipped(t, "mcp-error-responses", pk, map[string]func(string) string{
		"packet.json": func(s string) string {
			return regexp.MustCompile(`"languages": \[[^]]*\]`).ReplaceAllString(s, `"languages": ["python"]`)
		},
	})
	refs := t.TempDir()
	out, _, code := runKata(t, "validate", pk, "--references", refs)
	want := filepath.Join(refs, "mcp-error-responses", "python", "correct") + ": no reference solution"
	if code != 1 || !strings.Contains(out, want) {
		t.Errorf("exit %d, want 1 and %q:\n%s", code, want, out)
	}
	// The packet's own summary line counts the reference problem; it used to say "ok".
	if !strings.Contains(out, "mcp-error-responses      1 problem(s) · "+pk) {
		t.Errorf("the packet's summary line does not count its reference problem:\n%s", out)
	}
}

// TestValidateReferencesSaysWhatItSkips: a graded packet with problems is not graded by
// --references, and validate says so instead of leaving it out silently.
func TestValidateReferencesSaysWhatItSkips(t *testing.T) {
	pk := t.TempDir()
	copyShipped(t, "mcp-error-responses", pk, map[string]func(string) string{
		"fixtures/server.json": func(s string) string {
			return strings.Replace(s, `"category": "permission"`, `"category": "teapot"`, 1)
		},
	})
	out, _, code := runKata(t, "validate", pk, "--references", t.TempDir())
	want := "references: mcp-error-responses              not graded: the packet has 1 problem(s); fix them first"
	if code != 1 || !strings.Contains(out, want) || strings.Contains(out, "template fails") {
		t.Errorf("exit %d, want 1 and %q and no grading:\n%s", code, want, out)
	}
}

// TestValidateStrictPlantedCues plants three item-writing cues in a copy of a shipped packet —
// a key twice as long as every distractor, a title that names the key, a stem copied from
// another packet's item with another key — and expects one warning for each, naming file and
// line, over what the untouched copy gets; --strict turns them into problems (exit 1).
func TestValidateStrictPlantedCues(t *testing.T) {
	lib, err := loadLibrary(newRootCmd(io.Discard, io.Discard))
	if err != nil {
		t.Fatal(err)
	}
	se, _ := lib.Get("mcp-structured-errors")
	me, _ := lib.Get("mcp-engineering")
	item := func(p *katas.Packet, id string) katas.Item {
		for _, it := range p.Items {
			if it.ID == id {
				return it
			}
		}
		t.Fatalf("%s has no item %s", p.ID, id)
		return katas.Item{}
	}
	long, titled, copied, grouped := item(se, "se-01"), item(se, "se-02"), item(se, "se-03"), item(se, "se-22")
	other := item(me, "me-01")
	keyOf := func(it katas.Item) katas.Option {
		for _, o := range it.Options {
			if o.Key {
				return o
			}
		}
		return katas.Option{}
	}
	// se-22: its group misspelt (in every language, as a twin keeps it), a group no other
	// item has.
	misspelt := func(s string) string {
		i := strings.Index(s, "## `se-22`")
		if i < 0 || !strings.Contains(s[i:], "\nGroup: stated-wait\n") {
			t.Fatal("se-22 has no Group: stated-wait")
		}
		j := i + strings.Index(s[i:], "\nGroup: stated-wait\n")
		return s[:j] + "\nGroup: stated-wiat\n" + s[j+len("\nGroup: stated-wait\n"):]
	}
	clean, plant := t.TempDir(), t.TempDir()
	copyShipped(t, se.ID, clean, nil)
	copyShipped(t, se.ID, plant, map[string]func(string) string{
		"exam.md": func(s string) string {
			lines := strings.Split(s, "\n")
			// se-01: the key's line grows until it is twice the longest distractor.
			k := keyOf(long)
			longest := 0
			for _, o := range long.Options {
				if !o.Key {
					longest = max(longest, len(o.Text))
				}
			}
			text := k.Text
			for len(text) <= 2*longest {
				text += " " + k.Text
			}
			lines[k.Line-1] = "- [x] " + text
			// se-02: the title is the key.
			lines[titled.Line-1] = "## `se-02` " + keyOf(titled).Text
			// se-03: the stem becomes me-01's, on the first line of its own (the others blank, so
			// no line moves).
			first := -1
			for i := copied.Line; i < len(lines) && !strings.HasPrefix(lines[i], "- ["); i++ {
				if !strings.HasPrefix(lines[i], "Scenario:") && strings.TrimSpace(lines[i]) != "" {
					if first < 0 {
						first = i
					}
					lines[i] = ""
				}
			}
			lines[first] = strings.Join(strings.Fields(other.Stem), " ")
			return misspelt(strings.Join(lines, "\n"))
		},
		"exam.es.md": misspelt,
		"exam.ru.md": misspelt,
	})
	base, _, code := runKata(t, "validate", clean)
	if code != 0 {
		t.Fatalf("the untouched copy: exit %d\n%s", code, base)
	}
	out, _, code := runKata(t, "validate", plant)
	if code != 0 {
		t.Fatalf("warnings alone must not fail validate: exit %d\n%s", code, out)
	}
	file := filepath.Join(plant, se.ID, "exam.md")
	planted := []string{
		fmt.Sprintf("warning: %s:%d: item se-01: the key is ", file, keyOf(long).Line),
		fmt.Sprintf("warning: %s:%d: item se-02: the title ", file, titled.Line),
		fmt.Sprintf("warning: %s:%d: item se-03: its stem is a near-duplicate (100%% shared word triples) of mcp-engineering/me-01 (embedded:mcp-engineering/exam.md:%d), which has another key", file, copied.Line, other.Line),
		fmt.Sprintf("warning: %s:%d: item se-22: no other item has Group: stated-wiat", file, grouped.Line),
	}
	warnings := func(s, root string) []string {
		var ws []string
		for _, l := range strings.Split(s, "\n") {
			if strings.HasPrefix(l, "warning: ") {
				ws = append(ws, strings.ReplaceAll(l, root, "ROOT"))
			}
		}
		return ws
	}
	before, after := warnings(base, clean), warnings(out, plant)
	var added []string
	for _, w := range after {
		if !slices.Contains(before, w) {
			added = append(added, strings.ReplaceAll(w, "ROOT", plant))
		}
	}
	if len(added) != len(planted) {
		t.Errorf("%d new warnings, want %d:\n%s", len(added), len(planted), strings.Join(added, "\n"))
	}
	for _, want := range planted {
		found := false
		for _, w := range added {
			found = found || strings.HasPrefix(w, want)
		}
		if !found {
			t.Errorf("no warning starting %q among:\n%s", want, strings.Join(added, "\n"))
		}
	}
	out, _, code = runKata(t, "validate", "--strict", plant)
	if code != 1 || !strings.Contains(out, fmt.Sprintf("%s:%d: item se-01: the key is ", file, keyOf(long).Line)) || strings.Contains(out, "warning: ") {
		t.Errorf("--strict: exit %d, want 1 with the cues as problems:\n%s", code, out)
	}
}

// TestValidateStrictShipped: the shipped packets carry no item-writing cue.
func TestValidateStrictShipped(t *testing.T) {
	out, errs, code := runKata(t, "validate", "--strict")
	if code != 0 || strings.Contains(out, "warning") {
		t.Fatalf("exit %d\n%s%s", code, out, errs)
	}
}

// TestSmallCommandErrors: `kata help` of a command kata does not have, and a --min-items below
// 1, are errors (exit 2) that say so, not a silent exit 0 or a silent default.
func TestSmallCommandErrors(t *testing.T) {
	if _, errs, code := runKata(t, "help", "nope"); code != 2 || !strings.Contains(errs, `no command "nope"`) {
		t.Errorf("kata help nope: exit %d, %q", code, errs)
	}
	if out, _, code := runKata(t, "help", "grade"); code != 0 || !strings.Contains(out, "kata grade [DIR]") {
		t.Errorf("kata help grade: exit %d\n%s", code, out)
	}
	if _, errs, code := runKata(t, "validate", "--min-items", "-1"); code != 2 || !strings.Contains(errs, "--min-items -1") {
		t.Errorf("validate --min-items -1: exit %d, %q", code, errs)
	}
}

// TestValidateChecksLocaleTwins: a Spanish twin whose key moved to another option, and a Russian
// twin that lost an item, fail kata validate naming the twin's line and the English file's.
func TestValidateChecksLocaleTwins(t *testing.T) {
	dir := t.TempDir()
	copyShipped(t, "mcp-error-responses", dir, map[string]func(string) string{
		"exam.es.md": func(s string) string {
			first := strings.Index(s, "- [x] ")
			next := strings.Index(s[first+1:], "- [ ] ") + first + 1
			return s[:first] + "- [ ] " + s[first+6:next] + "- [x] " + s[next+6:]
		},
		"exam.ru.md": func(s string) string {
			i := strings.Index(s, "## `er-02`")
			j := strings.Index(s, "## `er-03`")
			return s[:i] + s[j:]
		},
	})
	out, _, code := runKata(t, "validate", dir)
	for _, want := range []string{
		"exam.es.md:", "item er-01: option 1 of 4 is a distractor (unchecked) here but a key (checked) in mcp-error-responses/exam.md:",
		"exam.ru.md:", "item er-02 of mcp-error-responses/exam.md:",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("validate output lacks %q:\n%s", want, out)
		}
	}
	if code != 1 {
		t.Errorf("exit %d, want 1", code)
	}
}
