package grader_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kata-mcp/kata/grader"
	"github.com/kata-mcp/kata/internal/i18n"
)

// findTest is the report's test with the id; it fails the test when there is none.
func findTest(t *testing.T, rep *grader.Report, id string) grader.TestResult {
	t.Helper()
	for _, tr := range rep.Tests {
		if tr.ID == id {
			return tr
		}
	}
	t.Fatalf("the report has no test %s (status %s: %s)", id, rep.Status, rep.Message)
	return grader.TestResult{}
}

// TestHarnessMessagesInReadersLanguage grades two broken references once each and reads their
// reports in Spanish and Russian: the stdout rule's message and a fixture's call detail (the
// call sent, what the Orders API did, what came back) are worded in the reader's language,
// the learner's stdout line is quoted as it was, and the report itself stays English.
func TestHarnessMessagesInReadersLanguage(t *testing.T) {
	lib := library(t)
	const kata = "mcp-error-responses"
	ref := func(name string) string {
		return filepath.Join("..", "testdata", "references", kata, "python", name)
	}
	t.Run("stdout", func(t *testing.T) {
		t.Parallel()
		dir := workspace(t, lib, kata, "python", ref("broken-stdout-debug"))
		rep := grader.Grade(context.Background(), lib, dir, grader.Options{Seed: 1, SeedSet: true})
		en := findTest(t, rep, "stdout-protocol-only")
		if en.Status != grader.StatusFail || !strings.Contains(en.Message, "write logs to stderr") {
			t.Fatalf("stdout-protocol-only: %s\n%s", en.Status, en.Message)
		}
		// the learner's line, quoted, is the second line of the message, after the test's
		// quoted name (which Localize words too)
		_, learner, ok := strings.Cut(strings.Split(en.Message, "\n")[1], `": `)
		if !ok {
			t.Fatalf("no quoted stdout line in %q", en.Message)
		}
		for lang, want := range map[string][]string{
			"es": {"escribe los logs en stderr", "stdout solo lleva mensajes JSON-RPC"},
			"ru": {"пишите логи в stderr", "в stdout только сообщения JSON-RPC"},
		} {
			p, _ := lib.Localized(lang).Get(kata)
			got := findTest(t, grader.Localize(rep, i18n.New(lang), p), "stdout-protocol-only")
			if !strings.Contains(got.Message, want[0]) || strings.Contains(got.Message, "write logs") {
				t.Errorf("%s: message\n%s", lang, got.Message)
			}
			if got.Name != want[1] {
				t.Errorf("%s: name %q, want %q", lang, got.Name, want[1])
			}
			if !strings.Contains(got.Message, learner) {
				t.Errorf("%s: the learner's line %s is not quoted as it was:\n%s", lang, learner, got.Message)
			}
		}
		if now := findTest(t, rep, "stdout-protocol-only"); now.Message != en.Message {
			t.Errorf("Localize changed the report's own message:\n%s", now.Message)
		}
	})
	t.Run("call detail", func(t *testing.T) {
		t.Parallel()
		dir := workspace(t, lib, kata, "python", ref("broken-429-rate-limit"))
		rep := grader.Grade(context.Background(), lib, dir, grader.Options{Seed: 1, SeedSet: true})
		en := findTest(t, rep, "lookup-rate-limited")
		if en.Status != grader.StatusFail || !strings.Contains(en.Message, "call: tools/call lookup_order") || !strings.Contains(en.Message, "Orders API: answered 429") {
			t.Fatalf("lookup-rate-limited: %s\n%s", en.Status, en.Message)
		}
		for lang, want := range map[string][]string{
			"es": {"llamada: tools/call lookup_order", "API de Orders: respondió 429", "recibido: "},
			"ru": {"вызов: tools/call lookup_order", "API заказов: ответил 429", "получено: "},
		} {
			p, _ := lib.Localized(lang).Get(kata)
			got := findTest(t, grader.Localize(rep, i18n.New(lang), p), "lookup-rate-limited")
			for _, w := range want {
				if !strings.Contains(got.Message, w) {
					t.Errorf("%s: no %q in\n%s", lang, w, got.Message)
				}
			}
			if strings.Contains(got.Message, "call: tools/call") {
				t.Errorf("%s: the call detail is in English:\n%s", lang, got.Message)
			}
		}
		if !strings.Contains(findTest(t, rep, "lookup-rate-limited").Message, "call: tools/call") {
			t.Error("Localize changed the report's own message")
		}
	})
}

// TestKataJSONErrorInReadersLanguage: a kata.json the grader cannot use ends the run with a
// message that names the file and line, English in the report (results.json) and the reader's
// language through Localize and i18n.Localizer.Error.
func TestKataJSONErrorInReadersLanguage(t *testing.T) {
	lib := library(t)
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "kata.json"), []byte("{\n  \"kata\": \"mcp-error-responses\",\n  \"clinet\": {\"command\": \"python3\"}\n}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	rep := grader.Grade(context.Background(), lib, dir, grader.Options{})
	const english = `kata.json:3: unknown key "clinet"; kata.json knows kata, language, build {command, args} and client {command, args}`
	if rep.Status != grader.StatusError || rep.Message != english {
		t.Fatalf("status %s, message %q", rep.Status, rep.Message)
	}
	if rep.Why == nil {
		t.Fatal("the report has no Why")
	}
	es := grader.Localize(rep, i18n.New("es"), nil)
	if want := `kata.json:3: clave desconocida "clinet"; kata.json admite kata, language, build {command, args} y client {command, args}`; es.Message != want {
		t.Errorf("es: %q, want %q", es.Message, want)
	}
	if rep.Message != english {
		t.Errorf("Localize changed the report's message: %q", rep.Message)
	}
	_, err := grader.LoadKataConfig(t.TempDir())
	if got, want := i18n.New("ru").Error(err), "kata.json: файл отсутствует: рабочей папке нужен kata.json (создайте рабочую папку командой `kata init`)"; got != want {
		t.Errorf("ru: %q, want %q", got, want)
	}
	if got, want := err.Error(), "kata.json: missing: the workspace needs kata.json (run `kata init` to create a workspace)"; got != want {
		t.Errorf("en: %q, want %q", got, want)
	}
}
