package schema

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"
)

// phrases are the words a string without examples is drawn from (a note, a comment).
var phrases = []string{"Box arrived dented.", "Ordered the wrong size by mistake.", "Leave it at the door.",
	"The lid was cracked.", "Gift, no invoice please.", "Colour differs from the photo."}

// Draw draws a valid argument object: every required argument, and every optional one when
// optional is true (none when false). Which optional arguments a call carries is the caller's
// choice, never the seed's, so that a fault that shows only with (or only without) an optional
// argument is caught in every run.
func (s *Schema) Draw(rng *rand.Rand, optional bool) map[string]any {
	out := map[string]any{}
	for _, n := range s.Names() {
		if s.IsRequired(n) || optional {
			out[n] = s.Properties[n].Draw(rng)
		}
	}
	return out
}

// Draw draws a valid value of the property: one of its enum values, else one of its
// examples, else a number within its bounds or a string within its lengths.
func (p *Property) Draw(rng *rand.Rand) any {
	switch {
	case len(p.Enum) > 0:
		return p.Enum[rng.IntN(len(p.Enum))]
	case len(p.Examples) > 0:
		return p.Examples[rng.IntN(len(p.Examples))]
	}
	switch p.Type {
	case TypeBoolean:
		return rng.IntN(2) == 0
	case TypeInteger, TypeNumber:
		lo, hi := p.span()
		if p.Type == TypeInteger {
			lo, hi = math.Ceil(lo), math.Floor(hi)
			return lo + float64(rng.IntN(int(hi-lo)+1))
		}
		return math.Round((lo+rng.Float64()*(hi-lo))*100) / 100
	}
	s := phrases[rng.IntN(len(phrases))]
	return fitLength(s, p.MinLength, p.MaxLength)
}

// span is the range a number is drawn from: the bounds, or 100 wide beside the one given.
func (p *Property) span() (lo, hi float64) {
	switch {
	case p.Minimum != nil && p.Maximum != nil:
		return *p.Minimum, *p.Maximum
	case p.Minimum != nil:
		return *p.Minimum, *p.Minimum + 100
	case p.Maximum != nil:
		return *p.Maximum - 100, *p.Maximum
	}
	return 1, 100
}

// fitLength pads s with "x" or cuts it to lie within the lengths, in characters.
func fitLength(s string, minLen, maxLen *int) string {
	if minLen != nil {
		if n := utf8.RuneCountInString(s); n < *minLen {
			s += strings.Repeat("x", *minLen-n)
		}
	}
	if maxLen != nil && utf8.RuneCountInString(s) > *maxLen {
		s = string([]rune(s)[:*maxLen])
	}
	return s
}

// Form is one way of breaking an argument by a keyword: its name, the same in every run, and
// how it changes a valid argument object (its values drawn from rng).
type Form struct {
	Name  string
	apply func(rng *rand.Rand, args map[string]any)
}

// Apply breaks args in place as the form says: field's value replaced, removed, or an
// invented argument added. Where the form's drawn value would fail more keywords than the one
// it breaks, it draws again (a few times), so the argument fails that keyword alone whenever
// the schema allows it.
func (s *Schema) Apply(f Form, field, keyword string, rng *rand.Rand, args map[string]any) {
	orig, had := args[field]
	for range 16 {
		if had {
			args[field] = orig
		}
		f.apply(rng, args)
		if got := Broken(s.Validate(args))[field]; len(got) == 1 && got[0] == keyword {
			return
		}
	}
}

// Forms lists the forms that break field by keyword, in a fixed order: the same list for the
// same schema under every seed (a run tries every one). For "additionalProperties" field is
// the invented argument's name, which the schema must not declare. Each form is kept only
// when it breaks the keyword for every example and every probe draw, so the list never
// depends on a seed. An error says why the keyword cannot break the field.
func (s *Schema) Forms(field, keyword string) ([]Form, error) {
	if keyword == KeyAdditionalProperties {
		switch {
		case !s.Closed:
			return nil, fmt.Errorf("the schema does not set additionalProperties: false, so an invented argument %q breaks nothing", field)
		case s.Properties[field] != nil:
			return nil, fmt.Errorf("%q is an argument of the schema; additionalProperties takes the name of an invented one", field)
		}
		return []Form{{"an invented argument", func(rng *rand.Rand, args map[string]any) { args[field] = float64(1 + rng.IntN(9)) }}}, nil
	}
	p := s.Properties[field]
	if p == nil {
		return nil, fmt.Errorf("%q is not an argument of the schema (%s)", field, strings.Join(s.Names(), ", "))
	}
	if keyword == KeyRequired {
		if !s.IsRequired(field) {
			return nil, fmt.Errorf("%q is not required, so leaving it out breaks nothing", field)
		}
		return []Form{{"left out", func(_ *rand.Rand, args map[string]any) { delete(args, field) }}}, nil
	}
	if !slices.Contains(Keywords, keyword) {
		return nil, fmt.Errorf("unknown keyword %q (known: %s)", keyword, strings.Join(Keywords, ", "))
	}
	if !p.Has(keyword) {
		return nil, fmt.Errorf("the property %q has no %s", field, keyword)
	}
	var kept []Form
	for _, c := range p.candidates(keyword) {
		ok := true
		for seed := range uint64(4) {
			rng := rand.New(rand.NewPCG(seed, 1))
			for _, valid := range p.probes(rng) {
				if !slices.Contains(p.Check(c.make(rng, valid)), keyword) {
					ok = false
				}
			}
		}
		if ok {
			kept = append(kept, Form{c.name, func(rng *rand.Rand, args map[string]any) {
				valid, had := args[field]
				if !had {
					valid = p.Draw(rng)
				}
				args[field] = c.make(rng, valid)
			}})
		}
	}
	if len(kept) == 0 {
		return nil, fmt.Errorf("the grader has no way to break %q by %s that works for its examples", field, keyword)
	}
	return kept, nil
}

// probes are the valid values a candidate form is tried on: every example, else a draw.
func (p *Property) probes(rng *rand.Rand) []any {
	if len(p.Examples) > 0 {
		return p.Examples
	}
	return []any{p.Draw(rng)}
}

// candidate is a way to break a valid value by a keyword.
type candidate struct {
	name string
	make func(rng *rand.Rand, valid any) any
}

// nearMisses are words a model may send for an enum value: each fails a string enum unless
// the enum has it.
var nearMisses = []string{"broken", "other", "unknown", "n/a", "misc"}

// candidates lists the ways the grader knows to break a value by keyword, in a fixed order.
func (p *Property) candidates(keyword string) []candidate {
	str := func(v any) string { s, _ := v.(string); return s }
	switch keyword {
	case KeyType:
		switch p.Type {
		case TypeString:
			return []candidate{{"a number", func(rng *rand.Rand, _ any) any { return float64(1000 + rng.IntN(9000)) }}}
		case TypeBoolean:
			return []candidate{{"a string", func(_ *rand.Rand, v any) any { return fmt.Sprint(v) }}}
		case TypeInteger:
			return []candidate{
				{"a string", func(_ *rand.Rand, v any) any { return num(v.(float64)) }},
				{"a fraction", func(_ *rand.Rand, v any) any { return v.(float64) + 0.5 }},
			}
		}
		return []candidate{{"a string", func(_ *rand.Rand, v any) any { return num(v.(float64)) }}}
	case KeyMinimum:
		step := p.step()
		return []candidate{
			{"just below", func(_ *rand.Rand, _ any) any { return *p.Minimum - step }},
			{"far below", func(rng *rand.Rand, _ any) any { return *p.Minimum - step*float64(2+rng.IntN(1000)) }},
		}
	case KeyMaximum:
		step := p.step()
		return []candidate{
			{"just above", func(_ *rand.Rand, _ any) any { return *p.Maximum + step }},
			{"far above", func(rng *rand.Rand, _ any) any { return *p.Maximum + step*float64(2+rng.IntN(1000)) }},
		}
	case KeyMaxLength:
		return []candidate{{"one character too long", func(rng *rand.Rand, _ any) any {
			n := *p.MaxLength + 1
			return fitLength(strings.Repeat(phrases[rng.IntN(len(phrases))]+" ", n/8+1), &n, &n)
		}}}
	case KeyMinLength:
		return []candidate{{"one character too short", func(rng *rand.Rand, _ any) any {
			n := max(*p.MinLength-1, 0)
			return fitLength(phrases[rng.IntN(len(phrases))], &n, &n)
		}}}
	case KeyEnum:
		if p.Type != TypeString {
			return []candidate{{"a value not listed", func(rng *rand.Rand, v any) any {
				n, _ := v.(float64)
				for range 16 {
					if c := n + float64(1+rng.IntN(1000)); p.enumLacks(c) {
						return c
					}
				}
				return p.enumMax() + 1 // an enum of every value near n: past its largest
			}}}
		}
		return []candidate{
			{"capitalised", func(_ *rand.Rand, v any) any { return capitalise(str(v)) }},
			{"cut short", func(_ *rand.Rand, v any) any { r := []rune(str(v)); return string(r[:max(len(r)-1, 0)]) }},
			{"another word", func(rng *rand.Rand, _ any) any {
				words := slices.DeleteFunc(slices.Clone(nearMisses), func(w string) bool { return !p.enumLacks(w) })
				if len(words) == 0 {
					return nearMisses[0] // listed, so Forms drops the form
				}
				return words[rng.IntN(len(words))]
			}},
		}
	case KeyPattern:
		return []candidate{
			{"lower case", func(_ *rand.Rand, v any) any { return strings.ToLower(str(v)) }},
			{"prefix missing", func(_ *rand.Rand, v any) any { return dropPrefix(str(v)) }},
			{"too many digits", func(rng *rand.Rand, v any) any { return str(v) + digits(rng, 9) }},
			{"a space inside", func(_ *rand.Rand, v any) any { return spaceInside(str(v)) }},
		}
	case KeyFormat:
		if p.Format == FormatDate {
			return []candidate{
				{"day first", func(_ *rand.Rand, v any) any { s := str(v); return s[8:] + s[4:8] + s[:4] }},
				{"slashes", func(_ *rand.Rand, v any) any { return strings.ReplaceAll(str(v), "-", "/") }},
				{"no such day", func(rng *rand.Rand, v any) any { return str(v)[:5] + "02-3" + fmt.Sprint(rng.IntN(2)) }},
			}
		}
		return []candidate{
			{"no @", func(_ *rand.Rand, v any) any { return strings.Replace(str(v), "@", ".", 1) }},
			{"two @", func(_ *rand.Rand, v any) any { return strings.Replace(str(v), "@", "@@", 1) }},
			{"no dot in the domain", func(_ *rand.Rand, v any) any {
				local, domain, _ := strings.Cut(str(v), "@")
				return local + "@" + strings.ReplaceAll(domain, ".", "")
			}},
			{"a space inside", func(_ *rand.Rand, v any) any { return spaceInside(str(v)) }},
		}
	}
	return nil
}

// step is the smallest move that leaves a bound: 1 for an integer, 0.01 for a number.
func (p *Property) step() float64 {
	if p.Type == TypeInteger {
		return 1
	}
	return 0.01
}

// enumLacks reports whether v is not one of the enum's values.
func (p *Property) enumLacks(v any) bool {
	return !slices.ContainsFunc(p.Enum, func(e any) bool { return equal(e, v) })
}

// enumMax is the largest number of a numeric enum.
func (p *Property) enumMax() float64 {
	m := math.Inf(-1)
	for _, e := range p.Enum {
		if n, ok := e.(float64); ok {
			m = max(m, n)
		}
	}
	return m
}

// capitalise upper-cases the first letter, or every letter when the first already is.
func capitalise(s string) string {
	r := []rune(s)
	if len(r) == 0 {
		return "X"
	}
	if unicode.IsUpper(r[0]) {
		return strings.ToUpper(s)
	}
	r[0] = unicode.ToUpper(r[0])
	return string(r)
}

// dropPrefix removes a leading run of letters and the separator after it ("ORD-8821" →
// "8821"), or the first character when there is no such run.
func dropPrefix(s string) string {
	i := strings.IndexFunc(s, func(r rune) bool { return !unicode.IsLetter(r) })
	switch {
	case i > 0 && i < len(s) && !unicode.IsDigit(rune(s[i])):
		return s[i+1:]
	case i > 0:
		return s[i:]
	case len(s) > 0:
		return s[1:]
	}
	return s
}

// spaceInside puts a space in the middle of s, in place of a separator when it has one.
func spaceInside(s string) string {
	if i := strings.IndexAny(s, "-_."); i > 0 {
		return s[:i] + " " + s[i+1:]
	}
	r := []rune(s)
	return string(r[:len(r)/2]) + " " + string(r[len(r)/2:])
}

// digits draws n ASCII digits.
func digits(rng *rand.Rand, n int) string {
	var b strings.Builder
	for range n {
		b.WriteByte(byte('0' + rng.IntN(10)))
	}
	return b.String()
}
