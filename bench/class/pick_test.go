package main

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/kata-mcp/kata/grader/references"
	"github.com/kata-mcp/kata/katas"
	"github.com/kata-mcp/kata/packets"
)

// TestPickTakesEveryKataAndLanguageInTurn: the first round is the correct reference of every
// kata in every language, the next ones their broken references, so a small class already
// holds both; no hostile reference and no SDK group is ever picked.
func TestPickTakesEveryKataAndLanguageInTurn(t *testing.T) {
	lib, err := katas.Discover(packets.FS, "embedded")
	if err != nil {
		t.Fatal(err)
	}
	root := filepath.Join("..", "..", "testdata", "references")
	var want []string
	for _, p := range lib.Packets() {
		for _, lang := range []string{"python", "node", "go"} {
			want = append(want, p.ID+"/"+lang)
		}
	}
	refs, err := pick(lib, root, 4*len(want))
	if err != nil {
		t.Fatal(err)
	}
	if len(refs) != 4*len(want) {
		t.Fatalf("picked %d references; want %d", len(refs), 4*len(want))
	}
	for i, r := range refs {
		name := filepath.Base(r.path)
		if got := r.kata + "/" + r.lang; got != want[i%len(want)] {
			t.Errorf("reference %d is of %s; want %s (every kata and language in turn)", i, got, want[i%len(want)])
		}
		if first := i < len(want); first != (name == references.Correct) {
			t.Errorf("reference %d (round %d) is %s", i, i/len(want), r.path)
		}
		if strings.HasPrefix(name, "hostile-") || strings.HasPrefix(name, "sdk-") {
			t.Errorf("reference %d is %s: hostile references and SDK groups are left out", i, r.path)
		}
	}
}
