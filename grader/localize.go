package grader

import (
	"slices"
	"strconv"
	"strings"

	"github.com/kata-mcp/kata/internal/i18n"
	"github.com/kata-mcp/kata/katas"
)

// Localize returns a copy of the report for a reader of loc's language, to show and never to
// save: each test's name and rule from p, the packet as the reader's locale reads it
// (katas.Packet.TestText: its fixture twins), or from the grader's catalog for the run-wide
// tests; its message and note from their catalog messages (Lines, NoteLines), sanitised again;
// and the report's own message from Why. What has no words in that language stays English: a
// report read back from JSON keeps its English messages. A nil or English loc returns r
// itself; p may be nil (names and rules stay as they are). JSON, JUnit and CSV output are
// written from the report itself, in English (docs/i18n.md).
func Localize(r *Report, loc *i18n.Localizer, p *katas.Packet) *Report {
	if r == nil || loc == nil || loc.Lang() == katas.English {
		return r
	}
	out := *r
	if r.Why != nil {
		out.Message = Sanitize(loc.Say(*r.Why))
	}
	out.Tests = make([]TestResult, len(r.Tests))
	for i, t := range r.Tests {
		out.Tests[i] = LocalizeTest(t, loc, p)
	}
	return &out
}

// LocalizeTest is one test of a report for a reader of loc's language, as Localize words it.
func LocalizeTest(t TestResult, loc *i18n.Localizer, p *katas.Packet) TestResult {
	if loc == nil || loc.Lang() == katas.English {
		return t
	}
	if words, ok := testWords(t.ID, loc, p); ok {
		t.Name = words.Name
		if t.Rule != "" {
			t.Rule = words.Rule
		}
	}
	if len(t.Lines) > 0 {
		t.Message = Sanitize(sayLines(loc, packetWords(t.Lines, p)))
	}
	if len(t.NoteLines) > 0 {
		t.Note = Sanitize(sayLines(loc, packetWords(t.NoteLines, p)))
	}
	return t
}

// testWords is the name and rule of the test with the id in loc's language: a run-wide test's
// from the catalog (runWideTest), any other from p.
func testWords(id string, loc *i18n.Localizer, p *katas.Packet) (katas.TestText, bool) {
	if p == nil {
		return katas.TestText{}, false
	}
	if name, rule, ok := runWideTest(id, p, loc); ok {
		return katas.TestText{ID: id, Name: name, Rule: rule}, true
	}
	return p.TestText(id)
}

// runWideTest is the name and rule of one of the grader's own tests, which no fixture file
// holds ("tools-list", "stdout-protocol-only"), in loc's language (nil: English); ok is false
// for any other id.
func runWideTest(id string, p *katas.Packet, loc *i18n.Localizer) (name, rule string, ok bool) {
	switch id {
	case "tools-list":
		tools := strings.Join(p.Tools, loc.T("grader.and"))
		return loc.T("grader.test.tools_list.name", "Tools", tools), loc.T("grader.test.tools_list.rule"), true
	case "stdout-protocol-only":
		return loc.T("grader.test.stdout_protocol_only.name"), loc.T("grader.test.stdout_protocol_only.rule"), true
	}
	return "", "", false
}

// sayLines words messages in loc's language, one per line.
func sayLines(loc *i18n.Localizer, lines []i18n.Msg) string {
	out := make([]string, len(lines))
	for i, m := range lines {
		out[i] = loc.Say(m)
	}
	return strings.Join(out, "\n")
}

// packetWords is the messages with each fixture's rule in them (fixtureRule) worded as the
// packet p words it (katas.Packet.TestText: its locale twin's rule); a rule p has no words for,
// or a nil p, stays as it was.
func packetWords(ms []i18n.Msg, p *katas.Packet) []i18n.Msg {
	if p == nil {
		return ms
	}
	out := make([]i18n.Msg, len(ms))
	for i, m := range ms {
		out[i] = packetWord(m, p)
	}
	return out
}

// testNameID is the catalog id of testName's message: a test's name, quoted, inside another
// message; its text is its Name field in every language, and Localize swaps it for the
// packet's words (packetWord).
const testNameID = "grader.test_name"

// testName is the quoted name of the test with the id, as a message Localize can word.
func testName(id, name string) i18n.Msg {
	return i18n.M(testNameID, "Test", id, "Name", strconv.Quote(name))
}

// packetWord is packetWords for one message and the messages in its fields and lines.
func packetWord(m i18n.Msg, p *katas.Packet) i18n.Msg {
	if m.ID == fixtureRuleID || m.ID == testNameID {
		for i := 0; i+1 < len(m.Fields); i += 2 {
			if id, ok := m.Fields[i+1].(string); ok && m.Fields[i] == "Test" {
				switch words, ok := p.TestText(id); {
				case ok && m.ID == fixtureRuleID && words.Rule != "":
					return i18n.Raw(words.Rule)
				case ok && m.ID == testNameID && words.Name != "":
					return i18n.Raw(strconv.Quote(words.Name))
				}
			}
		}
		return m
	}
	if len(m.Parts) > 0 {
		m.Parts = packetWords(m.Parts, p)
	}
	if len(m.Fields) > 0 {
		m.Fields = slices.Clone(m.Fields)
		for i, v := range m.Fields {
			switch v := v.(type) {
			case i18n.Msg:
				m.Fields[i] = packetWord(v, p)
			case []i18n.Msg:
				m.Fields[i] = packetWords(v, p)
			}
		}
	}
	return m
}
