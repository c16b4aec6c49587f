package ui

import (
	"context"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/kata-mcp/kata/grader"
	"github.com/kata-mcp/kata/katas"
	"github.com/kata-mcp/kata/packets"
	"github.com/kata-mcp/kata/ui/pages/kata"
)

// libWith returns the mini-kata with files replaced or added (paths inside the packet).
func libWith(t *testing.T, files map[string]string) *katas.Library {
	t.Helper()
	fsys := fstest.MapFS{}
	copyPacket(t, fsys, "mini-kata", files)
	for name, body := range files {
		fsys[path.Join("mini-kata", name)] = &fstest.MapFile{Data: []byte(body)}
	}
	lib, err := katas.Discover(fsys, "test")
	if err != nil {
		t.Fatal(err)
	}
	return lib
}

// longKnowledge is a knowledge layer several screens long.
func longKnowledge() string {
	var b strings.Builder
	b.WriteString("# Knowledge\n\n")
	for i := 1; i <= 60; i++ {
		fmt.Fprintf(&b, "Paragraph %d says that errors carry flags and the client reads the flags.\n\n", i)
	}
	b.WriteString("The very last line of the layer.\n")
	return b.String()
}

// templatesWithCode is a templates layer with a code line wider than any terminal here.
const templatesWithCode = "# Templates\n\nThe workspace:\n\n```text\n" +
	"DIR/\n" +
	"  kata.json            which kata, which language, how to start the client, and a long tail that runs on\n" +
	"  server.py            the lookup_order handler              <- you edit\n" +
	"```\n\nThe result the server sends:\n\n```json\n" +
	`{"content":[{"type":"text","text":"{\"error\": \"failed: HTTP Error 404: Not Found\"}"}],"isError":true}` +
	"\n```\n"

// TestFlickingThroughLayersReadsNone (issue 16, defect 5): switching through the five layers
// in a second and a half records none as read; a layer counts once it was scrolled to its end
// and on screen long enough, and the help overlay says so.
func TestFlickingThroughLayersReadsNone(t *testing.T) {
	st := newMemStore()
	lib := libWith(t, map[string]string{"knowledge/01-basics.md": longKnowledge()})
	d := newDriverLib(t, lib, Options{Store: st, NoColor: true}, 80, 24)
	d.press("enter")
	for _, k := range []string{"2", "3", "4", "5"} {
		d.advance(300 * time.Millisecond)
		d.press(k)
	}
	d.advance(300 * time.Millisecond)
	d.press("esc")
	d.mustSee("read 0/5 layers")
	if len(st.layers) != 0 {
		t.Fatalf("flicking through the layers recorded %v", st.layers)
	}

	// The long knowledge layer: its time alone is not enough, nor is scrolling to the end alone.
	// The title shows that the reading is counted, and how much is left (issue 27).
	d.press("enter", "1")
	d.mustSee("counts as read in 1:2")
	d.advance(30 * time.Second)
	d.mustSee("counts as read in 0:5")
	d.advance(90 * time.Second)
	if st.layers["mini-kata/knowledge"] {
		t.Fatal("a layer never scrolled to its end counts as read")
	}
	d.mustSee("scroll to the end to count it read")
	d.press("G")
	d.mustSee("The very last line of the layer.", "read · 100%")
	if !st.layers["mini-kata/knowledge"] {
		t.Fatal("a layer on screen long enough and scrolled through is not read")
	}
	// A short layer (it fits the screen) counts once its time is up.
	d.press("2")
	d.advance(kata.MinReadTime - time.Second)
	if st.layers["mini-kata/prompts"] {
		t.Fatal("a layer counted as read before its time")
	}
	d.advance(time.Second)
	if !st.layers["mini-kata/prompts"] {
		t.Fatal("a short layer on screen for its time is not read")
	}
	d.press("?")
	d.mustSee("A layer counts as read", "skimming it takes")
	d.press("?", "esc")
	d.mustSee("read 2/5 layers")
}

// TestCodeInALayerIsNeverWrapped (issue 16, defect 1): a code line wider than the terminal
// stays one line, cut with a marker, at 60, 80 and 120 columns; H/L scroll it sideways; c
// copies the whole block; prose stays at the reading width on a wide terminal.
func TestCodeInALayerIsNeverWrapped(t *testing.T) {
	lib := libWith(t, map[string]string{"templates/README.md": templatesWithCode})
	for _, w := range []int{60, 80, 120} {
		d := newDriverLib(t, lib, Options{}, w, 30)
		d.press("enter", "5")
		d.mustSee("  kata.json            which kata", `{"content":[{"type":"text"`)
		cut := 0
		for _, l := range strings.Split(d.view(), "\n") {
			s := strings.TrimSpace(l)
			if strings.HasPrefix(s, `"isError":true}`) || strings.HasPrefix(s, "runs on") || strings.HasPrefix(s, "<- you edit") {
				t.Errorf("%d: a piece of code wrapped to its own line: %q", w, l)
			}
			if strings.HasPrefix(s, "kata.json") && strings.HasSuffix(s, "→") {
				cut++
			}
		}
		if w == 120 {
			d.mustSee("a long tail that runs on", `"isError":true}`) // it fits: whole
			continue
		}
		if cut != 1 {
			t.Errorf("%d: the long code line is not cut with the marker:\n%s", w, d.view())
		}
		d.press("L", "L")
		d.mustSee("    ←")
		d.press("H", "H")
		d.mustNotSee("    ←")
		d.checkFrame(w, 30)
	}

	d := newDriverLib(t, lib, Options{}, 80, 30)
	d.press("enter", "5")
	d.press("c") // two code blocks on screen: a picker
	d.mustSee("Copy which code block to the clipboard?", "a) DIR/", `b) {"content"`)
	cmd := d.m.(Model).sessions["mini-kata"].kata.Update(keyMsg("b"))
	if cmd == nil {
		t.Fatal("picking a code block gave no command")
	}
	msg := cmd()
	if got := fmt.Sprintf("%v", msg); !strings.Contains(got, `"isError":true}`) || !strings.Contains(got, `{"content":[`) {
		t.Errorf("the clipboard gets %q, not the whole block", got)
	}
	d.send(tea.KeyPressMsg{})
	d.mustSee("Copied “{\"content\"")

	// On a wide terminal the prose wraps at the reading width, not at 120 columns.
	long := "# Knowledge\n\n" + strings.Repeat("Errors carry flags and the client reads the flags, never the prose. ", 6) + "\n"
	wide := newDriverLib(t, libWith(t, map[string]string{"knowledge/01-basics.md": long}), Options{}, 120, 30)
	wide.press("enter")
	for _, l := range strings.Split(wide.view(), "\n")[3:10] {
		if len(l) > 80 {
			t.Errorf("prose line of %d columns on a 120-column terminal: %q", len(l), l)
		}
	}
}

// TestSearchTheOpenLayer: / searches the layer as you type, enter keeps it, n and N go to the
// next and previous hit (wrapping), q is text while typing, esc clears the search.
func TestSearchTheOpenLayer(t *testing.T) {
	lib := libWith(t, map[string]string{"knowledge/01-basics.md": longKnowledge()})
	d := newDriverLib(t, lib, Options{}, 80, 24)
	d.press("enter", "/", "P", "a", "r", "a", "g", "r", "a", "p", "h", " ", "4", "2")
	d.mustSee("/Paragraph 42", "1 match", "Paragraph 42 says")
	d.press("backspace")
	d.mustSee("/Paragraph 4█", "11 matches")
	d.press("enter") // the search goes on from where the screen is, as in less
	d.mustSee("2 of 11", "Paragraph 40 says")
	d.press("n")
	d.mustSee("3 of 11", "Paragraph 41 says")
	d.press("N", "N")
	d.mustSee("1 of 11", "Paragraph 4 says")
	d.press("N")
	d.mustSee("11 of 11", "Paragraph 49 says")
	d.press("/", "q", "u", "i", "t")
	if d.quit {
		t.Fatal("q typed into the search quit")
	}
	d.mustSee("/quit█", "no match")
	d.press("esc")
	d.mustNotSee("/quit")
	d.mustSee("1 knowledge")
	d.press("esc")
	d.mustSee("A minimal kata", "The smallest packet")
}

// katasNamed is a library of copies of the mini-kata under the ids given.
func katasNamed(t *testing.T, ids ...string) *katas.Library {
	t.Helper()
	fsys := fstest.MapFS{}
	for _, id := range ids {
		copyPacket(t, fsys, id, nil)
	}
	lib, err := katas.Discover(fsys, "test")
	if err != nil {
		t.Fatal(err)
	}
	return lib
}

// TestNarrowTerminalsLoseNothingSilently (issue 16, defect 9): at 60 columns the kata screen's
// keys all show (on two lines) and every tab keeps its number, the active one its name; at
// 60×20 the catalog says how many katas are hidden above and below, and leaves no room for a
// hidden kata empty below.
func TestNarrowTerminalsLoseNothingSilently(t *testing.T) {
	d := newDriver(t, Options{}, 60, 20)
	d.press("enter")
	d.mustSee("t traps", "w task", "x quiz", "d drill", "esc back", "q quit", "1 knowledge")
	d.mustNotSee("…")
	d.checkFrame(60, 20)
	d.press("5")
	d.mustSee("5 templates", "1 knowledge", "4 agents")
	d.mustNotSee("templa…")

	c := newDriverLib(t, katasNamed(t, "kata-a", "kata-b", "kata-c"), Options{Store: newMemStore()}, 60, 20)
	c.mustSee("> A minimal kata (kata-a)", "↓ 1 more kata below")
	c.mustNotSee("above")
	c.press("down", "down")
	c.mustSee("> A minimal kata (kata-c)", "↑ 1 more kata above")
	c.mustNotSee("below")
	lines := strings.Split(c.view(), "\n")
	blank := 0
	for i := len(lines) - 3; i >= 0 && strings.TrimSpace(lines[i]) == ""; i-- {
		blank++
	}
	if blank >= 6 { // room for the hidden entry (6 lines) is left empty
		t.Errorf("the catalog leaves %d blank rows below while a kata is hidden above:\n%s", blank, c.view())
	}
	c.checkFrame(60, 20)
}

// TestTaskScreenSaysWhatChanged: a grade after another says what changed since — fixed,
// still failing, new — naming the fixed and the new, with the summary first.
func TestTaskScreenSaysWhatChanged(t *testing.T) {
	n := 0
	grade := func(ctx context.Context, dir string, progress func(grader.Event)) *grader.Report {
		n++
		rep := stubReport()
		if n == 2 { // the failing test is fixed, the passing one broke
			rep.Tests[0].Status, rep.Tests[0].Message = grader.StatusFail, "now broken"
			rep.Tests[1].Status, rep.Tests[1].Message = grader.StatusPass, ""
		}
		return rep
	}
	d := newDriver(t, Options{Grade: grade}, 80, 30)
	d.press("enter", "w", "i", "g")
	d.mustSee("1 passed, 1 failed")
	d.mustNotSee("Since the last grade")
	d.press("g")
	d.mustSee("1 passed, 1 failed", "Since the last grade: fixed: 1, still failing: 0, new: 1",
		"fixed 503 maps to transient", "new   lookup_order validates order_id",
		"First failure · step 1 · Validate arguments", "now broken")
}

// twoLanguages is the mini-kata with a Node template beside the Python one.
func twoLanguages(t *testing.T) *katas.Library {
	t.Helper()
	manifest, err := os.ReadFile("../katas/testdata/packets/mini-kata/packet.json")
	if err != nil {
		t.Fatal(err)
	}
	return libWith(t, map[string]string{
		"packet.json":               strings.Replace(string(manifest), `"languages": ["python"]`, `"languages": ["python", "node"]`, 1),
		"templates/node/kata.json":  `{"kata": "mini-kata", "language": "node"}`,
		"templates/node/.mcp.json":  `{"mcpServers": {"orders": {"command": "node", "args": ["server.mjs"]}}}`,
		"templates/node/server.mjs": "// the server\n",
	})
}

// TestLanguageIsChosenOnceAndRemembered (issue 16, defect 2): l on the catalog or the task
// screen picks the workspace language among the packet's templates, the store remembers it
// for the kata, i creates the workspace from it, and an existing workspace keeps its own.
func TestLanguageIsChosenOnceAndRemembered(t *testing.T) {
	st := newMemStore()
	lib := twoLanguages(t)
	root := t.TempDir()
	ws := func(id string) string { return root + "/" + id }
	d := newDriverLib(t, lib, Options{Store: st, Workspace: ws}, 80, 24)
	d.mustSee("python workspace")
	d.press("l")
	d.mustSee("node workspace")
	if st.langs["mini-kata"] != "node" {
		t.Fatalf("the choice is not stored: %v", st.langs)
	}
	d.press("enter", "w")
	d.mustSee("Workspace node", "create it from the node template")
	d.press("l")
	d.mustSee("create it from the python template")
	d.press("l", "i")
	d.mustSee("Created from the node template")
	if b, err := os.ReadFile(root + "/mini-kata/kata.json"); err != nil || !strings.Contains(string(b), `"node"`) {
		t.Fatalf("kata.json %s, %v", b, err)
	}
	d.press("l")
	d.mustSee("is a node one", "stays one")

	// A new session on the same store offers the remembered language.
	d2 := newDriverLib(t, lib, Options{Store: st, Workspace: func(id string) string { return t.TempDir() + "/" + id }}, 80, 24)
	d2.mustSee("node workspace")
	d2.press("enter", "w")
	d2.mustSee("create it from the node template")
}

// TestCatalogFilter: / filters the catalog as you type (title, id or summary), enter keeps the
// filter, esc drops it; x is text while typing, not the mock exam.
func TestCatalogFilter(t *testing.T) {
	d := newDriverLib(t, katasNamed(t, "errors-kata", "scope-kata", "retry-kata"), Options{}, 80, 30)
	d.press("/", "x")
	d.mustNotSee("Mock exam")
	d.mustSee("/x█", "0 of 3 katas", "No kata matches “x”")
	d.press("backspace", "s", "c", "o")
	d.mustSee("/sco█", "1 of 3 katas", "(scope-kata)")
	d.mustNotSee("(errors-kata)", "(retry-kata)")
	d.press("enter")
	d.mustSee("/sco  1 of 3 katas")
	d.press("enter") // opens the one kata left
	d.mustSee("A minimal kata (scope-kata)")
	d.press("esc", "esc")
	d.mustSee("(errors-kata)", "(retry-kata)", "(scope-kata)")
	d.mustNotSee("/sco")
}

// TestTrapTablesFilter: / keeps the trap rows holding the text, in any column, as you type;
// esc drops the filter.
func TestTrapTablesFilter(t *testing.T) {
	d := newDriverLib(t, drillLib(t), Options{}, 80, 30)
	d.press("enter", "t", "/", "s", "t", "d")
	d.mustSee("/std█", "1 of 4 traps", "Print to stdout", "Log to stderr")
	d.mustNotSee("Prose errors", "Retry inside")
	d.press("backspace", "backspace", "backspace", "r", "e", "t", "r", "y")
	d.mustSee("1 of 4 traps", "Retry inside", "Let the client retry")
	d.press("enter", "esc")
	d.mustSee("Prose errors", "Print to stdout", "String booleans")
	d.mustNotSee("/retry")
	d.press("/", "z", "z", "z")
	d.mustSee("No trap matches “zzz”")
	d.press("esc", "esc")
	d.mustSee("1 knowledge")
}

// TestSkippedPacketsStayOnShow (issue 16, defect 7): packets skipped for their problems are
// said on the warning line at start and stay listed in the catalog after the first key.
func TestSkippedPacketsStayOnShow(t *testing.T) {
	skipped := []string{
		"skipped packet(s) from /home/me/packets with problems (kata validate lists them all):",
		`/home/me/packets/mini-kata/packet.json:3: id "my-kata" differs from the folder name "mini-kata"`,
	}
	d := newDriver(t, Options{Skipped: skipped}, 80, 24)
	d.mustSee("⚠ skipped packet(s) from /home/me/packets", `id "my-kata" differs from the folder`, "Some packets were skipped")
	d.press("down")
	d.mustNotSee("Some packets were skipped")
	d.mustSee("⚠ skipped packet(s) from /home/me/packets", "A minimal kata")
	d.checkFrame(80, 24)
}

// TestTaskSpeaksTheWorkspaceLanguage (issue 27): with a Node workspace the task screen's step
// and the TASK.md written into the workspace name Node's function, return shape and null, in
// English and in Russian; a Python workspace keeps the Python names.
func TestTaskSpeaksTheWorkspaceLanguage(t *testing.T) {
	lib, err := katas.Discover(packets.FS, "embedded")
	if err != nil {
		t.Fatal(err)
	}
	for _, loc := range []string{"", "ru"} {
		root := t.TempDir()
		d := newDriverLib(t, lib, Options{Language: "node", Locale: loc, Workspace: func(id string) string { return filepath.Join(root, id) }}, 120, 40)
		for range 2 { // mcp-structured-errors is the third kata
			d.press("down")
		}
		d.press("enter", "w")
		d.mustSee("node")
		for range 5 {
			d.press("down")
		}
		d.press("enter")
		d.mustSee("callWithRetry(invoke, sleep, log,", "{ action, category, result }", "client.mjs", "(category null)")
		d.mustNotSee("call_with_retry", "client.py")
		d.press("esc", "i")
		task, err := os.ReadFile(filepath.Join(root, "mcp-structured-errors", "TASK.md"))
		if err != nil {
			t.Fatal(err)
		}
		for _, want := range []string{"`callWithRetry(invoke, sleep, log, request, policy)`", "`{ action, category, result }`", "(category `null`)", "In `client.mjs`"} {
			if loc == "ru" {
				want = strings.TrimPrefix(want, "In ")
			}
			if !strings.Contains(string(task), want) {
				t.Errorf("%s TASK.md of a node workspace lacks %s", loc, want)
			}
		}
		if strings.Contains(string(task), "call_with_retry") {
			t.Errorf("%s TASK.md of a node workspace names call_with_retry", loc)
		}
	}
}
