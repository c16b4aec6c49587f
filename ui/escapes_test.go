package ui

import (
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"

	"github.com/kata-mcp/kata/internal/termtext"
)

// hostileEscapes is every kind of control sequence a hostile packet could hold for a
// terminal: OSC 52 (clipboard), OSC 0 (window title), OSC 8 (hyperlink), DCS, APC, PM, SOS,
// CSI (clear the screen), a two-byte escape, the 8-bit C1 forms and a lone ESC.
const hostileEscapes = "\x1b]52;c;cHduZWQ=\x07\x1b]0;pwned\x07\x1b]8;;https://evil.example/\x07click\x1b]8;;\x07" +
	"\x1bP+q544e\x1b\\\x1b_Gpwned\x1b\\\x1b^pwned\x1b\\\x1bXpwned\x1b\\\x1b[2J\x1b7\u009b31m\u009d0;pwned\u009c\u0085 \x1b"

// hostileMiniKata is the mini-kata with hostileEscapes in its title and summary, a layer, an
// exam item, a trap row, the task and a fixture name.
func hostileMiniKata(t *testing.T) map[string]string {
	t.Helper()
	b, _ := json.Marshal(hostileEscapes)
	esc := strings.Trim(string(b), `"`)
	read := func(name string) string {
		b, err := os.ReadFile("../katas/testdata/packets/mini-kata/" + name)
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	return map[string]string{
		"packet.json": strings.Replace(strings.Replace(read("packet.json"), `"title": "A minimal kata"`, `"title": "A hostile `+esc+` kata"`, 1),
			`"summary": "`, `"summary": "`+esc, 1),
		"knowledge/01-basics.md": read("knowledge/01-basics.md") + "\nA layer " + hostileEscapes + " and &#27;]0;pwned&#7; and [a link](https://evil.example/).\n",
		"exam.md":                strings.Replace(read("exam.md"), "What does the client do?", "What does the "+hostileEscapes+" client do?", 1),
		"traps.md":               strings.Replace(read("traps.md"), "| Retry inside the server |", "| Retry "+hostileEscapes+" inside the server |", 1),
		"task.md":                strings.Replace(read("task.md"), "## 2. Map failures", "## 2. Map "+hostileEscapes+" failures", 1),
		"fixtures/server.json":   strings.Replace(read("fixtures/server.json"), `"name": "lookup_order: 503"`, `"name": "lookup_order: `+esc+`503"`, 1),
	}
}

// mustShowNoEscape fails when the frame holds an escape sequence other than SGR styling, or
// what only an escape sequence carried.
func (d *driver) mustShowNoEscape(where string) {
	d.t.Helper()
	content := d.m.View().Content
	if clean := termtext.Styled(content); clean != content {
		d.t.Errorf("%s: the frame holds escape sequences other than SGR: %q", where, content)
	}
	plain := ansi.Strip(content)
	for _, w := range []string{"cHduZWQ", "0;pwned\a", "evil.example/\a"} {
		if strings.Contains(content, w) || strings.Contains(plain, w) {
			d.t.Errorf("%s: the frame holds %q, which an escape sequence carried:\n%s", where, w, plain)
		}
	}
}

// TestHostilePacketInTheApp (issue 23, item 5): the catalog, a layer, the quiz, the trap
// table, the task screen and the mock exam of a packet with escape sequences in its title,
// layer, exam item, trap row, task and fixture name show its text without any of them, in
// colour and without.
func TestHostilePacketInTheApp(t *testing.T) {
	for _, style := range []string{"dark", "ascii"} {
		lib := libWith(t, hostileMiniKata(t))
		if ps := lib.Problems(); len(ps) > 0 {
			t.Fatalf("the packet did not load: %v", ps)
		}
		d := newDriverLib(t, lib, Options{Style: style}, 100, 40)
		d.mustSee("A hostile click")
		d.mustShowNoEscape(style + " catalog")
		d.press("enter")
		d.mustSee("A layer click")
		d.mustShowNoEscape(style + " knowledge layer")
		d.press("x")
		d.mustSee("Question 1 of 2")
		d.mustShowNoEscape(style + " quiz")
		d.press("esc", "t")
		d.mustSee("Traps")
		d.mustShowNoEscape(style + " traps")
		d.press("esc", "w")
		d.mustSee("2. Map click")
		d.mustShowNoEscape(style + " task")
		d.press("down", "enter")
		d.mustSee("Step 2 · Map click")
		d.mustShowNoEscape(style + " task step")

		e := newDriverLib(t, lib, Options{Style: style, Start: StartExam}, 100, 40)
		e.mustShowNoEscape(style + " mock exam")
	}
}
