package katas

import (
	"github.com/kata-mcp/kata/internal/locale"

	"io/fs"
	"path"
	"slices"
	"strings"
)

// English is the locale every packet is written in first; its files have no locale in their
// names (docs/packets.md, "Locale twins").
const English = locale.English

// Localized returns a view of the library that reads each packet in locale, an ISO 639-1 code
// such as "es": exam.md, traps.md, task.md and each layer file come from their locale twin
// (SplitTwin) when it exists, reads and agrees with its English file (CheckTwin), and from the
// English file otherwise; the packet's Fallback and the layer's Fallback list the files read in
// English that way. Item ids, keys, trap rows and step numbers are the English file's, so
// progress, cards and exam history are the same in every locale. The view shares the packets,
// their parsing on first use and the single resident layer with l, and localizes a packet on
// first use too, once per locale. "" and English return l itself. Call it once every Add and
// AddDir is done: the view does not see packets added to l later.
func (l *Library) Localized(locale string) *Library {
	if locale == "" || locale == English || locale == l.locale {
		return l
	}
	return &Library{entries: l.entries, shims: l.shims, locale: locale, res: l.res}
}

// Locale is the language the library reads packets in: "" for English (see Localized), and for
// a nil library.
func (l *Library) Locale() string {
	if l == nil {
		return ""
	}
	return l.locale
}

// packet returns entry e's packet as the library reads it: parsed on first use, and localized
// on first use in a localized view; nil when it failed to parse.
func (l *Library) packet(e *entry) *Packet {
	p := e.parsed()
	if p == nil || l.locale == "" {
		return p
	}
	e.locMu.Lock()
	defer e.locMu.Unlock()
	if lp, ok := e.localized[l.locale]; ok {
		return lp
	}
	lp := localize(p, l.locale)
	if e.localized == nil {
		e.localized = map[string]*Packet{}
	}
	e.localized[l.locale] = lp
	return lp
}

// InEnglish reports whether file ("exam.md", "traps.md" or "task.md") is read in English
// although the packet was asked in another locale, so a page showing it can say so. It is
// false for a packet read in English.
func (p *Packet) InEnglish(file string) bool {
	return p.Locale != "" && slices.Contains(p.Fallback, file)
}

// TwinName is the name of file's locale twin: "knowledge/01-model.md", "es" →
// "knowledge/01-model.es.md".
func TwinName(file, locale string) string {
	return strings.TrimSuffix(file, ".md") + "." + locale + ".md"
}

// localize returns a copy of the English packet en read in locale: its items, trap tables and
// task from the twins of exam.md, traps.md and task.md that read and agree with their English
// files (CheckTwin), the English ones otherwise (listed in Fallback).
func localize(en *Packet, locale string) *Packet {
	p := *en
	p.Locale, p.Fallback = locale, nil
	p.Manifest = en.Manifest.In(locale)
	for _, name := range parsedFiles {
		file := path.Join(p.Dir, name)
		enSrc, err := fs.ReadFile(p.fsys, file)
		if err != nil {
			p.Fallback = append(p.Fallback, name)
			continue
		}
		twin, src, ok := readTwin(p.fsys, file, enSrc, locale)
		if !ok {
			p.Fallback = append(p.Fallback, name)
			continue
		}
		var ps Problems
		switch name {
		case "exam.md":
			p.Items = parseExam(twin, src, &ps)
			for i := range p.Items {
				p.Items[i].English = &en.Items[i] // CheckTwin: the same ids in the same order
			}
		case "traps.md":
			p.Traps = parseTraps(twin, src, &ps)
			for i, t := range p.Traps { // CheckTwin: as many tables and rows
				for j := range t.Rows {
					t.Rows[j].English = &TrapOrigin{Table: en.Traps[i].Title, Row: en.Traps[i].Rows[j]}
				}
			}
		case "task.md":
			p.Task = parseTask(twin, src, &ps)
		}
	}
	localizeTests(&p, en, locale)
	return &p
}

// readTwin reads the locale twin of the English file (whose contents are enSrc): ok when it
// exists, is a plain file of UTF-8 text within MarkdownBounds and agrees with the English file
// (CheckTwin finds no problem). A twin that fails any of these is not read, so its English
// file stands in for it.
func readTwin(fsys fs.FS, file string, enSrc []byte, locale string) (twin string, src []byte, ok bool) {
	twin = TwinName(file, locale)
	if _, err := fs.Stat(fsys, twin); err != nil {
		return twin, nil, false
	}
	var ps Problems
	src, ok = readLayerFile(fsys, twin, &ps)
	if !ok || len(CheckTwin(file, enSrc, twin, src)) > 0 {
		return twin, nil, false
	}
	return twin, src, true
}
