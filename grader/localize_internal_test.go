package grader

import (
	"encoding/json"
	"io/fs"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/kata-mcp/kata/internal/i18n"
	"github.com/kata-mcp/kata/katas"
	"github.com/kata-mcp/kata/packets"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// twinnedLibrary is the built-in packet kata (and the shims) with a Spanish twin of fixtures/<part>.json
// for each part given, whose every test's rule reads "ES: " and the English rule, so a test can
// tell the twin's words from the fixture's.
func twinnedLibrary(t *testing.T, kata string, parts ...string) *katas.Library {
	t.Helper()
	m := fstest.MapFS{}
	for _, dir := range []string{kata, "shims"} {
		err := fs.WalkDir(packets.FS, dir, func(path string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return err
			}
			b, err := fs.ReadFile(packets.FS, path)
			m[path] = &fstest.MapFile{Data: b}
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	en, err := katas.Discover(m, "test")
	if err != nil {
		t.Fatal(err)
	}
	p, _ := en.Get(kata)
	for _, part := range parts {
		var ids []string
		switch part {
		case "server":
			for _, f := range p.Fixtures["server"].Fixtures {
				ids = append(ids, f.ID)
			}
		case "config":
			for _, r := range p.ConfigRules.Rules {
				ids = append(ids, r.ID)
			}
		}
		var twin katas.FixtureTwinFile
		for _, id := range ids {
			words, _ := p.TestText(id)
			twin.Tests = append(twin.Tests, katas.TestText{ID: id, Name: "ES: " + words.Name, Rule: "ES: " + words.Rule})
		}
		b, _ := json.Marshal(twin)
		m[kata+"/"+katas.FixtureTwinName("fixtures/"+part+".json", "es")] = &fstest.MapFile{Data: b}
	}
	lib, err := katas.Discover(m, "test")
	if err != nil {
		t.Fatal(err)
	}
	return lib
}

// TestLocalizeWordsTheChecks: a failing check of each kind — a wrong category (with the
// fixture's rule in it), a missing field, a wrong type, counted requests, a hint — reads in
// Spanish and Russian once the report is localized, with the fixture's rule from the packet's
// twin; the report itself keeps its English Message, as results.json and JUnit write it.
func TestLocalizeWordsTheChecks(t *testing.T) {
	lib := twinnedLibrary(t, "mcp-structured-errors", "server")
	pes, _ := lib.Localized("es").Get("mcp-structured-errors")
	pru, _ := lib.Localized("ru").Get("mcp-structured-errors")
	f, c := fixtureByID(t, lib, "mcp-structured-errors", "lookup-unavailable")
	missingArg, _ := fixtureByID(t, lib, "mcp-structured-errors", "lookup-missing-arg")
	// Russian has the packet's own twin (the embedded fixtures/server.ru.json), Spanish the
	// test's ("ES: " + the English)
	ruWords, _ := pru.TestText(f.ID)
	ruRule := ruWords.Rule
	dr := newDrawer(1).draw(f, caseSpec{status: 503})
	drMissing := newDrawer(1).draw(missingArg, caseSpec{})
	get := apiRequest{Method: "GET", Path: "/orders/ORD-1234", Authorized: true}
	typed := func(kv ...any) *mcp.CallToolResult {
		payload := map[string]any{"isError": true, "errorCategory": "transient", "isRetryable": true, "explanation": "the order service is down"}
		for i := 0; i+1 < len(kv); i += 2 {
			if kv[i+1] == nil {
				delete(payload, kv[i].(string))
			} else {
				payload[kv[i].(string)] = kv[i+1]
			}
		}
		return result(payload, true)
	}
	for _, tc := range []struct {
		name         string
		f            katas.Fixture
		dr           drawn
		out          callOutcome
		en, es, ru   string
		esNot, ruNot string
	}{
		{name: "wrong category", f: f, dr: dr, out: callOutcome{res: typed("errorCategory", "validation", "isRetryable", false), requests: []apiRequest{get}},
			en: `errorCategory was "validation"; expected "transient" (` + f.Rule + `)`,
			es: `errorCategory era "validation"; se esperaba "transient" (ES: ` + f.Rule + `)`,
			ru: `в errorCategory пришло "validation"; ожидалось "transient" (` + ruRule + `)`},
		{name: "missing field", f: f, dr: dr, out: callOutcome{res: typed("isRetryable", nil), requests: []apiRequest{get}},
			en: "isRetryable is missing from the error payload (structuredContent)", es: "falta isRetryable en el payload del error (structuredContent)", ru: "нет поля isRetryable в payload ошибки (structuredContent)"},
		{name: "wrong type", f: f, dr: dr, out: callOutcome{res: typed("isRetryable", "true"), requests: []apiRequest{get}},
			en: `isRetryable was "true" (a string); expected a JSON boolean (true or false, not a string)`,
			es: `isRetryable era "true" (una cadena); se esperaba un booleano JSON (true o false, no una cadena)`,
			ru: `в isRetryable пришло "true" (строка); ожидалось логическое значение JSON (true или false, не строка)`},
		{name: "two requests for one", f: f, dr: dr, out: callOutcome{res: typed(), requests: []apiRequest{get, get}},
			en: "the server made 2 requests where 1 was needed;",
			es: "el servidor hizo 2 peticiones cuando hacía falta 1;",
			ru: "сервер отправил 2 запроса, хотя нужен был 1;"},
		{name: "1 stray request", f: missingArg, dr: drMissing, out: callOutcome{res: result(map[string]any{"isError": true, "errorCategory": "validation", "isRetryable": false, "explanation": "order_id is missing"}, true), strayRequests: 1},
			en: "the server sent 1 request to the Orders API;", es: "el servidor envió 1 petición a la API de Orders;", ru: "сервер отправил в API заказов 1 запрос;"},
		{name: "2 stray requests", f: missingArg, dr: drMissing, out: callOutcome{res: result(map[string]any{"isError": true, "errorCategory": "validation", "isRetryable": false, "explanation": "order_id is missing"}, true), strayRequests: 2},
			en: "the server sent 2 requests to the Orders API;", es: "el servidor envió 2 peticiones a la API de Orders;", ru: "сервер отправил в API заказов 2 запроса;"},
		{name: "5 stray requests", f: missingArg, dr: drMissing, out: callOutcome{res: result(map[string]any{"isError": true, "errorCategory": "validation", "isRetryable": false, "explanation": "order_id is missing"}, true), strayRequests: 5},
			en: "the server sent 5 requests to the Orders API;", es: "el servidor envió 5 peticiones a la API de Orders;", ru: "сервер отправил в API заказов 5 запросов;"},
		{name: "a hint", f: missingArg, dr: drMissing, out: callOutcome{res: &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: `validating "arguments": validating root: required: missing properties: ["order_id"]`}}}},
			en: "\n" + hintGoSDKRequired.line(),
			es: "\npista (SDK oficial de Go): mcp.AddTool deriva el esquema de entrada",
			ru: "\nподсказка (официальный Go SDK): mcp.AddTool выводит схему входных данных",
			// the learner's own text stays as it was, in every language
			esNot: "hint (", ruNot: "hint ("},
	} {
		ps := checkCall(tc.f, tc.dr, tc.out, c)
		test := withVerdict(TestResult{ID: tc.f.ID, Name: tc.f.Name, Rule: tc.f.Rule}, ps.messages(), i18n.Msg{})
		if !strings.Contains(test.Message, tc.en) {
			t.Errorf("%s: English %q lacks %q", tc.name, test.Message, tc.en)
		}
		r := &Report{Tests: []TestResult{test}}
		es := Localize(r, i18n.New("es"), pes).Tests[0]
		ru := Localize(r, i18n.New("ru"), pru).Tests[0]
		if !strings.Contains(es.Message, tc.es) || (tc.esNot != "" && strings.Contains(es.Message, tc.esNot)) {
			t.Errorf("%s: Spanish %q; want %q", tc.name, es.Message, tc.es)
		}
		if !strings.Contains(ru.Message, tc.ru) || (tc.ruNot != "" && strings.Contains(ru.Message, tc.ruNot)) {
			t.Errorf("%s: Russian %q; want %q", tc.name, ru.Message, tc.ru)
		}
		if r.Tests[0].Message != test.Message {
			t.Errorf("%s: Localize changed the report's own Message to %q", tc.name, r.Tests[0].Message)
		}
		if es.Rule != "ES: "+tc.f.Rule {
			t.Errorf("%s: Spanish rule %q; want the twin's", tc.name, es.Rule)
		}
	}
}

// TestCountedMessagesInRussian: the Russian counted forms of the checks for 1, 2, 5, 21 and
// 22 (one, few, many, one, few).
func TestCountedMessagesInRussian(t *testing.T) {
	ru := i18n.New("ru")
	for n, want := range map[int]string{1: "в \"orders\" 1 элемент,", 2: "в \"orders\" 2 элемента,", 5: "в \"orders\" 5 элементов,", 21: "в \"orders\" 21 элемент,", 22: "в \"orders\" 22 элемента,"} {
		if got := ru.Say(i18n.MN("grader.success.orders_not_empty", n)); !strings.HasPrefix(got, want) {
			t.Errorf("%d entries: %q; want it to start %q", n, got, want)
		}
	}
	m := i18n.M("grader.success.orders_wrong", "Got", i18n.MN("grader.count.order", 2), "Want", i18n.MN("grader.count.order", 5), "Pages", i18n.MN("grader.success.of_pages", 1))
	if got, want := ru.Say(m), `в "orders" 2 заказа; ожидались заказы со всех страниц (5 заказов на 1 странице)`; !strings.HasPrefix(got, want) {
		t.Errorf("orders: %q; want it to start %q", got, want)
	}
	if got, want := m.English(), `"orders" had 2 orders; expected all 5 orders of the 1 page, in order`; !strings.HasPrefix(got, want) {
		t.Errorf("orders in English: %q; want it to start %q", got, want)
	}
	carriers := orList([]string{"rate_limit", "transient", "unavailable"})
	if got, want := ru.Say(carriers), "rate_limit или transient или unavailable"; got != want {
		t.Errorf("or-list: %q; want %q", got, want)
	}
}

// TestHintsAndRulesInTheCatalog: every hint's line and every server and client rule's
// statement is in the grader's catalog, its English the very text hints.go and rules.go hold
// (which docs/grading.md shows), and worded in Spanish and Russian; a config rule's statement
// comes from the packet's twin.
func TestHintsAndRulesInTheCatalog(t *testing.T) {
	es, ru := i18n.New("es"), i18n.New("ru")
	for _, h := range hints {
		if got := h.msg().English(); got != h.line() {
			t.Errorf("hint %s: catalog English %q; hints.go %q", h.id, got, h.line())
		}
		if got := es.Say(h.msg()); !strings.HasPrefix(got, "pista (") {
			t.Errorf("hint %s in Spanish: %q", h.id, got)
		}
		if got := ru.Say(h.msg()); !strings.HasPrefix(got, "подсказка (") {
			t.Errorf("hint %s in Russian: %q", h.id, got)
		}
	}
	for _, r := range append(append([]Rule{}, serverRules...), clientRules...) {
		if got := i18n.New("en").T(ruleMessageID(r.ID)); got != r.Statement {
			t.Errorf("rule %s: catalog English %q; rules.go %q", r.ID, got, r.Statement)
		}
		for _, loc := range []*i18n.Localizer{es, ru} {
			if got := r.StatementIn(loc, nil); got == r.Statement || got == ruleMessageID(r.ID) {
				t.Errorf("rule %s has no %s statement: %q", r.ID, loc.Lang(), got)
			}
		}
		if got := r.StatementIn(nil, nil); got != r.Statement {
			t.Errorf("rule %s in English: %q", r.ID, got)
		}
	}
	if got := rule(RuleOneRequest).StatementIn(es, nil); got != "una petición por consulta, página, reembolso o devolución: el servidor nunca reintenta por su cuenta" {
		t.Errorf("one-request in Spanish: %q", got)
	}
	lib := twinnedLibrary(t, "mcp-engineering", "config")
	pen, _ := lib.Get("mcp-engineering")
	pes, _ := lib.Localized("es").Get("mcp-engineering")
	n := 0
	for _, r := range RulesFor(pen) {
		if r.Part != "config" {
			continue
		}
		n++
		if got := r.StatementIn(es, pes); got != "ES: "+r.Statement {
			t.Errorf("config rule %s in Spanish: %q; want the twin's", r.ID, got)
		}
		if got := r.StatementIn(es, nil); got != r.Statement {
			t.Errorf("config rule %s with no packet: %q", r.ID, got)
		}
	}
	if n == 0 {
		t.Fatal("mcp-engineering has no config rules")
	}
}
