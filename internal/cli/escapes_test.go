package cli

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kata-mcp/kata/internal/termtext"
)

// hostileEscapes is every kind of control sequence a hostile packet could hold for a
// terminal: OSC 52 (clipboard), OSC 0 (window title), OSC 8 (hyperlink), DCS, APC, PM, SOS,
// CSI (clear the screen), a two-byte escape, the 8-bit C1 forms and a lone ESC.
const hostileEscapes = "\x1b]52;c;cHduZWQ=\x07\x1b]0;pwned\x07\x1b]8;;https://evil.example/\x07click\x1b]8;;\x07" +
	"\x1bP+q544e\x1b\\\x1b_Gpwned\x1b\\\x1b^pwned\x1b\\\x1bXpwned\x1b\\\x1b[2J\x1b7\u009b31m\u009d0;pwned\u009c\u0085 \x1b"

// jsonText is s as the contents of a JSON string (\u001b and so on).
func jsonText(s string) string {
	b, _ := json.Marshal(s)
	return strings.Trim(string(b), `"`)
}

// hostileEdits put hostileEscapes into a layer, the title and summary, a trap row, an exam
// item and a fixture name of mcp-structured-errors.
var hostileEdits = map[string]func(string) string{
	"packet.json": func(s string) string {
		s = strings.Replace(s, `"title": "Structured errors in MCP"`, `"title": "Hostile `+jsonText(hostileEscapes)+` title"`, 1)
		return strings.Replace(s, `"summary": "`, `"summary": "`+jsonText(hostileEscapes), 1)
	},
	"knowledge/01-mental-model.md": func(s string) string {
		return s + "\nA layer " + hostileEscapes + " and &#27;]0;pwned&#7; and [a link](https://evil.example/).\n"
	},
	"traps.md": func(s string) string {
		return strings.Replace(s, "| Raising, so the SDK", "| Raising "+hostileEscapes+", so the SDK", 1)
	},
	"exam.md": func(s string) string {
		return strings.Replace(s, "A support agent looks up orders", "A support agent "+hostileEscapes+" looks up orders", 1)
	},
	"fixtures/server.json": func(s string) string {
		return strings.Replace(s, `"name": "lookup_order: expired token (401/403)"`, `"name": "lookup_order: `+jsonText(hostileEscapes)+`expired token (401/403)"`, 1)
	},
}

// mustHoldNoEscape fails when s holds a control character other than newline and tab, or what
// only an escape sequence carried.
func mustHoldNoEscape(t *testing.T, what, s string) {
	t.Helper()
	if i := termtext.Control(s); i >= 0 {
		t.Errorf("%s holds a control character at %d: %q", what, i, s[max(0, i-20):min(len(s), i+40)])
	}
	for _, w := range []string{"cHduZWQ", "0;pwned\a", "evil.example/\a"} {
		if strings.Contains(s, w) {
			t.Errorf("%s holds %q, which an escape sequence carried", what, w)
		}
	}
}

// TestHostilePacketPrintsNoEscape (issue 23, item 5): a third-party packet (--packets) with
// escape sequences in a layer, its title, a trap row, an exam item and a fixture name loads,
// and `kata list`, `kata show`, `kata show --rules` print none of them; `kata validate` names
// each file:line and prints none either.
func TestHostilePacketPrintsNoEscape(t *testing.T) {
	hermeticState(t)
	dir := t.TempDir()
	copyShipped(t, "mcp-structured-errors", dir, hostileEdits)
	for _, args := range [][]string{
		{"list"},
		{"list", "--json"},
		{"show", "mcp-structured-errors"},
		{"show", "mcp-structured-errors", "--layer", "examples"},
		{"show", "mcp-structured-errors", "--rules"},
	} {
		out, errs, code := runKata(t, append([]string{"--packets", dir}, args...)...)
		name := "kata " + strings.Join(args, " ")
		if code != 0 {
			t.Errorf("%s: exit %d, stderr %q", name, code, errs)
		}
		mustHoldNoEscape(t, name, out)
		mustHoldNoEscape(t, name+" (stderr)", errs)
		switch args[0] {
		case "list":
			if !strings.Contains(out, "Hostile click") {
				t.Errorf("%s: the title is lost:\n%s", name, out)
			}
		case "show":
			if len(args) == 2 && !strings.Contains(out, "A layer click") {
				t.Errorf("%s: the layer's text is lost", name)
			}
			if len(args) == 3 && !strings.Contains(out, "expired token (401/403)") {
				t.Errorf("%s: the fixture is lost:\n%s", name, out)
			}
		}
	}
	out, errs, code := runKata(t, "validate", dir)
	if code != 1 {
		t.Errorf("validate: exit %d, want 1", code)
	}
	mustHoldNoEscape(t, "kata validate", out+errs)
	for _, want := range []string{"packet.json:4: the text holds a control character, U+001B", "01-mental-model.md:", "traps.md:13:", "exam.md:7:", "fixtures/server.json:"} {
		if !strings.Contains(out, want) {
			t.Errorf("validate does not report %q:\n%s", want, out)
		}
	}
}

// TestClassGradeFolderNamePrintsNoEscape (issue 23, item 5): a learner folder named with
// escape sequences is named in `kata class grade`'s progress lines and summary quoted, never
// raw.
func TestClassGradeFolderNamePrintsNoEscape(t *testing.T) {
	hermeticState(t)
	evil := "eve\x1b]0;pwned\x07\x1b]52;c;cHduZWQ=\x07\u009b2J"
	dir := classOf(t, map[string]string{"ana": "", evil: ""})
	out := filepath.Join(t.TempDir(), "report")
	stdout, stderr, code := runKata(t, "class", "grade", dir, "--out", out, "--no-isolation", "--seed", "3")
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, stdout, stderr)
	}
	for what, s := range map[string]string{"the summary": stdout, "the progress": stderr} {
		if i := termtext.Control(s); i >= 0 {
			t.Errorf("%s holds a control character at %d: %q", what, i, s[max(0, i-20):min(len(s), i+40)])
		}
	}
	quoted := `"eve\x1b]0;pwned\a\x1b]52;c;cHduZWQ=\a\u009b2J"`
	if !strings.Contains(stdout, quoted) || !strings.Contains(stderr, quoted) {
		t.Errorf("the learner is not named quoted (%s):\n%s\n%s", quoted, stdout, stderr)
	}
}
