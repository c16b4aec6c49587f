package common

import "github.com/kata-mcp/kata/internal/i18n"

// InEnglish is the marker a page adds to its title when what it shows is read in English
// although the user reads kata in locale (an ISO 639-1 code): the packet file has no locale
// twin, or one that disagrees with it (katas.Packet.InEnglish, katas.Layer.Fallback). It is
// "in English" in the user's language (the catalog's common.in_english), and "" for English
// itself ("" or "en").
func InEnglish(locale string) string {
	if locale == "" || locale == "en" {
		return ""
	}
	return i18n.New(locale).T("common.in_english")
}
