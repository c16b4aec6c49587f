package schema

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// TestHostileEnumConsecutiveIntegers: an integer enum of consecutive values leaves no value
// within 1000 of a listed one unlisted; Forms ends, and its form still breaks the enum.
func TestHostileEnumConsecutiveIntegers(t *testing.T) {
	vals := make([]string, 1002)
	for i := range vals {
		vals[i] = fmt.Sprint(i + 1)
	}
	s := mustParse(t, `{"type":"object","properties":{"n":{"type":"integer","enum":[`+strings.Join(vals, ",")+`]}}}`)
	forms, err := s.Forms("n", KeyEnum)
	if err != nil || len(forms) == 0 {
		t.Fatalf("Forms: %v, %v", forms, err)
	}
	args := map[string]any{"n": float64(1)}
	s.Apply(forms[0], "n", KeyEnum, rand.New(rand.NewPCG(1, 2)), args)
	if got := Broken(s.Validate(args))["n"]; !slices.Equal(got, []string{KeyEnum}) {
		t.Fatalf("broken %v fails %v, want enum", args, got)
	}
}

// TestHostileEnumAllNearMisses: a string enum holding every near miss ends Forms, without
// the form "another word".
func TestHostileEnumAllNearMisses(t *testing.T) {
	s := mustParse(t, `{"type":"object","properties":{"w":{"type":"string","enum":["broken","other","unknown","n/a","misc"]}}}`)
	forms, err := s.Forms("w", KeyEnum)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range forms {
		if f.Name == "another word" {
			t.Fatalf("kept %q, which cannot break this enum", f.Name)
		}
	}
}

// TestHostileHugeMinLength: a draw for a minLength of a million characters takes linear time.
func TestHostileHugeMinLength(t *testing.T) {
	s := mustParse(t, `{"type":"object","properties":{"c":{"type":"string","minLength":1000000}},"required":["c"]}`)
	v := s.Draw(rand.New(rand.NewPCG(1, 2)), true)
	if f := s.Validate(v); len(f) > 0 {
		t.Fatalf("the draw fails %v", f)
	}
}

// TestHostileHugeBounds: bounds beyond MaxBound are a problem naming the keyword (a draw
// between ±1e308 overflowed an int and panicked).
func TestHostileHugeBounds(t *testing.T) {
	for _, js := range []string{
		`{"type":"integer","minimum":-1e308,"maximum":1e308}`,
		`{"type":"integer","minimum":0,"maximum":1e19}`,
		`{"type":"number","minimum":-1e308,"maximum":1e308}`,
		`{"type":"integer","minimum":1e308}`,
	} {
		_, ps := Parse([]byte(`{"type":"object","properties":{"q":` + js + `},"required":["q"]}`))
		if len(ps) == 0 || !strings.HasPrefix(ps[0].Path, "properties.q.m") {
			t.Errorf("%s: problems %v, want one naming properties.q.minimum or maximum", js, ps)
		}
	}
	s := mustParse(t, `{"type":"object","properties":{"q":{"type":"integer","minimum":-1e15,"maximum":1e15}},"required":["q"]}`)
	if v := s.Draw(rand.New(rand.NewPCG(1, 2)), true); len(s.Validate(v)) > 0 {
		t.Fatalf("draw %v fails", v)
	}
}

// TestArgumentNamesArePlain: a property name with a control character, an escape, a space or
// a leading digit is a problem naming it, as is one of 65 bytes.
func TestArgumentNamesArePlain(t *testing.T) {
	for _, name := range []string{"order\x1b[2Jid", "a b", "1st", "", strings.Repeat("a", 65), "qty\n"} {
		raw := map[string]any{"type": "object", "properties": map[string]any{name: map[string]any{"type": "string"}}}
		b, _ := json.Marshal(raw)
		if _, probs := Parse(b); len(probs) == 0 {
			t.Errorf("property name %q: no problem", name)
		}
	}
	raw := map[string]any{"type": "object", "properties": map[string]any{"order_id": map[string]any{"type": "string"}, "_x9": map[string]any{"type": "integer"}}}
	b, _ := json.Marshal(raw)
	if _, probs := Parse(b); len(probs) != 0 {
		t.Errorf("plain names: %v", probs)
	}
}
