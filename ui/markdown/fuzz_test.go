package markdown

import (
	"errors"
	"strings"
	"testing"
	"time"

	"charm.land/lipgloss/v2"
)

// FuzzRender feeds the renderer path — Render (bounds check, Reflow, glamour) and Inline — any
// bytes at any width, in a plain and a coloured style: it must never panic, and must end,
// either with output or with a *BoundsError. A render that runs past a minute is a hang (the
// bounds exist so that none does), not a slow machine.
func FuzzRender(f *testing.F) {
	for _, s := range []string{
		doc,
		"> quote\n>> deeper\n> > > three\n",
		"- a\n  - b\n    - c\n      > d\n",
		"1. one\n2) two\n   * three\n",
		"| a | b |\n| --- | :-: |\n| `x` | **y** |\n",
		"```go\nfunc f() {}\n```\n\n    indented code\n",
		"---\nname: x\n---\n# Front matter\n",
		"<!-- kata:asset assets/x.json -->\n\n<div>html</div>\n",
		"*em* **strong** ~~del~~ [link](http://x) ![img](y) <http://z>\n",
		"全角の文字と絵文字 🎉 が混ざった段落。\n",
		"- [ ] task\n- [x] done\n",
		"line one\\\nhard break  \nsoft\nbreak\n",
		strings.Repeat(">", 40) + " x\n",
		strings.Repeat("- ", 20) + "x\n",
		"\xff\xfe invalid utf-8 \xc3(\n",
	} {
		f.Add(s, uint8(40), false)
	}
	f.Fuzz(func(t *testing.T, md string, width uint8, dark bool) {
		style := StyleASCII
		if dark {
			style = StyleDark
		}
		var out string
		var err error
		done := make(chan struct{})
		go func() {
			defer close(done)
			out, err = Render(md, int(width), style)
			Inline(md, lipgloss.NewStyle().Bold(true))
		}()
		select {
		case <-done:
		case <-time.After(time.Minute):
			t.Fatalf("Render of %d bytes at width %d ran past a minute: %q", len(md), width, md)
		}
		var be *BoundsError
		if err != nil && !errors.As(err, &be) {
			t.Fatalf("Render: %v", err)
		}
		if err == nil && strings.TrimSpace(md) != "" && out == "" {
			// glamour renders every non-empty document to something (at least its margins)
			t.Fatalf("Render of %q gave nothing", md)
		}
	})
}
