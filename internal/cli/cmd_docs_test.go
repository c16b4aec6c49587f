package cli

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/kata-mcp/kata/docs"
	"github.com/kata-mcp/kata/grader"
	"github.com/kata-mcp/kata/katas"
	"github.com/kata-mcp/kata/packets"
)

// TestEveryPrintedDocLinkResolves: every docs/PAGE.md#SECTION link, and every `kata docs
// PAGE#SECTION`, that kata can print (in a message catalog, in the code, in a packet, or a
// rule's link in the rule index) is a page and a section `kata docs` prints, so a user with only
// the binary can follow it.
func TestEveryPrintedDocLinkResolves(t *testing.T) {
	root := filepath.Join("..", "..")
	link := regexp.MustCompile(`docs/([a-z0-9-]+)\.md(#[A-Za-z0-9_-]+)?`)
	// A hint may name the command instead of the file.
	command := regexp.MustCompile(`kata docs ([a-z0-9-]+)#([A-Za-z0-9_-]+)`)
	links := map[string]string{} // link -> one file that holds it
	for _, dir := range []string{"internal", "grader", "katas", "ui", "assistant", "workshop", "packets"} {
		err := filepath.WalkDir(filepath.Join(root, dir), func(path string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() || strings.HasSuffix(path, "_test.go") || strings.Contains(path, "node_modules") {
				return err
			}
			if ext := filepath.Ext(path); ext != ".go" && ext != ".toml" && ext != ".md" {
				return nil
			}
			b, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			for _, m := range link.FindAllString(string(b), -1) {
				links[m] = path
			}
			for _, m := range command.FindAllStringSubmatch(string(b), -1) {
				links["docs/"+m[1]+".md#"+m[2]] = path
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	lib, err := katas.Discover(packets.FS, "embedded")
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range lib.Packets() {
		for _, r := range grader.RulesFor(p) {
			links[r.Doc()] = "the rule index (" + string(r.ID) + ")"
		}
	}
	if len(links) < 40 {
		t.Fatalf("found only %d links: the scan is broken", len(links))
	}
	for l, where := range links {
		if strings.HasSuffix(l, "#rule-") { // the prefix Rule.Doc builds on, checked per rule above
			continue
		}
		page, anchor := docs.Split(l)
		p, ok := docs.Get(page)
		if !ok {
			t.Errorf("%s (in %s): kata docs has no such page", l, where)
			continue
		}
		if anchor == "" {
			continue
		}
		if text, err := docs.Section(p, anchor); err != nil || strings.TrimSpace(text) == "" {
			t.Errorf("%s (in %s): %v", l, where, err)
		}
	}
}

func TestDocsCommand(t *testing.T) {
	out, _, code := runKata(t, "docs")
	if code != 0 || !strings.Contains(out, "grading ") || !strings.Contains(out, "The graded interface") {
		t.Errorf("kata docs: exit %d\n%s", code, out)
	}
	out, _, code = runKata(t, "docs", "docs/grading.md#client-rule-5")
	if code != 0 || !strings.HasPrefix(out, "5. **One sleep before each retry**") || strings.Contains(out, "<a id") || strings.Contains(out, "6. ") {
		t.Errorf("a list item: exit %d\n%s", code, out)
	}
	out, _, code = runKata(t, "docs", "grading", "retry-after")
	if code != 0 || !strings.HasPrefix(out, "### Retry-After") || strings.Contains(out, "### The timeout") {
		t.Errorf("a heading's section: exit %d\n%s", code, out)
	}
	out, _, code = runKata(t, "docs", "grading#rule-category")
	if code != 0 || !strings.Contains(out, "| `category` | server |") || !strings.Contains(out, "Behaviour → category") {
		t.Errorf("a rule and the section it links: exit %d\n%s", code, out)
	}
	out, _, code = runKata(t, "docs", "class")
	if b, _ := os.ReadFile(filepath.Join("..", "..", "docs", "class.md")); code != 0 || out != string(b) {
		t.Errorf("a whole page is printed as it is: exit %d", code)
	}
	if _, errOut, code := runKata(t, "docs", "grading#no-such-section"); code != 2 || !strings.Contains(errOut, "no section #no-such-section") {
		t.Errorf("an unknown section: exit %d, %s", code, errOut)
	}
	if _, errOut, code := runKata(t, "docs", "../go.mod"); code != 2 || !strings.Contains(errOut, "no documentation page") {
		t.Errorf("a path outside docs: exit %d, %s", code, errOut)
	}
}
