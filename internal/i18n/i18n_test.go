package i18n

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/BurntSushi/toml"
	goi18n "github.com/nicksnyder/go-i18n/v2/i18n"

	"github.com/kata-mcp/kata/internal/locale"
)

// catalog parses lang's catalog files into its messages by id; an id in two files fails.
func catalog(t *testing.T, lang string) map[string]*goi18n.Message {
	t.Helper()
	out := map[string]*goi18n.Message{}
	for _, file := range Files(lang) {
		src, err := files.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		mf, err := goi18n.ParseMessageFileBytes(src, file, map[string]goi18n.UnmarshalFunc{"toml": toml.Unmarshal})
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range mf.Messages {
			if _, dup := out[m.ID]; dup {
				t.Errorf("%s: %q is in another file of the %s catalog too", file, m.ID, lang)
			}
			out[m.ID] = m
		}
	}
	return out
}

// TestEveryCatalogFileIsAnArea: each embedded .toml file is <area>.<lang>.toml of Areas and
// locale.Supported, so no file is loaded by accident or left out.
func TestEveryCatalogFileIsAnArea(t *testing.T) {
	var want []string
	for _, l := range locale.Supported {
		want = append(want, Files(l)...)
	}
	entries, err := files.ReadDir(".")
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if !slices.Contains(want, e.Name()) {
			t.Errorf("%s is embedded but is no area's catalog of a supported language", e.Name())
		}
	}
}

// field matches a template field, {{.Name}}.
var field = regexp.MustCompile(`\{\{\s*\.([A-Za-z]+)`)

// fields lists the template fields a message uses in any of its forms.
func fields(m *goi18n.Message) []string {
	var out []string
	for _, s := range []string{m.Zero, m.One, m.Two, m.Few, m.Many, m.Other} {
		for _, f := range field.FindAllStringSubmatch(s, -1) {
			if !slices.Contains(out, f[1]) {
				out = append(out, f[1])
			}
		}
	}
	slices.Sort(out)
	return out
}

// TestCatalogsHaveTheSameMessages: every language has every English message and no other, with
// the same template fields, and a counted English message is counted in every language (Russian
// with one, few and many).
func TestCatalogsHaveTheSameMessages(t *testing.T) {
	if _, err := Load(); err != nil {
		t.Fatal(err)
	}
	en := catalog(t, locale.English)
	if len(en) < 50 {
		t.Fatalf("the English catalog has only %d messages", len(en))
	}
	for _, lang := range locale.Supported[1:] {
		other := catalog(t, lang)
		for id, m := range en {
			o, ok := other[id]
			if !ok {
				t.Errorf("the %s catalog lacks %q", lang, id)
				continue
			}
			if o.Other == "" {
				t.Errorf("%s: %q has no other form", lang, id)
			}
			if got, want := fields(o), fields(m); !slices.Equal(got, want) {
				t.Errorf("%s: %q uses the fields %v, English %v", lang, id, got, want)
			}
			counted := m.One != ""
			if counted != (o.One != "") {
				t.Errorf("%s: %q is counted in one language and not the other", lang, id)
			}
			if counted && lang == "ru" && (o.Few == "" || o.Many == "") {
				t.Errorf("%s: %q lacks the few or many form", lang, id)
			}
		}
		for id := range other {
			if _, ok := en[id]; !ok {
				t.Errorf("%s has %q, which English does not", lang, id)
			}
		}
	}
}

// TestRussianPlurals checks the CLDR forms on the numbers that tell them apart.
func TestRussianPlurals(t *testing.T) {
	ru := New("ru")
	for n, want := range map[int]string{
		1: "1 ловушка", 2: "2 ловушки", 5: "5 ловушек", 11: "11 ловушек", 21: "21 ловушка", 22: "22 ловушки", 0: "0 ловушек", 112: "112 ловушек",
	} {
		if got := ru.N("count.trap", n); got != want {
			t.Errorf("N(count.trap, %d) = %q, want %q", n, got, want)
		}
	}
	for n, want := range map[int]string{1: "1 вопрос", 2: "2 вопроса", 5: "5 вопросов", 11: "11 вопросов", 21: "21 вопрос", 22: "22 вопроса"} {
		if got := ru.N("count.item", n); got != want {
			t.Errorf("N(count.item, %d) = %q, want %q", n, got, want)
		}
	}
	es := New("es")
	if got := es.N("count.layer", 1) + ", " + es.N("count.layer", 0) + ", " + es.N("count.layer", 21); got != "1 capa, 0 capas, 21 capas" {
		t.Errorf("Spanish layers: %q", got)
	}
}

// TestFallbacks: a nil localizer is English, an unknown language is English, an unknown id shows
// as itself.
func TestFallbacks(t *testing.T) {
	var nilLoc *Localizer
	if got := nilLoc.N("count.kata", 3); got != "3 katas" {
		t.Errorf("nil localizer: %q", got)
	}
	if got := New("fr").Lang(); got != "en" {
		t.Errorf("New(fr).Lang() = %q", got)
	}
	if got := New("ru_RU.UTF-8").Lang(); got != "ru" {
		t.Errorf("New(ru_RU.UTF-8).Lang() = %q", got)
	}
	if got := New("es").T("no.such.message"); got != "no.such.message" {
		t.Errorf("unknown id: %q", got)
	}
}

// TestEveryUsedIDExists reads the repository's Go source for calls .T("id" and .N("id" and
// checks that English has each id, so a typo in an id is a failing test, not a raw id on screen.
func TestEveryUsedIDExists(t *testing.T) {
	en := catalog(t, locale.English)
	root := filepath.Join("..", "..")
	fset := token.NewFileSet()
	used := 0
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == "testdata" || d.Name() == "packets" || strings.HasPrefix(d.Name(), ".")) && path != root {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		src, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		f, err := parser.ParseFile(fset, path, src, 0)
		if err != nil {
			return err
		}
		ast.Inspect(f, func(n ast.Node) bool {
			call, ok := n.(*ast.CallExpr)
			if !ok || len(call.Args) == 0 {
				return true
			}
			name := ""
			switch fn := call.Fun.(type) {
			case *ast.SelectorExpr:
				name = fn.Sel.Name
			case *ast.Ident:
				name = fn.Name
			}
			if !slices.Contains([]string{"T", "N", "M", "MN"}, name) {
				return true
			}
			lit, ok := call.Args[0].(*ast.BasicLit)
			if !ok || lit.Kind != token.STRING {
				return true
			}
			id, _ := strconv.Unquote(lit.Value)
			if !strings.Contains(id, ".") {
				return true
			}
			used++
			m, ok := en[id]
			switch {
			case !ok:
				t.Errorf("%s: message %q is in no catalog", fset.Position(lit.Pos()), id)
			case (name == "N" || name == "MN") && m.One == "":
				t.Errorf("%s: message %q is counted but has no one form", fset.Position(lit.Pos()), id)
			}
			return true
		})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if used == 0 {
		t.Fatal("found no call of T or N")
	}
}
