package katas

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"sort"
	"strings"
)

// FormatVersion is the packet format this build reads (docs/packets.md).
const FormatVersion = 1

// LayerNames are the five layers every packet has, in their canonical order.
var LayerNames = []string{"knowledge", "prompts", "examples", "agents", "templates"}

// Manifest is a packet's packet.json: identity, catalog text, what is graded, and the typed
// error contract. Field names follow docs/packets.md.
type Manifest struct {
	FormatVersion int      `json:"format_version"`
	ID            string   `json:"id"`
	Title         string   `json:"title"`
	Version       string   `json:"version"`
	Summary       string   `json:"summary"`
	Scenarios     []string `json:"scenarios"`
	Related       []string `json:"related"`
	Layers        []string `json:"layers"`
	Graded        []string `json:"graded"`
	Tools         []string `json:"tools"`
	Languages     []string `json:"languages"`
	Contract      Contract `json:"contract"`
}

// Contract is a kata's typed error payload as data (exercise-orders.md §4): the categories with
// each one's retryability, and the payload fields with their JSON types. One generic checker in
// the grader applies it, so a new kata needs no Go code.
type Contract struct {
	// Categories maps errorCategory → isRetryable (for example "rate_limit" → true).
	Categories map[string]bool `json:"categories"`
	// CategoriesFrom, when set, names an asset (e.g. "assets/typed-error.json") whose rows'
	// errorCategory and isRetryable give Categories, so the table exists once.
	CategoriesFrom string `json:"categories_from,omitempty"`
	// Fields maps a payload field name to its rule.
	Fields map[string]FieldRule `json:"fields"`
}

// FieldRule is one payload field's JSON type and whether an error payload must carry it.
type FieldRule struct {
	// Type is one of the FieldType* constants.
	Type string `json:"type"`
	// Required says the key must be present in every error payload. A field of type
	// integer-or-null or array-or-null that is absent counts as null.
	Required bool `json:"required"`
}

// Field types a contract may name.
const (
	FieldBoolean        = "boolean"
	FieldString         = "string"
	FieldNonEmptyString = "non-empty-string"
	FieldIntegerOrNull  = "integer-or-null"
	FieldArrayOrNull    = "array-or-null"
)

// FieldNames returns the contract's field names sorted, for stable output.
func (c Contract) FieldNames() []string {
	names := make([]string, 0, len(c.Fields))
	for n := range c.Fields {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// CategoryNames returns the contract's categories sorted.
func (c Contract) CategoryNames() []string {
	names := make([]string, 0, len(c.Categories))
	for n := range c.Categories {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// gradedParts are the parts a packet may grade, each with fixtures/<part>.json.
var gradedParts = []string{"server", "client", "config"}

var idPattern = regexp.MustCompile(`^[a-z0-9]+(-[a-z0-9]+)*$`)

// ParseManifest decodes packet.json. file names the file in errors; unknown fields, a wrong
// format_version, a missing id/title/layer list and unknown field types are problems that
// carry the file and, where the JSON decoder knows it, the line. Every problem is reported
// (the error, when not nil, is Problems).
func ParseManifest(file string, src []byte) (*Manifest, error) {
	return collect(func(ps *Problems) *Manifest { return parseManifest(file, src, ps) })
}

// parseManifest decodes packet.json and records every problem in ps. It returns nil only when
// the JSON itself cannot be decoded.
func parseManifest(file string, src []byte, ps *Problems) *Manifest {
	var m Manifest
	if err := decodeStrict(file, src, &m); err != nil {
		ps.addErr(file, err)
		return nil
	}
	fieldLine := func(name string) int { return jsonKeyLine(src, name) }
	if m.FormatVersion != FormatVersion {
		ps.add(file, fieldLine("format_version"), "format_version is %d; this build reads %d", m.FormatVersion, FormatVersion)
	}
	if !idPattern.MatchString(m.ID) {
		ps.add(file, fieldLine("id"), "id %q must be lower-case words joined by '-'", m.ID)
	}
	if strings.TrimSpace(m.Title) == "" {
		ps.add(file, fieldLine("title"), "title is missing")
	}
	if len(m.Layers) == 0 {
		ps.add(file, fieldLine("layers"), "layers is empty; a packet has %s", strings.Join(LayerNames, ", "))
	}
	seen := map[string]bool{}
	for _, l := range m.Layers {
		switch {
		case !contains(LayerNames, l):
			ps.add(file, fieldLine("layers"), "unknown layer %q (known: %s)", l, strings.Join(LayerNames, ", "))
		case seen[l]:
			ps.add(file, fieldLine("layers"), "layer %q is listed twice", l)
		}
		seen[l] = true
	}
	for _, g := range m.Graded {
		if !contains(gradedParts, g) {
			ps.add(file, fieldLine("graded"), "unknown graded part %q (known: server, client, config)", g)
		}
	}
	for _, lang := range m.Languages {
		if !idPattern.MatchString(lang) {
			ps.add(file, fieldLine("languages"), "language %q must be a lower-case name such as python, node or go", lang)
		}
	}
	for _, name := range m.Contract.FieldNames() {
		switch f := m.Contract.Fields[name]; f.Type {
		case FieldBoolean, FieldString, FieldNonEmptyString, FieldIntegerOrNull, FieldArrayOrNull:
		default:
			ps.add(file, fieldLine(name), "contract field %q has unknown type %q", name, f.Type)
		}
	}
	if len(m.Graded) > 0 && len(m.Contract.Categories) == 0 && m.Contract.CategoriesFrom == "" {
		ps.add(file, fieldLine("contract"), "a graded packet needs contract.categories")
	}
	return &m
}

// decodeStrict decodes JSON into v, rejecting unknown fields and trailing data, and turns the
// decoder's offsets into file:line errors.
func decodeStrict(file string, src []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(src))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		var syn *json.SyntaxError
		var typ *json.UnmarshalTypeError
		switch {
		case errors.As(err, &syn):
			return errAt(file, lineOf(src, int(syn.Offset)), "invalid JSON: %v", syn)
		case errors.As(err, &typ):
			return errAt(file, lineOf(src, int(typ.Offset)), "field %q: expected %s, found JSON %s", typ.Field, typ.Type, typ.Value)
		case strings.HasPrefix(err.Error(), "json: unknown field "):
			name := strings.Trim(strings.TrimPrefix(err.Error(), "json: unknown field "), `"`)
			return errAt(file, jsonKeyLine(src, name), "unknown field %q", name)
		default:
			return errAt(file, lineOf(src, int(dec.InputOffset())), "invalid JSON: %v", err)
		}
	}
	if dec.More() {
		return errAt(file, lineOf(src, int(dec.InputOffset())), "unexpected data after the JSON value")
	}
	return nil
}

// jsonKeyLine finds the line of the first `"name":` key in src, or 0.
func jsonKeyLine(src []byte, name string) int {
	dec := json.NewDecoder(bytes.NewReader(src))
	for {
		tok, err := dec.Token()
		if err != nil {
			return 0
		}
		if s, ok := tok.(string); ok && s == name {
			off := int(dec.InputOffset())
			// A key is followed by ':'; a value is not.
			rest := bytes.TrimLeft(src[off:], " \t\r\n")
			if len(rest) > 0 && rest[0] == ':' {
				return lineOf(src, off)
			}
		}
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// String gives "id vVersion" for logs.
func (m *Manifest) String() string { return fmt.Sprintf("%s v%s", m.ID, m.Version) }
