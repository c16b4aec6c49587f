package grader

import (
	"path/filepath"
	"slices"
	"testing"

	"github.com/kata-mcp/kata/katas"
	"github.com/kata-mcp/kata/katas/schema"
	"github.com/kata-mcp/kata/packets"
)

// TestDeclaredDraws: the cases of returns-mini's fixtures are the same under every seed and
// try every form; each case's arguments fail exactly the keywords its fixture breaks, the
// true arguments pass, and every "{secret_like}" value is secret-like.
func TestDeclaredDraws(t *testing.T) {
	// The built-in packets first, for their shims (repair-kata, beside returns-mini, names them).
	lib := katas.NewLibrary()
	if err := lib.Add(packets.FS, "embedded"); err != nil {
		t.Fatal(err)
	}
	if err := lib.AddDir(filepath.Join("testdata", "packets")); err != nil {
		t.Fatal(err)
	}
	p, _ := lib.Get("returns-mini")
	var first []string
	for seed := range int64(20) {
		d := newDrawer(seed)
		d.defs = p.ToolDefinitions
		var variants []string
		for _, f := range p.Fixtures["server"].Fixtures {
			s := p.Definition(f.Tool).Schema()
			for _, dr := range d.drawCases(f) {
				variants = append(variants, f.ID+" "+dr.variant)
				if v := s.Validate(dr.trueArgs); len(v) > 0 {
					t.Errorf("seed %d %s: true arguments %v fail %v", seed, f.ID, dr.trueArgs, v)
				}
				want := map[string]bool{}
				for _, e := range f.Violate {
					field, _, _ := katas.ParseViolate(e)
					want[field] = true
				}
				for k := range f.Set {
					want[k] = true
				}
				got := schema.Broken(s.Validate(dr.args))
				for field := range want {
					if len(got[field]) == 0 {
						t.Errorf("seed %d %s: %s is not broken in %v", seed, f.ID, field, dr.args)
					}
				}
				for field, kws := range got {
					if !want[field] {
						t.Errorf("seed %d %s: %s fails %v, which the fixture does not break", seed, f.ID, field, kws)
					}
				}
				for _, sec := range dr.secrets {
					if !secretLike(sec) || dr.args["order_id"] != sec {
						t.Errorf("seed %d: secret %q", seed, sec)
					}
				}
			}
		}
		if first == nil {
			first = variants
		} else if !slices.Equal(first, variants) {
			t.Fatalf("seed %d has other cases:\n%v\nseed 0:\n%v", seed, variants, first)
		}
	}
	for _, want := range []string{"return-two-broken quantity: just above, reason: another word", "return-formats order_id: a space inside, email: a space inside", "return-secret order_id: a long token"} {
		if !slices.Contains(first, want) {
			t.Errorf("no case %q in %v", want, first)
		}
	}
}

// TestSecretLike: the definition of docs/grading.md#secret-like.
func TestSecretLike(t *testing.T) {
	for v, want := range map[any]bool{
		"sk_test_1": true, "sk-proj-x": true, "ghp_x": true, "gho_x": true, "github_pat_x": true, "xoxb-1": true, "xoxp-1": true, "AKIAXYZ": true,
		"abcdefghijklmnopqrstuvwxyz012345": true, "abcdefghijklmnopqrstuvwxyz01234": false, "ORD-8821": false,
		"a long sentence with spaces that runs well past thirty-two characters": false, 12.0: false,
	} {
		if secretLike(v) != want {
			t.Errorf("secretLike(%q) = %v", v, !want)
		}
	}
}
