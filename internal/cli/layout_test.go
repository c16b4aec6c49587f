package cli

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestReadmeLayoutIsTheTree: the README's layout table names every package of the module, and
// every path it names exists, so a newcomer who reads it finds what is there.
func TestReadmeLayoutIsTheTree(t *testing.T) {
	root := filepath.Join("..", "..")
	b, err := os.ReadFile(filepath.Join(root, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	readme := string(b)
	i := strings.Index(readme, "## Layout\n")
	if i < 0 {
		t.Fatal("README.md has no Layout section")
	}
	named := map[string]bool{}
	cell := regexp.MustCompile("`([^`]+)`")
	for _, line := range strings.Split(readme[i:], "\n") {
		if !strings.HasPrefix(line, "| `") {
			continue
		}
		first := strings.SplitN(line[1:], "|", 2)[0]
		for _, m := range cell.FindAllStringSubmatch(first, -1) {
			p := strings.TrimSuffix(m[1], "/")
			named[p] = true
			if _, err := os.Stat(filepath.Join(root, p)); err != nil {
				t.Errorf("the layout names %s, which does not exist", m[1])
			}
		}
	}
	out, err := exec.Command("go", "list", "-f", "{{.Dir}}", "github.com/kata-mcp/kata/...").Output()
	if err != nil {
		t.Skipf("go list: %v", err)
	}
	abs, _ := filepath.Abs(root)
	for _, dir := range strings.Fields(string(out)) {
		rel, _ := filepath.Rel(abs, dir)
		rel = filepath.ToSlash(rel)
		if rel == "." {
			continue
		}
		found := false
		for p := rel; p != "." && !found; p = filepath.ToSlash(filepath.Dir(p)) {
			found = named[p]
		}
		if !found {
			t.Errorf("package %s is in no row of the README's layout table", rel)
		}
	}
}
