// Package locale decides which language the user reads kata in: from the --lang flag, then
// KATA_LANG, then the POSIX locale variables, English when none names a language kata has.
package locale

import "strings"

// English is the default language, the one every packet is written in first.
const English = "en"

// Supported lists the languages kata has, as ISO 639-1 codes: the UI's message catalogs and the
// packets' locale twins (docs/packets.md, "Locale twins") use these codes.
var Supported = []string{English, "es", "ru"}

// EnvLang is the environment variable that picks kata's language, before the POSIX ones.
const EnvLang = "KATA_LANG"

// Resolve returns the language to use: the first of flag, $KATA_LANG, $LC_ALL, $LC_MESSAGES and
// $LANG that is set and not empty, reduced to its language code ("ru_RU.UTF-8" → "ru",
// "es-MX" → "es"), when kata has that language; else English. As POSIX has it (XBD §8.2), the
// first of LC_ALL, LC_MESSAGES and LANG that is set decides, so LC_ALL=C means English even when
// LANG says otherwise. An explicit flag or KATA_LANG naming a language kata lacks falls through
// to the next source rather than to English, so KATA_LANG=fr with LANG=es_ES reads Spanish.
func Resolve(flag string, getenv func(string) string) string {
	for _, v := range []string{flag, getenv(EnvLang)} {
		if code, ok := Parse(v); ok {
			return code
		}
	}
	for _, name := range []string{"LC_ALL", "LC_MESSAGES", "LANG"} {
		if v := getenv(name); v != "" {
			if code, ok := Parse(v); ok {
				return code
			}
			return English
		}
	}
	return English
}

// Parse reduces a language tag or POSIX locale name ("ru", "ru_RU.UTF-8", "es-419",
// "pt_BR@euro") to its lower-case language code and reports whether kata has that language.
// "C" and "POSIX" are English.
func Parse(s string) (string, bool) {
	s = strings.TrimSpace(s)
	if s == "" {
		return "", false
	}
	if s == "C" || s == "POSIX" || strings.HasPrefix(s, "C.") {
		return English, true
	}
	code := strings.ToLower(s)
	if i := strings.IndexAny(code, "_-.@"); i >= 0 {
		code = code[:i]
	}
	for _, l := range Supported {
		if l == code {
			return code, true
		}
	}
	return "", false
}
