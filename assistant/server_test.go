package assistant

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/kata-mcp/kata/grader"
	"github.com/kata-mcp/kata/grader/references"
	"github.com/kata-mcp/kata/katas"
	"github.com/kata-mcp/kata/packets"
)

func library(t testing.TB) *katas.Library {
	t.Helper()
	lib, err := katas.Discover(packets.FS, "embedded")
	if err != nil {
		t.Fatal(err)
	}
	return lib
}

// connect starts the server for lib in-process and connects a go-sdk client to it over an
// in-memory transport, pinned to protocol 2025-11-25.
func connect(t testing.TB, lib *katas.Library, opts Options, copts *mcp.ClientOptions) (*server, *mcp.ClientSession) {
	t.Helper()
	s, ms, err := newServer(lib, opts)
	if err != nil {
		t.Fatal(err)
	}
	ct, st := mcp.NewInMemoryTransports()
	ctx := context.Background()
	ss, err := ms.Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, copts).
		Connect(ctx, ct, &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close(); ss.Wait() })
	return s, cs
}

func TestNegotiates20251125(t *testing.T) {
	_, cs := connect(t, library(t), Options{}, nil)
	if v := cs.InitializeResult().ProtocolVersion; v != "2025-11-25" {
		t.Errorf("negotiated %q, want 2025-11-25", v)
	}
	// A client that leads with a newer revision (the SDK's default first sends server/discover)
	// is turned down and falls back to the handshake.
	_, ms, err := newServer(library(t), Options{})
	if err != nil {
		t.Fatal(err)
	}
	ct, st := mcp.NewInMemoryTransports()
	ss, err := ms.Connect(context.Background(), st, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ss.Close()
	cs2, err := mcp.NewClient(&mcp.Implementation{Name: "default", Version: "1"}, nil).Connect(context.Background(), ct, nil)
	if err != nil {
		t.Fatalf("a client with the SDK's default version cannot connect: %v", err)
	}
	defer cs2.Close()
	if _, err := cs2.ListTools(context.Background(), nil); err != nil {
		t.Errorf("tools/list after the fallback: %v", err)
	}
}

func TestResourcesListIsCheap(t *testing.T) {
	lib := library(t)
	_, cs := connect(t, lib, Options{}, nil)
	res, err := cs.ListResources(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	want := 0
	for _, p := range lib.Packets() {
		want += len(p.Layers) + len(p.Task.Steps)
	}
	if len(res.Resources) != want || want < 30 {
		t.Fatalf("%d resources, want one per layer and per task step (%d)", len(res.Resources), want)
	}
	seen := map[string]bool{}
	for _, r := range res.Resources {
		if r.Size <= 0 || r.MIMEType != "text/markdown" || r.Title == "" || r.Description == "" || !strings.HasPrefix(r.URI, "kata://") {
			t.Errorf("resource %+v lacks a size, title, description or MIME type", r)
		}
		seen[r.URI] = true
	}
	for _, uri := range []string{LayerURI("mcp-structured-errors", "knowledge"), LayerURI("mcp-engineering", "agents"), StepURI("mcp-error-responses", 1)} {
		if !seen[uri] {
			t.Errorf("no resource %s", uri)
		}
	}
	if r := lib.Resident(); r != nil {
		t.Errorf("listing left the layer %s/%s resident: it read a body", r.Packet, r.Name)
	}
}

// read reads one resource and returns its only text.
func read(t *testing.T, cs *mcp.ClientSession, uri string) string {
	t.Helper()
	res, err := cs.ReadResource(context.Background(), &mcp.ReadResourceParams{URI: uri})
	if err != nil {
		t.Fatalf("reading %s: %v", uri, err)
	}
	if len(res.Contents) != 1 || res.Contents[0].URI != uri || res.Contents[0].MIMEType != "text/markdown" {
		t.Fatalf("reading %s: contents %+v, want one Markdown text", uri, res.Contents)
	}
	return res.Contents[0].Text
}

func TestReadOneLayerAtATime(t *testing.T) {
	lib := library(t)
	_, cs := connect(t, lib, Options{}, nil)
	list, err := cs.ListResources(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	size := map[string]int64{}
	for _, r := range list.Resources {
		size[r.URI] = r.Size
	}

	uri := LayerURI("mcp-structured-errors", "knowledge")
	text := read(t, cs, uri)
	first := lib.Resident()
	if first == nil || first.Packet != "mcp-structured-errors" || first.Name != "knowledge" {
		t.Fatalf("resident after the read: %+v", first)
	}
	if text != first.Markdown() || !strings.HasPrefix(text, "# ") {
		t.Errorf("the read is not the layer's Markdown:\n%.200s", text)
	}
	if int64(len(text)) != size[uri] {
		t.Errorf("listed size %d, read %d bytes (a layer without assets or front matter)", size[uri], len(text))
	}
	examples, err := lib.LoadLayer("mcp-structured-errors", "examples")
	if err != nil {
		t.Fatal(err)
	}
	if first := examples.Files()[0].Markdown; strings.Contains(text, strings.SplitN(first, "\n", 2)[0]) {
		t.Error("the read of one layer carries another layer's text")
	}

	read(t, cs, LayerURI("mcp-engineering", "examples"))
	if !first.Released() {
		t.Error("reading a second layer kept the first one resident")
	}

	step := read(t, cs, StepURI("mcp-structured-errors", 2))
	if !strings.Contains(step, "\n## 2. ") || strings.Contains(step, "\n## 3. ") || int64(len(step)) != size[StepURI("mcp-structured-errors", 2)] {
		t.Errorf("task step 2 (%d bytes, listed %d):\n%s", len(step), size[StepURI("mcp-structured-errors", 2)], step)
	}

	_, err = cs.ReadResource(context.Background(), &mcp.ReadResourceParams{URI: "kata://mcp-structured-errors/nope"})
	var rpcErr *jsonrpc.Error
	if !errors.As(err, &rpcErr) || rpcErr.Code != jsonrpc.CodeInvalidParams {
		t.Errorf("an unknown resource: %v, want JSON-RPC error %d (invalid params)", err, jsonrpc.CodeInvalidParams)
	}
}

func TestPromptsWithArguments(t *testing.T) {
	lib := library(t)
	_, cs := connect(t, lib, Options{}, nil)
	list, err := cs.ListPrompts(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	want := 0
	for _, p := range lib.Packets() {
		l, err := lib.LoadLayer(p.ID, "prompts")
		if err != nil {
			t.Fatal(err)
		}
		want += len(l.Files())
	}
	if len(list.Prompts) != want {
		t.Errorf("%d prompts, want one per prompts file (%d)", len(list.Prompts), want)
	}
	name := PromptName("mcp-structured-errors", "review-my-error-contract")
	i := slices.IndexFunc(list.Prompts, func(p *mcp.Prompt) bool { return p.Name == name })
	if i < 0 {
		t.Fatalf("no prompt %s among %d", name, len(list.Prompts))
	}
	p := list.Prompts[i]
	if p.Title != "Review my error contract" || !strings.HasPrefix(p.Description, "Use this when") ||
		len(p.Arguments) != 1 || p.Arguments[0].Name != "server_source" || p.Arguments[0].Required {
		t.Errorf("prompt %+v, want its title, description and an optional server_source", p)
	}

	src := "def lookup_order(order_id):\n    return {}\n"
	got, err := cs.GetPrompt(context.Background(), &mcp.GetPromptParams{Name: name, Arguments: map[string]string{"server_source": src}})
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Messages) != 1 || got.Messages[0].Role != "user" {
		t.Fatalf("messages %+v, want one user message", got.Messages)
	}
	text := got.Messages[0].Content.(*mcp.TextContent).Text
	if !strings.Contains(text, src) || strings.Contains(text, "<paste server.py here>") || strings.Contains(text, "```") ||
		!strings.Contains(text, "You are reviewing the error handling of an MCP server.") {
		t.Errorf("the prompt's text is not the code block with the source filled in:\n%s", text)
	}

	_, err = cs.GetPrompt(context.Background(), &mcp.GetPromptParams{Name: name, Arguments: map[string]string{"source": src}})
	var rpcErr *jsonrpc.Error
	if !errors.As(err, &rpcErr) || rpcErr.Code != jsonrpc.CodeInvalidParams || !strings.Contains(rpcErr.Message, "server_source") {
		t.Errorf("an unknown argument: %v, want invalid params naming server_source", err)
	}
}

// call calls a tool and fails the test on a JSON-RPC error.
func call(t *testing.T, cs *mcp.ClientSession, tool string, args any) *mcp.CallToolResult {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: tool, Arguments: args})
	if err != nil {
		t.Fatalf("%s: a JSON-RPC error instead of a tool result: %v", tool, err)
	}
	return res
}

// structured decodes a result's structuredContent into v and checks that the first content
// block carries the same JSON as text.
func structured(t *testing.T, res *mcp.CallToolResult, v any) {
	t.Helper()
	b, err := json.Marshal(res.StructuredContent)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, v); err != nil {
		t.Fatalf("structuredContent %s: %v", b, err)
	}
	if len(res.Content) == 0 {
		t.Fatal("no content block")
	}
	tc, ok := res.Content[0].(*mcp.TextContent)
	var mirror any
	if !ok || json.Unmarshal([]byte(tc.Text), &mirror) != nil {
		t.Fatalf("the first content block is not the JSON text: %+v", res.Content[0])
	}
	var sc any
	json.Unmarshal(b, &sc)
	if mb, _ := json.Marshal(mirror); string(mb) != string(mustJSON(t, sc)) {
		t.Errorf("content text %s differs from structuredContent %s", tc.Text, b)
	}
}

func mustJSON(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// outputSchemas returns every tool's declared output schema, resolved, as a client sees it.
func outputSchemas(t *testing.T, cs *mcp.ClientSession) map[string]*jsonschema.Resolved {
	t.Helper()
	tools, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]*jsonschema.Resolved{}
	for _, tool := range tools.Tools {
		var s jsonschema.Schema
		if err := json.Unmarshal(mustJSON(t, tool.OutputSchema), &s); err != nil {
			t.Fatal(err)
		}
		r, err := s.Resolve(nil)
		if err != nil {
			t.Fatalf("%s: output schema: %v", tool.Name, err)
		}
		out[tool.Name] = r
	}
	return out
}

// conforms checks a result's structuredContent against the tool's declared output schema, as
// the official TypeScript client does for error results too.
func conforms(t *testing.T, schema *jsonschema.Resolved, res *mcp.CallToolResult) {
	t.Helper()
	var generic any
	if err := json.Unmarshal(mustJSON(t, res.StructuredContent), &generic); err != nil {
		t.Fatal(err)
	}
	if err := schema.Validate(generic); err != nil {
		t.Errorf("structuredContent does not match the output schema: %v\n%s", err, mustJSON(t, res.StructuredContent))
	}
}

// assertToolError checks that res is a typed error result of category, whose payload has
// exactly the contract's five fields with their JSON types and matches the tool's output
// schema, and returns its explanation.
func assertToolError(t *testing.T, schema *jsonschema.Resolved, res *mcp.CallToolResult, category string) string {
	t.Helper()
	if !res.IsError {
		t.Fatalf("isError is false; structuredContent %s", mustJSON(t, res.StructuredContent))
	}
	conforms(t, schema, res)
	var payload map[string]any
	structured(t, res, &payload)
	if len(payload) != 5 {
		t.Errorf("payload %v: want exactly isError, errorCategory, isRetryable, retryAfterSeconds, explanation", payload)
	}
	if payload["isError"] != true || payload["errorCategory"] != category || payload["isRetryable"] != Retryable[category] {
		t.Errorf("payload %v, want category %s with isRetryable %v", payload, category, Retryable[category])
	}
	if v, ok := payload["retryAfterSeconds"]; !ok || v != nil {
		t.Errorf("retryAfterSeconds %v (present %v), want null", v, ok)
	}
	expl, _ := payload["explanation"].(string)
	if strings.TrimSpace(expl) == "" {
		t.Error("the explanation is empty")
	}
	return expl
}

func TestToolErrorsAreTyped(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "notes.txt")
	os.WriteFile(file, []byte("x"), 0o644)
	empty := filepath.Join(dir, "empty")
	os.Mkdir(empty, 0o755)
	_, cs := connect(t, library(t), Options{WorkDir: dir}, nil)
	schemas := outputSchemas(t, cs)
	cases := []struct {
		name     string
		tool     string
		args     any
		category string
		says     string
	}{
		{"unknown kata", ToolQuizItem, map[string]any{"kata": "no-such-kata"}, CategoryNotFound, "mcp-structured-errors"},
		{"missing kata", ToolQuizItem, map[string]any{}, CategoryValidation, "argument kata"},
		{"kata of the wrong type", ToolQuizItem, map[string]any{"kata": 7}, CategoryValidation, "argument kata of quiz_item must be a string"},
		{"seed of the wrong type", ToolQuizItem, map[string]any{"kata": "mcp-structured-errors", "seed": "x"}, CategoryValidation, "must be an integer"},
		{"unknown argument", ToolQuizItem, map[string]any{"kata": "mcp-structured-errors", "level": 2}, CategoryValidation, `"level" is not an argument of quiz_item (its arguments: item, kata, seed)`},
		{"unknown item", ToolQuizItem, map[string]any{"kata": "mcp-structured-errors", "item": "se-99"}, CategoryNotFound, "se-01"},
		{"unknown kata to check", ToolCheckAnswer, map[string]any{"kata": "nope", "item": "x", "answer": []string{"a"}}, CategoryNotFound, "no kata"},
		{"no answer", ToolCheckAnswer, map[string]any{"kata": "mcp-structured-errors", "item": "se-01", "answer": []string{}}, CategoryValidation, "argument answer"},
		{"unknown option", ToolCheckAnswer, map[string]any{"kata": "mcp-structured-errors", "item": "se-01", "answer": []string{"q"}}, CategoryValidation, `no option "q"`},
		{"answer of the wrong type", ToolCheckAnswer, map[string]any{"kata": "mcp-structured-errors", "item": "se-01", "answer": "a"}, CategoryValidation, "must be an array of strings"},
		{"missing workspace argument", ToolGradeWorkspace, map[string]any{}, CategoryValidation, "argument workspace"},
		{"missing workspace", ToolGradeWorkspace, map[string]any{"workspace": "gone"}, CategoryNotFound, filepath.Join(dir, "gone")},
		{"workspace that is a file", ToolGradeWorkspace, map[string]any{"workspace": file}, CategoryValidation, "is a file"},
		{"folder without kata.json", ToolGradeWorkspace, map[string]any{"workspace": empty}, CategoryValidation, "no kata.json"},
		{"arguments not an object", ToolListKatas, []int{1}, CategoryValidation, "must be a JSON object"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			// grade_workspace declares an output schema, the report's, and still returns its
			// failures as tool results with isError, never as JSON-RPC errors.
			expl := assertToolError(t, schemas[c.tool], call(t, cs, c.tool, c.args), c.category)
			if !strings.Contains(expl, c.says) {
				t.Errorf("explanation %q does not say %q", expl, c.says)
			}
		})
	}
}

func TestUnknownToolIsAProtocolError(t *testing.T) {
	_, cs := connect(t, library(t), Options{}, nil)
	_, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "grade_everything"})
	var rpcErr *jsonrpc.Error
	if !errors.As(err, &rpcErr) || rpcErr.Code != jsonrpc.CodeInvalidParams {
		t.Errorf("an unknown tool: %v, want JSON-RPC error -32602 (MCP 2025-11-25, tools: protocol errors)", err)
	}
}

// TestTransientErrors covers the two transient failures: a workspace already being graded,
// and a grade interrupted by cancellation.
func TestTransientErrors(t *testing.T) {
	lib := library(t)
	s, cs := connect(t, lib, Options{}, nil)
	p, _ := lib.Get("mcp-structured-errors")
	dir := filepath.Join(t.TempDir(), "ws")
	if err := references.Workspace(p, "python", "", dir); err != nil {
		t.Fatal(err)
	}
	if !s.startGrading(dir) {
		t.Fatal("a fresh server says the folder is being graded")
	}
	expl := assertToolError(t, outputSchemas(t, cs)[ToolGradeWorkspace], call(t, cs, ToolGradeWorkspace, map[string]any{"workspace": dir}), CategoryTransient)
	if !strings.Contains(expl, "being graded") {
		t.Errorf("explanation %q", expl)
	}
	s.doneGrading(dir)

	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, terr := s.gradeWorkspace(ctx, &mcp.CallToolRequest{Params: &mcp.CallToolParamsRaw{}}, gradeArgs{Workspace: dir})
	if terr == nil || terr.ErrorCategory != CategoryTransient || !terr.IsRetryable || !strings.Contains(terr.Explanation, "interrupted") {
		t.Errorf("a cancelled grade: %+v, want a retryable transient error", terr)
	}
	if !s.startGrading(dir) {
		t.Error("an interrupted grade left the folder marked as being graded")
	}
}

func TestToolsDeclareSchemas(t *testing.T) {
	_, cs := connect(t, library(t), Options{}, nil)
	res, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tool := range res.Tools {
		names = append(names, tool.Name)
		in, _ := tool.InputSchema.(map[string]any)
		out, _ := tool.OutputSchema.(map[string]any)
		if in["type"] != "object" || out["type"] != "object" || tool.Description == "" || tool.Annotations == nil {
			t.Errorf("%s: input schema %v, output schema %v", tool.Name, in, out)
		}
	}
	slices.Sort(names)
	if strings.Join(names, ",") != "check_answer,grade_workspace,list_katas,quiz_item" {
		t.Errorf("tools %v", names)
	}
}

func TestListKatas(t *testing.T) {
	lib := library(t)
	_, cs := connect(t, lib, Options{}, nil)
	res := call(t, cs, ToolListKatas, nil)
	var list KataList
	structured(t, res, &list)
	if res.IsError || len(list.Katas) != len(lib.Packets()) {
		t.Fatalf("%+v", list)
	}
	k := list.Katas[slices.IndexFunc(list.Katas, func(k KataSummary) bool { return k.ID == "mcp-structured-errors" })]
	if len(k.Layers) != 5 || k.Layers[0].URI != LayerURI(k.ID, "knowledge") || k.Layers[0].Size <= 0 || len(k.TaskSteps) == 0 || k.Items < 20 {
		t.Errorf("%+v", k)
	}
	if lib.Resident() != nil {
		t.Error("list_katas read a layer")
	}
}

func TestQuizItemHidesTheKeyAndCheckAnswerGivesIt(t *testing.T) {
	lib := library(t)
	_, cs := connect(t, lib, Options{}, nil)
	res := call(t, cs, ToolQuizItem, map[string]any{"kata": "mcp-structured-errors", "seed": 3})
	var q QuizItem
	structured(t, res, &q)
	raw := string(mustJSON(t, res.StructuredContent))
	if res.IsError || len(q.Options) < 2 || q.Stem == "" || q.Seed != 3 || q.Choose < 1 {
		t.Fatalf("quiz_item: %s", raw)
	}
	for _, hidden := range []string{`"key"`, `"rationale"`, `"keys"`} {
		if strings.Contains(raw, hidden) {
			t.Errorf("quiz_item gives away %s: %s", hidden, raw)
		}
	}
	again := call(t, cs, ToolQuizItem, map[string]any{"kata": "mcp-structured-errors", "seed": 3})
	if string(mustJSON(t, again.StructuredContent)) != raw {
		t.Error("the same seed drew another item or order")
	}

	p, _ := lib.Get("mcp-structured-errors")
	it, _ := item(p, q.Item)
	keys := it.Keys()
	res = call(t, cs, ToolCheckAnswer, map[string]any{"kata": q.Kata, "item": q.Item, "answer": keys})
	var right AnswerCheck
	structured(t, res, &right)
	if res.IsError || !right.Correct || !slices.Equal(right.Keys, keys) || len(right.Options) != len(it.Options) {
		t.Errorf("the key: %+v", right)
	}
	for _, o := range right.Options {
		if o.Rationale == "" || o.Chosen != o.Key {
			t.Errorf("option %+v", o)
		}
	}
	var wrong string
	for _, o := range it.Options {
		if !o.Key {
			wrong = o.ID
			break
		}
	}
	res = call(t, cs, ToolCheckAnswer, map[string]any{"kata": q.Kata, "item": q.Item, "answer": []string{wrong}})
	var bad AnswerCheck
	structured(t, res, &bad)
	if res.IsError || bad.Correct {
		t.Errorf("a distractor scored: %+v", bad)
	}
}

// referenceDir is a reference folder of testdata/references.
func referenceDir(kata, lang, ref string) string {
	return filepath.Join("..", "testdata", "references", kata, lang, ref)
}

func TestGradeReferences(t *testing.T) {
	if testing.Short() {
		t.Skip("grades two reference submissions")
	}
	lib := library(t)
	var mu sync.Mutex
	var recorded []*grader.Report
	var progress []float64
	_, cs := connect(t, lib, Options{OnGrade: func(r *grader.Report) { mu.Lock(); recorded = append(recorded, r); mu.Unlock() }},
		&mcp.ClientOptions{ProgressNotificationHandler: func(_ context.Context, req *mcp.ProgressNotificationClientRequest) {
			mu.Lock()
			progress = append(progress, req.Params.Progress)
			mu.Unlock()
		}})
	schema := outputSchemas(t, cs)[ToolGradeWorkspace]
	p, _ := lib.Get("mcp-structured-errors")
	grade := func(ref string, progressToken any) (grader.Report, *mcp.CallToolResult) {
		t.Helper()
		dir := filepath.Join(t.TempDir(), "ws")
		if err := references.Workspace(p, "python", referenceDir(p.ID, "python", ref), dir); err != nil {
			t.Fatal(err)
		}
		params := &mcp.CallToolParams{Name: ToolGradeWorkspace, Arguments: map[string]any{"workspace": dir, "seed": 1}}
		if progressToken != nil {
			params.SetProgressToken(progressToken)
		}
		res, err := cs.CallTool(context.Background(), params)
		if err != nil {
			t.Fatal(err)
		}
		conforms(t, schema, res)
		var rep grader.Report
		structured(t, res, &rep)
		if res.IsError || rep.Workspace != dir || rep.Seed != 1 || rep.Kata != p.ID {
			t.Errorf("%s: isError %v, report %+v", ref, res.IsError, rep)
		}
		return rep, res
	}

	rep, _ := grade("correct", "grade-1")
	if rep.Status != grader.StatusPass || len(rep.Tests) < 10 {
		t.Errorf("the correct reference: status %s, %d tests: %s", rep.Status, len(rep.Tests), rep.Message)
	}
	mu.Lock()
	if len(progress) != len(rep.Tests) || (len(progress) > 0 && progress[len(progress)-1] != float64(len(rep.Tests))) {
		t.Errorf("progress %v, want one notice per test up to %d", progress, len(rep.Tests))
	}
	mu.Unlock()

	var want struct {
		Fail []string `json:"fail"`
	}
	raw, err := os.ReadFile(filepath.Join(referenceDir(p.ID, "python", "broken-empty-is-error"), "expect.json"))
	if err != nil || json.Unmarshal(raw, &want) != nil {
		t.Fatalf("expect.json: %v", err)
	}
	rep, _ = grade("broken-empty-is-error", nil)
	var failed []string
	for _, tr := range rep.Tests {
		if tr.Status != grader.StatusPass {
			failed = append(failed, tr.ID)
		}
	}
	if rep.Status != grader.StatusFail || !slices.Equal(failed, want.Fail) {
		t.Errorf("the broken reference: status %s, failing %v, want fail %v", rep.Status, failed, want.Fail)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(recorded) != 2 {
		t.Errorf("OnGrade received %d reports, want 2", len(recorded))
	}
}

// TestListedSizesAreReadSizes: every resource's listed size, and every layer's size in
// list_katas, is the number of bytes a read of it returns (an embedded asset table and front
// matter shown as a code block included), in English and in a translation.
func TestListedSizesAreReadSizes(t *testing.T) {
	for _, locale := range []string{"", "ru"} {
		lib := library(t)
		if locale != "" {
			lib = lib.Localized(locale)
		}
		_, cs := connect(t, lib, Options{}, nil)
		res, err := cs.ListResources(context.Background(), nil)
		if err != nil {
			t.Fatal(err)
		}
		sizes := map[string]int64{}
		for _, r := range res.Resources {
			if got := int64(len(read(t, cs, r.URI))); got != r.Size {
				t.Errorf("%s %s: listed %d bytes, a read returns %d", locale, r.URI, r.Size, got)
			}
			sizes[r.URI] = r.Size
		}
		var list KataList
		structured(t, call(t, cs, ToolListKatas, map[string]any{}), &list)
		for _, k := range list.Katas {
			for _, l := range k.Layers {
				if l.Size != sizes[l.URI] {
					t.Errorf("%s list_katas %s: %d bytes, the resource lists %d", locale, l.URI, l.Size, sizes[l.URI])
				}
			}
		}
	}
}

// TestQuizSeedsSurviveJavaScript: a seed quiz_item draws is at most 2^53 - 1, so a client that
// reads it as a double passes back the same number, and that seed gives the same item and order.
func TestQuizSeedsSurviveJavaScript(t *testing.T) {
	_, cs := connect(t, library(t), Options{}, nil)
	for range 20 {
		var q QuizItem
		structured(t, call(t, cs, ToolQuizItem, map[string]any{"kata": "mcp-structured-errors"}), &q)
		if q.Seed < 0 || q.Seed > MaxSeed || int64(float64(q.Seed)) != q.Seed {
			t.Fatalf("seed %d is not exact as a double", q.Seed)
		}
		var again QuizItem
		structured(t, call(t, cs, ToolQuizItem, map[string]any{"kata": "mcp-structured-errors", "seed": float64(q.Seed)}), &again)
		if again.Item != q.Item || !slices.Equal(again.Options, q.Options) {
			t.Fatalf("seed %d: %s then %s", q.Seed, q.Item, again.Item)
		}
	}
}

// TestGradeWorkspaceAnnotations: grade_workspace says what it does: it records a grade (not
// read-only, not idempotent) and runs the learner's code (open world); the other tools only read.
func TestGradeWorkspaceAnnotations(t *testing.T) {
	_, cs := connect(t, library(t), Options{}, nil)
	res, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, tool := range res.Tools {
		a := tool.Annotations
		open := a.OpenWorldHint == nil || *a.OpenWorldHint
		switch tool.Name {
		case ToolGradeWorkspace:
			if a.ReadOnlyHint || a.IdempotentHint || !open || a.DestructiveHint == nil || *a.DestructiveHint {
				t.Errorf("grade_workspace annotations %+v", a)
			}
		default:
			if !a.ReadOnlyHint || open {
				t.Errorf("%s annotations %+v", tool.Name, a)
			}
		}
	}
}
