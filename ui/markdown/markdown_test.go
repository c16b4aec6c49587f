package markdown

import (
	"flag"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/charmbracelet/x/ansi"

	"github.com/kata-mcp/kata/internal/termtext"
)

var update = flag.Bool("update", false, "rewrite the golden files")

const doc = "# Title\n\nErrors carry **flags**; the client reads flags, never prose. " +
	"A long sentence that has to wrap at narrow widths because it goes on and on.\n\n" +
	"> a block quote that is long enough to wrap over more than one line at width forty\n\n" +
	"```yaml\nname: reviewer\n```\n\n- one\n- two\n"

func TestRenderFitsWidth(t *testing.T) {
	for _, style := range []string{StyleASCII, StyleNoTTY, StyleDark, StyleLight} {
		for _, w := range []int{20, 33, 40, 80, 120, 200} {
			out, err := Render(doc, w, style)
			if err != nil {
				t.Fatalf("%s/%d: %v", style, w, err)
			}
			limit := max(w, MinWidth)
			for _, l := range strings.Split(out, "\n") {
				if ansi.StringWidth(l) > limit {
					t.Errorf("%s/%d: line %q is %d wide", style, w, ansi.Strip(l), ansi.StringWidth(l))
				}
			}
			if !strings.Contains(ansi.Strip(out), "Title") {
				t.Errorf("%s/%d: title missing", style, w)
			}
		}
	}
}

func TestClampWidth(t *testing.T) {
	for in, want := range map[int]int{0: MinWidth, -5: MinWidth, 50: 50, 80: 80, 120: MaxWidth, 500: MaxWidth} {
		if got := ClampWidth(in); got != want {
			t.Errorf("ClampWidth(%d) = %d, want %d", in, got, want)
		}
	}
}

func TestUnknownStyle(t *testing.T) {
	if _, err := Render(doc, 80, ""); err == nil {
		t.Error("an empty style was accepted")
	}
	if _, err := Render(doc, 80, "no-such-style"); err == nil {
		t.Error("an unknown style was accepted")
	}
}

func TestCacheAndConcurrency(t *testing.T) {
	first, err := Render(doc, 64, StyleDark)
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	for i := range 16 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			w := 60 + i%4
			out, err := Render(doc, w, StyleDark)
			if err != nil {
				t.Error(err)
			}
			if w == 64 && out != first {
				t.Error("the cached rendering differs")
			}
		}()
	}
	wg.Wait()
	// Many distinct documents stay within the cache bound.
	for i := range cacheSize + 10 {
		if _, err := Render(strings.Repeat("x", i+1), 40, StyleASCII); err != nil {
			t.Fatal(err)
		}
	}
	mu.Lock()
	n := lru.Len()
	mu.Unlock()
	if n > cacheSize {
		t.Errorf("cache holds %d entries, bound %d", n, cacheSize)
	}
}

func TestGolden(t *testing.T) {
	out, err := Render(doc, 40, StyleASCII)
	if err != nil {
		t.Fatal(err)
	}
	var lines []string
	for _, l := range strings.Split(out, "\n") {
		lines = append(lines, strings.TrimRight(l, " "))
	}
	got := strings.Join(lines, "\n")
	path := filepath.Join("testdata", "doc-ascii-40.golden")
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with -update)", err)
	}
	if got != string(want) {
		t.Errorf("rendering differs from %s:\n%s", path, got)
	}
}

func TestStyleFor(t *testing.T) {
	if StyleFor(true, true) != StyleNoTTY || StyleFor(false, true) != StyleDark || StyleFor(false, false) != StyleLight {
		t.Error("StyleFor picks the wrong style")
	}
}

// TestRenderDropsEscapes: a document with escape sequences of every kind, raw and as character
// references, renders to lines whose only escape sequences are the style's own SGR colours;
// a link shows as its text and its address, with no OSC 8 hyperlink hiding the target.
func TestRenderDropsEscapes(t *testing.T) {
	md := "# Title \x1b]0;pwned\x07\n\nText \x1b]52;c;cHduZWQ=\x07 \x1b]8;;https://evil.example/\x07click\x1b]8;;\x07" +
		" \x1bP+q\x1b\\ \x1b_G\x1b\\ \x1b[2J \u009b31m \u009d0;pwned\u009c &#27;]0;pwned&#7; &#x9d;0;x&#x9c; and [docs](https://example.com/x). \x1b\n\n" +
		"```\ncode \x1b]52;c;cHduZWQ=\x07\n```\n"
	for _, style := range []string{StyleDark, StyleASCII} {
		out, err := Render(md, 80, style)
		if err != nil {
			t.Fatal(err)
		}
		if termtext.Styled(out) != out {
			t.Errorf("%s: the rendering holds escape sequences other than SGR: %q", style, out)
		}
		plain := ansi.Strip(out)
		if strings.Contains(plain, "0;pwned\a") || strings.Contains(plain, "cHduZWQ") || strings.Contains(plain, "cHduZWQ") || strings.Contains(out, "]8;") {
			t.Errorf("%s: the rendering holds what the escapes carried: %q", style, out)
		}
		if !strings.Contains(plain, "docs https://example.com/x") {
			t.Errorf("%s: the link does not show its address as text: %q", style, plain)
		}
	}
}

// TestInlineCodeNeverBreaksAtHyphens (issue 27): an inline code span with a hyphen stays whole
// at every width ("Retry-" at a line's end and "After" on the next was the fault); prose
// still breaks at its own hyphens, and the hyphens render as plain "-".
func TestInlineCodeNeverBreaksAtHyphens(t *testing.T) {
	md := "The server reads the `Retry-After` header and the `ORD-8821` id, then the `Retry-After` header of a well-known answer again and again.\n"
	for w := 20; w <= 80; w++ {
		out, err := Render(md, w, StyleNoTTY)
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(out, "\u2011") {
			t.Fatalf("width %d: a non-breaking hyphen leaked into the output:\n%s", w, out)
		}
		for _, l := range strings.Split(out, "\n") {
			if l = strings.TrimRight(l, " "); strings.HasSuffix(l, "Retry-") || strings.HasSuffix(l, "ORD-") {
				t.Errorf("width %d: inline code broken at its hyphen:\n%s", w, out)
				break
			}
		}
	}
}

// TestTablesAreNotSqueezedByTheProseWidth (issue 27): prose keeps its reading measure on a
// wide view, but a table is laid out at the view's width, so its headers are not cut.
func TestTablesAreNotSqueezedByTheProseWidth(t *testing.T) {
	md := "Prose.\n\n| what happened | errorCategory | isRetryable | retryAfterSeconds |\n| --- | --- | --- | --- |\n" +
		"| a 429 with a Retry-After of 17 seconds, from GET /orders | `rate_limit` | `true` | `17` |\n"
	out, err := Render(md, 120, StyleNoTTY)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"isRetryable", "retryAfterSeconds", "errorCategory"} {
		if !strings.Contains(out, want) {
			t.Errorf("at 120 columns the table's header %q is cut:\n%s", want, out)
		}
	}
	for _, l := range strings.Split(out, "\n") {
		if w := len([]rune(l)); w > 120 {
			t.Errorf("a line of %d columns in a view of 120:\n%s", w, out)
		}
	}
}
