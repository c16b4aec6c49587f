package markdown

import (
	"fmt"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"
)

// plainLines renders md with Render and returns its lines without escapes or trailing spaces.
func plainLines(t *testing.T, md string, width int, style string) []string {
	t.Helper()
	out, err := Render(md, width, style)
	if err != nil {
		t.Fatal(err)
	}
	var lines []string
	for _, l := range strings.Split(out, "\n") {
		lines = append(lines, strings.TrimRight(ansi.Strip(l), " "))
	}
	return lines
}

// longCode is a code block whose lines are wider than any wrap width, as in the templates and
// examples layers.
const longCode = "Intro.\n\n```text\n" +
	"  .mcp.json            how an MCP host starts your server   <- you check it\n" +
	"  server.py            the lookup_order handler              <- you edit\n" +
	"```\n\n```json\n" +
	`{"content":[{"type":"text","text":"{\"error\": \"failed: HTTP Error 404: Not Found\"}"}],"isError":true}` +
	"\n```\n"

// TestCodeLinesNeverWrap: at every width, each line of code is one rendered line — whole, or
// cut with the marker — and no piece of it starts a line of its own at the margin (glamour
// wraps code blocks, the continuation dropping to the text margin).
func TestCodeLinesNeverWrap(t *testing.T) {
	code := []string{
		".mcp.json            how an MCP host starts your server   <- you check it",
		"server.py            the lookup_order handler              <- you edit",
		`{"content":[{"type":"text","text":"{\"error\": \"failed: HTTP Error 404: Not Found\"}"}],"isError":true}`,
	}
	tails := []string{"it", "edit", `"isError":true}`, `Not Found`}
	for _, style := range []string{StyleASCII, StyleDark} {
		for _, w := range []int{30, 60, 80, 120, 160} {
			lines := plainLines(t, longCode, w, style)
			for _, c := range code {
				found := false
				for _, l := range lines {
					l = strings.TrimLeft(l, " ")
					if l == c || (strings.HasSuffix(l, CutMarker) && strings.HasPrefix(c, strings.TrimSuffix(l, CutMarker))) {
						found = true
					}
				}
				if !found {
					t.Errorf("%s/%d: code line %q is not one line, whole or cut:\n%s", style, w, c, strings.Join(lines, "\n"))
				}
			}
			for _, l := range lines {
				for _, tail := range tails {
					if strings.HasPrefix(strings.TrimLeft(l, " "), tail) {
						t.Errorf("%s/%d: a wrapped piece of code starts a line: %q", style, w, l)
					}
				}
				if ansi.StringWidth(l) > max(w, MinWidth) {
					t.Errorf("%s/%d: line %q is %d wide", style, w, l, ansi.StringWidth(l))
				}
			}
		}
	}
}

// TestDocKeepsCodeForCopying: the Doc holds each code block's text as written, and its code
// lines in full, so a copy or a sideways scroll gets all of it.
func TestDocKeepsCodeForCopying(t *testing.T) {
	d, err := RenderDoc(longCode, 40, StyleASCII)
	if err != nil {
		t.Fatal(err)
	}
	if len(d.Code) != 2 || !strings.Contains(d.Code[0], "<- you check it\n  server.py") || !strings.HasSuffix(d.Code[1], `"isError":true}`) {
		t.Fatalf("code blocks %q", d.Code)
	}
	var json Line
	for _, l := range d.Lines {
		if l.Code == 1 {
			json = l
		}
	}
	if ansi.Strip(json.Text) != d.Code[1] {
		t.Errorf("the code line %q is not the whole line", ansi.Strip(json.Text))
	}
	cut := ansi.Strip(json.View(40, 0))
	if ansi.StringWidth(cut) != 40 || !strings.HasSuffix(cut, CutMarker) {
		t.Errorf("cut at 40: %q", cut)
	}
	moved := ansi.Strip(json.View(40, 10))
	if !strings.Contains(moved, CutMarkerLeft+`:[{"type":"text"`) || ansi.StringWidth(moved) != 40 {
		t.Errorf("scrolled by 10: %q", moved)
	}
	end := ansi.Strip(json.View(40, d.MaxScroll(40)))
	if !strings.HasSuffix(end, `"isError":true}`) || ansi.StringWidth(end) != 40 {
		t.Errorf("scrolled to the end: %q", end)
	}
}

// TestProseAtReadingWidth: on a wide view prose wraps at MaxWidth, while code runs on.
func TestProseAtReadingWidth(t *testing.T) {
	md := strings.Repeat("A sentence of ordinary prose that goes on. ", 12) + "\n\n```\n" + strings.Repeat("x", 110) + "\n```\n"
	lines := plainLines(t, md, 120, StyleASCII)
	code := false
	for _, l := range lines {
		switch {
		case strings.Contains(l, "xxxx"):
			code = true
			if ansi.StringWidth(l) < 110 {
				t.Errorf("code cut at %d on a 120-column view", ansi.StringWidth(l))
			}
		case ansi.StringWidth(l) > MaxWidth:
			t.Errorf("prose line %d wide: %q", ansi.StringWidth(l), l)
		}
	}
	if !code {
		t.Error("no code line")
	}
}

// TestListItemsHangUnderTheirText: a wrapped list item's continuation lines start where its
// text starts, after the bullet or number, nested items too (glamour starts them under the
// bullet).
func TestListItemsHangUnderTheirText(t *testing.T) {
	md := "- It is a result, not a JSON-RPC `error`, so the host hands it to the model like any other tool output.\n" +
		"- Second.\n  1. A nested ordered item whose text is long enough to wrap at every width we try here.\n" +
		"10. unused\n"
	for _, style := range []string{StyleASCII, StyleDark} {
		for _, w := range []int{30, 44, 60, 80} {
			lines := plainLines(t, md, w, style)
			textCol := -1
			for _, l := range lines {
				trim := strings.TrimLeft(l, " ")
				col := len(l) - len(trim)
				switch {
				case trim == "":
					textCol = -1
				case strings.HasPrefix(trim, "• "):
					textCol = col + 2
				case len(trim) > 3 && trim[0] >= '0' && trim[0] <= '9' && strings.Contains(trim[:4], ". "):
					textCol = col + strings.Index(trim, ". ") + 2
				case textCol >= 0 && col != textCol:
					t.Errorf("%s/%d: continuation %q starts at column %d, its text at %d:\n%s", style, w, trim, col, textCol, strings.Join(lines, "\n"))
				}
			}
		}
	}
}

// TestQuoteBarOnEveryLine: every line of a wrapped block quote keeps its bar at every width
// from 20 to 100 (glamour#172: wrapped lines lose it).
func TestQuoteBarOnEveryLine(t *testing.T) {
	md := "Before.\n\n> A block quote that is long enough to wrap over more than one line at width forty or so, with `code` and **bold** words, surely it wraps several times over.\n\nAfter.\n"
	for _, style := range []string{StyleASCII, StyleDark} {
		bar := "|"
		if style == StyleDark {
			bar = "│"
		}
		for w := 20; w <= 100; w++ {
			lines := plainLines(t, md, w, style)
			in := false
			for _, l := range lines {
				trim := strings.TrimSpace(l)
				switch {
				case strings.HasPrefix(trim, "Before"):
					in = true
				case strings.HasPrefix(trim, "After"):
					in = false
				case in && trim != "" && !strings.HasPrefix(trim, bar):
					t.Fatalf("%s/%d: quote line without its bar: %q\n%s", style, w, l, strings.Join(lines, "\n"))
				}
			}
		}
	}
}

// TestEmojiSequencesKeepTableBorders: in a table whose cells hold a ZWJ sequence, a flag, a
// skin-tone modifier and a variation selector, the column border stands at the same column on
// every line, whether widths are measured by grapheme clusters (lipgloss) or by code points
// (wcwidth: what a terminal without mode 2027 and the renderer's cell buffer use).
func TestEmojiSequencesKeepTableBorders(t *testing.T) {
	md := "| who | what |\n| --- | --- |\n| family 👨‍👩‍👧 here | x |\n| flag 🇯🇵 | y |\n| thumb 👍🏽 | z |\n| check ✔️ | w |\n| plain | v |\n"
	for _, style := range []string{StyleASCII, StyleDark} {
		out, err := Render(md, 60, style)
		if err != nil {
			t.Fatal(err)
		}
		var cols []string
		want, bad := -1, false
		for _, l := range strings.Split(out, "\n") {
			p := ansi.Strip(l)
			i := strings.IndexAny(p, "|│┼")
			if i < 0 {
				continue
			}
			g, wc := ansi.StringWidth(p[:i]), ansi.StringWidthWc(p[:i])
			cols = append(cols, fmt.Sprintf("%d/%d %s", g, wc, p))
			if want < 0 {
				want = g
			}
			bad = bad || g != want || wc != want
		}
		if bad || len(cols) < 6 {
			t.Errorf("%s: the border's column (graphemes/code points) moves:\n%s", style, strings.Join(cols, "\n"))
		}
	}
	if got := Unambiguous("a\u200db"); got != "a\u200db" {
		t.Errorf("a ZWJ between letters was dropped: %q", got)
	}
}
