package schema

import (
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// returns is the create_return schema of the validation-retry-error-feedback design, with a
// date and a boolean beside it so every keyword and type is exercised.
const returns = `{
  "type": "object",
  "properties": {
    "order_id": {"type": "string", "pattern": "^ORD-[0-9]{4,8}$", "examples": ["ORD-8821", "ORD-104427"]},
    "quantity": {"type": "integer", "minimum": 1, "maximum": 10},
    "reason":   {"type": "string", "enum": ["damaged", "wrong_item", "not_needed", "arrived_late"]},
    "email":    {"type": "string", "format": "email", "examples": ["ana.lopez@example.com"]},
    "note":     {"type": "string", "maxLength": 200, "description": "free text"},
    "code":     {"type": "string", "minLength": 3, "maxLength": 6},
    "weight":   {"type": "number", "minimum": 0.5, "maximum": 30},
    "since":    {"type": "string", "format": "date", "examples": ["2026-03-31"]},
    "gift":     {"type": "boolean"}
  },
  "required": ["order_id", "quantity", "reason", "email"],
  "additionalProperties": false
}`

func mustParse(t *testing.T, src string) *Schema {
	t.Helper()
	s, ps := Parse([]byte(src))
	if len(ps) > 0 {
		t.Fatalf("Parse: %v", ps)
	}
	return s
}

// TestParseProblems: every keyword outside the subset, and every misuse of one inside it, is
// a problem naming the keyword's path.
func TestParseProblems(t *testing.T) {
	prop := func(p string) string {
		return `{"type": "object", "properties": {"x": ` + p + `}}`
	}
	cases := []struct{ name, src, path, msg string }{
		{"not an object", `[]`, "", "JSON object"},
		{"top type", `{"type": "array", "properties": {"x": {"type": "string"}}}`, "type", `"object"`},
		{"unknown top keyword", `{"type": "object", "properties": {"x": {"type": "string"}}, "oneOf": []}`, "oneOf", `unknown keyword "oneOf"`},
		{"no properties", `{"type": "object"}`, "properties", "no properties"},
		{"required not listed", `{"type": "object", "properties": {"x": {"type": "string"}}, "required": ["y"]}`, "required", `"y" is required`},
		{"required twice", `{"type": "object", "properties": {"x": {"type": "string"}}, "required": ["x", "x"]}`, "required", "each once"},
		{"additionalProperties true", `{"type": "object", "properties": {"x": {"type": "string"}}, "additionalProperties": true}`, "additionalProperties", "only additionalProperties: false"},
		{"property type", prop(`{"type": "array"}`), "properties.x.type", "one of string"},
		{"property no type", prop(`{}`), "properties.x.type", "one of string"},
		{"unknown keyword", prop(`{"type": "integer", "multipleOf": 2}`), "properties.x.multipleOf", `unknown keyword "multipleOf"`},
		{"minimum on string", prop(`{"type": "string", "minimum": 1}`), "properties.x.minimum", "integer or a number only"},
		{"maximum not a number", prop(`{"type": "integer", "maximum": "9"}`), "properties.x.maximum", "is a number"},
		{"minimum above maximum", prop(`{"type": "integer", "minimum": 5, "maximum": 1}`), "properties.x.minimum", "above maximum"},
		{"no integer between", prop(`{"type": "integer", "minimum": 1.2, "maximum": 1.8}`), "properties.x.minimum", "no integer"},
		{"minLength on integer", prop(`{"type": "integer", "minLength": 1}`), "properties.x.minLength", "string only"},
		{"maxLength fraction", prop(`{"type": "string", "maxLength": 2.5}`), "properties.x.maxLength", "whole number"},
		{"minLength above maxLength", prop(`{"type": "string", "minLength": 5, "maxLength": 2}`), "properties.x.minLength", "above maxLength"},
		{"pattern does not compile", prop(`{"type": "string", "pattern": "^ORD-[0-9", "examples": ["ORD-1"]}`), "properties.x.pattern", "does not compile"},
		{"pattern not ECMA", prop(`{"type": "string", "pattern": "(?i)^ord$", "examples": ["ord"]}`), "properties.x.pattern", "ECMA 262"},
		{"pattern on integer", prop(`{"type": "integer", "pattern": "^1$"}`), "properties.x.pattern", "string property"},
		{"unknown format", prop(`{"type": "string", "format": "uri", "examples": ["x"]}`), "properties.x.format", `"email" or "date"`},
		{"pattern without examples", prop(`{"type": "string", "pattern": "^A$"}`), "properties.x.examples", "gives examples"},
		{"format without examples", prop(`{"type": "string", "format": "email"}`), "properties.x.examples", "gives examples"},
		{"example fails pattern", prop(`{"type": "string", "pattern": "^A+$", "examples": ["A", "b"]}`), "properties.x.examples", `example 2 ("b") fails its own schema: pattern`},
		{"example fails format", prop(`{"type": "string", "format": "email", "examples": ["ana@example"]}`), "properties.x.examples", "format"},
		{"example of the wrong type", prop(`{"type": "integer", "examples": ["3"]}`), "properties.x.examples", "type"},
		{"empty enum", prop(`{"type": "string", "enum": []}`), "properties.x.enum", "non-empty"},
		{"enum value of the wrong type", prop(`{"type": "string", "enum": ["a", 1]}`), "properties.x.enum", "enum value 2"},
		{"examples not an array", prop(`{"type": "string", "examples": "a"}`), "properties.x.examples", "non-empty array"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s, ps := Parse([]byte(c.src))
			if s != nil || len(ps) == 0 {
				t.Fatalf("Parse accepted %s", c.src)
			}
			for _, p := range ps {
				if p.Path == c.path && strings.Contains(p.Msg, c.msg) {
					return
				}
			}
			t.Errorf("problems %v; want one at %q saying %q", ps, c.path, c.msg)
		})
	}
	mustParse(t, returns)
}

// TestCheck: each keyword passes the values it allows and fails the others, alone.
func TestCheck(t *testing.T) {
	s := mustParse(t, returns)
	cases := []struct {
		field string
		v     any
		want  []string
	}{
		{"order_id", "ORD-8821", nil},
		{"order_id", "ord-8821", []string{KeyPattern}},
		{"order_id", "ORD-123456789", []string{KeyPattern}},
		{"order_id", 8821.0, []string{KeyType}},
		{"quantity", 1.0, nil},
		{"quantity", 10.0, nil},
		{"quantity", 3.0, nil},
		{"quantity", 0.0, []string{KeyMinimum}},
		{"quantity", 11.0, []string{KeyMaximum}},
		{"quantity", 2.5, []string{KeyType}},
		{"quantity", "3", []string{KeyType}},
		{"reason", "damaged", nil},
		{"reason", "Damaged", []string{KeyEnum}},
		{"email", "ana.lopez@example.com", nil},
		{"email", "ana.lopezexample.com", []string{KeyFormat}},
		{"email", "ana@@example.com", []string{KeyFormat}},
		{"email", "ana@examplecom", []string{KeyFormat}},
		{"email", "ana lopez@example.com", []string{KeyFormat}},
		{"email", "@example.com", []string{KeyFormat}},
		{"note", strings.Repeat("é", 200), nil},
		{"note", strings.Repeat("é", 201), []string{KeyMaxLength}},
		{"code", "ab", []string{KeyMinLength}},
		{"code", "abc", nil},
		{"code", "abcdefg", []string{KeyMaxLength}},
		{"weight", 0.5, nil},
		{"weight", 0.49, []string{KeyMinimum}},
		{"weight", 30.01, []string{KeyMaximum}},
		{"since", "2026-02-28", nil},
		{"since", "2026-02-30", []string{KeyFormat}},
		{"since", "2026/02/28", []string{KeyFormat}},
		{"gift", true, nil},
		{"gift", "true", []string{KeyType}},
	}
	for _, c := range cases {
		if got := s.Properties[c.field].Check(c.v); !slices.Equal(got, c.want) {
			t.Errorf("%s = %#v: Check %v, want %v", c.field, c.v, got, c.want)
		}
	}
	got := s.Validate(map[string]any{"order_id": "ORD-8821", "quantity": 12.0, "qty": 1.0, "email": "x"})
	want := []Violation{{"email", KeyFormat}, {"qty", KeyAdditionalProperties}, {"quantity", KeyMaximum}, {"reason", KeyRequired}}
	if !slices.Equal(got, want) {
		t.Errorf("Validate: %v, want %v", got, want)
	}
}

// TestDrawIsValid: valid draws pass the schema under many seeds, and carry every optional
// argument when asked to and none otherwise.
func TestDrawIsValid(t *testing.T) {
	s := mustParse(t, returns)
	seen := map[string]int{}
	for seed := range uint64(200) {
		args := s.Draw(rand.New(rand.NewPCG(seed, 2)), seed%2 == 0)
		if v := s.Validate(args); len(v) > 0 {
			t.Fatalf("seed %d: %v fails %v", seed, args, v)
		}
		for k := range args {
			seen[k]++
		}
	}
	for _, n := range []string{"note", "code", "weight", "since", "gift"} {
		if seen[n] != 100 {
			t.Errorf("optional %q present in %d of 200 draws; want the 100 that asked for it", n, seen[n])
		}
	}
}

// TestFormsBreakOneKeyword: every form of every keyword of every property breaks that
// argument by that keyword and by no other, under many seeds; the form lists are the same
// under every seed (they depend on the schema alone).
func TestFormsBreakOneKeyword(t *testing.T) {
	s := mustParse(t, returns)
	type target struct{ field, keyword string }
	targets := []target{{"qty", KeyAdditionalProperties}, {"orderId", KeyAdditionalProperties}}
	for _, n := range s.Names() {
		if s.IsRequired(n) {
			targets = append(targets, target{n, KeyRequired})
		}
		for _, k := range Keywords {
			if s.Properties[n].Has(k) {
				targets = append(targets, target{n, k})
			}
		}
	}
	wantForms := map[string]int{"order_id:pattern": 4, "email:format": 4, "reason:enum": 3, "quantity:maximum": 2, "quantity:type": 2, "since:format": 3}
	for _, tg := range targets {
		forms, err := s.Forms(tg.field, tg.keyword)
		if err != nil {
			t.Errorf("%s:%s: %v", tg.field, tg.keyword, err)
			continue
		}
		if n, ok := wantForms[tg.field+":"+tg.keyword]; ok && len(forms) != n {
			t.Errorf("%s:%s has %d forms, want %d", tg.field, tg.keyword, len(forms), n)
		}
		for _, f := range forms {
			for seed := range uint64(30) {
				rng := rand.New(rand.NewPCG(seed, 3))
				args := s.Draw(rng, seed%2 == 0)
				args["note"] = "kept"
				s.Apply(f, tg.field, tg.keyword, rng, args)
				got := s.Validate(args)
				if want := []Violation{{tg.field, tg.keyword}}; !slices.Equal(got, want) {
					t.Errorf("%s:%s form %q, seed %d: %v fails %v, want %v", tg.field, tg.keyword, f.Name, seed, args, got, want)
					break
				}
			}
		}
	}
}

// TestFormsRefuse: a keyword the property lacks, an unknown argument or keyword, an optional
// argument to leave out and an invented argument the schema declares have no forms.
func TestFormsRefuse(t *testing.T) {
	s := mustParse(t, returns)
	for _, c := range []struct{ field, keyword, msg string }{
		{"quantity", KeyPattern, "has no pattern"},
		{"nope", KeyMaximum, "not an argument"},
		{"quantity", "multipleOf", "unknown keyword"},
		{"note", KeyRequired, "not required"},
		{"quantity", KeyAdditionalProperties, "is an argument of the schema"},
	} {
		if _, err := s.Forms(c.field, c.keyword); err == nil || !strings.Contains(err.Error(), c.msg) {
			t.Errorf("Forms(%s, %s) = %v; want %q", c.field, c.keyword, err, c.msg)
		}
	}
	open := mustParse(t, `{"type": "object", "properties": {"x": {"type": "string"}}}`)
	if _, err := open.Forms("y", KeyAdditionalProperties); err == nil {
		t.Error("an open schema breaks by an invented argument")
	}
	// A pattern that accepts lower case keeps no "lower case" form.
	ci := mustParse(t, `{"type": "object", "properties": {"x": {"type": "string", "pattern": "^[A-Za-z]{2}-[0-9]{2}$", "examples": ["AB-12"]}}}`)
	forms, err := ci.Forms("x", KeyPattern)
	if err != nil || slices.ContainsFunc(forms, func(f Form) bool { return f.Name == "lower case" }) {
		t.Errorf("forms of a case-blind pattern: %v, %v", forms, err)
	}
}

// TestFormatOK: the email and date formats as grading.md defines them.
func TestFormatOK(t *testing.T) {
	for s, want := range map[string]bool{
		"a@b.co": true, "a@b": false, "a@.b": false, "a@b.": false, "@b.co": false, "a@b@c.co": false, "a b@c.co": false, "a@b.co\n": false,
	} {
		if FormatOK(FormatEmail, s) != want {
			t.Errorf("email %q: want %v", s, want)
		}
	}
	for s, want := range map[string]bool{"2024-02-29": true, "2023-02-29": false, "2024-2-29": false, "2024-02-29T00:00:00Z": false} {
		if FormatOK(FormatDate, s) != want {
			t.Errorf("date %q: want %v", s, want)
		}
	}
}
