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
			paths, err := ExportSkill(lib, id, dir, SkillOptions{})
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
			if _, err := ExportSkill(lib, id, dir, SkillOptions{}); err != nil {
				t.Errorf("re-exporting: %v", err)
			}
			knowledge := filepath.Join(skillDir, "knowledge.md")
			os.WriteFile(knowledge, []byte("my notes\n"), 0o644)
			os.Remove(filepath.Join(skillDir, "task.md"))
			_, err = ExportSkill(lib, id, dir, SkillOptions{})
			if !errors.Is(err, fs.ErrExist) || !strings.Contains(err.Error(), knowledge) {
				t.Errorf("exporting over an edited file: %v", err)
			}
			if b, _ := os.ReadFile(knowledge); string(b) != "my notes\n" {
				t.Error("the edited file was overwritten")
			}
			if _, err := os.Stat(filepath.Join(skillDir, "task.md")); err == nil {
				t.Error("a refused export wrote other files")
			}
			again, err := ExportSkill(lib, id, dir, SkillOptions{Force: true})
			if err != nil || !slices.Equal(again, paths) {
				t.Errorf("forced export: %v, %v", err, again)
			}
		})
	}
	if _, err := ExportSkill(lib, "nope", t.TempDir(), SkillOptions{}); err == nil || !strings.Contains(err.Error(), "mcp-engineering") {
		t.Errorf("an unknown kata: %v", err)
	}
}

func TestExportedAssetsAreTheData(t *testing.T) {
	lib := library(t)
	dir := t.TempDir()
	if _, err := ExportSkill(lib, "mcp-engineering", dir, SkillOptions{}); err != nil {
		t.Fatal(err)
	}
	p, _ := lib.Get("mcp-engineering")
	want, _ := fs.Glob(p.FS(), "assets/*.json")
	got, _ := filepath.Glob(filepath.Join(dir, "skills", "mcp-engineering", "assets", "*.json"))
	if len(want) == 0 || len(got) != len(want) {
		t.Errorf("assets %v, want %v", got, want)
	}
}

// TestExportSkillIsSafeToCommit: the files are the same byte for byte whether the folder is
// given as an absolute path or as a relative one from a subfolder, and name no machine's path;
// grading is pre-approved only with AllowGrade; a read-only subagent gets no unrestricted Bash.
func TestExportSkillIsSafeToCommit(t *testing.T) {
	lib := library(t)
	root := t.TempDir()
	abs := filepath.Join(root, "a", ".claude")
	if _, err := ExportSkill(lib, "mcp-engineering", abs, SkillOptions{}); err != nil {
		t.Fatal(err)
	}
	sub := filepath.Join(root, "b", "src", "deep")
	os.MkdirAll(sub, 0o755)
	t.Chdir(sub)
	if _, err := ExportSkill(lib, "mcp-engineering", filepath.Join("..", "..", ".claude"), SkillOptions{}); err != nil {
		t.Fatal(err)
	}
	rel := filepath.Join(root, "b", ".claude")
	err := filepath.WalkDir(abs, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		name, _ := filepath.Rel(abs, path)
		a, _ := os.ReadFile(path)
		b, err := os.ReadFile(filepath.Join(rel, name))
		if err != nil || string(a) != string(b) {
			t.Errorf("%s differs between an absolute and a relative export folder", name)
		}
		for _, bad := range []string{root, "../.claude", "../../"} {
			if strings.Contains(string(a), bad) {
				t.Errorf("%s names %q", name, bad)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	agent := filepath.Join(abs, "agents", "mcp-engineering-reviewer.md")
	am, body := frontMatter(t, agent)
	if !strings.Contains(body, "`../skills/mcp-engineering/`") {
		t.Errorf("the subagent does not point at its skill folder relative to itself:\n%s", body)
	}
	// The reviewer calls itself read-only: the export leaves it every tool but Bash.
	if tools, _ := am["tools"].(string); tools != "Read, Grep, Glob" || !strings.Contains(body, "Exported without Bash") {
		t.Errorf("the read-only reviewer's tools: %q", tools)
	}
	allowed := func(dir string) []any {
		fm, _ := frontMatter(t, filepath.Join(dir, "skills", "mcp-engineering", "SKILL.md"))
		tools, _ := fm["allowed-tools"].([]any)
		return tools
	}
	for _, tool := range allowed(abs) {
		if s, _ := tool.(string); strings.Contains(s, "grade") || strings.HasPrefix(s, "Bash") || strings.HasPrefix(s, "mcp__") {
			t.Errorf("allowed-tools pre-approves %s without --allow-grade", s)
		}
	}
	opted := filepath.Join(root, "c", ".claude")
	if _, err := ExportSkill(lib, "mcp-engineering", opted, SkillOptions{AllowGrade: true}); err != nil {
		t.Fatal(err)
	}
	if got := allowed(opted); !slices.Contains(got, any("Bash(kata grade *)")) || !slices.Contains(got, any("mcp__kata__grade_workspace")) {
		t.Errorf("with AllowGrade, allowed-tools %v", got)
	}
}

func TestReadOnlyTools(t *testing.T) {
	for _, c := range []struct {
		desc, tools, want string
		dropped           bool
	}{
		{"Reviews things. Read-only; reports findings.", "Read, Grep, Glob, Bash", "Read, Grep, Glob", true},
		{"Reviews things. Read-only.", "Bash", "Read, Grep, Glob", true},
		{"Reviews things. Read-only.", "Read, Bash(*)", "Read", true},
		{"Reviews things. Read-only.", "Read, Bash(git log *)", "Read, Bash(git log *)", false},
		{"Fixes things.", "Read, Edit, Bash", "Read, Edit, Bash", false},
	} {
		got, dropped := readOnlyTools(AgentFrontmatter{Description: c.desc, Tools: c.tools}, "")
		if got != c.want || dropped != c.dropped {
			t.Errorf("%q %q: %q %v, want %q %v", c.desc, c.tools, got, dropped, c.want, c.dropped)
		}
	}
}
