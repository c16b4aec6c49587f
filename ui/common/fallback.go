package common

// inEnglish says "in English" in each language kata has (internal/locale.Supported).
var inEnglish = map[string]string{"es": "en inglés", "ru": "на английском"}

// InEnglish is the marker a page adds to its title when what it shows is read in English
// although the user reads kata in locale (an ISO 639-1 code): the packet file has no locale
// twin, or one that disagrees with it (katas.Packet.InEnglish, katas.Layer.Fallback). It is
// "in English" in the user's language, and "" for English itself ("" or "en").
func InEnglish(locale string) string {
	if locale == "" || locale == "en" {
		return ""
	}
	if s, ok := inEnglish[locale]; ok {
		return s
	}
	return "in English"
}
