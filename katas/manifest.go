package katas

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"reflect"
	"regexp"
	"slices"
	"strconv"
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
	// Shims names the built-in protocol shims every workspace of the packet gets, such as
	// "server" (the MCP stdio loop) and "client" (the client harness loop); see ShimsFolder.
	Shims    []string `json:"shims,omitempty"`
	Contract Contract `json:"contract"`
	// Points weighs the task steps (docs/packets.md#points): a step's number, as a JSON key
	// ("2"), to the points the step is worth, shared evenly by the tests that grade it. A step
	// left out is worth one point per test.
	Points map[string]float64 `json:"points,omitempty"`
	// Translations gives the catalog text in other languages (docs/packets.md, "Locale
	// twins"): a two-letter locale ("es", "ru") to its title and summary. A locale left out
	// shows the English text.
	Translations map[string]CatalogText `json:"translations,omitempty"`
	// Terms names, per workspace language, what the task calls by the first language's names
	// (docs/packets.md#terms): a language ("node") to a map from the text of an inline code span
	// of task.md (`call_with_retry`) to that language's own (`callWithRetry`). TASK.md and the
	// task screen read the task in the workspace's language (Packet.TaskIn).
	Terms map[string]map[string]string `json:"terms,omitempty"`
	// ToolDefinitions declares the tools of Tools that are not built in (BuiltinTools), by
	// name: endpoint, success key and input schema, as data (docs/packets.md#tool-definitions).
	ToolDefinitions map[string]*ToolDefinition `json:"tool_definitions,omitempty"`
}

// CatalogText is a packet's title and summary in one language, as the catalog shows them.
type CatalogText struct {
	Title   string `json:"title"`
	Summary string `json:"summary"`
}

// In returns the manifest as read in locale: its title and summary from Translations when it
// has that locale, else unchanged (English).
func (m Manifest) In(locale string) Manifest {
	if t, ok := m.Translations[locale]; ok {
		m.Title, m.Summary = t.Title, t.Summary
	}
	return m
}

// StepPoints returns the points the manifest gives task step n, and whether it gives any (a
// step it leaves out is worth one point per test).
func (m *Manifest) StepPoints(n int) (float64, bool) {
	v, ok := m.Points[strconv.Itoa(n)]
	return v, ok
}

// maxStepPoints bounds one step's points, so a typo such as 1e9 is caught.
const maxStepPoints = 10000

// pointSteps returns the step numbers the manifest weighs, ascending; keys that are not
// step numbers are left out (parseManifest reports them).
func (m *Manifest) pointSteps() []int {
	var out []int
	for k := range m.Points {
		if n, ok := stepKey(k); ok {
			out = append(out, n)
		}
	}
	slices.Sort(out)
	return out
}

// stepKey reads a points key: a step number written as a whole number ≥ 1 without sign or
// leading zeros ("2", not "02" or "+2").
func stepKey(k string) (int, bool) {
	n, err := strconv.Atoi(k)
	return n, err == nil && n >= 1 && strconv.Itoa(n) == k
}

// Contract is a kata's typed error payload as data (docs/grading.md#error-payload): the categories with
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

// FieldRule is one payload field's JSON type, whether an error payload must carry it, and
// the role the grader checks it for (docs/packets.md "The contract").
type FieldRule struct {
	// Type is one of the Field* type constants.
	Type string `json:"type"`
	// Required says the key must be present in every error payload. A field of type
	// integer-or-null or array-or-null that is absent counts as null.
	Required bool `json:"required"`
	// Role is what the field means to the grader beyond its type (one of the Role*
	// constants). Empty means the role of the field's standard name (StandardRoles), or no
	// role: only the type is checked.
	Role FieldRole `json:"role,omitempty"`
	// CarriedBy, for RoleRetryAfter, lists the categories whose payload carries the wait the
	// API asked for; every other category has null. Empty means ["rate_limit"].
	CarriedBy []string `json:"carried_by,omitempty"`
}

// FieldRole is what a contract field means to the grader's checks (docs/grading.md, "The
// typed error payload").
type FieldRole string

// Field roles. Each may be given to at most one field of a contract.
const (
	// RoleIsError: a boolean that must agree with the CallToolResult's isError.
	RoleIsError FieldRole = "is-error"
	// RoleCategory: a string naming the failure's category, one of the contract's.
	RoleCategory FieldRole = "category"
	// RoleRetryable: a boolean equal to the category's retryability in the contract.
	RoleRetryable FieldRole = "retryable"
	// RoleRetryAfter: whole seconds from the API's Retry-After (RFC 9110 §10.2.3) for the
	// categories in CarriedBy, null otherwise.
	RoleRetryAfter FieldRole = "retry-after"
	// RoleAttemptedQuery: a string containing every argument value of the call.
	RoleAttemptedQuery FieldRole = "attempted-query"
	// RolePartialResults: the orders fetched before the failure, in order, or null.
	RolePartialResults FieldRole = "partial-results"
	// RoleArgument: for a validation error, the name of the argument at fault, exactly as
	// in the tool's input schema.
	RoleArgument FieldRole = "argument"
	// RoleViolations: for a validation error of a declared tool, every argument that fails
	// the input schema, each once ({field, constraint, expected, received}); absent or empty
	// for any other category (docs/grading.md#violations).
	RoleViolations FieldRole = "violations"
	// RoleCustomerMessage: a text that may be shown to the customer as it is, so it holds no
	// URL or host of the API, no stack trace or exception type and no HTTP status code
	// (docs/grading.md#result-text). A message for the model and the log has no role.
	RoleCustomerMessage FieldRole = "customer-message"
)

// fieldRoles are every FieldRole with the field type it needs.
var fieldRoles = map[FieldRole]string{
	RoleIsError:         FieldBoolean,
	RoleCategory:        FieldString,
	RoleRetryable:       FieldBoolean,
	RoleRetryAfter:      FieldIntegerOrNull,
	RoleAttemptedQuery:  FieldString,
	RolePartialResults:  FieldArrayOrNull,
	RoleArgument:        FieldString,
	RoleViolations:      FieldArrayOrNull,
	RoleCustomerMessage: FieldNonEmptyString,
}

// StandardRoles maps the conventional field names to their roles: a field with one of these
// names and no "role" has that role.
var StandardRoles = map[string]FieldRole{
	"isError":           RoleIsError,
	"errorCategory":     RoleCategory,
	"isRetryable":       RoleRetryable,
	"retryAfterSeconds": RoleRetryAfter,
	"attemptedQuery":    RoleAttemptedQuery,
	"partialResults":    RolePartialResults,
	"field":             RoleArgument,
	"violations":        RoleViolations,
}

// defaultCarriedBy is the category whose payload carries Retry-After when a retry-after field
// does not say.
const defaultCarriedBy = "rate_limit"

// RoleOf returns the role of the field name: its own "role", else its standard name's.
func (c Contract) RoleOf(name string) FieldRole {
	if r := c.Fields[name].Role; r != "" {
		return r
	}
	return StandardRoles[name]
}

// Field returns the name and rule of the field with the given role; ok is false when the
// contract has none.
func (c Contract) Field(role FieldRole) (name string, rule FieldRule, ok bool) {
	for _, n := range c.FieldNames() {
		if c.RoleOf(n) == role {
			return n, c.Fields[n], true
		}
	}
	return "", FieldRule{}, false
}

// Retryable reports the contract's retryability for category (false for an unknown one).
func (c Contract) Retryable(category string) bool { return c.Categories[category] }

// CarriesWait reports whether a payload of category carries the Retry-After wait in the
// contract's retry-after field (false when the contract has none).
func (c Contract) CarriesWait(category string) bool {
	_, rule, ok := c.Field(RoleRetryAfter)
	if !ok {
		return false
	}
	if len(rule.CarriedBy) == 0 {
		return category == defaultCarriedBy
	}
	return slices.Contains(rule.CarriedBy, category)
}

// WaitCarriers lists the categories whose payload carries the wait (see CarriesWait).
func (c Contract) WaitCarriers() []string {
	_, rule, ok := c.Field(RoleRetryAfter)
	switch {
	case !ok:
		return nil
	case len(rule.CarriedBy) == 0:
		return []string{defaultCarriedBy}
	}
	return rule.CarriedBy
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
func (c Contract) FieldNames() []string { return slices.Sorted(maps.Keys(c.Fields)) }

// CategoryNames returns the contract's categories sorted.
func (c Contract) CategoryNames() []string { return slices.Sorted(maps.Keys(c.Categories)) }

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
		case !slices.Contains(LayerNames, l):
			ps.add(file, fieldLine("layers"), "unknown layer %q (known: %s)", l, strings.Join(LayerNames, ", "))
		case seen[l]:
			ps.add(file, fieldLine("layers"), "layer %q is listed twice", l)
		}
		seen[l] = true
	}
	for _, g := range m.Graded {
		if !slices.Contains(gradedParts, g) {
			ps.add(file, fieldLine("graded"), "unknown graded part %q (known: server, client, config)", g)
		}
	}
	for _, lang := range m.Languages {
		if !idPattern.MatchString(lang) {
			ps.add(file, fieldLine("languages"), "language %q must be a lower-case name such as python, node or go", lang)
		}
	}
	for _, k := range slices.Sorted(maps.Keys(m.Points)) {
		v := m.Points[k]
		switch _, ok := stepKey(k); {
		case !ok:
			ps.add(file, fieldLine(k), "points: key %q is not a task step number (write the step's number, such as \"2\", for \"## 2.\" of task.md)", k)
		case v <= 0 || v > maxStepPoints:
			ps.add(file, fieldLine(k), "points: step %s is worth %v points; a step is worth more than 0 and at most %d", k, v, maxStepPoints)
		}
	}
	for _, loc := range slices.Sorted(maps.Keys(m.Translations)) {
		t := m.Translations[loc]
		switch {
		case len(loc) != 2 || strings.ToLower(loc) != loc || loc == English:
			ps.add(file, fieldLine(loc), "translations: key %q is not a two-letter locale other than English (such as \"es\")", loc)
		case strings.TrimSpace(t.Title) == "" || strings.TrimSpace(t.Summary) == "":
			ps.add(file, fieldLine(loc), "translations: %q needs both a title and a summary", loc)
		}
	}
	m.checkTerms(file, ps, fieldLine)
	m.checkTools(file, ps, fieldLine)
	if len(m.Points) > 0 && len(m.Graded) == 0 {
		ps.add(file, fieldLine("points"), "points weighs task steps, but the packet grades nothing (graded is empty)")
	}
	roleOf := map[FieldRole]string{}
	for _, name := range m.Contract.FieldNames() {
		f := m.Contract.Fields[name]
		switch f.Type {
		case FieldBoolean, FieldString, FieldNonEmptyString, FieldIntegerOrNull, FieldArrayOrNull:
		default:
			ps.add(file, fieldLine(name), "contract field %q has unknown type %q", name, f.Type)
		}
		role := m.Contract.RoleOf(name)
		if len(f.CarriedBy) > 0 && role != RoleRetryAfter {
			ps.add(file, fieldLine(name), "contract field %q has carried_by, which only a %q field takes", name, RoleRetryAfter)
		}
		if role == "" {
			continue
		}
		want, known := fieldRoles[role]
		switch {
		case !known:
			ps.add(file, fieldLine(name), "contract field %q has unknown role %q (known: %s)", name, role, strings.Join(roleNames(), ", "))
		case want != f.Type && !(want == FieldString && f.Type == FieldNonEmptyString):
			ps.add(file, fieldLine(name), "contract field %q has role %q, which needs type %q (it is %q)", name, role, want, f.Type)
		case roleOf[role] != "":
			ps.add(file, fieldLine(name), "contract fields %q and %q both have role %q; a role belongs to one field", roleOf[role], name, role)
		}
		roleOf[role] = name
	}
	if len(m.Graded) > 0 && len(m.Contract.Categories) == 0 && m.Contract.CategoriesFrom == "" {
		ps.add(file, fieldLine("contract"), "a graded packet needs contract.categories")
	}
	if len(m.Graded) > 0 && len(m.Contract.Fields) > 0 {
		for _, role := range []FieldRole{RoleIsError, RoleCategory, RoleRetryable} {
			if _, _, ok := m.Contract.Field(role); !ok {
				ps.add(file, fieldLine("fields"), "the contract has no field with role %q (every typed error says %s)", role, map[FieldRole]string{RoleIsError: "that it is an error", RoleCategory: "its category", RoleRetryable: "whether it is retryable"}[role])
			}
		}
	}
	return &m
}

// decodeStrict decodes JSON into v, rejecting a BOM, invalid UTF-8 and duplicate keys
// (JSONTextProblem), unknown fields and trailing data, and turns the decoder's offsets into
// file:line errors. Every string it decodes is made safe for a terminal (sanitizeStrings): a
// "\u001b" in a title or a fixture name is gone before anything prints it.
func decodeStrict(file string, src []byte, v any) error {
	if line, msg := JSONTextProblem(src); line > 0 {
		return errAt(file, line, "%s", msg)
	}
	dec := json.NewDecoder(bytes.NewReader(src))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		var syn *json.SyntaxError
		var typ *json.UnmarshalTypeError
		switch {
		case errors.As(err, &syn):
			return errAt(file, lineOf(src, int(syn.Offset)), "invalid JSON: %v", syn)
		case errors.As(err, &typ):
			return errAt(file, lineOf(src, int(typ.Offset)), "field %q: expected %s, found JSON %s", typ.Field, jsonKind(typ.Type), typ.Value)
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
	sanitizeStrings(reflect.ValueOf(v))
	return nil
}

// jsonKind names a Go type the decoder wanted in JSON's terms: "a JSON number" for float64
// or int, "a JSON array" for a slice, and so on; other types by their Go name.
func jsonKind(t reflect.Type) string {
	switch t.Kind() {
	case reflect.Float32, reflect.Float64, reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return "a JSON number"
	case reflect.String:
		return "a JSON string"
	case reflect.Bool:
		return "a JSON boolean"
	case reflect.Slice, reflect.Array:
		return "a JSON array"
	case reflect.Map, reflect.Struct:
		return "a JSON object"
	}
	return t.String()
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

// roleNames lists the known field roles, sorted.
func roleNames() []string {
	var out []string
	for r := range fieldRoles {
		out = append(out, string(r))
	}
	slices.Sort(out)
	return out
}

// String gives "id vVersion" for logs.
func (m *Manifest) String() string { return fmt.Sprintf("%s v%s", m.ID, m.Version) }
