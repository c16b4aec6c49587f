package grader_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kata-mcp/kata/grader"
)

// TestUngradeableSubmissions: each broken workspace configuration is exit 2, status error,
// no test run, and a message naming the file, line or variable.
func TestUngradeableSubmissions(t *testing.T) {
	lib := library(t)
	cases := []struct {
		name  string
		edit  func(dir string)
		wants []string
	}{
		{"no kata.json", func(d string) { os.Remove(filepath.Join(d, "kata.json")) }, []string{"kata.json", "missing"}},
		{"kata.json syntax", func(d string) { write(d, "kata.json", "{\n  \"kata\": \"mcp-structured-errors\",\n  language: 1\n}") }, []string{"kata.json:3:", "invalid JSON"}},
		{"unknown kata", func(d string) { write(d, "kata.json", `{"kata": "no-such-kata"}`) }, []string{"kata.json", `"no-such-kata" is not a known kata`, "--packets DIR or KATA_PATH"}},
		{"no client command", func(d string) { write(d, "kata.json", `{"kata": "mcp-structured-errors", "language": "node"}`) }, []string{"kata.json", `has no "client" command`, `"command": "node", "args": ["client.mjs"]`}},
		{"no orders server", func(d string) {
			write(d, ".mcp.json", "{\n  \"mcpServers\": {\n    \"shop\": {\"command\": \"python3\", \"args\": [\"server.py\"]}\n  }\n}")
		}, []string{".mcp.json:2:", `no server named "orders" (found: shop)`}},
		{"undefined variable", func(d string) {
			write(d, ".mcp.json", "{\"mcpServers\": {\"orders\": {\n  \"command\": \"python3\",\n  \"args\": [\"server.py\"],\n  \"env\": {\"ORDERS_API_URL\": \"${ORDERS_URL}\"}\n}}}")
		}, []string{".mcp.json:4:", "${ORDERS_URL} is not defined"}},
		{"command not found", func(d string) {
			write(d, ".mcp.json", `{"mcpServers": {"orders": {"command": "./no-such-server"}}}`)
		}, []string{"cannot start", "no-such-server"}},
		{"client command not found", func(d string) {
			write(d, "kata.json", "{\"kata\": \"mcp-structured-errors\", \"language\": \"python\",\n \"client\": {\"command\": \"no-such-client-xyz\", \"args\": [\"client.py\"]}}")
		}, []string{"kata.json:2:", `client command "no-such-client-xyz" was not found`}},
		{"args not an array", func(d string) {
			write(d, "kata.json", "{\"kata\": \"mcp-structured-errors\",\n \"client\": {\"command\": \"python3\", \"args\": \"client.py\"}}")
		}, []string{"kata.json:2:", `"client.args" must be a JSON array, not a JSON string`}},
		{"client file missing", func(d string) {
			write(d, "kata.json", `{"kata": "mcp-structured-errors", "client": {"command": "./bin/client"}}`)
		}, []string{"kata.json", `"./bin/client" does not exist in the workspace`}},
		{"BOM in kata.json", func(d string) {
			b, _ := os.ReadFile(filepath.Join(d, "kata.json"))
			write(d, "kata.json", "\ufeff"+string(b))
		}, []string{"kata.json:1:", "byte order mark", "without BOM"}},
		{"BOM in .mcp.json", func(d string) {
			b, _ := os.ReadFile(filepath.Join(d, ".mcp.json"))
			write(d, ".mcp.json", "\ufeff"+string(b))
		}, []string{".mcp.json:1:", "byte order mark"}},
		{"invalid UTF-8 in kata.json", func(d string) {
			write(d, "kata.json", "{\"kata\": \"mcp-structured-errors\",\n \"language\": \"py\xffthon\"}")
		}, []string{"kata.json:2:", "not valid UTF-8"}},
		{"duplicate key in kata.json", func(d string) {
			write(d, "kata.json", "{\"kata\": \"mcp-structured-errors\", \"language\": \"python\",\n \"client\": {\"command\": \"python3\", \"args\": [\"client.py\"]},\n \"client\": {\"command\": \"node\"}}")
		}, []string{"kata.json:3:", `key "client" appears twice`}},
		{"duplicate key in .mcp.json", func(d string) {
			write(d, ".mcp.json", "{\"mcpServers\": {\n  \"orders\": {\"command\": \"python3\", \"args\": [\"server.py\"]},\n  \"orders\": {\"command\": \"node\"}}}")
		}, []string{".mcp.json:3:", `key "orders" appears twice`}},
		{"unknown language", func(d string) {
			write(d, "kata.json", "{\"kata\": \"mcp-structured-errors\",\n \"language\": \"cobol\",\n \"client\": {\"command\": \"python3\", \"args\": [\"client.py\"]}}")
		}, []string{"kata.json:2:", `"language": "cobol" is not a language of kata mcp-structured-errors (python, node, go)`}},
		{"cwd outside the workspace", func(d string) {
			write(d, ".mcp.json", "{\"mcpServers\": {\"orders\": {\"command\": \"python3\", \"args\": [\"server.py\"],\n  \"cwd\": \"..\"}}}")
		}, []string{".mcp.json:2:", `cwd ".." is outside the workspace`}},
		{"cwd through a link out of the workspace", func(d string) {
			os.Symlink(os.TempDir(), filepath.Join(d, "out"))
			write(d, ".mcp.json", "{\"mcpServers\": {\"orders\": {\"command\": \"python3\", \"args\": [\"server.py\"],\n  \"cwd\": \"out\"}}}")
		}, []string{".mcp.json:2:", `cwd "out" is outside the workspace`}},
		{"cwd missing", func(d string) {
			write(d, ".mcp.json", "{\"mcpServers\": {\"orders\": {\"command\": \"python3\", \"args\": [\"server.py\"],\n  \"cwd\": \"srv\"}}}")
		}, []string{".mcp.json:2:", `cwd "srv"`, "no such file"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			dir := workspace(t, lib, "mcp-structured-errors", "python", "")
			c.edit(dir)
			rep := grader.Grade(context.Background(), lib, dir, grader.Options{Seed: 1, SeedSet: true})
			if rep.ExitCode() != 2 || rep.Status != grader.StatusError || len(rep.Tests) != 0 {
				t.Fatalf("exit %d, status %s, %d tests; want 2, error, 0", rep.ExitCode(), rep.Status, len(rep.Tests))
			}
			for _, w := range c.wants {
				if !strings.Contains(rep.Message, w) {
					t.Errorf("message %q does not contain %q", rep.Message, w)
				}
			}
		})
	}
}

// TestServerCwdIsHonoured: a cwd inside the workspace is the server's working directory, so a
// relative argument is read from there ("../server.py" from the folder srv).
func TestServerCwdIsHonoured(t *testing.T) {
	lib := library(t)
	dir := workspace(t, lib, "mcp-structured-errors", "python", filepath.Join("..", "testdata", "references", "mcp-structured-errors", "python", "correct"))
	os.Mkdir(filepath.Join(dir, "srv"), 0o755)
	write(dir, ".mcp.json", `{"mcpServers": {"orders": {"command": "python3", "args": ["../server.py"], "cwd": "srv",
  "env": {"ORDERS_API_URL": "${ORDERS_API_URL}", "ORDERS_API_TOKEN": "${ORDERS_API_TOKEN}", "ORDERS_API_TIMEOUT_SECONDS": "${ORDERS_API_TIMEOUT_SECONDS}"}}}}`)
	rep := grader.Grade(context.Background(), lib, dir, grader.Options{Seed: 1, SeedSet: true})
	if rep.ExitCode() != 0 {
		t.Errorf("exit %d (%s), want 0: the server runs in srv/", rep.ExitCode(), rep.Message)
	}
}

// TestBareDollarIsNotExpanded: "$ORDERS_API_URL" without braces reaches the server verbatim,
// as in Claude Code, so the server cannot reach the API and the success fixture fails.
func TestBareDollarIsNotExpanded(t *testing.T) {
	lib := library(t)
	dir := workspace(t, lib, "mcp-structured-errors", "python", filepath.Join("..", "testdata", "references", "mcp-structured-errors", "python", "correct"))
	write(dir, ".mcp.json", `{"mcpServers": {"orders": {"command": "python3", "args": ["server.py"],
  "env": {"ORDERS_API_URL": "$ORDERS_API_URL", "ORDERS_API_TOKEN": "${ORDERS_API_TOKEN}", "ORDERS_API_TIMEOUT_SECONDS": "${ORDERS_API_TIMEOUT_SECONDS:-5}"}}}}`)
	rep := grader.Grade(context.Background(), lib, dir, grader.Options{Seed: 1, SeedSet: true})
	for _, tr := range rep.Tests {
		if tr.ID == "lookup-ok" && tr.Status == grader.StatusPass {
			t.Fatal("lookup-ok passed although ORDERS_API_URL was the literal text $ORDERS_API_URL")
		}
	}
}

// TestSeedRepeatsTheRun: the same seed draws the same ids and values.
func TestSeedRepeatsTheRun(t *testing.T) {
	lib := library(t)
	dir := workspace(t, lib, "mcp-structured-errors", "python", "")
	msgs := func() string {
		rep := grader.Grade(context.Background(), lib, dir, grader.Options{Seed: 99, SeedSet: true})
		var b strings.Builder
		for _, tr := range rep.Tests {
			for _, line := range strings.Split(tr.Message, "\n") {
				if strings.HasPrefix(line, "call:") {
					b.WriteString(line + "\n")
				}
			}
		}
		return b.String()
	}
	a, b := msgs(), msgs()
	if a == "" || a != b {
		t.Errorf("two runs with seed 99 sent different calls:\n%s\n---\n%s", a, b)
	}
}

func write(dir, name, content string) {
	os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644)
}
