package markdown

import (
	"strings"
	"testing"

	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"
)

func TestReflowJoinsSoftBreaks(t *testing.T) {
	cases := []struct{ name, in, want string }{
		{"paragraph", "one\ntwo\nthree\n", "one two three\n"},
		{"list item", "- It is a result,\n  not an error.\n- second\n", "- It is a result, not an error.\n- second\n"},
		{"ordered", "1. `isError` is\n   true.\n", "1. `isError` is true.\n"},
		{"quote", "> a quote\n> that goes on\n", "> a quote that goes on\n"},
		{"hard break kept", "line one  \nline two\n", "line one  \nline two\n"},
		{"backslash break kept", "line one\\\nline two\n", "line one\\\nline two\n"},
		{"code block kept", "```\na\nb\n```\n", "```\na\nb\n```\n"},
		{"indented code kept", "text\n\n    a\n    b\n", "text\n\n    a\n    b\n"},
		{"heading untouched", "# Title\n\npara\ngraph\n", "# Title\n\npara graph\n"},
		{"crlf", "one\r\ntwo\r\n", "one two\r\n"},
	}
	for _, c := range cases {
		if got := Reflow(c.in); got != c.want {
			t.Errorf("%s: Reflow(%q) = %q, want %q", c.name, c.in, got, c.want)
		}
	}
}

func TestRenderReflowsListItems(t *testing.T) {
	// glamour keeps a soft break inside a list item as a new line; after Reflow the item wraps
	// exactly as if it had been written on one line.
	broken := "- It is a result, not a JSON-RPC `error`, so the host hands it to the\n  model and the client harness like any other tool output.\n"
	oneLine := "- It is a result, not a JSON-RPC `error`, so the host hands it to the model and the client harness like any other tool output.\n"
	for _, w := range []int{40, 80} {
		a, err := Render(broken, w, StyleASCII)
		if err != nil {
			t.Fatal(err)
		}
		b, err := Render(oneLine, w, StyleASCII)
		if err != nil {
			t.Fatal(err)
		}
		if a != b {
			t.Errorf("width %d: soft-broken item renders\n%s\nbut one-line item renders\n%s", w, a, b)
		}
	}
}

func TestInline(t *testing.T) {
	plain := lipgloss.NewStyle()
	cases := map[string]string{
		"Return `{\"error\": \"failed\"}`":  "Return {\"error\": \"failed\"}",
		"no markup at all":                  "no markup at all",
		"**bold** and *it* and `c`":         "bold and it and c",
		"a [link](https://example.com) end": "a link end",
		"`retryAfterSeconds` of `null`":     "retryAfterSeconds of null",
		"unclosed `tick":                    "unclosed `tick",
	}
	for in, want := range cases {
		if got := ansi.Strip(Inline(in, plain)); got != want {
			t.Errorf("Inline(%q) = %q, want %q", in, got, want)
		}
	}
	code := lipgloss.NewStyle().Bold(true)
	if got := Inline("use `isError`", code); got == "use isError" || !strings.Contains(ansi.Strip(got), "use isError") {
		t.Errorf("code style not applied: %q", got)
	}
}
