package katas

import (
	"os"
	"testing"

	"github.com/kata-mcp/kata/packets"
)

func TestShippedPacketsValidate(t *testing.T) {
	opts := ValidateOptions{}
	if _, err := os.Stat("/work/shared/seeds"); err == nil {
		opts.SeedsDir = "/work/shared/seeds"
	}
	vs, err := Validate(packets.FS, "embedded", opts)
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range vs {
		for _, p := range v.Problems {
			t.Errorf("%v", p)
		}
		for _, s := range v.Seeds {
			t.Logf("%s %s: %d facts, %d lines cited, %d text lines, uncited %v", v.Dir, s.Seed, s.Facts, len(s.Lines), s.TextLines, s.Uncited)
		}
	}
}
