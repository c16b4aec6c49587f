package katas

import (
	"errors"
	"io/fs"
	"path"
	"slices"
	"strings"
)

// A fixture file's locale twin (docs/packets.md, "Locale twins") words its tests in another
// language: fixtures/server.es.json beside fixtures/server.json holds, for every fixture of the
// English file and in its order, the fixture's id with its name and rule in Spanish. It changes
// nothing the grader does: only what a report shows a reader of that language.

// TestText is a graded test's words in one language: the name reports show and the rule, in
// plain words, shown with a failure (Fixture.Name and Fixture.Rule, and the same fields of a
// Scenario and a ConfigRule).
type TestText struct {
	ID   string `json:"id"`
	Name string `json:"name"`
	Rule string `json:"rule"`
}

// FixtureTwinFile is fixtures/<part>.<locale>.json: the tests of one graded part, in order.
type FixtureTwinFile struct {
	Tests []TestText `json:"tests"`
}

// FixtureTwinName is the name of a fixture file's locale twin: "fixtures/server.json", "es" →
// "fixtures/server.es.json".
func FixtureTwinName(file, locale string) string {
	return strings.TrimSuffix(file, ".json") + "." + locale + ".json"
}

// partTexts lists the tests of graded part in the English packet's words, in file order; nil
// for a part the packet does not have.
func (p *Packet) partTexts(part string) []TestText {
	var out []TestText
	switch part {
	case "server":
		if set := p.Fixtures["server"]; set != nil {
			for _, f := range set.Fixtures {
				out = append(out, TestText{ID: f.ID, Name: f.Name, Rule: f.Rule})
			}
		}
	case "client":
		if p.Scenarios != nil {
			for _, s := range p.Scenarios.Scenarios {
				out = append(out, TestText{ID: s.ID, Name: s.Name, Rule: s.Rule})
			}
		}
	case "config":
		if p.ConfigRules != nil {
			for _, r := range p.ConfigRules.Rules {
				out = append(out, TestText{ID: r.ID, Name: r.Name, Rule: r.Rule})
			}
		}
	}
	return out
}

// TestText returns the name and rule of the test with the id in the packet's language: from
// its part's locale twin when the packet was read in a locale that has one, else the English
// fixture's; ok is false for an id no fixture, scenario or config rule of the packet has (the
// grader's own run-wide tests, such as "tools-list").
func (p *Packet) TestText(id string) (TestText, bool) {
	if t, ok := p.testTexts[id]; ok {
		return t, true
	}
	for _, part := range gradedParts {
		if i := slices.IndexFunc(p.partTexts(part), func(t TestText) bool { return t.ID == id }); i >= 0 {
			return p.partTexts(part)[i], true
		}
	}
	return TestText{}, false
}

// checkFixtureTwin checks a fixture file's twin against the English tests en of its file
// english: it decodes strictly, lists the same ids in the same order, and gives each a name
// and a rule. Each problem is at the twin's line and names the English file.
func checkFixtureTwin(english string, enSrc []byte, en []TestText, twin string, src []byte, ps *Problems) []TestText {
	var tf FixtureTwinFile
	if err := decodeStrict(twin, src, &tf); err != nil {
		ps.addErr(twin, err)
		return nil
	}
	enLine := func(id string) string { return at(english, fixtureLine(enSrc, id)) }
	has := func(ts []TestText, id string) bool {
		return slices.ContainsFunc(ts, func(t TestText) bool { return t.ID == id })
	}
	seen := map[string]bool{}
	for _, t := range tf.Tests {
		line := fixtureLine(src, t.ID)
		switch {
		case seen[t.ID]:
			ps.add(twin, line, "test %q is listed twice", t.ID)
		case !has(en, t.ID):
			ps.add(twin, line, "test %q is not in %s", t.ID, english)
		}
		seen[t.ID] = true
		if strings.TrimSpace(t.Name) == "" {
			ps.add(twin, line, "test %q has no name", t.ID)
		}
		if strings.TrimSpace(t.Rule) == "" {
			ps.add(twin, line, "test %q has no rule", t.ID)
		}
	}
	// A missing test is reported where it belongs: at the next test of the English order that
	// the twin has, or at the twin's end.
	missing := false
	for i, e := range en {
		if has(tf.Tests, e.ID) {
			continue
		}
		missing = true
		line := endLine(src)
		for _, next := range en[i+1:] {
			if has(tf.Tests, next.ID) {
				line = fixtureLine(src, next.ID)
				break
			}
		}
		ps.add(twin, line, "test %q of %s (%s) is missing", e.ID, english, enLine(e.ID))
	}
	if missing || len(tf.Tests) != len(en) {
		return tf.Tests
	}
	// The same tests: in the same order?
	for i, t := range tf.Tests {
		if t.ID != en[i].ID {
			ps.add(twin, fixtureLine(src, t.ID), "test %q is at position %d here, and %s has %q there (%s): keep the English order", t.ID, i+1, english, en[i].ID, enLine(en[i].ID))
			break
		}
	}
	return tf.Tests
}

// checkFixtureTwins checks every fixture twin of the packet p read from dir in fsys: each
// fixtures/<part>.<locale>.json of a graded part against fixtures/<part>.json.
func checkFixtureTwins(fsys fs.FS, p *Packet) Problems {
	var ps Problems
	entries, err := fs.ReadDir(fsys, path.Join(p.Dir, "fixtures"))
	if err != nil {
		return nil
	}
	for _, e := range entries {
		stem, ok := strings.CutSuffix(e.Name(), ".json")
		part, loc, twin := strings.Cut(stem, ".")
		if !ok || !twin || e.IsDir() {
			continue
		}
		file := path.Join(p.Dir, "fixtures", e.Name())
		english := path.Join(p.Dir, "fixtures", part+".json")
		if len(loc) != 2 || !slices.Contains(p.Graded, part) {
			ps.add(file, 0, "not a locale twin of a graded part's fixtures (fixtures/<part>.<locale>.json, part one of %s)", strings.Join(p.Graded, ", "))
			continue
		}
		src, err := readJSON(fsys, file)
		var tooLarge *ParseError
		if errors.As(err, &tooLarge) {
			ps.addErr(file, err)
			continue
		}
		if err != nil {
			ps.add(file, 0, "cannot read: %v", unwrapPathError(err))
			continue
		}
		enSrc, err := readJSON(fsys, english)
		if err != nil {
			continue // reported by CheckPacket: a twin of what did not load is not checked
		}
		checkFixtureTwin(english, enSrc, p.partTexts(part), file, src, &ps)
	}
	return ps
}

// localizeTests reads the fixture twins of locale into p.testTexts; a part whose twin is
// missing or disagrees with its English file (checkFixtureTwin) keeps the English words and is
// listed in p.Fallback as fixtures/<part>.json.
func localizeTests(p *Packet, en *Packet, locale string) {
	for _, part := range p.Graded {
		texts := en.partTexts(part)
		if len(texts) == 0 {
			continue
		}
		english := path.Join(p.Dir, "fixtures", part+".json")
		file := FixtureTwinName(english, locale)
		src, err := readJSON(p.fsys, file)
		var ps Problems
		var tw []TestText
		if err == nil {
			enSrc, _ := readJSON(p.fsys, english)
			tw = checkFixtureTwin(english, enSrc, texts, file, src, &ps)
		}
		if err != nil || len(ps) > 0 {
			p.Fallback = append(p.Fallback, path.Join("fixtures", part+".json"))
			continue
		}
		if p.testTexts == nil {
			p.testTexts = map[string]TestText{}
		}
		for _, t := range tw {
			p.testTexts[t.ID] = t
		}
	}
}
