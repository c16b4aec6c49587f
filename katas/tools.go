package katas

import (
	"encoding/json"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strings"

	"github.com/kata-mcp/kata/katas/schema"
)

// BuiltinTools are the tools the grader knows without a declaration: each has its Orders API
// endpoint and success key in the grader itself (docs/grading.md#api-endpoints).
var BuiltinTools = []string{"lookup_order", "search_orders", "process_refund"}

// ToolDefinition declares a tool as data (packet.json "tool_definitions",
// docs/packets.md#tool-definitions), so a kata with a new tool of the same shape needs no Go
// code: the Orders API endpoint the tool's call reaches, the key its success payload carries the
// API's body under, and its input schema in the subset of package schema.
type ToolDefinition struct {
	// Description is the tool's description, as a server would declare it.
	Description string `json:"description"`
	// Endpoint is the Orders API request the tool makes.
	Endpoint Endpoint `json:"endpoint"`
	// Success is the success payload's key ({"return": {…the API's body…}}).
	Success string `json:"success"`
	// InputSchema is the tool's input schema, as JSON (schema.Parse reads it).
	InputSchema json.RawMessage `json:"inputSchema"`

	schema *schema.Schema
}

// Schema is the tool's input schema, parsed; nil only in a manifest with problems.
func (d *ToolDefinition) Schema() *schema.Schema { return d.schema }

// Endpoint is the Orders API request a declared tool makes: its method (POST, the arguments as
// the JSON body), its path, and the argument whose value the request is counted under.
type Endpoint struct {
	Method string `json:"method"`
	Path   string `json:"path"`
	// ID names the argument (a required string) that identifies the request's order.
	ID string `json:"id"`
}

// Definition returns the declaration of the tool, or nil for a built-in or unknown tool.
func (m *Manifest) Definition(tool string) *ToolDefinition { return m.ToolDefinitions[tool] }

var (
	toolNamePattern = regexp.MustCompile(`^[a-z][a-z0-9_]*$`)
	endpointPath    = regexp.MustCompile(`^/[a-z][a-z0-9_]*$`)
	// builtinPaths are the first path segments of the built-in endpoints.
	builtinPaths = []string{"/orders", "/customers", "/refunds"}
	// graderOrderIDs are the shortest and the longest order ids the grader draws
	// (docs/grading.md#api-ids): a declared endpoint's id argument must accept both.
	graderOrderIDs = []string{"ORD-1000", "ORD-990999"}
)

// checkTools checks the manifest's tools against the built-in ones and its declarations, and
// parses each declaration's input schema; every problem names the field.
func (m *Manifest) checkTools(file string, ps *Problems, fieldLine func(string) int) {
	for _, t := range m.Tools {
		if !slices.Contains(BuiltinTools, t) && m.ToolDefinitions[t] == nil {
			ps.add(file, fieldLine("tools"), "tools: %q is neither a built-in tool (%s) nor declared in tool_definitions", t, strings.Join(BuiltinTools, ", "))
		}
	}
	paths := map[string]string{}
	for _, name := range slices.Sorted(maps.Keys(m.ToolDefinitions)) {
		d := m.ToolDefinitions[name]
		line := fieldLine(name)
		bad := func(field, format string, args ...any) {
			ps.add(file, line, "tool_definitions.%s%s: %s", name, field, fmt.Sprintf(format, args...))
		}
		switch {
		case d == nil:
			bad("", "a tool definition is an object")
			continue
		case !toolNamePattern.MatchString(name):
			bad("", "a tool's name is lower-case letters, digits and _")
		case slices.Contains(BuiltinTools, name):
			bad("", "%s is a built-in tool; it needs no definition", name)
		case !slices.Contains(m.Tools, name):
			bad("", "declared but not in tools %v", m.Tools)
		}
		if strings.TrimSpace(d.Description) == "" {
			bad(".description", "is empty")
		}
		if !toolNamePattern.MatchString(d.Success) {
			bad(".success", "names the success payload's key, lower-case letters and _ (found %q)", d.Success)
		}
		e := d.Endpoint
		if e.Method != "POST" {
			bad(".endpoint.method", "is POST, the only method a declared tool has (found %q)", e.Method)
		}
		switch {
		case !endpointPath.MatchString(e.Path) || slices.Contains(builtinPaths, e.Path):
			bad(".endpoint.path", "is one path segment such as /returns, not one of the built-in %s (found %q)", strings.Join(builtinPaths, ", "), e.Path)
		case paths[e.Path] != "":
			bad(".endpoint.path", "%s is the endpoint of %s too", e.Path, paths[e.Path])
		}
		paths[e.Path] = name
		if len(d.InputSchema) == 0 {
			bad(".inputSchema", "is missing")
			continue
		}
		s, probs := schema.Parse(d.InputSchema)
		for _, p := range probs {
			l := line
			if parts := strings.Split(p.Path, "."); len(parts) >= 2 && parts[0] == "properties" {
				if pl := fieldLine(parts[1]); pl > 0 {
					l = pl
				}
			}
			ps.add(file, l, "tool_definitions.%s.inputSchema.%s", name, p.Error())
		}
		if s == nil {
			continue
		}
		d.schema = s
		id := s.Properties[e.ID]
		switch {
		case id == nil || id.Type != schema.TypeString || !s.IsRequired(e.ID):
			bad(".endpoint.id", "names a required string argument of the input schema (found %q)", e.ID)
		default:
			for _, v := range graderOrderIDs {
				if failed := id.Check(v); len(failed) > 0 {
					bad(".endpoint.id", "the argument %q must accept the order ids the grader draws (ORD- and 4 to 6 digits); %q fails its %s", e.ID, v, strings.Join(failed, ", "))
					break
				}
			}
		}
	}
}

// Arguments are a fixture's tool arguments: an object of values (string placeholders allowed,
// see Fixture), or, written as the string "{valid}" (ValidArguments), a valid argument object
// the grader draws from a declared tool's input schema with the run's seed.
type Arguments map[string]any

// ValidArguments is the arguments value that asks for a valid draw.
const ValidArguments = "{valid}"

// SecretLike is the value of a fixture's "set" that puts a secret-like string in an argument
// (docs/grading.md#secret-like).
const SecretLike = "{secret_like}"

// ViolationsFromViolate is expect.violations for a fixture whose arguments the schema finds
// broken: the violations must name exactly those arguments.
const ViolationsFromViolate = "from-violate"

// UnmarshalJSON reads a JSON object, or the string "{valid}".
func (a *Arguments) UnmarshalJSON(b []byte) error {
	var s string
	if json.Unmarshal(b, &s) == nil {
		if s != ValidArguments {
			return fmt.Errorf("arguments is an object, or the string %q (found %q)", ValidArguments, s)
		}
		*a = Arguments{ValidArguments: true}
		return nil
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		return fmt.Errorf("arguments is an object, or the string %q", ValidArguments)
	}
	*a = m
	return nil
}

// MarshalJSON writes "{valid}" for a valid draw, else the object.
func (a Arguments) MarshalJSON() ([]byte, error) {
	if a.Valid() {
		return json.Marshal(ValidArguments)
	}
	return json.Marshal(map[string]any(a))
}

// Valid reports whether the arguments are "{valid}": drawn from the tool's schema.
func (a Arguments) Valid() bool {
	_, ok := a[ValidArguments]
	return ok && len(a) == 1
}

// ParseViolate reads a "violate" entry, "argument:keyword".
func ParseViolate(entry string) (field, keyword string, ok bool) {
	field, keyword, ok = strings.Cut(entry, ":")
	return field, keyword, ok && field != "" && keyword != ""
}

// sampleSecret stands for a drawn secret-like value when a fixture is validated.
const sampleSecret = "sk_live_4eC39HqLyjWDarjtT1zdp7dc"

// checkDeclaredFixture checks a fixture of a declared tool (d; nil when f.Tool is not one) and
// its fields violate, set, repair and expect.violations; bad reports a problem of the fixture.
func checkDeclaredFixture(f Fixture, d *ToolDefinition, m *Manifest, bad func(string, ...any)) {
	e := f.Expect
	if d == nil {
		bad("arguments %q, violate, set, repair and expect.violations are for a tool declared in tool_definitions; %q is not one", ValidArguments, f.Tool)
		return
	}
	if !f.Arguments.Valid() {
		bad("a declared tool's fixture has \"arguments\": %q (the grader draws them from the input schema)", ValidArguments)
		return
	}
	if e.Success != "" && string(e.Success) != d.Success {
		bad("expect.success of %s is %q, its success key", f.Tool, d.Success)
	}
	s := d.Schema()
	if s == nil {
		return // its problems are packet.json's
	}
	touched := map[string]bool{}
	for _, v := range f.Violate {
		field, keyword, ok := ParseViolate(v)
		switch {
		case !ok:
			bad("violate %q is \"argument:keyword\", such as \"quantity:maximum\"", v)
			continue
		case touched[field]:
			bad("violate names %q twice; break an argument one way", field)
		}
		touched[field] = true
		if _, err := s.Forms(field, keyword); err != nil {
			bad("violate %q: %v", v, err)
		}
	}
	broken := len(f.Violate) > 0
	for _, k := range slices.Sorted(maps.Keys(f.Set)) {
		v := f.Set[k]
		if touched[k] {
			bad("set %q: the argument is in violate too", k)
		}
		if str, ok := v.(string); ok && strings.Contains(str, "{") && str != SecretLike {
			bad("set %q: the only placeholder set takes is %q (found %q)", k, SecretLike, str)
			continue
		}
		if v == SecretLike {
			v = sampleSecret
		}
		p := s.Properties[k]
		if p == nil && !s.Closed {
			continue
		}
		if p == nil || len(p.Check(v)) > 0 {
			broken = true
		}
	}
	switch {
	case e.Violations != "" && e.Violations != ViolationsFromViolate:
		bad("expect.violations is %q or absent", ViolationsFromViolate)
	case e.Violations != "" && !broken:
		bad("expect.violations is %q, but violate and set break no argument", ViolationsFromViolate)
	case e.Violations == "" && broken:
		bad("violate or set break an argument, so the fixture expects \"violations\": %q with category validation", ViolationsFromViolate)
	case e.Violations != "":
		if e.Category != "validation" {
			bad("expect.violations goes with category \"validation\"")
		}
		if f.Backend.Kind != BackendNone {
			bad("broken arguments must reach no API: backend kind is none")
		}
		if _, _, ok := m.Contract.Field(RoleViolations); !ok {
			bad("expect.violations needs a contract field with role %q", RoleViolations)
		}
	}
	if f.Repair && e.Violations == "" {
		bad("repair needs broken arguments to repair (violate or set, with expect.violations)")
	}
}
