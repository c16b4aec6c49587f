package assistant

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/text"
	"gopkg.in/yaml.v3"
)

// frontMatter parses the YAML front matter of a written file into a generic map, so that the
// test sees what any YAML reader sees, not what our own types accept.
func frontMatter(t *testing.T, file string) (map[string]any, string) {
	t.Helper()
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	raw, body, ok := SplitFrontMatter(string(b))
	if !ok {
		t.Fatalf("%s has no front matter", file)
	}
	var m map[string]any
	if err := yaml.Unmarshal([]byte(raw), &m); err != nil {
		t.Fatalf("%s: front matter is not YAML: %v", file, err)
	}
	return m, body
}

// links returns the destinations of the Markdown links in md.
func links(md string) []string {
	src := []byte(md)
	var out []string
	ast.Walk(goldmark.New().Parser().Parse(text.NewReader(src)), func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		if l, ok := n.(*ast.Link); ok && entering {
			out = append(out, string(l.Destination))
		}
		return ast.WalkContinue, nil
	})
	return out
}

func TestExportSkill(t *testing.T) {
	lib := library(t)
	for _, id := range []string{"mcp-structured-errors", "mcp-engineering"} {
		t.Run(id, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), ".claude")
			paths, err := ExportSkill(lib, id, dir, false)
			if err != nil {
				t.Fatal(err)
			}
			if lib.Resident() != nil {
				t.Error("the export left a layer resident")
			}
			skillDir := filepath.Join(dir, "skills", id)
			fm, body := frontMatter(t, filepath.Join(skillDir, "SKILL.md"))
			name, _ := fm["name"].(string)
			desc, _ := fm["description"].(string)
			tools, _ := fm["allowed-tools"].([]any)
			if name != filepath.Base(skillDir) || !skillName.MatchString(name) || len(name) > MaxSkillName {
				t.Errorf("name %q: want the folder's name, lower-case letters, digits and hyphens, at most 64", name)
			}
			if desc == "" || len([]rune(desc)) > MaxSkillDescription || !strings.Contains(desc, "Use when") {
				t.Errorf("description (%d characters) %q", len([]rune(desc)), desc)
			}
			if len(tools) == 0 || !slices.Contains(tools, any("Read")) {
				t.Errorf("allowed-tools %v", fm["allowed-tools"])
			}
			// Every layer but agents is a file of its own that SKILL.md links to, holding that
			// layer exactly.
			p, _ := lib.Get(id)
			linked := links(body)
			for _, layer := range p.Layers {
				if layer == "agents" {
					continue
				}
				if !slices.Contains(linked, layer+".md") {
					t.Errorf("SKILL.md does not link %s.md (links %v)", layer, linked)
				}
				got, err := os.ReadFile(filepath.Join(skillDir, layer+".md"))
				if err != nil {
					t.Fatal(err)
				}
				l, err := lib.LoadLayer(id, layer)
				if err != nil {
					t.Fatal(err)
				}
				if string(got) != l.Markdown()+"\n" {
					t.Errorf("%s.md is not the %s layer", layer, layer)
				}
			}
			for _, l := range linked {
				if _, err := os.Stat(filepath.Join(skillDir, l)); err != nil {
					t.Errorf("SKILL.md links %s, which was not written", l)
				}
			}
			if strings.Contains(body, "kata:asset") {
				t.Error("SKILL.md carries an asset comment")
			}

			// The agents layer is a subagent definition with the fields Claude Code requires.
			agents, _ := filepath.Glob(filepath.Join(dir, "agents", "*.md"))
			if len(agents) == 0 {
				t.Fatal("no subagent written")
			}
			for _, a := range agents {
				am, abody := frontMatter(t, a)
				aname, _ := am["name"].(string)
				adesc, _ := am["description"].(string)
				atools, _ := am["tools"].(string)
				if aname+".md" != filepath.Base(a) || adesc == "" || !strings.Contains(atools, "Read") || strings.TrimSpace(abody) == "" {
					t.Errorf("%s: front matter %v", a, am)
				}
				if !strings.Contains(body, "`"+aname+"`") {
					t.Errorf("SKILL.md does not name the subagent %s", aname)
				}
			}

			// A second export of the same packet changes nothing; one over an edited file
			// refuses and writes nothing, unless forced.
			if _, err := ExportSkill(lib, id, dir, false); err != nil {
				t.Errorf("re-exporting: %v", err)
			}
			knowledge := filepath.Join(skillDir, "knowledge.md")
			os.WriteFile(knowledge, []byte("my notes\n"), 0o644)
			os.Remove(filepath.Join(skillDir, "task.md"))
			_, err = ExportSkill(lib, id, dir, false)
			if !errors.Is(err, fs.ErrExist) || !strings.Contains(err.Error(), knowledge) {
				t.Errorf("exporting over an edited file: %v", err)
			}
			if b, _ := os.ReadFile(knowledge); string(b) != "my notes\n" {
				t.Error("the edited file was overwritten")
			}
			if _, err := os.Stat(filepath.Join(skillDir, "task.md")); err == nil {
				t.Error("a refused export wrote other files")
			}
			again, err := ExportSkill(lib, id, dir, true)
			if err != nil || !slices.Equal(again, paths) {
				t.Errorf("forced export: %v, %v", err, again)
			}
		})
	}
	if _, err := ExportSkill(lib, "nope", t.TempDir(), false); err == nil || !strings.Contains(err.Error(), "mcp-engineering") {
		t.Errorf("an unknown kata: %v", err)
	}
}

func TestExportedAssetsAreTheData(t *testing.T) {
	lib := library(t)
	dir := t.TempDir()
	if _, err := ExportSkill(lib, "mcp-engineering", dir, false); err != nil {
		t.Fatal(err)
	}
	p, _ := lib.Get("mcp-engineering")
	want, _ := fs.Glob(p.FS(), "assets/*.json")
	got, _ := filepath.Glob(filepath.Join(dir, "skills", "mcp-engineering", "assets", "*.json"))
	if len(want) == 0 || len(got) != len(want) {
		t.Errorf("assets %v, want %v", got, want)
	}
}
