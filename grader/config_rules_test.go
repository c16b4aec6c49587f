package grader

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestSecretRulesNameTheLine: a literal sk-… key in any server entry, whatever its exact length
// (gitleaks' provider rules want the exact shape), fails no-literal-secrets naming its line;
// under an env name like DOCS_KEY it also fails credential-refs, as does any default there, a
// secret's shape or not (docs/grading.md#config-rules). ${VAR} references pass.
func TestSecretRulesNameTheLine(t *testing.T) {
	cases := []struct {
		name, secret string
		line         int
		rule         string
	}{
		{"anthropic-shaped, wrong length", "sk-ant-api03-AbCdEfGhIjKlMnOpQrStUvWxYz0123456789", 14, "no-literal-secrets"},
		{"openai project key", "sk-proj-Zx81HqLmA0pQ77vB2nYtR4sW9cK3eD6f", 14, "no-literal-secrets"},
		{"plain sk- key", "sk-1234567890abcdefABCDEF0123", 14, "no-literal-secrets"},
		{"under a *_KEY name", "sk-1234567890abcdefABCDEF0123", 14, "credential-refs"},
		// A default is what reaches the server when the variable is unset: a literal too.
		{"hidden in a default", "${DOCS_KEY:-sk-1234567890abcdefABCDEF0123}", 14, "no-literal-secrets"},
		{"default under a *_KEY name", "${DOCS_KEY:-sk-1234567890abcdefABCDEF0123}", 14, "credential-refs"},
		// A default no detector recognises is still a credential written into the file.
		{"plain default under a *_KEY name", "${DOCS_KEY:-dev-key-4821}", 14, "credential-refs"},
		{"plain default after Bearer", "Bearer ${DOCS_KEY:-dev-key-4821}", 14, "credential-refs"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			cfg := `{
  "mcpServers": {
    "orders": {
      "command": "python3",
      "args": ["server.py"],
      "env": {
        "ORDERS_API_URL": "${ORDERS_API_URL}",
        "ORDERS_API_TOKEN": "${ORDERS_API_TOKEN}"
      }
    },
    "docs": {
      "command": "node",
      "env": {
        "DOCS_KEY": "` + c.secret + `"
      }
    }
  }
}`
			if err := os.WriteFile(filepath.Join(dir, ".mcp.json"), []byte(cfg), 0o644); err != nil {
				t.Fatal(err)
			}
			mc, err := LoadMCPConfig(dir)
			if err != nil {
				t.Fatal(err)
			}
			probs := english(checkConfigRule(c.rule, mc))
			if len(probs) != 1 || !strings.Contains(probs[0], ".mcp.json:14:") {
				t.Fatalf("%s on %q: %q, want one problem naming .mcp.json:14", c.rule, c.secret, probs)
			}
			if strings.Contains(probs[0], c.secret) {
				t.Errorf("the message repeats the whole secret: %s", probs[0])
			}
		})
	}
	t.Run("references pass", func(t *testing.T) {
		dir := t.TempDir()
		cfg := `{"mcpServers": {"orders": {"command": "python3", "env": {"ORDERS_API_TOKEN": "${ORDERS_API_TOKEN}", "DOCS_KEY": "${DOCS_KEY:-}"}}}}`
		if err := os.WriteFile(filepath.Join(dir, ".mcp.json"), []byte(cfg), 0o644); err != nil {
			t.Fatal(err)
		}
		mc, err := LoadMCPConfig(dir)
		if err != nil {
			t.Fatal(err)
		}
		for _, rule := range []string{"no-literal-secrets", "credential-refs"} {
			if probs := english(checkConfigRule(rule, mc)); len(probs) != 0 {
				t.Errorf("%s: %q", rule, probs)
			}
		}
	})
}

// TestKataJSONUnknownKey: a typo in kata.json ("clinet") is a submission error naming the key
// and its line, not a silently ungraded client.
func TestKataJSONUnknownKey(t *testing.T) {
	dir := t.TempDir()
	src := "{\n  \"kata\": \"mcp-structured-errors\",\n  \"language\": \"python\",\n  \"clinet\": {\"command\": \"python3\", \"args\": [\"client.py\"]}\n}\n"
	if err := os.WriteFile(filepath.Join(dir, "kata.json"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := LoadKataConfig(dir)
	if err == nil || !strings.Contains(err.Error(), `unknown key "clinet"`) || !strings.Contains(err.Error(), "kata.json:4") {
		t.Fatalf("LoadKataConfig: %v; want an error naming \"clinet\" at kata.json:4", err)
	}
	os.WriteFile(filepath.Join(dir, "kata.json"), []byte(strings.Replace(src, "clinet", "client", 1)), 0o644)
	if kc, err := LoadKataConfig(dir); err != nil || kc.Client == nil {
		t.Fatalf("the corrected file: %+v, %v", kc, err)
	}
}
