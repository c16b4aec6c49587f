package katas

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// hostileCopy writes the shipped packet mcp-structured-errors into a temporary packets folder,
// lets edit change it on disk, and returns the packet's folder.
func hostileCopy(t *testing.T, edit func(pkt string)) string {
	t.Helper()
	root := t.TempDir()
	writeFS(t, shippedCopy(t, "mcp-structured-errors", nil), root)
	pkt := filepath.Join(root, "mcp-structured-errors")
	edit(pkt)
	return pkt
}

// validateProblems validates the packet folder pkt and returns its problems, one a line.
func validateProblems(t *testing.T, pkt string) string {
	t.Helper()
	vs, err := ValidateDir(pkt, ValidateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var lines []string
	for _, v := range vs {
		for _, p := range v.Problems {
			lines = append(lines, p.Error())
		}
	}
	return strings.Join(lines, "\n")
}

// TestValidateRejectsHostilePackets: each packet that loading, `kata show` or `kata init`
// would otherwise misread, hang on or write outside the workspace for is a validate problem
// naming the file (and line, where there is one). (Before the bounds, the nested ones made
// `kata show` run for minutes: without them this test would not finish.)
func TestValidateRejectsHostilePackets(t *testing.T) {
	outside := filepath.Join(t.TempDir(), "secret.txt")
	os.WriteFile(outside, []byte("# not the packet's\n"), 0o644)
	knowledge := func(pkt string) string { return filepath.Join(pkt, "knowledge", "01-mental-model.md") }
	cases := []struct {
		name string
		edit func(pkt string)
		want string // a problem that must be reported, with its file:line
	}{
		{"100 nested block quotes", func(p string) {
			os.WriteFile(knowledge(p), []byte("# Deep\n\n"+strings.Repeat(">", 100)+" x\n"), 0o644)
		}, "knowledge/01-mental-model.md:3: the line starts with 100 block-quote or list markers"},
		{"a line of 300 nested list markers", func(p string) {
			os.WriteFile(knowledge(p), []byte(strings.Repeat("- ", 300)+"x\n"), 0o644)
		}, "knowledge/01-mental-model.md:1: the line starts with 300 block-quote or list markers"},
		{"nesting deeper than the limit over many lines", func(p string) {
			var b strings.Builder
			for i := 0; i <= MaxNesting; i++ {
				b.WriteString(strings.Repeat("  ", i) + "- level\n")
			}
			os.WriteFile(knowledge(p), []byte("intro\n\n"+b.String()), 0o644)
		}, "knowledge/01-mental-model.md:11: block quotes and lists nest more than 8 deep"},
		{"nested block quotes in a locale twin", func(p string) {
			os.WriteFile(filepath.Join(p, "knowledge", "01-mental-model.es.md"), []byte(strings.Repeat("> ", 40)+"x\n"), 0o644)
		}, "knowledge/01-mental-model.es.md:1: the line starts with 40 block-quote or list markers"},
		{"nested block quotes in exam.md", func(p string) {
			f := filepath.Join(p, "exam.md")
			b, _ := os.ReadFile(f)
			os.WriteFile(f, append(b, []byte("\n"+strings.Repeat("> ", 40)+"x\n")...), 0o644)
		}, "exam.md:"},
		{"a layer over the size limit", func(p string) {
			os.WriteFile(knowledge(p), []byte(strings.Repeat("A sentence of packet prose.\n\n", MaxMarkdownBytes/29+1)), 0o644)
		}, "knowledge/01-mental-model.md:1: 257 KiB of Markdown; at most 256 KiB"},
		{"a layer whose files together are over the size limit", func(p string) {
			for i := 0; i < 3; i++ {
				os.WriteFile(filepath.Join(p, "knowledge", "9"+string(rune('a'+i))+"-more.md"), []byte(strings.Repeat("A sentence of packet prose.\n\n", MaxMarkdownBytes/29/2)), 0o644)
			}
		}, "knowledge: the layer's files come to"},
		{"a layer file that is a link to /etc/passwd", func(p string) {
			os.Symlink("/etc/passwd", filepath.Join(p, "knowledge", "02-passwd.md"))
		}, "knowledge/02-passwd.md: a symbolic link"},
		{"a layer folder that is a link", func(p string) {
			os.RemoveAll(filepath.Join(p, "examples"))
			os.Symlink(filepath.Dir(outside), filepath.Join(p, "examples"))
		}, "examples: a symbolic link"},
		{"an asset outside the packet", func(p string) {
			os.WriteFile(knowledge(p), []byte("# Table\n\n<!-- kata:asset ../../../etc/passwd -->\n"), 0o644)
		}, `knowledge/01-mental-model.md:3: embedding ../../../etc/passwd: `},
		{"a template that is a link to a file outside", func(p string) {
			os.Symlink(outside, filepath.Join(p, "templates", "python", "notes.md"))
		}, "templates/python/notes.md: a symbolic link"},
		{"a template folder that is a link", func(p string) {
			os.Symlink(filepath.Dir(outside), filepath.Join(p, "templates", "python", "lib"))
		}, "templates/python/lib: a symbolic link"},
		{"a template named ...tmpl", func(p string) {
			os.WriteFile(filepath.Join(p, "templates", "python", "...tmpl"), []byte("x"), 0o644)
		}, `templates/python/...tmpl: template name "...tmpl" becomes ".."`},
		{"a template in a folder named ...tmpl's result", func(p string) {
			os.MkdirAll(filepath.Join(p, "templates", "python", "sub"), 0o755)
			os.WriteFile(filepath.Join(p, "templates", "python", "sub", "..tmpl"), []byte("x"), 0o644)
		}, `becomes "sub/."`},
		{"invalid UTF-8 in a layer", func(p string) {
			os.WriteFile(knowledge(p), []byte("# Title\n\nbad \xff byte\n"), 0o644)
		}, "knowledge/01-mental-model.md:3: byte 0xff at offset 13 is not valid UTF-8"},
		{"invalid UTF-8 in task.md", func(p string) {
			f := filepath.Join(p, "task.md")
			b, _ := os.ReadFile(f)
			os.WriteFile(f, append([]byte("\xc3("), b...), 0o644)
		}, "task.md:1: byte 0xc3 at offset 0 is not valid UTF-8"},
		{"a BOM in packet.json", func(p string) {
			f := filepath.Join(p, "packet.json")
			b, _ := os.ReadFile(f)
			os.WriteFile(f, append([]byte("\ufeff"), b...), 0o644)
		}, "packet.json:1: the file starts with a byte order mark"},
		{"a duplicate key in packet.json", func(p string) {
			f := filepath.Join(p, "packet.json")
			b, _ := os.ReadFile(f)
			os.WriteFile(f, []byte(strings.Replace(string(b), `"title":`, `"title": "Other",`+"\n  "+`"title":`, 1)), 0o644)
		}, `packet.json:5: key "title" appears twice`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			pkt := hostileCopy(t, c.edit)
			got := validateProblems(t, pkt)
			if !strings.Contains(got, c.want) {
				t.Errorf("validate reports\n%s\nwant a problem containing %q", got, c.want)
			}
		})
	}
}

// TestHostileLayerIsRefusedWhenShown: a layer that breaks a bound after the packet was loaded
// (files of a --packets folder can change) is refused by LoadLayer with file and line, at once,
// instead of being parsed or rendered.
func TestHostileLayerIsRefusedWhenShown(t *testing.T) {
	pkt := hostileCopy(t, func(string) {})
	lib := testLibrary(t)
	if err := lib.Add(shippedCopy(t, "mcp-structured-errors", nil), "shims"); err != nil {
		t.Fatal(err)
	}
	if err := lib.AddDir(pkt); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(pkt, "knowledge", "01-mental-model.md"), []byte(strings.Repeat(">", 128<<10)+"\n"), 0o644)
	_, err := lib.LoadLayer("mcp-structured-errors", "knowledge")
	if err == nil || !strings.Contains(err.Error(), "01-mental-model.md:1: the line starts with 131072 block-quote or list markers") {
		t.Errorf("LoadLayer: %v", err)
	}
	os.Remove(filepath.Join(pkt, "knowledge", "01-mental-model.md"))
	os.Symlink("/etc/passwd", filepath.Join(pkt, "knowledge", "01-mental-model.md"))
	if _, err := lib.LoadLayer("mcp-structured-errors", "knowledge"); err == nil || !strings.Contains(err.Error(), "a symbolic link") {
		t.Errorf("LoadLayer of a layer file swapped for a link: %v", err)
	}
}

// TestInitLeavesNoPartialWorkspace: a template folder that is a link, or a template name that
// is not a plain path, makes Init fail without leaving a workspace (or anything beside it), so
// once the packet is fixed the same Init succeeds.
func TestInitLeavesNoPartialWorkspace(t *testing.T) {
	for name, edit := range map[string]func(pkt string) string{
		"template folder link": func(pkt string) string {
			link := filepath.Join(pkt, "templates", "python", "zz-lib")
			os.Symlink(t.TempDir(), link)
			return link
		},
		"template file link": func(pkt string) string {
			link := filepath.Join(pkt, "templates", "python", "zz-notes.md")
			os.Symlink("/etc/passwd", link)
			return link
		},
		"...tmpl": func(pkt string) string {
			f := filepath.Join(pkt, "templates", "python", "zz", "...tmpl")
			os.MkdirAll(filepath.Dir(f), 0o755)
			os.WriteFile(f, []byte("x"), 0o644)
			return filepath.Dir(f)
		},
	} {
		t.Run(name, func(t *testing.T) {
			var bad string
			pkt := hostileCopy(t, func(string) {})
			fsys, _, names, err := OpenDir(pkt)
			if err != nil {
				t.Fatal(err)
			}
			shims := ShimsOf(shippedCopy(t, "mcp-structured-errors", nil))
			p, ps := CheckPacket(fsys, names[0], pkt)
			if len(ps) > 0 {
				t.Fatal(ps)
			}
			p.shims = shims
			bad = edit(pkt)
			parent := t.TempDir()
			ws := filepath.Join(parent, "ws")
			if err := p.Init(ws, "python"); err == nil {
				t.Fatal("Init succeeded")
			}
			if entries, _ := os.ReadDir(parent); len(entries) != 0 {
				t.Fatalf("a failed Init left %v in the parent folder", entries)
			}
			os.RemoveAll(bad)
			if err := p.Init(ws, "python"); err != nil {
				t.Fatalf("Init after the packet was fixed: %v", err)
			}
			if _, err := os.Stat(filepath.Join(ws, "server.py")); err != nil {
				t.Error(err)
			}
		})
	}
}
