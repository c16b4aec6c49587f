package katas

import (
	"slices"
	"strings"
	"testing"

	"github.com/kata-mcp/kata/packets"
)

// ReplaceCodeSpans rewrites whole inline code spans only: a span wrapped over two lines, one
// with double backticks, never a code block, a span that merely contains a key, or prose.
func TestReplaceCodeSpans(t *testing.T) {
	terms := map[string]string{
		"call_with_retry(invoke, sleep, log, request, policy)": "callWithRetry(invoke, sleep, log, request, policy)",
		"None":                       "null",
		"client.py":                  "client.mjs",
		"(action, category, result)": "{ action, category, result }",
	}
	src := "# T\n\nIn `client.py`, implement `call_with_retry(invoke, sleep, log, request,\npolicy)`.\n" +
		"Return `(action, category, result)` (category ``None``); None in prose stays.\n" +
		"`client.pyc` and `None of it` stay.\n\n```python\nreturn None  # client.py\n```\n\n    `None` indented\n"
	got := string(ReplaceCodeSpans([]byte(src), terms))
	want := "# T\n\nIn `client.mjs`, implement `callWithRetry(invoke, sleep, log, request, policy)`.\n" +
		"Return `{ action, category, result }` (category `null`); None in prose stays.\n" +
		"`client.pyc` and `None of it` stay.\n\n```python\nreturn None  # client.py\n```\n\n    `None` indented\n"
	if got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
	if got := string(ReplaceCodeSpans([]byte(src), nil)); got != src {
		t.Error("no terms changed the text")
	}
}

// Every embedded packet's task reads, in each workspace language, with that language's names:
// no Python-only name is left in a code span of a Node or Go task, in any reading language,
// and the Python task is the file as written.
func TestEmbeddedTasksSpeakTheWorkspaceLanguage(t *testing.T) {
	lib, err := Discover(packets.FS, "embedded")
	if err != nil {
		t.Fatal(err)
	}
	pythonOnly := []string{"`client.py`", "`server.py`", "`call_with_retry", "`None`", "`api_get`", "`tool_error(", "`print()`", "`email.utils"}
	notGo := []string{"`ok(payload)`", "`log(...)`", "`mcp_shim`"}
	for _, loc := range []string{"en", "es", "ru"} {
		for _, e := range lib.Localized(loc).Entries() {
			p, _ := lib.Localized(loc).Get(e.ID)
			if got := p.TaskIn("python").Markdown; got != p.Task.Markdown {
				t.Errorf("%s %s: the python task differs from task.md", loc, p.ID)
			}
			for _, lang := range []string{"node", "go"} {
				task := p.TaskIn(lang)
				if len(task.Steps) != len(p.Task.Steps) {
					t.Errorf("%s %s %s: %d steps, want %d", loc, p.ID, lang, len(task.Steps), len(p.Task.Steps))
				}
				bad := pythonOnly
				if lang == "go" {
					bad = append(slices.Clip(bad), notGo...)
				}
				for _, py := range bad {
					if strings.Contains(task.Markdown, py) {
						t.Errorf("%s %s: the %s task still says %s", loc, p.ID, lang, py)
					}
				}
			}
		}
	}
	p, _ := lib.Get("mcp-structured-errors")
	node := p.TaskIn("node").Markdown
	for _, want := range []string{"`callWithRetry(invoke, sleep, log, request, policy)`", "`{ action, category, result }`", "`null`", "`client.mjs`"} {
		if !strings.Contains(node, want) {
			t.Errorf("the node task lacks %s", want)
		}
	}
}

// Bad terms are problems naming packet.json and the field: a key that is no language name, an
// empty term, a backtick or a line break (a language without a template is only unused).
func TestTermsProblems(t *testing.T) {
	var ps Problems
	parseManifest("x/packet.json", []byte(`{"format_version":1,"id":"x","title":"X","summary":"s","layers":["knowledge"],"languages":["python","node"],
"terms":{"Rust!":{"a":"b"},"rust":{"a":"b"},"node":{"":"x","y":"a`+"`"+`b","z":"a\nb"}}}`), &ps)
	got := ps.Error()
	for _, want := range []string{`terms: "Rust!" is not a language name`, "terms: node: an empty term", "holds a backtick or a line break", "x/packet.json:"} {
		if !strings.Contains(got, want) {
			t.Errorf("problems lack %q:\n%s", want, got)
		}
	}
}
