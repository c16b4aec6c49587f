package class

import (
	"bytes"
	"context"
	"image"
	"image/color"
	"image/png"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/kata-mcp/kata/grader"
	"github.com/kata-mcp/kata/internal/headless"
	"github.com/kata-mcp/kata/internal/i18n"
)

// externalRef matches what would make a page load something: an attribute naming a resource,
// a CSS url() or @import, a script or a stylesheet link.
var externalRef = regexp.MustCompile(`(?i)<[^>]*\s(src|srcset|poster|action|data|formaction)\s*=|<[^>]*\shref\s*=\s*"[^#"]|url\(|@import|<script|<link|<iframe|<object|<embed`)

// checkSelfContained fails when the HTML could load anything from outside itself.
func checkSelfContained(t testing.TB, html string) {
	t.Helper()
	if m := externalRef.FindString(html); m != "" {
		t.Errorf("the HTML report refers to something outside itself: %q", m)
	}
	if !strings.Contains(html, `content="default-src 'none'; style-src 'unsafe-inline'"`) {
		t.Error("the HTML report has no Content-Security-Policy forbidding every load")
	}
}

func TestHTMLReportIsSelfContained(t *testing.T) {
	r := classReport(t, BuildOptions{Generated: time.Date(2026, 5, 4, 10, 0, 0, 0, time.UTC)})
	// Learner text is escaped: a message with markup stays text.
	r.Learners[3].Message = `<img src="http://example.invalid/x.png"> is not a workspace`
	// A learner folder named with control characters is shown quoted, as on the terminal.
	r.Learners[3].Name = "dave\x1b]0;pwned\a"
	var b bytes.Buffer
	if err := WriteHTML(&b, r, nil); err != nil {
		t.Fatal(err)
	}
	html := b.String()
	checkSelfContained(t, html)
	if !strings.Contains(html, "&lt;img src=&#34;http://example.invalid/x.png&#34;&gt;") {
		t.Error("a learner's message was not escaped")
	}
	if strings.ContainsAny(html, "\x1b\a") || !strings.Contains(html, `&#34;dave\x1b]0;pwned\a&#34;`) {
		t.Error("a learner name with control characters is not shown quoted")
	}
	for _, want := range []string{`<table class="heat" id="heatmap">`, `<tr class="learner">`, "cannot grade: ", `<table id="rules">`,
		"<code>category</code>", "2 of 3", "generated 2026-05-04 10:00 UTC", "seed 42"} {
		if !strings.Contains(html, want) {
			t.Errorf("the HTML report lacks %q", want)
		}
	}
}

// detailReport is the report of a fake class with a learner of each kind the details show: one
// who passes, one who breaks a rule and floods stderr, one whose client is the template's,
// and one who cannot be graded.
func detailReport(t *testing.T) *Report {
	t.Helper()
	lib := library(t)
	_, learners := fakeClass(t, map[string]string{"alice": "pass", "bob": "flood", "carol": "template", "dave": ""})
	store, err := OpenStore(filepath.Join(t.TempDir(), StoreFile))
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	f := &fakeGrader{lib: lib}
	b, err := Run(context.Background(), lib, store, learners, Options{NoIsolation: true, Seed: 42, SeedSet: true, grade: f.grade})
	if err != nil {
		t.Fatal(err)
	}
	return BuildReport(lib, b, BuildOptions{Generated: time.Now()})
}

// TestLearnerDetails: every learner has a <details> with its failing tests, their messages
// and stderr tails (a flood cut, with a note), each rule names and links the learners who
// break it, and a template client is "client not written", not a rule failure.
func TestLearnerDetails(t *testing.T) {
	r := detailReport(t)
	carol := r.Learners[2]
	if carol.Name != "carol" || !slices.Equal(carol.NotWritten, []string{"client"}) || carol.NotWrittenTests != 3 || len(carol.FailedRules) != 0 {
		t.Errorf("carol, whose client is the template's: %+v", carol)
	}
	for _, rc := range r.Rules {
		if rc.Rule == grader.RuleClientUnknown {
			t.Errorf("an unwritten client counts as breaking %s", rc.Rule)
		}
	}
	var b bytes.Buffer
	if err := WriteHTML(&b, r, nil); err != nil {
		t.Fatal(err)
	}
	html := b.String()
	checkSelfContained(t, html)
	for _, want := range []string{`<details class="learner" id="learner-2"><summary>bob`, `<td class="name" title="bob"><a href="#learner-2">bob</a></td>`,
		`<td class="who" data-label="who"><a href="#learner-2">bob</a></td>`, "errorCategory was &#34;transient&#34;", `<pre class="stderr">[… `,
		"Traceback: KeyError", "client not written: the template&#39;s client still says so; its 3 failing tests count no rule",
		"long output is cut", "cannot grade: kata.json is missing"} {
		if !strings.Contains(html, want) {
			t.Errorf("the HTML report lacks %q", want)
		}
	}
	if strings.Count(html, `<details class="learner"`) != 4 {
		t.Error("not one <details> per learner")
	}
	for _, block := range strings.Split(html, `<pre class="stderr">`)[1:] {
		block, _, _ = strings.Cut(block, "</pre>")
		if strings.Count(block, "debug: still here") > stderrCap/len("debug: still here\n")+1 {
			t.Error("bob's flood is not cut")
		}
	}
	var text, csvOut bytes.Buffer
	WriteText(&text, r, nil)
	WriteCSV(&csvOut, r)
	if !strings.Contains(text.String(), "client not written") || strings.Contains(text.String(), "debug: still here") || strings.Contains(csvOut.String(), "debug: still here") {
		t.Errorf("summary:\n%s", text.String())
	}
}

// TestHTMLReportInChromium opens the report in a real headless browser: the DOM it builds has
// the heatmap with a row per learner and coloured cells, the rules table, a <details> per
// learner, and no request left the page; the screenshots (1400 and 420 pixels wide) show the
// heatmap's colours. KATA_SCREENSHOT_DIR keeps the PNGs.
func TestHTMLReportInChromium(t *testing.T) {
	r := detailReport(t)
	dom, img := inChromium(t, r, nil, "class-report-fake.png", 0)
	if n := strings.Count(dom, `<tr class="learner">`); n != len(r.Learners) {
		t.Errorf("the browser's DOM has %d learner rows, want %d", n, len(r.Learners))
	}
	if n := strings.Count(dom, `<details class="learner"`); n != len(r.Learners) {
		t.Errorf("the browser's DOM has %d learner details, want %d", n, len(r.Learners))
	}
	if !strings.Contains(dom, `class="cell h10"`) || !regexp.MustCompile(`class="cell h[0-4]"`).MatchString(dom) {
		t.Error("the heatmap has no full (h10) and no poor (h0–h4) cell")
	}
	if strings.Count(dom, `<tr class="rule">`) != len(r.Rules) {
		t.Errorf("the rules table does not have %d rows", len(r.Rules))
	}
	// The full cells' green (h10) and the empty cells' red (h0) are on the screen.
	for name, c := range map[string]color.RGBA{"green (h10)": {0x1f, 0x8a, 0x4c, 0xff}, "red (h0)": {0xb8, 0x32, 0x2f, 0xff}} {
		if n := countColor(img, c); n < 200 {
			t.Errorf("the screenshot has %d pixels of the heatmap's %s", n, name)
		}
	}
	// At 420 pixels the heatmap scrolls in its own box, the learner column stays: green
	// cells are still on the screen, beside the names.
	_, narrow := inChromium(t, r, nil, "class-report-fake-420.png", 420)
	if n := countColor(narrow, color.RGBA{0x1f, 0x8a, 0x4c, 0xff}); n < 100 {
		t.Errorf("at 420 px the screenshot has %d green pixels", n)
	}
}

// inChromium writes r's HTML report in loc's language, opens it in headless chromium (skipping
// the test without one) and returns the DOM the browser built (width 0: none, one browser run
// fewer) and a screenshot width wide (1400 when 0); KATA_SCREENSHOT_DIR keeps the PNG as keep.
func inChromium(t *testing.T, r *Report, loc *i18n.Localizer, keep string, width int) (string, image.Image) {
	t.Helper()
	bin := headless.Find()
	if bin == "" {
		t.Skip(headless.InstallHint)
	}
	dir := t.TempDir()
	page := filepath.Join(dir, "report.html")
	if err := writeFile(page, func(w io.Writer) error { return WriteHTML(w, r, loc) }); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	dom := ""
	if width == 0 {
		var err error
		if dom, err = headless.DumpDOM(ctx, bin, page); err != nil {
			t.Fatal(err)
		}
		width = 1400
	}
	shot := filepath.Join(dir, "report.png")
	if err := headless.Screenshot(ctx, bin, page, shot, width, 1000); err != nil {
		t.Fatal(err)
	}
	if dir := os.Getenv("KATA_SCREENSHOT_DIR"); dir != "" {
		b, _ := os.ReadFile(shot)
		os.WriteFile(filepath.Join(dir, keep), b, 0o644)
	}
	return dom, decodePNG(t, shot)
}

func decodePNG(t testing.TB, path string) image.Image {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		t.Fatal(err)
	}
	return img
}

// countColor counts the pixels of img that are c.
func countColor(img image.Image, c color.RGBA) int {
	n := 0
	b := img.Bounds()
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			r, g, bl, _ := img.At(x, y).RGBA()
			if uint8(r>>8) == c.R && uint8(g>>8) == c.G && uint8(bl>>8) == c.B {
				n++
			}
		}
	}
	return n
}
