package termtext

import "testing"

// TestSanitize: escape sequences of every kind and stray control characters are removed;
// text, newlines, tabs and non-ASCII letters stay.
func TestSanitize(t *testing.T) {
	for in, want := range map[string]string{
		"plain text\nline two\tTab":                                    "plain text\nline two\tTab",
		"\x1b[31mred\x1b[0m":                                           "red",
		"\x1b[2J\x1b[Hcleared":                                         "cleared",
		"osc52 \x1b]52;c;aGVsbG8=\x07copied":                           "osc52 copied",
		"title \x1b]0;pwned\x1b\\ st":                                  "title  st",
		"link \x1b]8;;https://evil\x07here\x1b]8;;\x07":                "link here",
		"dcs \x1bPq#0;2;0;0;0\x1b\\ end":                               "dcs  end",
		"apc \x1b_Gf=100;AAAA\x1b\\ pm \x1b^x\x1b\\ sos \x1bXy\x1b\\.": "apc  pm  sos .",
		"c1 csi \u009b31mred":                                          "c1 csi red",
		"c1 osc \u009d0;x\u009c end":                                   "c1 osc  end",
		"c1 dcs \u0090q\u009c apc \u009fx\u009c":                       "c1 dcs  apc ",
		"c1 nel\u0085 ind\u0084 ri\u008d":                              "c1 nel ind ri",
		"two-byte \x1bcreset \x1b(Bcharset":                            "two-byte reset charset",
		"bell\x07 backspace\x08 nul\x00 del\x7f":                       "bell backspace nul del",
		"crlf\r\nline":                                                 "crlf\nline",
		"progress 10%\rprogress 20%":                                   "progress 10%\nprogress 20%",
		"unterminated \x1b]52;c;aGVsbG8=":                              "unterminated ",
		"trailing esc \x1b":                                            "trailing esc ",
		"Привет, ¿qué tal? 👨‍👩‍👧":                                      "Привет, ¿qué tal? 👨‍👩‍👧",
	} {
		if got := Sanitize(in); got != want {
			t.Errorf("Sanitize(%q) = %q; want %q", in, got, want)
		}
		if Control(Sanitize(in)) >= 0 {
			t.Errorf("Sanitize(%q) keeps a control character", in)
		}
	}
}

// TestStyled: SGR sequences stay, hyperlinks and every other sequence go.
func TestStyled(t *testing.T) {
	for in, want := range map[string]string{
		"\x1b[38;5;35;1mbold\x1b[m \x1b[4:3mcurly\x1b[0m":                "\x1b[38;5;35;1mbold\x1b[m \x1b[4:3mcurly\x1b[0m",
		"\x1b]8;id=1;https://x.test\x07docs\x1b]8;;\x07 https://x.test":  "docs https://x.test",
		"\x1b[2J\x1b[?1049h\x1b]52;c;aGk=\x07\u009b31m\x1b[>4mtext\x1bc": "text",
	} {
		if got := Styled(in); got != want {
			t.Errorf("Styled(%q) = %q; want %q", in, got, want)
		}
	}
}

// TestControl: newline, tab and CR LF are text; any other control character is found.
func TestControl(t *testing.T) {
	for in, want := range map[string]int{
		"a\tb\nc\r\nd": -1,
		"ab\x1b]0;x":   2,
		"é\u009b":      2,
		"a\rb":         1,
		"\x0c":         0,
	} {
		if got := Control(in); got != want {
			t.Errorf("Control(%q) = %d; want %d", in, got, want)
		}
	}
}

// TestMarkdown: character references to control characters go, others stay.
func TestMarkdown(t *testing.T) {
	in := "a &#27;]52;c;aGk=&#7; &#x1B;[2J &#X9b;31m &#155; &#10; &amp; &#233; \x1b]0;t\x07"
	want := "a ]52;c;aGk= [2J 31m  &#10; &amp; &#233; "
	if got := Markdown(in); got != want {
		t.Errorf("Markdown(%q) = %q; want %q", in, got, want)
	}
	if got := ControlRef("x &#10; &#x1b;"); got != 8 {
		t.Errorf("ControlRef = %d; want 8", got)
	}
	if got := ControlRef("x &#10; &#233;"); got != -1 {
		t.Errorf("ControlRef = %d; want -1", got)
	}
}
