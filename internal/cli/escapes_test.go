package cli

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

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
		return strings.Replace(s, "\n", "\n\nA layer "+hostileEscapes+" and &#27;]0;pwned&#7; and [a link](https://evil.example/).\n", 1)
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

// TestHostileEscapesNeverReachAPty (issue 23, item 5): in a real terminal (tmux), every byte
// kata writes — kata list, show, show --rules, validate, class grade with a learner folder
// named with escapes, and the app's catalog, layer, quiz and traps — is captured as the pty
// received it (pipe-pane), and none of the packet's or the folder's escape sequences is in it.
func TestHostileEscapesNeverReachAPty(t *testing.T) {
	if _, err := exec.LookPath("tmux"); err != nil {
		t.Skip("tmux is not installed (.ci/run installs it)")
	}
	if testing.Short() {
		t.Skip("end-to-end test skipped in -short mode")
	}
	tmp := t.TempDir()
	bin := buildKata(t, tmp)
	pkts := filepath.Join(tmp, "packets")
	copyShipped(t, "mcp-structured-errors", pkts, hostileEdits)
	class := filepath.Join(tmp, "class")
	for _, name := range []string{"ana", "eve\x1b]0;pwned\x07\x1b]52;c;cHduZWQ=\x07\u009b2J"} {
		if err := os.MkdirAll(filepath.Join(class, name), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	script := filepath.Join(tmp, "run.sh")
	os.WriteFile(script, []byte(`read _
kata() { "$KATA" --packets "$PKTS" "$@"; }
kata list
kata show mcp-structured-errors
kata show mcp-structured-errors --rules
kata validate "$PKTS"
kata class grade "$CLASS" --out "$OUT" --no-isolation --seed 3
echo CLI-DONE
exec "$KATA" --packets "$PKTS"
`), 0o755)
	raw := filepath.Join(tmp, "pty.raw")
	s := &tmuxSession{t: t, sock: filepath.Join(tmp, "tmux.sock")}
	env := []string{"env", "TERM=xterm-256color", "COLORTERM=truecolor", "KATA_THEME=dark", "HOME=" + tmp, "XDG_DATA_HOME=" + filepath.Join(tmp, "data"),
		"XDG_STATE_HOME=" + filepath.Join(tmp, "state"), "KATA_STATE=" + filepath.Join(tmp, "state", "p.db"), "PATH=" + os.Getenv("PATH"),
		"KATA=" + bin, "PKTS=" + pkts, "CLASS=" + class, "OUT=" + filepath.Join(tmp, "out")}
	s.start(env, "sh", script)
	t.Cleanup(func() { exec.Command("tmux", "-S", s.sock, "kill-server").Run() })
	s.tmux("pipe-pane", "-o", "-t", "kata", "cat >> '"+raw+"'")
	s.tmux("send-keys", "-t", "kata", "Enter")

	s.send("4 katas") // the app's catalog: the CLI commands are done
	s.send("> Hostile click", "Down", "Down")
	s.send("A layer click", "Enter") // knowledge layer
	s.send("se-01", "x")             // the quiz
	s.send("1 knowledge", "Escape")
	s.send("Why it fails", "t") // traps
	s.tmux("send-keys", "-t", "kata", "q")

	var got []byte
	deadline := time.Now().Add(20 * time.Second)
	for time.Now().Before(deadline) {
		got, _ = os.ReadFile(raw)
		if bytes.Contains(got, []byte("CLI-DONE")) && bytes.Contains(got, []byte("Why it fails")) {
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	for _, want := range []string{"CLI-DONE", "Hostile click", "A layer click", "cannot be graded"} {
		if !bytes.Contains(got, []byte(want)) && !bytes.Contains(got, []byte("Cannot be graded")) {
			t.Errorf("the pty never received %q (%d bytes captured)", want, len(got))
		}
	}
	for _, bad := range []string{"\x1b]52", "cHduZWQ=\a", "\x1b]0;pwned", "\x1b]8;;https://evil", "]8;id=", "\x1bP+q", "\x1b_G", "\x1b^pwned", "\x1bXpwned", "\u009b", "\u009d", "\u0085"} {
		if i := bytes.Index(got, []byte(bad)); i >= 0 {
			t.Errorf("the pty received %q: …%q…", bad, got[max(0, i-40):min(len(got), i+60)])
		}
	}
}

// TestHostilePacketGradePrintsNoEscape (issue 23, item 5): `kata grade` of a workspace of a
// packet whose fixture name holds escape sequences names the test without them, in the text
// report and in -v.
func TestHostilePacketGradePrintsNoEscape(t *testing.T) {
	if testing.Short() {
		t.Skip("grades a workspace")
	}
	if _, err := exec.LookPath("python3"); err != nil {
		t.Skip("python3 is not installed (.ci/run installs it)")
	}
	hermeticState(t)
	dir := t.TempDir()
	copyShipped(t, "mcp-structured-errors", dir, hostileEdits)
	ws := filepath.Join(t.TempDir(), "ws")
	if _, errs, code := runKata(t, "--packets", dir, "init", "mcp-structured-errors", ws); code != 0 {
		t.Fatalf("init: exit %d: %s", code, errs)
	}
	for _, v := range [][]string{nil, {"-v"}} {
		out, errs, code := runKata(t, append([]string{"--packets", dir, "grade", ws, "--seed", "1"}, v...)...)
		if code != 1 { // the starter workspace fails
			t.Errorf("grade %v: exit %d, stderr %q", v, code, errs)
		}
		mustHoldNoEscape(t, "kata grade", out)
		mustHoldNoEscape(t, "kata grade (stderr)", errs)
		if !strings.Contains(out, "lookup_order: click") {
			t.Errorf("grade %v: the hostile fixture's test is not named:\n%s", v, out)
		}
	}
}
