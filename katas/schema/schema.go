// Package schema is the subset of JSON Schema 2020-12 a packet may give a declared tool's
// input (packet.json "tool_definitions", docs/packets.md#tool-definitions): parsing it with
// errors that name the keyword, validating a value against it keyword by keyword, drawing a
// valid value from a seed, and breaking a valid value by one keyword (forms.go).
//
// The subset: a top-level "type": "object" with "properties", "required" and
// "additionalProperties": false; each property has "type" (string, integer, number, boolean)
// and may have "enum", "minimum", "maximum", "minLength", "maxLength", "pattern" (Go RE2
// syntax kept to what ECMA 262 reads the same: anchors, classes, counted repeats), "format"
// (email, date), "examples" and "description" (an annotation, never checked). A string
// property with "pattern" or "format" must give "examples", each of which passes the property.
package schema

import (
	"encoding/json"
	"fmt"
	"maps"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"
)

// Keywords of the subset (JSON Schema 2020-12, Validation §6 and Core §10.3.2).
const (
	KeyType                 = "type"
	KeyProperties           = "properties"
	KeyRequired             = "required"
	KeyAdditionalProperties = "additionalProperties"
	KeyEnum                 = "enum"
	KeyMinimum              = "minimum"
	KeyMaximum              = "maximum"
	KeyMinLength            = "minLength"
	KeyMaxLength            = "maxLength"
	KeyPattern              = "pattern"
	KeyFormat               = "format"
	KeyExamples             = "examples"
	KeyDescription          = "description"
)

// Property types of the subset.
const (
	TypeString  = "string"
	TypeInteger = "integer"
	TypeNumber  = "number"
	TypeBoolean = "boolean"
)

// Formats of the subset: FormatEmail is one "@", a non-empty local part, a domain with a dot
// not at either end, no white space; FormatDate is an RFC 3339 full-date (§5.6, 2026-03-31).
const (
	FormatEmail = "email"
	FormatDate  = "date"
)

// MaxBound is the largest magnitude a "minimum" or "maximum" may have: below 2^53, so every
// integer up to it is exact in a float64 (RFC 8259 §6 warns of numbers beyond) and the width
// between two bounds fits an int.
const MaxBound = 1e15

// Keywords are the keywords an argument can fail, in the order Check reports them: the
// constraints a violation's "constraint" may name.
var Keywords = []string{KeyRequired, KeyAdditionalProperties, KeyType, KeyEnum, KeyMinimum, KeyMaximum, KeyMinLength, KeyMaxLength, KeyPattern, KeyFormat}

// Schema is a tool's input schema: an object of named properties.
type Schema struct {
	// Properties are the arguments by name.
	Properties map[string]*Property
	// Required lists the arguments a call must give, as written.
	Required []string
	// Closed is "additionalProperties": false: an argument the schema does not name fails.
	Closed bool
}

// Property is one argument's schema. Bounds are nil when the schema gives none.
type Property struct {
	Type                 string
	Enum                 []any
	Minimum, Maximum     *float64
	MinLength, MaxLength *int
	// Pattern is the regular expression as written; re is it compiled.
	Pattern  string
	re       *regexp.Regexp
	Format   string
	Examples []any
}

// Problem is one thing wrong with a schema: where (a dotted path from the schema's root,
// "properties.quantity.maximum") and what.
type Problem struct {
	Path, Msg string
}

// Error is "path: message".
func (p Problem) Error() string {
	if p.Path == "" {
		return p.Msg
	}
	return p.Path + ": " + p.Msg
}

// Names returns the property names, sorted: the order draws and checks go in.
func (s *Schema) Names() []string { return slices.Sorted(maps.Keys(s.Properties)) }

// IsRequired reports whether name is in the schema's required list.
func (s *Schema) IsRequired(name string) bool { return slices.Contains(s.Required, name) }

// Parse reads a schema of the subset from JSON text. Every problem is returned, each naming
// the keyword by its path; the schema is nil when there is any.
func Parse(raw []byte) (*Schema, []Problem) {
	var root any
	if err := json.Unmarshal(raw, &root); err != nil {
		return nil, []Problem{{"", "not JSON: " + err.Error()}}
	}
	var ps []Problem
	bad := func(path, format string, args ...any) { ps = append(ps, Problem{path, fmt.Sprintf(format, args...)}) }
	obj, ok := root.(map[string]any)
	if !ok {
		return nil, []Problem{{"", "an input schema is a JSON object"}}
	}
	s := &Schema{Properties: map[string]*Property{}}
	if obj[KeyType] != "object" {
		bad(KeyType, `the input schema's type is "object" (found %s)`, text(obj[KeyType]))
	}
	for _, k := range slices.Sorted(maps.Keys(obj)) {
		v := obj[k]
		switch k {
		case KeyType, KeyDescription:
		case KeyProperties:
			props, ok := v.(map[string]any)
			if !ok {
				bad(k, "properties is an object of argument schemas")
				continue
			}
			for _, name := range slices.Sorted(maps.Keys(props)) {
				if !argumentName(name) {
					bad(k, "argument name %q: use letters, digits and _ (a letter or _ first, at most 64), as tool arguments are named", name)
					continue
				}
				p, more := parseProperty("properties."+name, props[name])
				ps = append(ps, more...)
				s.Properties[name] = p
			}
		case KeyRequired:
			list, ok := v.([]any)
			if !ok {
				bad(k, "required is an array of argument names")
				continue
			}
			for _, n := range list {
				name, ok := n.(string)
				if !ok || slices.Contains(s.Required, name) {
					bad(k, "required lists argument names, each once (found %s)", text(n))
					continue
				}
				s.Required = append(s.Required, name)
			}
		case KeyAdditionalProperties:
			if v != false {
				bad(k, "only additionalProperties: false is supported (found %s)", text(v))
			}
			s.Closed = true
		default:
			bad(k, "unknown keyword %q (the subset: type, properties, required, additionalProperties, description)", k)
		}
	}
	if len(s.Properties) == 0 {
		bad(KeyProperties, "the input schema declares no properties")
	}
	for _, name := range s.Required {
		if _, ok := s.Properties[name]; !ok {
			bad(KeyRequired, "%q is required but not among the properties", name)
		}
	}
	if len(ps) > 0 {
		return nil, ps
	}
	return s, nil
}

// parseProperty reads one property's schema at path.
func parseProperty(path string, raw any) (*Property, []Problem) {
	var ps []Problem
	bad := func(key, format string, args ...any) {
		ps = append(ps, Problem{path + "." + key, fmt.Sprintf(format, args...)})
	}
	obj, ok := raw.(map[string]any)
	if !ok {
		return nil, []Problem{{path, "a property's schema is a JSON object"}}
	}
	p := &Property{}
	p.Type, _ = obj[KeyType].(string)
	switch p.Type {
	case TypeString, TypeInteger, TypeNumber, TypeBoolean:
	default:
		bad(KeyType, "type is one of string, integer, number, boolean (found %s)", text(obj[KeyType]))
	}
	numeric := p.Type == TypeInteger || p.Type == TypeNumber
	for _, k := range slices.Sorted(maps.Keys(obj)) {
		v := obj[k]
		switch k {
		case KeyType, KeyDescription:
		case KeyEnum:
			list, ok := v.([]any)
			if !ok || len(list) == 0 {
				bad(k, "enum is a non-empty array")
				continue
			}
			p.Enum = list
		case KeyMinimum, KeyMaximum:
			n, ok := v.(float64)
			switch {
			case !numeric:
				bad(k, "%s applies to an integer or a number only", k)
			case !ok:
				bad(k, "%s is a number (found %s)", k, text(v))
			case math.Abs(n) > MaxBound:
				bad(k, "%s is a number within ±%s, where every integer is exact and a draw between the bounds works (found %s)", k, num(MaxBound), num(n))
			case k == KeyMinimum:
				p.Minimum = &n
			default:
				p.Maximum = &n
			}
		case KeyMinLength, KeyMaxLength:
			n, ok := v.(float64)
			switch {
			case p.Type != TypeString:
				bad(k, "%s applies to a string only", k)
			case !ok || n < 0 || n != math.Trunc(n) || n > 1e6:
				bad(k, "%s is a whole number ≥ 0 (found %s)", k, text(v))
			case k == KeyMinLength:
				i := int(n)
				p.MinLength = &i
			default:
				i := int(n)
				p.MaxLength = &i
			}
		case KeyPattern:
			s, ok := v.(string)
			if p.Type != TypeString || !ok {
				bad(k, "pattern is a string, on a string property")
				continue
			}
			if err := ecmaSafe(s); err != "" {
				bad(k, "pattern %q %s", s, err)
				continue
			}
			re, err := regexp.Compile(s)
			if err != nil {
				bad(k, "pattern %q does not compile: %v", s, err)
				continue
			}
			p.Pattern, p.re = s, re
		case KeyFormat:
			s, _ := v.(string)
			if p.Type != TypeString || (s != FormatEmail && s != FormatDate) {
				bad(k, "format is %q or %q, on a string property (found %s)", FormatEmail, FormatDate, text(v))
				continue
			}
			p.Format = s
		case KeyExamples:
			list, ok := v.([]any)
			if !ok || len(list) == 0 {
				bad(k, "examples is a non-empty array")
				continue
			}
			p.Examples = list
		default:
			bad(k, "unknown keyword %q (the subset: type, enum, minimum, maximum, minLength, maxLength, pattern, format, examples, description)", k)
		}
	}
	if p.Minimum != nil && p.Maximum != nil && *p.Minimum > *p.Maximum {
		bad(KeyMinimum, "minimum %s is above maximum %s", num(*p.Minimum), num(*p.Maximum))
	}
	if p.MinLength != nil && p.MaxLength != nil && *p.MinLength > *p.MaxLength {
		bad(KeyMinLength, "minLength %d is above maxLength %d", *p.MinLength, *p.MaxLength)
	}
	if p.Type == TypeInteger && p.Minimum != nil && p.Maximum != nil && math.Ceil(*p.Minimum) > math.Floor(*p.Maximum) {
		bad(KeyMinimum, "no integer lies between minimum %s and maximum %s", num(*p.Minimum), num(*p.Maximum))
	}
	if len(ps) > 0 {
		return p, ps
	}
	if (p.Pattern != "" || p.Format != "") && len(p.Examples) == 0 {
		bad(KeyExamples, "a string property with pattern or format gives examples (a valid value the grader sends and a learner's feedback can quote)")
	}
	for i, e := range p.Examples {
		if failed := p.Check(e); len(failed) > 0 {
			bad(KeyExamples, "example %d (%s) fails its own schema: %s", i+1, text(e), strings.Join(failed, ", "))
		}
	}
	for i, e := range p.Enum {
		if failed := p.Check(e); len(failed) > 0 {
			bad(KeyEnum, "enum value %d (%s) fails the property's schema: %s", i+1, text(e), strings.Join(failed, ", "))
		}
	}
	return p, ps
}

// ecmaSafe returns why a pattern is not read the same by Go's RE2 and ECMA 262 (JSON Schema
// 2020-12 §6.3.3 says patterns are ECMA 262), or "" when it keeps to what both read alike.
func ecmaSafe(s string) string {
	for _, bad := range []string{`(?`, `\A`, `\z`, `\Q`, `\p`, `\P`, `[[:`, `\C`} {
		if strings.Contains(s, bad) {
			return fmt.Sprintf("uses %s, which ECMA 262 (the pattern syntax of JSON Schema) reads otherwise or not at all; keep to anchors, classes and counted repeats", bad)
		}
	}
	return ""
}

// Validate checks arguments against the schema and returns every keyword each argument
// fails: a missing required argument fails "required", an argument the schema does not name
// fails "additionalProperties" (when Closed), a present one the keywords of Check. Fields are
// in name order, keywords in Keywords order.
func (s *Schema) Validate(args map[string]any) []Violation {
	var out []Violation
	names := slices.Sorted(maps.Keys(args))
	for _, n := range s.Required {
		if _, ok := args[n]; !ok {
			names = append(names, n)
		}
	}
	slices.Sort(names)
	for _, n := range slices.Compact(names) {
		v, present := args[n]
		p, known := s.Properties[n]
		switch {
		case !present:
			out = append(out, Violation{n, KeyRequired})
		case !known:
			if s.Closed {
				out = append(out, Violation{n, KeyAdditionalProperties})
			}
		default:
			for _, k := range p.Check(v) {
				out = append(out, Violation{n, k})
			}
		}
	}
	return out
}

// Violation is one keyword an argument fails.
type Violation struct {
	// Field is the argument's name.
	Field string
	// Keyword is the JSON Schema keyword that failed (one of Keywords).
	Keyword string
}

// Broken returns the keywords each field of the violations fails, by field.
func Broken(vs []Violation) map[string][]string {
	out := map[string][]string{}
	for _, v := range vs {
		out[v.Field] = append(out[v.Field], v.Keyword)
	}
	return out
}

// Check returns the keywords v fails, in Keywords order; none when it passes. A value of the
// wrong JSON type fails "type" alone (the other keywords do not apply to it).
func (p *Property) Check(v any) []string {
	if !p.typeOK(v) {
		return []string{KeyType}
	}
	var out []string
	if len(p.Enum) > 0 && !slices.ContainsFunc(p.Enum, func(e any) bool { return equal(e, v) }) {
		out = append(out, KeyEnum)
	}
	if n, ok := v.(float64); ok {
		if p.Minimum != nil && n < *p.Minimum {
			out = append(out, KeyMinimum)
		}
		if p.Maximum != nil && n > *p.Maximum {
			out = append(out, KeyMaximum)
		}
	}
	if s, ok := v.(string); ok {
		n := utf8.RuneCountInString(s)
		if p.MinLength != nil && n < *p.MinLength {
			out = append(out, KeyMinLength)
		}
		if p.MaxLength != nil && n > *p.MaxLength {
			out = append(out, KeyMaxLength)
		}
		if p.re != nil && !p.re.MatchString(s) {
			out = append(out, KeyPattern)
		}
		if p.Format != "" && !FormatOK(p.Format, s) {
			out = append(out, KeyFormat)
		}
	}
	return out
}

// typeOK reports whether v has the property's JSON type; an integer is a number with no
// fraction (12.0 too, JSON Schema 2020-12 §6.1.1).
func (p *Property) typeOK(v any) bool {
	switch p.Type {
	case TypeString:
		_, ok := v.(string)
		return ok
	case TypeBoolean:
		_, ok := v.(bool)
		return ok
	case TypeNumber:
		_, ok := v.(float64)
		return ok
	case TypeInteger:
		n, ok := v.(float64)
		return ok && n == math.Trunc(n) && !math.IsInf(n, 0)
	}
	return false
}

// FormatOK reports whether s has the format (FormatEmail, FormatDate); an unknown format
// passes.
func FormatOK(format, s string) bool {
	switch format {
	case FormatEmail:
		if strings.ContainsFunc(s, unicode.IsSpace) || strings.Count(s, "@") != 1 {
			return false
		}
		local, domain, _ := strings.Cut(s, "@")
		return local != "" && strings.Contains(domain, ".") && !strings.HasPrefix(domain, ".") && !strings.HasSuffix(domain, ".")
	case FormatDate:
		_, err := time.Parse(time.DateOnly, s)
		return err == nil && len(s) == len(time.DateOnly)
	}
	return true
}

// Names the bound of a keyword for messages: the number a "minimum", "maximum", "minLength"
// or "maxLength" sets, and whether the property has it.
func (p *Property) Bound(keyword string) (float64, bool) {
	switch keyword {
	case KeyMinimum:
		if p.Minimum != nil {
			return *p.Minimum, true
		}
	case KeyMaximum:
		if p.Maximum != nil {
			return *p.Maximum, true
		}
	case KeyMinLength:
		if p.MinLength != nil {
			return float64(*p.MinLength), true
		}
	case KeyMaxLength:
		if p.MaxLength != nil {
			return float64(*p.MaxLength), true
		}
	}
	return 0, false
}

// Has reports whether the property states the keyword (a "type" it always has).
func (p *Property) Has(keyword string) bool {
	switch keyword {
	case KeyType:
		return true
	case KeyEnum:
		return len(p.Enum) > 0
	case KeyPattern:
		return p.Pattern != ""
	case KeyFormat:
		return p.Format != ""
	}
	_, ok := p.Bound(keyword)
	return ok
}

// equal reports whether two decoded JSON values are equal as JSON.
func equal(a, b any) bool {
	x, err1 := json.Marshal(a)
	y, err2 := json.Marshal(b)
	return err1 == nil && err2 == nil && string(x) == string(y)
}

// text is a decoded JSON value as JSON text, for messages.
func text(v any) string {
	if v == nil {
		return "nothing"
	}
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(b)
}

// num writes a number in its shortest form ("10", "2.5").
func num(f float64) string { return strconv.FormatFloat(f, 'f', -1, 64) }

// argumentName reports whether name is a plain argument name: a letter or _ first, then
// letters, digits and _, at most 64 bytes. A packet's names reach reports, fixtures and the
// learner's task text, so control characters and escapes have no place in them.
func argumentName(name string) bool {
	if name == "" || len(name) > 64 {
		return false
	}
	for i, r := range name {
		letter := r == '_' || ('a' <= r && r <= 'z') || ('A' <= r && r <= 'Z')
		if !letter && (i == 0 || r < '0' || r > '9') {
			return false
		}
	}
	return true
}
