package cli

import (
	"bytes"
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
	key := it.Keys()[0]
	if strings.Contains(got, "map[") || !strings.Contains(got, it.ID) || !strings.Contains(got, key+"* ") || !strings.Contains(got, "b 0") || !strings.Contains(got, " 3\n") {
		t.Errorf("reveal:\n%s", got)
	}
}
