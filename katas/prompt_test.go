package katas

import (
	"errors"
	"strings"
	"testing"

	"github.com/kata-mcp/kata/packets"
)

const promptFile = "# Design the errors\n\nUse this before you write a handler.\n\n" +
	"```text\nTool: <name>\nBackend: <HTTP API /\ndatabase>, one call.\nKeep ${TOKEN:-<literal>} out.\n```\n\n" +
	"Check the answer.\n\n## Arguments\n\n" +
	"- `tool_name`: the tool's name; replaces `<name>`.\n" +
	"- `backend`: what it calls; replaces `<HTTP API / database>`.\n"

func TestParsePromptArguments(t *testing.T) {
	p, err := ParsePrompt("k/prompts/02-design-the-errors.md", promptFile)
	if err != nil {
		t.Fatal(err)
	}
	if p.Name != "design-the-errors" || p.Title != "Design the errors" || p.Description != "Use this before you write a handler." {
		t.Errorf("name %q, title %q, description %q", p.Name, p.Title, p.Description)
	}
	if !strings.HasPrefix(p.Text, "Tool: <name>") || strings.Contains(p.Text, "```") {
		t.Errorf("text %q is not the code block's body", p.Text)
	}
	if len(p.Arguments) != 2 || p.Arguments[0].Name != "tool_name" || p.Arguments[1].Placeholder != "<HTTP API / database>" {
		t.Fatalf("arguments %+v", p.Arguments)
	}
	if p.Arguments[0].Description != "the tool's name; replaces `<name>`." || p.Arguments[0].Line != 16 {
		t.Errorf("argument 0: %+v", p.Arguments[0])
	}
	// The placeholder broken over two lines is filled; an undeclared one and an argument
	// without a value keep their text.
	got := p.Fill(map[string]string{"backend": "Orders API"})
	want := "Tool: <name>\nBackend: Orders API, one call.\nKeep ${TOKEN:-<literal>} out."
	if got != want {
		t.Errorf("Fill:\n got %q\nwant %q", got, want)
	}
	if got := p.Fill(nil); got != p.Text {
		t.Errorf("Fill(nil) changed the text: %q", got)
	}
}

func TestParsePromptProblems(t *testing.T) {
	md := "# P\n\n```text\nSay <this>.\n```\n\n## Arguments\n\n" +
		"- no name here\n" +
		"- `Bad-Name`: replaces `<this>`\n" +
		"- `this_one`: replaces `<that>`\n" +
		"- `no_fill`: nothing in backticks\n" +
		"- `ok`: replaces `<this>`\n" +
		"- `ok`: again `<this>`\n"
	p, err := ParsePrompt("k/prompts/p.md", md)
	var ps Problems
	if !errors.As(err, &ps) {
		t.Fatalf("want problems, got %v", err)
	}
	wants := []string{
		"k/prompts/p.md:9: an argument item must start with the argument's name in backticks",
		`k/prompts/p.md:10: argument name "Bad-Name"`,
		`k/prompts/p.md:11: argument "this_one": the prompt's text has no placeholder <that>`,
		`k/prompts/p.md:12: argument "no_fill" names no placeholder`,
		`k/prompts/p.md:14: argument "ok" is listed twice`,
	}
	if len(ps) != len(wants) {
		t.Fatalf("%d problems, want %d:\n%v", len(ps), len(wants), err)
	}
	for i, w := range wants {
		if !strings.HasPrefix(ps[i].Error(), w) {
			t.Errorf("problem %d: %q, want prefix %q", i, ps[i].Error(), w)
		}
	}
	if len(p.Arguments) != 1 || p.Arguments[0].Name != "ok" {
		t.Errorf("the valid argument is kept: %+v", p.Arguments)
	}
}

func TestParsePromptWithoutArgumentsOrFence(t *testing.T) {
	p, err := ParsePrompt("x/prompts/review.md", "Paste this: \"Review my tool.\"\n")
	if err != nil {
		t.Fatal(err)
	}
	if p.Name != "review" || p.Title != "review" || p.Text != `Paste this: "Review my tool."` || len(p.Arguments) != 0 {
		t.Errorf("%+v", p)
	}
}

// TestEmbeddedPromptArguments checks that every ready prompt shipped in a packet parses, and
// that the prompts naming fill-ins declare them.
func TestEmbeddedPromptArguments(t *testing.T) {
	lib, err := Discover(packets.FS, "embedded")
	if err != nil {
		t.Fatal(err)
	}
	withArgs := 0
	for _, p := range lib.Packets() {
		l, err := lib.LoadLayer(p.ID, "prompts")
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range l.Files() {
			pr, err := ParsePrompt(p.ID+"/prompts/"+f.Name, f.Markdown)
			if err != nil {
				t.Errorf("%v", err)
			}
			if len(pr.Arguments) > 0 {
				withArgs++
			}
		}
	}
	if withArgs < 5 {
		t.Errorf("%d embedded prompts declare arguments, want at least 5", withArgs)
	}
}

func TestLayerSizeWithoutLoading(t *testing.T) {
	lib := testLibrary(t)
	n, err := lib.LayerSize("mini-kata", "knowledge")
	if err != nil {
		t.Fatal(err)
	}
	if lib.Resident() != nil {
		t.Error("LayerSize made a layer resident")
	}
	l, err := lib.LoadLayer("mini-kata", "knowledge")
	if err != nil {
		t.Fatal(err)
	}
	if int(n) != len(l.Markdown()) {
		t.Errorf("LayerSize %d, the loaded layer has %d bytes", n, len(l.Markdown()))
	}
	if _, err := lib.LayerSize("mini-kata", "nope"); err == nil || !strings.Contains(err.Error(), `no layer "nope"`) {
		t.Errorf("unknown layer: %v", err)
	}
}

func TestValidateReportsPromptArguments(t *testing.T) {
	fsys := shippedCopy(t, "mcp-structured-errors", map[string]func(string) string{
		"prompts/01-review-my-error-contract.md": func(s string) string {
			return strings.Replace(s, "replaces `<paste server.py here>`", "replaces `<paste it here>`", 1)
		},
	})
	vs, err := Validate(fsys, "test", ValidateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, p := range vs[0].Problems {
		got = append(got, p.Error())
	}
	want := `argument "server_source": the prompt's text has no placeholder <paste it here>`
	if len(got) != 1 || !strings.HasPrefix(got[0], "mcp-structured-errors/prompts/01-review-my-error-contract.md:") || !strings.HasSuffix(got[0], want) {
		t.Errorf("problems %v, want one naming the file and line: %s", got, want)
	}
}
