package cli

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/kata-mcp/kata/assistant"
	"github.com/kata-mcp/kata/grader"
	"github.com/kata-mcp/kata/grader/references"
	"github.com/kata-mcp/kata/katas"
	"github.com/kata-mcp/kata/packets"
)

func TestMCPPrintConfig(t *testing.T) {
	parse := func(out string) map[string]any {
		t.Helper()
		var doc struct {
			MCPServers map[string]map[string]any `json:"mcpServers"`
		}
		if err := json.Unmarshal([]byte(out), &doc); err != nil {
			t.Fatalf("not JSON: %v\n%s", err, out)
		}
		entry := doc.MCPServers["kata"]
		if entry == nil || entry["type"] != "stdio" || strings.Join(anyStrings(entry["args"]), " ") != "mcp" {
			t.Fatalf("entry %v", doc.MCPServers)
		}
		return entry
	}
	// No kata on PATH: the entry still names `kata` (a shared file carries no machine's path),
	// and a note says how to get it there.
	t.Setenv("PATH", t.TempDir())
	out, errOut, code := runKata(t, "mcp", "--print-config")
	if code != 0 || parse(out)["command"] != "kata" || !strings.Contains(errOut, "`kata` is not on PATH") {
		t.Errorf("exit %d, stdout %s, stderr %s", code, out, errOut)
	}
	// This binary on PATH as kata: no note.
	exe, _ := os.Executable()
	bin := t.TempDir()
	if err := os.Symlink(exe, filepath.Join(bin, "kata")); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", bin)
	if out, errOut, _ := runKata(t, "mcp", "--print-config"); parse(out)["command"] != "kata" || errOut != "" {
		t.Errorf("stdout %s, stderr %q", out, errOut)
	}
	real, _ := filepath.EvalSymlinks(exe)
	if out, _, _ := runKata(t, "mcp", "--print-config", "--absolute"); parse(out)["command"] != real {
		t.Errorf("--absolute: %s, want the command %s", out, real)
	}
}

func anyStrings(v any) []string {
	var out []string
	xs, _ := v.([]any)
	for _, x := range xs {
		s, _ := x.(string)
		out = append(out, s)
	}
	return out
}

// referenceWorkspace lays a reference submission of mcp-structured-errors in Python.
func referenceWorkspace(t *testing.T, ref string) string {
	t.Helper()
	lib, err := katas.Discover(packets.FS, "embedded")
	if err != nil {
		t.Fatal(err)
	}
	p, _ := lib.Get("mcp-structured-errors")
	dir := filepath.Join(t.TempDir(), "ws")
	if err := references.Workspace(p, "python", filepath.Join("..", "..", "testdata", "references", p.ID, "python", ref), dir); err != nil {
		t.Fatal(err)
	}
	return dir
}

// TestMCPServerBinary drives the built binary's `kata mcp` over a real stdio transport, with
// the go-sdk client, the official TypeScript SDK's client (client.mjs: the tools, resources and
// prompts; robust.mjs: protocol 2025-03-26, malformed input, quiz seeds) and the MCP
// Inspector's CLI.
func TestMCPServerBinary(t *testing.T) {
	t.Parallel() // runs its own kata binary in folders of its own: nothing shared with other tests
	tmp := t.TempDir()
	bin := buildKata(t, tmp)
	state := filepath.Join(tmp, "state", "progress.db")
	env := append(os.Environ(), "KATA_STATE="+state)

	t.Run("go-sdk", func(t *testing.T) {
		cmd := exec.Command(bin, "mcp")
		cmd.Env = env
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		ctx := context.Background()
		cs, err := mcp.NewClient(&mcp.Implementation{Name: "binary-test", Version: "1"}, nil).
			Connect(ctx, &mcp.CommandTransport{Command: cmd, TerminateDuration: 5 * time.Second}, &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
		if err != nil {
			t.Fatalf("connecting: %v\n%s", err, stderr.String())
		}
		defer cs.Close()

		res, err := cs.ListResources(ctx, nil)
		if err != nil || len(res.Resources) < 30 {
			t.Fatalf("resources/list: %v, %d resources", err, len(res.Resources))
		}
		read, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: "kata://mcp-engineering/knowledge"})
		if err != nil || len(read.Contents) != 1 || !strings.HasPrefix(read.Contents[0].Text, "# ") {
			t.Fatalf("resources/read: %v %+v", err, read)
		}
		prompt, err := cs.GetPrompt(ctx, &mcp.GetPromptParams{Name: "mcp-engineering.write-the-server-config", Arguments: map[string]string{"server_name": "orders"}})
		if err != nil || !strings.Contains(prompt.Messages[0].Content.(*mcp.TextContent).Text, "Server name: orders") {
			t.Fatalf("prompts/get: %v %+v", err, prompt)
		}

		grade := func(ref string) grader.Report {
			t.Helper()
			r, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "grade_workspace", Arguments: map[string]any{"workspace": referenceWorkspace(t, ref), "seed": 1}})
			if err != nil || r.IsError {
				t.Fatalf("grade_workspace %s: %v %+v", ref, err, r)
			}
			var rep grader.Report
			if err := json.Unmarshal(mustMarshal(t, r.StructuredContent), &rep); err != nil {
				t.Fatal(err)
			}
			return rep
		}
		if rep := grade("correct"); rep.Status != grader.StatusPass {
			t.Errorf("the correct reference: %s %s", rep.Status, rep.Message)
		}
		if rep := grade("broken-empty-is-error"); rep.Status != grader.StatusFail {
			t.Errorf("a broken reference: %s", rep.Status)
		}

		for _, c := range []struct {
			tool     string
			args     map[string]any
			category string
		}{
			{"quiz_item", map[string]any{"kata": "no-such-kata"}, "not_found"},
			{"grade_workspace", map[string]any{"workspace": filepath.Join(tmp, "missing")}, "not_found"},
		} {
			r, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: c.tool, Arguments: c.args})
			if err != nil {
				t.Fatalf("%s: a JSON-RPC error instead of a typed result: %v", c.tool, err)
			}
			var payload map[string]any
			json.Unmarshal(mustMarshal(t, r.StructuredContent), &payload)
			if !r.IsError || payload["errorCategory"] != c.category || payload["isRetryable"] != false {
				t.Errorf("%s %v: isError %v, payload %v", c.tool, c.args, r.IsError, payload)
			}
		}
		cs.Close()
		// Grades through the assistant count as grades: `kata stats` shows the last one.
		stats := exec.Command(bin, "stats")
		stats.Env = env
		out, err := stats.CombinedOutput()
		if err != nil || !strings.Contains(string(out), "last grade     fail") {
			t.Errorf("kata stats after two grades: %v\n%s", err, out)
		}
	})

	t.Run("typescript-sdk", func(t *testing.T) {
		client := filepath.Join("..", "..", "testdata", "mcp-client")
		installTSClient(t, client)
		ws := referenceWorkspace(t, "correct")
		cmd := exec.Command("node", "client.mjs", bin, ws)
		cmd.Dir = client
		cmd.Env = env
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		out, err := cmd.Output()
		t.Logf("node client.mjs:\n%s", out)
		if err != nil {
			t.Fatalf("the TypeScript client failed: %v\n%s", err, stderr.String())
		}
		for _, want := range []string{
			"connected: kata ",
			"resources/list: ",
			" resources, 0 with a body",
			"resources/read kata://mcp-structured-errors/knowledge: 1 content",
			"mcp-structured-errors.review-my-error-contract takes server_source",
			"1 user message, source filled in: true",
			"tools/list: check_answer, grade_workspace, list_katas, quiz_item",
			"tools/call grade_workspace: isError false, status pass,",
			"tools/call grade_workspace (missing folder): isError true, errorCategory not_found, isRetryable false",
			`tools/call quiz_item (unknown kata): isError true, {"isError":true,"errorCategory":"not_found","isRetryable":false,"retryAfterSeconds":null,`,
			"closed",
		} {
			if !strings.Contains(string(out), want) {
				t.Errorf("the client's output lacks %q", want)
			}
		}

		// The same SDK's client at 2025-03-26, with malformed lines written between its
		// requests: each gets its JSON-RPC error, and the session goes on.
		robust := exec.Command("node", "robust.mjs", bin)
		robust.Dir = client
		robust.Env = env
		stderr.Reset()
		robust.Stderr = &stderr
		out, err = robust.Output()
		t.Logf("node robust.mjs:\n%s", out)
		if err != nil {
			t.Fatalf("the TypeScript client failed: %v\n%s", err, stderr.String())
		}
		for _, want := range []string{
			"connected at 2025-03-26: kata ",
			"malformed JSON: error -32700 id null, then tools/list 4 tools",
			"empty batch: error -32600 id null, then tools/list 4 tools",
			"batch: error -32600 id null, then tools/list 4 tools",
			"jsonrpc 1.0: error -32600 id 77, then tools/list 4 tools",
			"object id: error -32600 id null, then tools/list 4 tools",
			"40 MB line: error -32600 id null, then tools/list 4 tools",
			"quiz_item seed safe, passed back: same item true",
			"closed",
		} {
			if !strings.Contains(string(out), want) {
				t.Errorf("robust.mjs's output lacks %q", want)
			}
		}
		if strings.Contains(string(out), "kata (devel)") {
			t.Error("serverInfo.version is Go's placeholder (devel)")
		}

		// The MCP Inspector's CLI (a JavaScript client too): a quiz seed it reads and passes back
		// draws the same item in the same order.
		first := inspectQuiz(t, client, env, bin)
		again := inspectQuiz(t, client, env, bin, fmt.Sprintf("seed=%d", first.Seed))
		if first.Seed > assistant.MaxSeed || again.Seed != first.Seed || again.Item != first.Item || fmt.Sprint(again.Options) != fmt.Sprint(first.Options) {
			t.Errorf("the Inspector's quiz_item: seed %d gave %s %v, passed back %d gave %s %v", first.Seed, first.Item, first.Options, again.Seed, again.Item, again.Options)
		}
	})
}

// inspectQuiz calls quiz_item of mcp-structured-errors through the MCP Inspector's CLI
// (@modelcontextprotocol/inspector-cli, pinned in the client's package-lock.json), with the
// extra key=value arguments given. The CLI reads its own package.json through a path it checks
// against the working folder, so it runs from node_modules, where that check finds the file.
func inspectQuiz(t *testing.T, client string, env []string, bin string, args ...string) assistant.QuizItem {
	t.Helper()
	argv := []string{filepath.Join("@modelcontextprotocol", "inspector-cli", "build", "cli.js"), "--cli", bin, "mcp",
		"--method", "tools/call", "--tool-name", "quiz_item", "--tool-arg", "kata=mcp-structured-errors"}
	for _, a := range args {
		argv = append(argv, "--tool-arg", a)
	}
	cmd := exec.Command("node", argv...)
	cmd.Dir = filepath.Join(client, "node_modules")
	cmd.Env = env
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("the Inspector CLI: %v\n%s", err, out)
	}
	var res struct {
		IsError           bool               `json:"isError"`
		StructuredContent assistant.QuizItem `json:"structuredContent"`
	}
	i := strings.Index(string(out), "{")
	if i < 0 || json.Unmarshal(out[i:], &res) != nil || res.IsError || res.StructuredContent.Item == "" {
		t.Fatalf("the Inspector CLI printed no quiz item:\n%s", out)
	}
	return res.StructuredContent
}

func mustMarshal(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// installTSClient installs the client's pinned packages (package-lock.json) into its
// node_modules folder (git-ignored) with `npm ci`, unless the lock file has not changed since
// the last install. It skips the test when node or npm is missing.
func installTSClient(t *testing.T, dir string) {
	t.Helper()
	for _, tool := range []string{"node", "npm"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("%s is not installed: the acceptance test with the official TypeScript SDK needs Node.js 18 or later and npm", tool)
		}
	}
	lock, err := os.ReadFile(filepath.Join(dir, "package-lock.json"))
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(lock)
	stamp := filepath.Join(dir, "node_modules", ".kata-lock-sha256")
	if b, err := os.ReadFile(stamp); err == nil && string(b) == hex.EncodeToString(sum[:]) {
		return
	}
	cmd := exec.Command("npm", "ci", "--no-audit", "--no-fund", "--prefer-offline")
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("npm ci in %s: %v\n%s", dir, err, out)
	}
	if err := os.WriteFile(stamp, []byte(hex.EncodeToString(sum[:])), 0o644); err != nil {
		t.Fatal(err)
	}
}
