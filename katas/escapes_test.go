package katas

import (
	"encoding/json"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"github.com/kata-mcp/kata/internal/termtext"
	"github.com/kata-mcp/kata/packets"
)

// hostileEscapes is every kind of control sequence a hostile packet could hold for a
// terminal: OSC 52 (clipboard), OSC 0 (window title), OSC 8 (hyperlink), DCS, APC, PM, SOS,
// CSI (clear the screen), a two-byte escape, the 8-bit C1 forms and a lone ESC.
const hostileEscapes = "\x1b]52;c;cHduZWQ=\x07\x1b]0;pwned\x07\x1b]8;;https://evil.example/\x07click\x1b]8;;\x07" +
	"\x1bP+q544e\x1b\\\x1b_Gpwned\x1b\\\x1b^pwned\x1b\\\x1bXpwned\x1b\\\x1b[2J\x1b7\u009b31m\u009d0;pwned\u009c\u0085 \x1b"

// hostileRefs are control characters written as Markdown character references, which a
// renderer decodes: ESC ] 0 ; … BEL, and C1 OSC.
const hostileRefs = "&#27;]0;refd&#7; &#x9d;0;refd&#x9c;"

// jsonString is s as a JSON string's contents (without the quotes): \u001b and so on.
func jsonString(s string) string {
	b, _ := json.Marshal(s)
	return strings.Trim(string(b), `"`)
}

// hostileEdits puts hostileEscapes into a layer, the title and summary, a trap row, an exam
// item and a fixture name of mcp-structured-errors.
var hostileEdits = map[string]func(string) string{
	"packet.json": func(s string) string {
		s = strings.Replace(s, `"title": "Structured errors in MCP"`, `"title": "Structured `+jsonString(hostileEscapes)+` errors"`, 1)
		return strings.Replace(s, `"summary": "`, `"summary": "`+jsonString(hostileEscapes), 1)
	},
	"knowledge/01-mental-model.md": func(s string) string {
		return s + "\nA layer " + hostileEscapes + " and " + hostileRefs + " and [a link](https://evil.example/).\n"
	},
	"traps.md": func(s string) string {
		return strings.Replace(s, "| Raising, so the SDK", "| Raising "+hostileEscapes+", so the SDK", 1)
	},
	"exam.md": func(s string) string {
		return strings.Replace(s, "A support agent looks up orders", "A support agent "+hostileEscapes+" looks up orders", 1)
	},
	"fixtures/server.json": func(s string) string {
		return strings.Replace(s, `"name": "lookup_order: an existing order"`, `"name": "lookup_order: `+jsonString(hostileEscapes)+`"`, 1)
	},
}

// mustBeClean fails when s holds a control character other than newline and tab, or what
// only the escape sequences carried.
func mustBeClean(t *testing.T, what, s string) {
	t.Helper()
	if i := termtext.Control(s); i >= 0 {
		t.Errorf("%s holds a control character at %d: %q", what, i, s[max(0, i-20):min(len(s), i+40)])
	}
	for _, w := range []string{"cHduZWQ", "pwned", "evil.example/\a"} {
		if strings.Contains(s, w) {
			t.Errorf("%s holds %q, from an escape sequence: %q", what, w, s)
		}
	}
}

// TestHostileEscapesAreDroppedWhenLoaded: a packet from a folder with escape sequences in a
// layer, its title, a trap row, an exam item and a fixture name loads, and none of them is
// in what it loaded; `kata validate` names each file and line.
func TestHostileEscapesAreDroppedWhenLoaded(t *testing.T) {
	pkt := filepath.Join(t.TempDir(), "mcp-structured-errors")
	writeFS(t, shippedCopy(t, "mcp-structured-errors", hostileEdits), filepath.Dir(pkt))
	lib, err := Discover(packets.FS, "embedded")
	if err != nil {
		t.Fatal(err)
	}
	if err := lib.AddDir(filepath.Dir(pkt)); err != nil {
		t.Fatal(err)
	}
	if ps := lib.Problems(); len(ps) > 0 {
		t.Fatalf("the packet did not load: %v", ps)
	}
	p, ok := lib.Get("mcp-structured-errors")
	if !ok {
		t.Fatal("the packet did not load")
	}
	for _, e := range lib.Entries() {
		mustBeClean(t, "the catalog entry", e.Title+"\n"+e.Summary)
	}
	all, err := json.Marshal(p)
	if err != nil {
		t.Fatal(err)
	}
	var decoded any
	json.Unmarshal(all, &decoded)
	mustBeClean(t, "the packet", flatten(decoded))
	if !strings.HasPrefix(p.Title, "Structured click") {
		t.Errorf("title %q: the text around the escapes is lost", p.Title)
	}
	l, err := lib.LoadLayer("mcp-structured-errors", "knowledge")
	if err != nil {
		t.Fatal(err)
	}
	md := l.Markdown()
	mustBeClean(t, "the knowledge layer", md)
	if strings.Contains(md, "&#27;") || strings.Contains(md, "&#x9d;") || !strings.Contains(md, "A layer click") {
		t.Errorf("the knowledge layer keeps a character reference to a control character, or loses its text: %q", md[strings.Index(md, "A layer"):])
	}

	problems := validateProblems(t, pkt)
	for _, want := range []string{
		"packet.json:4: the text holds a control character",
		"knowledge/01-mental-model.md:",
		"traps.md:13: the text holds a control character",
		"exam.md:7: the text holds a control character",
		"fixtures/server.json:4: the text holds a control character",
	} {
		if !strings.Contains(problems, want) {
			t.Errorf("validate does not report %q:\n%s", want, problems)
		}
	}
	if !strings.Contains(problems, "character reference") {
		t.Errorf("validate does not report the character references to control characters:\n%s", problems)
	}
	mustBeClean(t, "validate's problems", problems)
}

// flatten joins every string of a decoded JSON value, one a line.
func flatten(v any) string {
	var b strings.Builder
	var walk func(any)
	walk = func(v any) {
		switch v := v.(type) {
		case string:
			b.WriteString(v + "\n")
		case []any:
			for _, e := range v {
				walk(e)
			}
		case map[string]any:
			for k, e := range v {
				b.WriteString(k + "\n")
				walk(e)
			}
		}
	}
	walk(v)
	return b.String()
}

// TestFileNameWithEscapes: a packet file whose name holds escape sequences is named in the
// problems with them quoted, never raw.
func TestFileNameWithEscapes(t *testing.T) {
	pkt := hostileCopy(t, func(pkt string) {
		os.WriteFile(filepath.Join(pkt, "knowledge", "04-\x1b]0;pwned\x07.md"), []byte("# Four\n"), 0o644)
	})
	problems := validateProblems(t, pkt)
	if !strings.Contains(problems, `\x1b]0;pwned\a`) {
		t.Errorf("validate does not name the file with its escapes quoted:\n%s", problems)
	}
	if termtext.Control(problems) >= 0 {
		t.Errorf("validate prints a control character: %q", problems)
	}
}

// hugeFS is fsys with one more file, name, that claims size bytes and reads as a JSON array
// that never ends, so a reader that reads it whole never returns.
type hugeFS struct {
	fstest.MapFS
	name string
	size int64
}

func (h hugeFS) Open(name string) (fs.File, error) {
	if name == h.name {
		return &hugeFile{name: name, size: h.size}, nil
	}
	return h.MapFS.Open(name)
}

func (h hugeFS) ReadFile(name string) ([]byte, error) {
	if name == h.name {
		return io.ReadAll(&hugeFile{name: name, size: h.size})
	}
	return h.MapFS.ReadFile(name)
}

type hugeFile struct {
	name string
	size int64
	off  int64
}

func (f *hugeFile) Stat() (fs.FileInfo, error) { return hugeInfo{f}, nil }
func (f *hugeFile) Close() error               { return nil }
func (f *hugeFile) Read(p []byte) (int, error) {
	if f.off >= f.size {
		return 0, io.EOF
	}
	n := int(min(int64(len(p)), f.size-f.off))
	for i := range n {
		p[i] = ' '
		if f.off+int64(i) == 0 {
			p[i] = '['
		}
	}
	f.off += int64(n)
	return n, nil
}

type hugeInfo struct{ f *hugeFile }

func (i hugeInfo) Name() string       { return i.f.name[strings.LastIndex(i.f.name, "/")+1:] }
func (i hugeInfo) Size() int64        { return i.f.size }
func (i hugeInfo) Mode() fs.FileMode  { return 0o444 }
func (i hugeInfo) ModTime() time.Time { return time.Time{} }
func (i hugeInfo) IsDir() bool        { return false }
func (i hugeInfo) Sys() any           { return nil }

// TestOversizedJSONIsRefusedUnread: a packet whose fixtures file is 300 MB is refused, with a
// problem naming the file, without reading it (a 300 MB fixtures file made every start take
// seconds and gigabytes); an asset or manifest past the bound the same, and a Markdown file
// past its own.
func TestOversizedJSONIsRefusedUnread(t *testing.T) {
	for _, file := range []string{"mcp-structured-errors/fixtures/server.json", "mcp-structured-errors/packet.json", "mcp-engineering/assets/typed-error.json"} {
		id, _, _ := strings.Cut(file, "/")
		m := shippedCopy(t, id, nil)
		delete(m, file)
		fsys := hugeFS{MapFS: m, name: file, size: 300 << 20}
		_, ps := CheckPacket(fsys, id, "test")
		if !strings.Contains(ps.Error(), file+": 300 MiB of JSON; a packet's JSON file is at most 1 MiB") {
			t.Errorf("%s of 300 MiB: problems\n%v", file, ps)
		}
	}
	// Markdown the same, against its own bound: exam.md when the packet loads, a layer file when
	// it is shown.
	m := shippedCopy(t, "mcp-structured-errors", nil)
	delete(m, "mcp-structured-errors/exam.md")
	_, ps := CheckPacket(hugeFS{MapFS: m, name: "mcp-structured-errors/exam.md", size: 300 << 20}, "mcp-structured-errors", "test")
	if !strings.Contains(ps.Error(), "mcp-structured-errors/exam.md:1: 307200 KiB of Markdown; at most 256 KiB") {
		t.Errorf("exam.md of 300 MiB: problems\n%v", ps)
	}
	m = shippedCopy(t, "mcp-structured-errors", nil)
	layerFile := "mcp-structured-errors/knowledge/01-mental-model.md" // kept in m, so the folder lists it
	lib, err := Discover(hugeFS{MapFS: m, name: layerFile, size: 300 << 20}, "test")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := lib.LoadLayer("mcp-structured-errors", "knowledge"); err == nil || !strings.Contains(err.Error(), layerFile+":1: 307200 KiB of Markdown") {
		t.Errorf("a layer file of 300 MiB: %v", err)
	}

	// The same on disk, through kata validate's entry point, with a file just past the bound.
	pkt := hostileCopy(t, func(pkt string) {
		f := filepath.Join(pkt, "fixtures", "server.json")
		b, _ := os.ReadFile(f)
		b = append(b, strings.Repeat(" ", MaxJSONBytes+1-len(b))...)
		os.WriteFile(f, b, 0o644)
	})
	problems := validateProblems(t, pkt)
	if !strings.Contains(problems, filepath.Join(pkt, "fixtures", "server.json")+": 1025 KiB of JSON") {
		t.Errorf("validate of an oversized fixtures file:\n%s", problems)
	}
	if strings.Contains(problems, "server.es.json") {
		t.Errorf("validate checks the twins of a fixtures file that did not load:\n%s", problems)
	}
}
