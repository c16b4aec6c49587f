// Package i18n gives kata's interface and command-line text in the user's language, from the
// message catalogs embedded beside it (active.<lang>.toml), with CLDR plural rules.
package i18n

import (
	"embed"
	"fmt"
	"sync"

	"github.com/BurntSushi/toml"
	goi18n "github.com/nicksnyder/go-i18n/v2/i18n"
	"golang.org/x/text/language"

	"github.com/kata-mcp/kata/internal/locale"
)

// files holds the catalogs: for each area (Areas) one file per language of locale.Supported,
// <area>.<lang>.toml (active.en.toml, grader.ru.toml, …).
//
//go:embed *.toml
var files embed.FS

// Areas are the catalog files' first names: "active" for the screens and commands, "grader"
// for the grader's test names and failure messages, "class" for the instructor's class
// reports and board. Each language has one file per area; together they are its catalog.
var Areas = []string{"active", "grader", "class"}

// bundle parses the catalogs once; a catalog that does not parse is a build defect, which the
// package's tests catch, so it panics.
var bundle = sync.OnceValue(func() *goi18n.Bundle {
	b, err := Load()
	if err != nil {
		panic(err)
	}
	return b
})

// Load parses the embedded catalogs into a bundle whose default language is English. An error
// names the catalog file and what in it does not parse.
func Load() (*goi18n.Bundle, error) {
	b := goi18n.NewBundle(language.English)
	b.RegisterUnmarshalFunc("toml", toml.Unmarshal)
	for _, l := range locale.Supported {
		for _, f := range Files(l) {
			if _, err := b.LoadMessageFileFS(files, f); err != nil {
				return nil, err
			}
		}
	}
	return b, nil
}

// File is the name of language lang's catalog of the screens and commands ("active.ru.toml").
func File(lang string) string { return "active." + lang + ".toml" }

// Files are the names of language lang's catalog files, one per area of Areas.
func Files(lang string) []string {
	out := make([]string, len(Areas))
	for i, a := range Areas {
		out[i] = a + "." + lang + ".toml"
	}
	return out
}

// Localizer gives the text of a message in one language. A nil *Localizer speaks English, so
// a zero-value configuration needs none.
type Localizer struct {
	lang string
	l    *goi18n.Localizer
}

// New returns the localizer of lang, an ISO 639-1 code from locale.Supported; any other code
// gets English.
func New(lang string) *Localizer {
	if code, ok := locale.Parse(lang); ok {
		lang = code
	} else {
		lang = locale.English
	}
	return &Localizer{lang: lang, l: goi18n.NewLocalizer(bundle(), lang)}
}

// english is the localizer a nil *Localizer stands for.
var english = sync.OnceValue(func() *Localizer { return New(locale.English) })

func (l *Localizer) get() *Localizer {
	if l == nil {
		return english()
	}
	return l
}

// Lang is the localizer's language code ("en", "es", "ru").
func (l *Localizer) Lang() string { return l.get().lang }

// T is message id's text with the template fields given as name, value pairs
// (T("traps.shown", "Shown", 3, "Total", "7 traps")). A message the language lacks falls back
// to English; an id no catalog has comes back as itself, so a missing message shows rather than
// vanishing.
func (l *Localizer) T(id string, kv ...any) string {
	return l.get().localize(id, nil, kv)
}

// N is message id's text in the plural form CLDR gives count in the localizer's language
// (Russian: one for 1, 21; few for 2–4, 22; many for 5–20, 11), with the field Count set to
// count beside the name, value pairs kv.
func (l *Localizer) N(id string, count int, kv ...any) string {
	return l.get().localize(id, count, append([]any{"Count", count}, kv...))
}

func (l *Localizer) localize(id string, count any, kv []any) string {
	data := make(map[string]any, len(kv)/2)
	for i := 0; i+1 < len(kv); i += 2 {
		data[fmt.Sprint(kv[i])] = kv[i+1]
	}
	s, err := l.l.Localize(&goi18n.LocalizeConfig{MessageID: id, TemplateData: data, PluralCount: count})
	if s == "" && err != nil {
		return id
	}
	return s
}

// Msg is a message not yet worded: its catalog id and its template fields as name, value
// pairs, and for a counted message the count that picks its plural form. The grader records
// its findings as Msgs so a report can be read in any language; Localizer.Say words one.
type Msg struct {
	ID     string
	Fields []any
	// Count, when Counted, is the number the plural form is chosen for (field Count).
	Count   int
	Counted bool
}

// M is the message id with the template fields kv (name, value pairs), as T takes them.
func M(id string, kv ...any) Msg { return Msg{ID: id, Fields: kv} }

// MN is the counted message id for count, as N takes it.
func MN(id string, count int, kv ...any) Msg {
	return Msg{ID: id, Fields: kv, Count: count, Counted: true}
}

// Say words m in the localizer's language.
func (l *Localizer) Say(m Msg) string {
	if m.Counted {
		return l.N(m.ID, m.Count, m.Fields...)
	}
	return l.T(m.ID, m.Fields...)
}

// English words m in English.
func (m Msg) English() string { return english().Say(m) }
