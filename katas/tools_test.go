package katas

import (
	"strings"
	"testing"
)

// returnsManifest is a packet.json declaring create_return as the validation-retry design
// does; edit replaces one string of it.
const returnsManifest = `{
  "format_version": 1, "id": "returns", "title": "Returns", "version": "1.0.0", "summary": "s",
  "layers": ["knowledge"], "graded": ["server"], "languages": ["python"],
  "tools": ["create_return", "lookup_order"],
  "tool_definitions": {
    "create_return": {
      "description": "Open a return for items of one order.",
      "endpoint": {"method": "POST", "path": "/returns", "id": "order_id"},
      "success": "return",
      "inputSchema": {
        "type": "object",
        "properties": {
          "order_id": {"type": "string", "pattern": "^ORD-[0-9]{4,8}$", "examples": ["ORD-8821"]},
          "quantity": {"type": "integer", "minimum": 1, "maximum": 10},
          "reason": {"type": "string", "enum": ["damaged", "wrong_item"]},
          "email": {"type": "string", "format": "email", "examples": ["ana.lopez@example.com"]},
          "note": {"type": "string", "maxLength": 200}
        },
        "required": ["order_id", "quantity", "reason", "email"],
        "additionalProperties": false
      }
    }
  },
  "contract": {
    "categories": {"validation": false, "transient": true},
    "fields": {
      "isError": {"type": "boolean", "required": true},
      "errorCategory": {"type": "string", "required": true},
      "isRetryable": {"type": "boolean", "required": true},
      "violations": {"type": "array-or-null", "required": false}
    }
  }
}`

// TestToolDefinitions: the design's declaration loads; each thing wrong with one is a
// problem naming the field, on the line of the tool or the property.
func TestToolDefinitions(t *testing.T) {
	m, err := ParseManifest("packet.json", []byte(returnsManifest))
	if err != nil {
		t.Fatal(err)
	}
	d := m.Definition("create_return")
	if d == nil || d.Schema() == nil || d.Schema().Properties["quantity"] == nil || m.Definition("lookup_order") != nil {
		t.Fatalf("create_return: %+v", d)
	}
	cases := []struct{ name, old, new, want string }{
		{"tool neither built in nor declared", `"lookup_order"]`, `"cancel_return"]`, `tools: "cancel_return" is neither a built-in tool`},
		{"declared but not listed", `"tools": ["create_return", "lookup_order"]`, `"tools": ["lookup_order"]`, "tool_definitions.create_return: declared but not in tools"},
		{"unknown keyword", `"maxLength": 200}`, `"maxLength": 200, "const": "x"}`, `tool_definitions.create_return.inputSchema.properties.note.const: unknown keyword "const"`},
		{"pattern does not compile", `^ORD-[0-9]{4,8}$`, `^ORD-[0-9{4,8}$`, "properties.order_id.pattern: pattern \"^ORD-[0-9{4,8}$\" does not compile"},
		{"pattern without examples", `, "examples": ["ORD-8821"]`, ``, "properties.order_id.examples: a string property with pattern or format gives examples"},
		{"format without examples", `, "examples": ["ana.lopez@example.com"]`, ``, "properties.email.examples: a string property with pattern or format gives examples"},
		{"example fails its schema", `"examples": ["ORD-8821"]`, `"examples": ["ORD-88"]`, `properties.order_id.examples: example 1 ("ORD-88") fails its own schema: pattern`},
		{"method", `"method": "POST"`, `"method": "GET"`, "tool_definitions.create_return.endpoint.method: is POST"},
		{"built-in path", `"path": "/returns"`, `"path": "/refunds"`, "tool_definitions.create_return.endpoint.path"},
		{"id not a property", `"id": "order_id"`, `"id": "order"`, "tool_definitions.create_return.endpoint.id: names a required string argument"},
		{"id refuses the grader's ids", `^ORD-[0-9]{4,8}$`, `^ORD-[0-9]{4}$`, `"ORD-990999" fails its pattern`},
		{"success key", `"success": "return"`, `"success": ""`, "tool_definitions.create_return.success"},
		{"empty description", `"description": "Open a return for items of one order."`, `"description": " "`, "tool_definitions.create_return.description: is empty"},
		{"built-in declared", `"tool_definitions": {`, `"tool_definitions": {"lookup_order": {"description": "x", "endpoint": {"method": "POST", "path": "/lookups", "id": "order_id"}, "success": "order", "inputSchema": {"type": "object", "properties": {"order_id": {"type": "string"}}, "required": ["order_id"]}},`, "lookup_order is a built-in tool"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if !strings.Contains(returnsManifest, c.old) {
				t.Fatalf("the manifest has no %q", c.old)
			}
			_, err := ParseManifest("packet.json", []byte(strings.Replace(returnsManifest, c.old, c.new, 1)))
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("got %v\nwant a problem saying %q", err, c.want)
			}
			if err != nil && !strings.Contains(err.Error(), "packet.json:") {
				t.Errorf("no line: %v", err)
			}
		})
	}
}

// TestDeclaredToolFixtures: "{valid}", violate, set, repair and expect.violations load for a
// declared tool, and every unknown or contradictory combination is a problem naming the
// fixture's id.
func TestDeclaredToolFixtures(t *testing.T) {
	m, err := ParseManifest("packet.json", []byte(returnsManifest))
	if err != nil {
		t.Fatal(err)
	}
	fixture := func(body string) string {
		return `{"part": "server", "fixtures": [{"id": "fx", "name": "n", "task": 1, "rule": "r", "tool": "create_return", ` + body + `}]}`
	}
	const ok = `"arguments": "{valid}", "violate": ["quantity:maximum", "qty:additionalProperties", "email:required"], "set": {"order_id": "{secret_like}"}, "repair": true, "backend": {"kind": "none"}, "expect": {"category": "validation", "violations": "from-violate"}`
	for _, body := range []string{
		ok,
		`"arguments": "{valid}", "backend": {"kind": "ok"}, "expect": {"success": "return"}`,
		`"arguments": "{valid}", "backend": {"kind": "status", "status": [404]}, "expect": {"category": "validation"}`,
		`"arguments": "{valid}", "set": {"quantity": 3}, "backend": {"kind": "ok"}, "expect": {"success": "return"}`,
	} {
		set, err := ParseFixtures("server.json", []byte(fixture(body)), m)
		if err != nil {
			t.Fatalf("%s: %v", body, err)
		}
		if f := set.Fixtures[0]; !f.Arguments.Valid() {
			t.Errorf("%s: arguments %v", body, f.Arguments)
		}
	}
	cases := []struct{ name, body, want string }{
		{"arguments another string", strings.Replace(ok, `"{valid}"`, `"{random}"`, 1), `arguments is an object, or the string "{valid}"`},
		{"literal arguments", strings.Replace(ok, `"{valid}"`, `{"order_id": "ORD-1"}`, 1), `a declared tool's fixture has "arguments": "{valid}"`},
		{"violate without a colon", strings.Replace(ok, `"quantity:maximum"`, `"quantity"`, 1), `violate "quantity" is "argument:keyword"`},
		{"violate unknown keyword", strings.Replace(ok, `"quantity:maximum"`, `"quantity:multipleOf"`, 1), `violate "quantity:multipleOf": unknown keyword`},
		{"violate keyword the property lacks", strings.Replace(ok, `"quantity:maximum"`, `"quantity:pattern"`, 1), `the property "quantity" has no pattern`},
		{"violate an unknown argument", strings.Replace(ok, `"quantity:maximum"`, `"qty:maximum"`, 1), `"qty" is not an argument`},
		{"violate twice", strings.Replace(ok, `"email:required"`, `"quantity:minimum"`, 1), `violate names "quantity" twice`},
		{"set and violate", strings.Replace(ok, `"order_id": "{secret_like}"`, `"quantity": 3`, 1), `set "quantity": the argument is in violate too`},
		{"unknown placeholder", strings.Replace(ok, `{secret_like}`, `{order_id}`, 1), `the only placeholder set takes is "{secret_like}"`},
		{"violations another word", strings.Replace(ok, `"from-violate"`, `"all"`, 1), `expect.violations is "from-violate" or absent`},
		{"violations without category validation", strings.Replace(ok, `"category": "validation"`, `"category": "transient"`, 1), `expect.violations goes with category "validation"`},
		{"violations with a backend", strings.Replace(ok, `"kind": "none"`, `"kind": "ok"`, 1), "backend kind is none"},
		{"broken without violations", `"arguments": "{valid}", "violate": ["quantity:maximum"], "backend": {"kind": "none"}, "expect": {"category": "validation"}`, `so the fixture expects "violations": "from-violate"`},
		{"violations with nothing broken", `"arguments": "{valid}", "backend": {"kind": "none"}, "expect": {"category": "validation", "violations": "from-violate"}`, "violate and set break no argument"},
		{"repair with nothing broken", `"arguments": "{valid}", "repair": true, "backend": {"kind": "ok"}, "expect": {"success": "return"}`, "repair needs broken arguments"},
		{"wrong success key", `"arguments": "{valid}", "backend": {"kind": "ok"}, "expect": {"success": "order"}`, `expect.success of create_return is "return"`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := ParseFixtures("server.json", []byte(fixture(c.body)), m)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("got %v\nwant a problem saying %q", err, c.want)
			}
			if err != nil && !strings.Contains(err.Error(), `"fx"`) && !strings.Contains(err.Error(), "server.json:1:") {
				t.Errorf("the problem names no fixture: %v", err)
			}
		})
	}
	// On a built-in tool the new fields are problems too.
	_, err = ParseFixtures("server.json", []byte(`{"part": "server", "fixtures": [{"id": "fx", "name": "n", "task": 1, "rule": "r", "tool": "lookup_order", "arguments": "{valid}", "backend": {"kind": "ok"}, "expect": {"success": "order"}}]}`), m)
	if err == nil || !strings.Contains(err.Error(), `fixture 1 ("fx"): arguments "{valid}", violate, set, repair and expect.violations are for a tool declared`) {
		t.Errorf("{valid} on lookup_order: %v", err)
	}
}
