package grader

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/kata-mcp/kata/katas"
)

// TestCheckerReadsTheContract: the checker takes field names, categories, retryability and
// which categories carry Retry-After from the contract, not from Go code. A contract that
// calls its fields kind/retry/wait and lets a transient error carry the wait grades a payload
// in those terms, and each problem names the rule it breaks.
func TestCheckerReadsTheContract(t *testing.T) {
	lib := embeddedLibrary(t)
	f, _ := fixtureByID(t, lib, "mcp-structured-errors", "lookup-unavailable")
	dr := newDrawer(1).draw(f, caseSpec{status: 503})
	c := katas.Contract{
		Categories: map[string]bool{"transient": true, "validation": false},
		Fields: map[string]katas.FieldRule{
			"failed": {Type: katas.FieldBoolean, Required: true, Role: katas.RoleIsError},
			"kind":   {Type: katas.FieldString, Required: true, Role: katas.RoleCategory},
			"retry":  {Type: katas.FieldBoolean, Required: true, Role: katas.RoleRetryable},
			"wait":   {Type: katas.FieldIntegerOrNull, Role: katas.RoleRetryAfter, CarriedBy: []string{"transient"}},
		},
	}
	good := map[string]any{"failed": true, "kind": "transient", "retry": true, "wait": nil}
	if ps := checkCall(f, dr, callOutcome{res: result(good, true)}, c); len(ps) != 0 {
		t.Fatalf("a payload in the contract's own names failed: %q", ps.texts())
	}
	// The standard names mean nothing to this contract: only its own fields count.
	standard := map[string]any{"isError": true, "errorCategory": "transient", "isRetryable": true}
	ps := checkCall(f, dr, callOutcome{res: result(standard, true)}, c)
	if !slices.Equal(ps.rules(), []RuleID{RuleTypedPayload}) {
		t.Errorf("standard names: rules %v (%q); want typed-payload only", ps.rules(), ps.texts())
	}
	cases := []struct {
		name    string
		payload map[string]any
		rules   []RuleID
		text    string
	}{
		{"wrong category", map[string]any{"failed": true, "kind": "validation", "retry": false, "wait": nil}, []RuleID{RuleCategory}, `kind was "validation"; expected "transient"`},
		{"not retryable", map[string]any{"failed": true, "kind": "transient", "retry": false, "wait": nil}, []RuleID{RuleRetryable}, "retry was false; transient is retryable"},
		{"flag disagrees", map[string]any{"failed": false, "kind": "transient", "retry": true}, []RuleID{RuleIsErrorAgrees}, "the payload's failed is false"},
		{"wrong type", map[string]any{"failed": true, "kind": "transient", "retry": "true"}, []RuleID{RuleFieldType}, `retry was "true"`},
		{"missing field", map[string]any{"failed": true, "kind": "transient"}, []RuleID{RuleFieldPresent}, "retry is missing"},
	}
	for _, tc := range cases {
		ps := checkCall(f, dr, callOutcome{res: result(tc.payload, true)}, c)
		if !slices.Equal(ps.rules(), tc.rules) || !strings.Contains(strings.Join(ps.texts(), "\n"), tc.text) {
			t.Errorf("%s: rules %v, problems %q; want %v and %q", tc.name, ps.rules(), ps.texts(), tc.rules, tc.text)
		}
	}
	// carried_by names transient, so a rate_limit contract's "only a rate_limit error carries
	// a wait" becomes the contract's own words.
	f429, _ := fixtureByID(t, lib, "mcp-structured-errors", "lookup-rate-limit-seconds")
	c.Categories["rate_limit"] = true
	dr429 := newDrawer(1).draw(f429, caseSpec{})
	wrong := map[string]any{"failed": true, "kind": "rate_limit", "retry": true, "wait": 17.0}
	ps = checkCall(f429, dr429, callOutcome{res: result(wrong, true), hasRetryAfterSent: true, retryAfterSent: 17}, c)
	if !slices.Equal(ps.rules(), []RuleID{RuleRetryAfterNull}) || !strings.Contains(ps.texts()[0], "only a transient error carries a wait") {
		t.Errorf("carried_by: rules %v, problems %q; want retry-after-null saying only transient carries it", ps.rules(), ps.texts())
	}
}

// TestSchemaType: tools/list wants each tool's inputSchema to be a JSON Schema object.
func TestSchemaType(t *testing.T) {
	for schema, want := range map[string]string{
		`{"type": "object", "properties": {}}`: "object",
		`{"type": "string"}`:                   `"string"`,
		`{"properties": {}}`:                   "(none)",
		`{"type": ["object", "null"]}`:         `["object","null"]`,
	} {
		var v any
		if err := json.Unmarshal([]byte(schema), &v); err != nil {
			t.Fatal(err)
		}
		if got := schemaType(v); got != want {
			t.Errorf("schemaType(%s) = %s; want %s", schema, got, want)
		}
	}
}
