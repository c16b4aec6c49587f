package assistant

import (
	"bytes"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/kata-mcp/kata/katas"
)

// Limits of a skill's front matter that Claude Code reads (code.claude.com/docs/en/skills,
// "Frontmatter reference", and the Agent Skills specification it follows): a name of
// lower-case letters, digits and hyphens, at most 64 characters, equal to the skill's folder
// name; a description of at most 1024 characters.
const (
	MaxSkillName        = 64
	MaxSkillDescription = 1024
)

// skillName is the form of a skill's and a subagent's name.
var skillName = regexp.MustCompile(`^[a-z0-9]+(-[a-z0-9]+)*$`)

// SkillTools are the tools a skill lets Claude use without asking while the skill is active
// (its allowed-tools): reading the layer files. Grading is not among them: it runs the
// workspace's code, so Claude Code asks first, unless the skill is exported with AllowGrade.
var SkillTools = []string{"Read", "Grep", "Glob"}

// GradeTools are the tools SkillOptions.AllowGrade adds to allowed-tools: grading with the CLI
// or with the kata MCP server's tool (Claude Code names an MCP tool mcp__SERVER__TOOL).
var GradeTools = []string{"Bash(kata grade *)", "mcp__" + ServerName + "__" + ToolGradeWorkspace}

// SkillOptions tune ExportSkill.
type SkillOptions struct {
	// Force overwrites files that exist with other content.
	Force bool
	// AllowGrade adds GradeTools to the skill's allowed-tools, so that Claude grades a
	// workspace (and runs its code) without asking while the skill is active.
	AllowGrade bool
}

// SkillFrontmatter is the YAML front matter of an exported SKILL.md.
type SkillFrontmatter struct {
	Name         string   `yaml:"name"`
	Description  string   `yaml:"description"`
	AllowedTools []string `yaml:"allowed-tools"`
}

// AgentFrontmatter is the YAML front matter of a subagent definition (code.claude.com/docs/en/
// sub-agents, "Supported frontmatter fields"): name and description are required; tools,
// a comma-separated list, is optional (without it the subagent inherits every tool).
type AgentFrontmatter struct {
	Name        string `yaml:"name"`
	Description string `yaml:"description"`
	Tools       string `yaml:"tools,omitempty"`
}

// ExportSkill writes the kata id of lib as a Claude Code skill under dir, a .claude folder:
// the project's .claude/ (shared through the repository) or ~/.claude/ (all your projects).
//
//	skills/<id>/SKILL.md        front matter (name, description, allowed-tools) and a map of the files
//	skills/<id>/<layer>.md      every layer but agents, as `kata show` prints it, read only when needed
//	skills/<id>/task.md         the practical task
//	skills/<id>/assets/*.json   the packet's data tables, when it has any
//	agents/<name>.md            each file of the agents layer as a subagent definition
//
// It reads one layer at a time. When a file it would write exists with other content it writes
// nothing and returns an error wrapping fs.ErrExist naming the file, unless force is set. It
// returns the paths written, sorted.
//
// What it writes is the same whatever dir is and wherever it runs from: the files are meant to
// be committed, so they name each other by paths relative to the .claude folder, never by dir.
// A subagent whose definition calls itself read-only is written without an unrestricted Bash
// (readOnlyTools).
func ExportSkill(lib *katas.Library, id, dir string, opts SkillOptions) ([]string, error) {
	p, ok := lib.Get(id)
	if !ok {
		return nil, fmt.Errorf("unknown kata %q (known: %s)", id, strings.Join(lib.IDs(), ", "))
	}
	if len(p.ID) > MaxSkillName {
		return nil, fmt.Errorf("kata id %q is longer than a skill name may be (%d characters)", p.ID, MaxSkillName)
	}
	skillDir := filepath.Join(dir, "skills", p.ID)
	files := map[string][]byte{}
	type entry struct{ file, layer, purpose string }
	var index []entry
	var agents []AgentFrontmatter
	for _, layer := range p.Layers {
		l, err := lib.LoadLayer(p.ID, layer)
		if err != nil {
			return nil, err
		}
		if layer == "agents" {
			for _, f := range l.Files() {
				fm, body, err := agentDefinition(p, f)
				if err != nil {
					return nil, err
				}
				body += fmt.Sprintf("\nThe kata's packet is exported beside this file as the skill `%s`: its layers, "+
					"task and data tables are in `skills/%s/` of the same `.claude` folder (`../skills/%s/` from this file).\n", p.ID, p.ID, p.ID)
				files[filepath.Join(dir, "agents", fm.Name+".md")] = []byte(body)
				agents = append(agents, fm)
			}
			continue
		}
		files[filepath.Join(skillDir, layer+".md")] = []byte(l.Markdown() + "\n")
		index = append(index, entry{layer + ".md", layer, layerPurpose[layer]})
	}
	lib.ReleaseLayer()
	files[filepath.Join(skillDir, "task.md")] = []byte(p.Task.Markdown)
	index = append(index, entry{"task.md", "task", "the practical task, in numbered steps; the grader reports each test under its step as task_id"})
	assets, err := fs.Glob(p.FS(), "assets/*.json")
	if err != nil {
		return nil, err
	}
	for _, a := range assets {
		b, err := fs.ReadFile(p.FS(), a)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", path.Join(p.Dir, a), err)
		}
		files[filepath.Join(skillDir, filepath.FromSlash(a))] = b
	}

	var md strings.Builder
	allowed := slices.Clone(SkillTools)
	if opts.AllowGrade {
		allowed = append(allowed, GradeTools...)
	}
	fm := SkillFrontmatter{Name: p.ID, Description: skillDescription(p), AllowedTools: allowed}
	front, err := marshalYAML(fm)
	if err != nil {
		return nil, err
	}
	fmt.Fprintf(&md, "---\n%s---\n\n# %s\n\n%s\n\n", front, p.Title, p.Summary)
	fmt.Fprintf(&md, "This skill is the kata packet `%s` (version %s), exported by `kata export skill`. Its layers are "+
		"separate files: read only the one the work at hand needs, one at a time, never all of them together.\n\n", p.ID, p.Version)
	md.WriteString("| file | what it holds | size |\n| --- | --- | --- |\n")
	for _, e := range index {
		fmt.Fprintf(&md, "| [%s](%s) | %s | %d bytes |\n", e.file, e.file, e.purpose, len(files[filepath.Join(skillDir, e.file)]))
	}
	if len(assets) > 0 {
		fmt.Fprintf(&md, "\nThe data tables the layers embed are in `assets/` (%d JSON files); a subagent may read them.\n", len(assets))
	}
	if len(agents) > 0 {
		md.WriteString("\n## Subagents\n\nThe agents layer is exported as subagent definitions, beside `skills/` in `agents/`:\n\n")
		for _, a := range agents {
			fmt.Fprintf(&md, "- `%s`: %s\n", a.Name, a.Description)
		}
	}
	fmt.Fprintf(&md, "\n## Workspaces and grading\n\n`kata init %s --lang %s DIR` writes a starter workspace. "+
		"`kata grade DIR --json` grades it (exit 0 pass, 1 fail, 2 cannot grade; every test names its task step); "+
		"with the kata MCP server configured (`kata mcp --print-config`), the `%s` tool does the same. "+
		"Grading runs the workspace's code: %s\n",
		p.ID, strings.Join(p.Languages, "|"), ToolGradeWorkspace, gradeNote(opts.AllowGrade))
	files[filepath.Join(skillDir, "SKILL.md")] = []byte(md.String())

	paths := slices.Sorted(maps.Keys(files))
	if !opts.Force {
		for _, f := range paths {
			if old, err := os.ReadFile(f); err == nil && !bytes.Equal(old, files[f]) {
				return nil, fmt.Errorf("%s exists with other content (%w); nothing was written: pass --force to overwrite it, or choose another folder", f, fs.ErrExist)
			}
		}
	}
	for _, f := range paths {
		if err := os.MkdirAll(filepath.Dir(f), 0o755); err != nil {
			return nil, err
		}
		if err := os.WriteFile(f, files[f], 0o644); err != nil {
			return nil, err
		}
	}
	return paths, nil
}

// gradeNote says in SKILL.md whether grading is pre-approved.
func gradeNote(allowed bool) string {
	if allowed {
		return "this skill was exported with `--allow-grade`, so Claude grades without asking while it is active."
	}
	return "Claude Code asks before each grade (export with `--allow-grade` to pre-approve it for your own workspaces)."
}

// skillDescription is what Claude reads to decide when to load the skill: what the kata
// teaches and when it applies, cut to MaxSkillDescription characters.
func skillDescription(p *katas.Packet) string {
	d := fmt.Sprintf("%s. %s Use when writing, reviewing or grading code this kata covers, or when working in a kata "+
		"workspace whose kata.json names %s.", strings.TrimRight(p.Title, ".!?"), strings.TrimSpace(p.Summary), p.ID)
	if r := []rune(d); len(r) > MaxSkillDescription {
		d = string(r[:MaxSkillDescription-1]) + "…"
	}
	return d
}

// agentDefinition returns a subagent definition made from one agents-layer file: its front
// matter (which must give a name and a description) and the whole file. A file without front
// matter gets one: the name <kata>-<file name>, its first line as the description, and the
// read-only tools Read, Grep and Glob.
func agentDefinition(p *katas.Packet, f katas.LayerFile) (AgentFrontmatter, string, error) {
	file := path.Join(p.Dir, "agents", f.Name)
	raw, _, ok := SplitFrontMatter(f.Markdown)
	if !ok {
		name := p.ID + "-" + strings.TrimSuffix(f.Name, ".md")
		first, _, _ := strings.Cut(strings.TrimSpace(f.Markdown), "\n")
		fm := AgentFrontmatter{Name: name, Description: fmt.Sprintf("From the kata %s: %s", p.ID, strings.TrimLeft(first, "# ")), Tools: "Read, Grep, Glob"}
		front, err := marshalYAML(fm)
		if err != nil {
			return fm, "", err
		}
		return fm, "---\n" + string(front) + "---\n\n" + f.Markdown, nil
	}
	var fm AgentFrontmatter
	if err := yaml.Unmarshal([]byte(raw), &fm); err != nil {
		return fm, "", fmt.Errorf("%s: front matter: %w", file, err)
	}
	switch {
	case !skillName.MatchString(fm.Name) || len(fm.Name) > MaxSkillName:
		return fm, "", fmt.Errorf("%s: front matter: name %q must be lower-case letters, digits and hyphens, at most %d characters", file, fm.Name, MaxSkillName)
	case strings.TrimSpace(fm.Description) == "":
		return fm, "", fmt.Errorf("%s: front matter: a subagent needs a description (Claude decides from it when to delegate)", file)
	}
	if tools, dropped := readOnlyTools(fm, f.Markdown); dropped {
		// Only the tools line changes: every other field (model, colour, …) stays as written.
		lines := strings.Split(raw, "\n")
		replaced := false
		for i, l := range lines {
			if strings.HasPrefix(l, "tools:") {
				lines[i], replaced = "tools: "+tools, true
			}
		}
		if !replaced {
			return fm, "", fmt.Errorf("%s: front matter: tools must be one line, a comma-separated list", file)
		}
		fm.Tools = tools
		_, rest, _ := SplitFrontMatter(f.Markdown)
		return fm, "---\n" + strings.Join(lines, "\n") + "---\n" + rest + "\n" + readOnlyNote, nil
	}
	return fm, f.Markdown, nil
}

// readOnlyNote ends a subagent definition whose Bash readOnlyTools took away.
const readOnlyNote = "Exported without Bash: this subagent is read-only, and Bash would let it run any command " +
	"(and `kata grade` runs a workspace's code). Where a step above needs a command, such as `git log` or " +
	"`kata grade --json`, name the command in your report for the main conversation to run.\n"

// readOnlyTools returns the tools of a subagent whose description or text calls it read-only,
// without an unrestricted Bash (a bare "Bash" or "Bash(*)"), and whether it took Bash away.
// Claude Code gives a subagent exactly the tools its definition lists, and Bash runs any
// command: a read-only reviewer with it is read-only in name only.
func readOnlyTools(fm AgentFrontmatter, md string) (string, bool) {
	if !strings.Contains(strings.ToLower(fm.Description+"\n"+md), "read-only") || fm.Tools == "" {
		return fm.Tools, false
	}
	var kept []string
	dropped := false
	for _, t := range strings.Split(fm.Tools, ",") {
		t = strings.TrimSpace(t)
		if t == "Bash" || t == "Bash(*)" {
			dropped = true
			continue
		}
		if t != "" {
			kept = append(kept, t)
		}
	}
	if len(kept) == 0 { // no tools line at all would give the subagent every tool
		kept = []string{"Read", "Grep", "Glob"}
	}
	return strings.Join(kept, ", "), dropped
}

// SplitFrontMatter splits a Markdown file that starts with YAML front matter ("---" on the
// first line, up to the next line holding only "---") into the YAML and the rest; ok is false
// when the file has none.
func SplitFrontMatter(md string) (yamlText, rest string, ok bool) {
	if !strings.HasPrefix(md, "---\n") {
		return "", md, false
	}
	end := strings.Index(md[4:], "\n---\n")
	if end < 0 {
		return "", md, false
	}
	return md[4 : 4+end+1], md[4+end+5:], true
}

// marshalYAML writes v as YAML indented by two spaces, for front matter.
func marshalYAML(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := yaml.NewEncoder(&b)
	enc.SetIndent(2)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return b.Bytes(), enc.Close()
}
