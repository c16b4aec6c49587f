// Package i18n gives kata's text in the user's language — the screens, the command line and its
// help, the grader's report, the class reports and the workshop's board — from the message
// catalogs embedded beside it, one file per area and language (<area>.<lang>.toml, Areas), with
// CLDR plural rules. A Msg is a message id with its data, worded only when a Localizer says it,
// so a value can travel (in an error, a report) and be read in any language. Machine output
// (--json, results.json, JUnit, rule ids) never goes through it. docs/i18n.md says how
// catalogs are written and checked.
package i18n

import (
	"embed"
	"errors"
	"fmt"
	"slices"
	"strings"
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
// for the grader's checks of a tools/call result and its rules (contract, hints, rules),
// "harness" for the rest of a grading run (launching, tools/list, stdout, the client
// scenarios, config rules, the call shown under a failure), "class" for the class reports
// (kata class grade), "workshop" for the live workshop's board and instructor actions, "cli" for the command-line help (each command's and flag's text,
// cobra's headings) and cobra's errors about a command line. Each language has one file per
// area; together they are its catalog.
var Areas = []string{"active", "grader", "harness", "class", "workshop", "cli"}

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
	// ID is the catalog id; "" for a Raw text.
	ID     string
	Fields []any
	// Text is a Raw message's text, the same in every language.
	Text string
	// Parts are a Lines message's lines.
	Parts []Msg
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

// Raw is a message that reads the same in every language: text the learner's code wrote, a
// path, or a sentence not yet in the catalogs.
func Raw(text string) Msg { return Msg{Text: text} }

// Lines is a message of several, one per line.
func Lines(ms ...Msg) Msg { return Msg{Parts: ms} }

// IsZero reports whether m says nothing: no id, text or parts.
func (m Msg) IsZero() bool { return m.ID == "" && m.Text == "" && len(m.Parts) == 0 }

// Say words m in the localizer's language. A template field whose value is a Msg (or a []Msg,
// one per line) is worded first, so messages compose.
func (l *Localizer) Say(m Msg) string {
	switch {
	case len(m.Parts) > 0:
		out := make([]string, len(m.Parts))
		for i, p := range m.Parts {
			out[i] = l.Say(p)
		}
		return strings.Join(out, "\n")
	case m.ID == "":
		return m.Text
	}
	if slices.ContainsFunc(m.Fields, isMsg) {
		kv := slices.Clone(m.Fields)
		for i, v := range kv {
			switch v := v.(type) {
			case Msg:
				kv[i] = l.Say(v)
			case []Msg:
				kv[i] = l.Say(Lines(v...))
			}
		}
		m.Fields = kv
	}
	if m.Counted {
		return l.N(m.ID, m.Count, m.Fields...)
	}
	return l.T(m.ID, m.Fields...)
}

func isMsg(v any) bool {
	switch v.(type) {
	case Msg, []Msg:
		return true
	}
	return false
}

// English words m in English.
func (m Msg) English() string { return english().Say(m) }

// Error is an error whose text is a Msg, so that a program can show it in the reader's
// language (Localizer.Error); its Error() is the English text.
type Error struct{ Msg Msg }

// Err is the error of message id with the template fields kv.
func Err(id string, kv ...any) error { return &Error{Msg: M(id, kv...)} }

func (e *Error) Error() string { return e.Msg.English() }

// Error words err in the localizer's language when err is, or wraps, an *Error whose text is
// all of err's (no wrapping added words of its own); otherwise err's own text.
func (l *Localizer) Error(err error) string { return l.Say(ErrMsg(err)) }

// ErrMsg is err's text as a message: its catalog message when err is, or wraps adding no
// words of its own, an *Error; else Raw(err.Error()), the same in every language.
func ErrMsg(err error) Msg {
	m, _ := errMsg(err)
	return m
}

// IsMsg reports whether err's text is all a catalog message (ErrMsg gives it).
func IsMsg(err error) bool {
	_, ok := errMsg(err)
	return ok
}

func errMsg(err error) (Msg, bool) {
	var e *Error
	if errors.As(err, &e) && e.Error() == err.Error() {
		return e.Msg, true
	}
	return Raw(err.Error()), false
}
