package markdown

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/kata-mcp/kata/katas"
)

// TestRenderRefusesUnboundedInput: what would make glamour run for minutes — 100 nested block
// quotes, a line of 300 nested list markers, nesting past katas.MaxNesting, a document past
// katas.MaxMarkdownBytes — is refused with a *BoundsError naming the line, and rendered not at
// all; a document at the bounds renders.
func TestRenderRefusesUnboundedInput(t *testing.T) {
	var deep strings.Builder
	for i := 0; i <= katas.MaxNesting; i++ {
		deep.WriteString(strings.Repeat("  ", i) + "- level\n")
	}
	cases := map[string]struct {
		md   string
		line int
	}{
		"100 block quotes":            {"# Title\n\n" + strings.Repeat(">", 100) + " x\n", 3},
		"300 list markers":            {strings.Repeat("- ", 300) + "x\n", 1},
		"nine levels":                 {deep.String(), katas.MaxNesting + 1},
		"too large":                   {strings.Repeat("word ", katas.MaxMarkdownBytes/5+1), 1},
		"a megabyte of quote markers": {strings.Repeat(">", 1<<20), 1},
	}
	for name, c := range cases {
		out, err := Render(c.md, 80, StyleASCII)
		var be *BoundsError
		if !errors.As(err, &be) || be.Line != c.line {
			t.Errorf("%s: Render = %d bytes, %v; want a BoundsError at line %d", name, len(out), err, c.line)
		}
	}
	var ok strings.Builder
	for i := 0; i < katas.MaxNesting; i++ {
		ok.WriteString(strings.Repeat("  ", i) + "- level\n")
	}
	if out, err := Render(ok.String(), 80, StyleASCII); err != nil || !strings.Contains(out, "level") {
		t.Errorf("nesting at the limit: %v", err)
	}
}

// TestRenderContextCancelled: a render whose context has ended renders nothing and caches
// nothing; the same document renders afterwards with a live context.
func TestRenderContextCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	md := "# Cancelled\n\nNever rendered while cancelled.\n"
	if out, err := RenderContext(ctx, md, 50, StyleASCII); !errors.Is(err, context.Canceled) || out != "" {
		t.Errorf("cancelled render = %q, %v", out, err)
	}
	mu.Lock()
	n := lru.Len()
	mu.Unlock()
	if out, err := RenderContext(context.Background(), md, 50, StyleASCII); err != nil || !strings.Contains(out, "Cancelled") {
		t.Fatalf("render = %q, %v", out, err)
	}
	mu.Lock()
	defer mu.Unlock()
	if lru.Len() != n+1 {
		t.Errorf("the cancelled render was cached (%d entries before, %d after)", n, lru.Len())
	}
}

// TestCacheStaysWithinItsByteBudget: rendered documents are evicted, oldest first, once their
// total size passes cacheBytes.
func TestCacheStaysWithinItsByteBudget(t *testing.T) {
	defer func(old int) { cacheBytes = old }(cacheBytes)
	cacheBytes = 8 << 10
	for i := 0; i < 20; i++ {
		if _, err := Render(fmt.Sprintf("# Doc %d\n\n%s\n", i, strings.Repeat("prose ", 200)), 60, StyleASCII); err != nil {
			t.Fatal(err)
		}
	}
	mu.Lock()
	defer mu.Unlock()
	total := 0
	for el := lru.Front(); el != nil; el = el.Next() {
		total += el.Value.(*cacheEntry).size
	}
	if total != cached || cached > cacheBytes {
		t.Errorf("cache holds %d bytes (counted %d), budget %d", total, cached, cacheBytes)
	}
}
