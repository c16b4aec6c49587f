package ui

import (
	"io/fs"
	"os"
	"path"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/kata-mcp/kata/katas"
)

// copyPacket copies the mini-kata into fsys as folder id, with files replaced by overrides.
func copyPacket(t *testing.T, fsys fstest.MapFS, id string, overrides map[string]string) {
	t.Helper()
	src := os.DirFS("../katas/testdata/packets/mini-kata")
	err := fs.WalkDir(src, ".", func(name string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := fs.ReadFile(src, name)
		if err != nil {
			return err
		}
		if name == "packet.json" {
			b = []byte(strings.Replace(string(b), `"id": "mini-kata"`, `"id": "`+id+`"`, 1))
		}
		if o, ok := overrides[name]; ok {
			b = []byte(o)
		}
		fsys[path.Join(id, name)] = &fstest.MapFile{Data: b}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

func driverFor(t *testing.T, lib *katas.Library, w, h int) *driver {
	t.Helper()
	return newDriverLib(t, lib, Options{}, w, h)
}

const multiExam = "# Exam\n\n## `mc-01` Two flags\n\nScenario: customer-support\n\nWhich two fields are booleans?\n\nChoose: 2\n\n" +
	"- [x] isError\n  > A boolean by the contract.\n" +
	"- [ ] errorCategory\n  > A string naming the category.\n" +
	"- [x] isRetryable\n  > A boolean the client branches on.\n"

func TestExamMultipleAnswers(t *testing.T) {
	fsys := fstest.MapFS{}
	copyPacket(t, fsys, "multi-kata", map[string]string{"exam.md": multiExam})
	lib, err := katas.Discover(fsys, "test")
	if err != nil {
		t.Fatal(err)
	}
	d := driverFor(t, lib, 80, 24)
	d.press("enter", "x")
	d.mustSee("Question 1 of 1", "Choose 2", ") isError")
	a, b := d.letterOf("isError"), d.letterOf("isRetryable")
	d.press(a, "enter") // one mark is not enough
	d.mustSee("[x] "+a+") isError", "[ ] "+b+") isRetryable", "Choose exactly 2 (1 marked).")
	d.mustNotSee("correct")
	d.press(b, d.letterOf("errorCategory")) // a third mark is refused
	d.mustSee("Choose exactly 2: unmark one first.")
	d.press("enter")
	d.mustSee("✓ correct", ") isError [key] [your choice]", ") isRetryable [key] [your choice]",
		"A string naming the category.")
	d.press("n")
	d.mustSee("Score: 1/1 (100%)", "No misses.")
}

func TestTwoPacketsShareOneResidentLayer(t *testing.T) {
	fsys := fstest.MapFS{}
	copyPacket(t, fsys, "alpha-kata", map[string]string{"knowledge/01-basics.md": "# Alpha knowledge\n"})
	copyPacket(t, fsys, "beta-kata", map[string]string{"knowledge/01-basics.md": "# Beta knowledge\n"})
	lib, err := katas.Discover(fsys, "test")
	if err != nil {
		t.Fatal(err)
	}
	d := driverFor(t, lib, 80, 30)
	d.mustSee("(alpha-kata)", "(beta-kata)")
	d.press("enter")
	d.mustSee("Alpha knowledge")
	d.press("esc", "down", "enter")
	d.mustSee("Beta knowledge")
	if r := lib.Resident(); r.Packet != "beta-kata" {
		t.Fatalf("resident %s/%s, want beta-kata", r.Packet, r.Name)
	}
	d.press("esc", "up", "enter")
	d.mustSee("Alpha knowledge")
	if r := lib.Resident(); r.Packet != "alpha-kata" || r.Name != "knowledge" {
		t.Fatalf("resident %s/%s, want alpha-kata/knowledge", r.Packet, r.Name)
	}
}

func TestHelpKeepsGlobalKeysWhenNarrow(t *testing.T) {
	for _, w := range []int{30, 40, 60} {
		d := newDriver(t, Options{}, w, 12)
		d.press("enter")
		lines := strings.Split(d.view(), "\n")
		last := lines[len(lines)-1]
		if !strings.Contains(last, "q quit") || !strings.Contains(last, "esc back") {
			t.Errorf("width %d: help line %q lacks the global keys", w, last)
		}
		d.checkFrame(w, 12)
	}
}

func TestEveryScreenFits(t *testing.T) {
	for _, size := range [][2]int{{80, 24}, {120, 40}, {50, 12}} {
		w, h := size[0], size[1]
		d := newDriver(t, Options{}, w, h)
		d.checkFrame(w, h)
		for _, keys := range [][]string{{"enter"}, {"x"}, {"b"}, {"esc", "t"}, {"esc", "w"}} {
			d.press(keys...)
			d.checkFrame(w, h)
		}
	}
}

func TestCatalogScrollsToCursor(t *testing.T) {
	fsys := fstest.MapFS{}
	ids := []string{"k-one", "k-two", "k-three", "k-four", "k-five", "k-six"}
	for _, id := range ids {
		copyPacket(t, fsys, id, nil)
	}
	lib, err := katas.Discover(fsys, "test")
	if err != nil {
		t.Fatal(err)
	}
	d := driverFor(t, lib, 60, 12)
	d.mustSee("(k-five)")
	d.mustNotSee("(k-two)") // sorted: five, four, one, six, three, two
	for range ids {
		d.press("down")
	}
	d.mustSee("> A minimal kata (k-two)")
	d.checkFrame(60, 12)
	d.press("enter")
	d.mustSee("A minimal kata (k-two)", "1 knowledge")
}
