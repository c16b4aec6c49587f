package cli

import (
	"bytes"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/kata-mcp/kata/internal/i18n"
	"github.com/kata-mcp/kata/workshop"
)

// TestRevealIsATable: kata class reveal prints one row per item with each option's count,
// the keyed options marked, never a Go map.
func TestRevealIsATable(t *testing.T) {
	lib := library(t)
	p, _ := lib.Get("mcp-structured-errors")
	it := p.Items[0]
	q := &workshop.Quiz{Kata: p.ID, Items: []string{it.ID}, Distribution: map[string]map[string]int{it.ID: {"a": 1, "c": 2}}}
	var out bytes.Buffer
	writeReveal(&out, q, lib, i18n.New("en"))
	got := out.String()
	if strings.Contains(got, "map[") || !strings.Contains(got, it.ID) || !strings.Contains(got, " 3\n") {
		t.Errorf("reveal:\n%s", got)
	}
	// Every option with its count, the keyed ones marked: "a 1", "b* 0", "c 2", "d 0".
	counts := map[string]int{"a": 1, "c": 2}
	for _, o := range []string{"a", "b", "c", "d"} {
		cell := o
		if slices.Contains(it.Keys(), o) {
			cell += "*"
		}
		if cell = fmt.Sprintf("%s %d", cell, counts[o]); !strings.Contains(got, cell) {
			t.Errorf("reveal lacks %q:\n%s", cell, got)
		}
	}
}
