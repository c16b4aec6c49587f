package grader

import (
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/kata-mcp/kata/katas"
	"github.com/kata-mcp/kata/packets"
)

func embeddedLibrary(t testing.TB) *katas.Library {
	t.Helper()
	lib, err := katas.Discover(packets.FS, "embedded")
	if err != nil {
		t.Fatal(err)
	}
	return lib
}

// TestEveryRunTriesEveryStatusAndMalformedForm: whatever the seed, a fixture with a status
// list makes one call per status, and one with a malformed placeholder makes one call per
// malformed form, the empty string included (docs/grading.md#seed: the seed varies values,
// never coverage). Before, the seed picked one status and one form per run.
func TestEveryRunTriesEveryStatusAndMalformedForm(t *testing.T) {
	lib := embeddedLibrary(t)
	for _, id := range lib.IDs() {
		p, _ := lib.Get(id)
		set := p.Fixtures["server"]
		if set == nil {
			continue
		}
		for seed := int64(1); seed <= 20; seed++ {
			d := newDrawer(seed)
			for _, f := range set.Fixtures {
				cases := d.drawCases(f)
				if len(f.Backend.Status) > 1 {
					got := map[int]bool{}
					for _, c := range cases {
						got[c.beh.status] = true
					}
					for _, st := range f.Backend.Status {
						if !got[st] {
							t.Errorf("%s/%s seed %d: status %d not tried", id, f.ID, seed, st)
						}
					}
				}
				malformed := false
				for _, v := range f.Arguments {
					if s, ok := v.(string); ok && strings.HasPrefix(s, "{malformed_") {
						malformed = true
					}
				}
				if !malformed {
					continue
				}
				if len(cases) < 5 {
					t.Errorf("%s/%s seed %d: %d malformed forms tried, want every form", id, f.ID, seed, len(cases))
				}
				seen := map[string]bool{}
				for _, c := range cases {
					for k, v := range c.args {
						s, _ := v.(string)
						seen[s] = true
						if (k == "order_id" && orderIDPattern(s)) || (k == "customer_id" && customerIDPattern(s)) {
							t.Errorf("%s/%s: malformed form %q is well-formed", id, f.ID, s)
						}
					}
				}
				if !seen[""] {
					t.Errorf("%s/%s seed %d: the empty id is not among the forms tried", id, f.ID, seed)
				}
			}
		}
	}
}

func orderIDPattern(s string) bool {
	var n int
	_, err := fmt.Sscanf(s, "ORD-%d", &n)
	return err == nil && fmt.Sprintf("ORD-%d", n) == s && len(s) >= 8 && s[4] != '0'
}

func customerIDPattern(s string) bool {
	var n int
	_, err := fmt.Sscanf(s, "C-%d", &n)
	return err == nil && fmt.Sprintf("C-%d", n) == s
}

// TestFixturesCoverEveryMappingRow: for every tool a kata's server exposes, the fixtures
// exercise each row of docs/grading.md#category-mapping that the tool can meet: a missing and a
// malformed argument, 401 and 403, 404, 429, each of 500/502/503/504, a refused connection
// and a timeout; and, where the contract has retryAfterSeconds, Retry-After as seconds, as a
// future and a past HTTP-date, and absent. Before, search_orders' error rows were never tried.
func TestFixturesCoverEveryMappingRow(t *testing.T) {
	lib := embeddedLibrary(t)
	for _, id := range lib.IDs() {
		p, _ := lib.Get(id)
		set := p.Fixtures["server"]
		if set == nil {
			continue
		}
		for _, tool := range p.Tools {
			have := map[string]bool{}
			for _, f := range set.Fixtures {
				if f.Tool != tool {
					continue
				}
				b := f.Backend
				for _, st := range b.Status {
					have[fmt.Sprint(st)] = true
				}
				switch {
				case b.Kind == katas.BackendRefused:
					have["refused"] = true
				case b.Kind == katas.BackendSlow || b.SlowPage:
					have["timeout"] = true
				case b.Kind == katas.BackendNone && f.Expect.Category != "":
					malformed := false
					for _, v := range f.Arguments {
						if s, ok := v.(string); ok && strings.HasPrefix(s, "{malformed_") {
							malformed = true
						}
					}
					if malformed {
						have["malformed"] = true
					} else if len(f.Arguments) < len(p.Tools) || len(f.Arguments) == 0 || f.Expect.Field != "" {
						have["missing"] = true
					}
				}
				if b.RetryAfter != "" {
					have["retry-after:"+string(b.RetryAfter)] = true
				}
			}
			want := []string{"missing", "malformed", "401", "403", "404", "429", "500", "502", "503", "504", "refused", "timeout"}
			if _, declared := p.ToolDefinitions[tool]; declared {
				// A declared tool's broken calls are its violate fixtures (TestDeclared…); its
				// task's failure table has these rows (validation-retry-error-feedback, step 5).
				want = []string{"401", "403", "404", "409", "500", "503", "timeout"}
			}
			for _, w := range want {
				if !have[w] {
					t.Errorf("%s: %s has no fixture for the %s row", id, tool, w)
				}
			}
			if _, ok := p.Contract.Fields["retryAfterSeconds"]; ok && tool == "lookup_order" {
				for _, ra := range []string{"seconds", "http-date", "http-date-past", "none"} {
					if !have["retry-after:"+ra] {
						t.Errorf("%s: %s has no fixture with Retry-After %s", id, tool, ra)
					}
				}
			}
		}
	}
}

// TestEmptyIDIsAStrayRequest: GET /orders/ (an empty id sent anyway) and a path no endpoint
// has are stray requests, like a request for an id no fixture registered. Before, they were
// answered 404 and not counted, so a server that sent "" to the API passed.
func TestEmptyIDIsAStrayRequest(t *testing.T) {
	api, err := startOrdersAPI("tok")
	if err != nil {
		t.Fatal(err)
	}
	defer api.close()
	for i, path := range []string{"/orders/", "/customers//orders?page=1", "/orders/ORD-1234", "/nowhere"} {
		req, _ := http.NewRequest("GET", api.URL+path, nil)
		req.Header.Set("Authorization", "Bearer tok")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if got := api.strayRequests(); got != i+1 {
			t.Errorf("after GET %s: %d stray requests, want %d", path, got, i+1)
		}
	}
}

func fixtureByID(t *testing.T, lib *katas.Library, kata, id string) (katas.Fixture, katas.Contract) {
	t.Helper()
	p, _ := lib.Get(kata)
	for _, f := range p.Fixtures["server"].Fixtures {
		if f.ID == id {
			return f, p.Contract
		}
	}
	t.Fatalf("%s has no fixture %s", kata, id)
	return katas.Fixture{}, katas.Contract{}
}

// result builds a CallToolResult whose structuredContent and text block both carry payload.
func result(payload map[string]any, isError bool) *mcp.CallToolResult {
	b, _ := json.Marshal(payload)
	return &mcp.CallToolResult{IsError: isError, StructuredContent: payload, Content: []mcp.Content{&mcp.TextContent{Text: string(b)}}}
}

// TestPastRetryAfterDateMeansZero: an HTTP-date already passed means no wait, so
// retryAfterSeconds must be 0 (within the 2 s docs/grading.md#retry-after-seconds allows an HTTP-date) — not negative, not
// null, not a string.
func TestPastRetryAfterDateMeansZero(t *testing.T) {
	lib := embeddedLibrary(t)
	for _, kata := range []string{"mcp-structured-errors", "mcp-engineering"} {
		f, c := fixtureByID(t, lib, kata, "lookup-rate-limit-past-date")
		dr := newDrawer(1).draw(f, caseSpec{})
		out := callOutcome{hasRetryAfterSent: true, retryAfterSent: 0}
		for _, tc := range []struct {
			ra   any
			pass bool
		}{{0.0, true}, {1.0, true}, {-42.0, false}, {-1.0, false}, {nil, false}, {3.0, false}, {"0", false}} {
			payload := map[string]any{"isError": true, "errorCategory": "rate_limit", "isRetryable": true, "retryAfterSeconds": tc.ra, "explanation": "429"}
			out.res = result(payload, true)
			probs := checkCall(f, dr, out, c)
			if (len(probs) == 0) != tc.pass {
				t.Errorf("%s: retryAfterSeconds %v: problems %q, want pass=%v", kata, tc.ra, probs.texts(), tc.pass)
			}
		}
	}
}

// TestTextBlockMirrorsStructuredContent: a result with a valid structuredContent whose first
// text block is prose (mcp-go's idiom), another JSON value, or absent passes with a note that
// names the content block and carries the hint text-beside-structured, since structuredContent
// is what is graded; one whose structuredContent is not a JSON object fails
// (docs/grading.md#tool-results).
func TestTextBlockMirrorsStructuredContent(t *testing.T) {
	lib := embeddedLibrary(t)
	f, c := fixtureByID(t, lib, "mcp-structured-errors", "lookup-not-found")
	dr := newDrawer(1).draw(f, caseSpec{})
	payload := map[string]any{"isError": true, "errorCategory": "not_found", "isRetryable": false, "retryAfterSeconds": nil, "explanation": "no such order"}
	good := result(payload, true)
	if probs := checkCall(f, dr, callOutcome{res: good}, c); len(probs) != 0 {
		t.Fatalf("a mirrored result failed: %q", probs.texts())
	}
	for name, res := range map[string]*mcp.CallToolResult{
		"prose text":   {IsError: true, StructuredContent: payload, Content: []mcp.Content{&mcp.TextContent{Text: "no such order"}}},
		"other JSON":   {IsError: true, StructuredContent: payload, Content: []mcp.Content{&mcp.TextContent{Text: `{"isError": true}`}}},
		"no content":   {IsError: true, StructuredContent: payload},
		"not text [0]": {IsError: true, StructuredContent: payload, Content: []mcp.Content{&mcp.ImageContent{MIMEType: "image/png"}}},
	} {
		probs := checkCall(f, dr, callOutcome{res: res}, c)
		notes := strings.Join(probs.notes(), "\n")
		if len(probs.failures()) != 0 || !strings.Contains(notes, "content block") || !strings.Contains(notes, "hint (mcp-go") {
			t.Errorf("%s: failures %q, notes %q; want one note naming the content block, with the hint", name, probs.failures().texts(), notes)
		}
	}
	// A structuredContent that is not a JSON object is no payload: the text is graded, and a
	// text that is not its JSON fails.
	bad := &mcp.CallToolResult{IsError: true, StructuredContent: []any{payload}, Content: []mcp.Content{&mcp.TextContent{Text: "no such order"}}}
	if probs := checkCall(f, dr, callOutcome{res: bad}, c); len(probs.failures()) == 0 {
		t.Errorf("an array as structuredContent with prose beside it passed")
	}
}

// TestMissingSuccessKeySaysMissing: a success payload without its key says "missing", not
// "was null".
func TestMissingSuccessKeySaysMissing(t *testing.T) {
	lib := embeddedLibrary(t)
	f, c := fixtureByID(t, lib, "mcp-structured-errors", "search-empty")
	dr := newDrawer(1).draw(f, caseSpec{})
	probs := strings.Join(checkCall(f, dr, callOutcome{res: result(map[string]any{"results": []any{}}, false)}, c).texts(), "\n")
	if !strings.Contains(probs, `"orders" is missing`) || strings.Contains(probs, "null") {
		t.Errorf("problems %q; want `\"orders\" is missing`, no null", probs)
	}
}

// TestLearnerJSONErrorHasNoGoTypes: encoding/json's wording is rewritten in JSON terms.
func TestLearnerJSONErrorHasNoGoTypes(t *testing.T) {
	for in, want := range map[string]string{
		"calling tools/call: json: cannot unmarshal string into Go struct field CallToolResult.isError of type bool": "isError was a JSON string; expected a JSON boolean",
		"json: cannot unmarshal number into Go struct field .content of type []json.RawMessage":                      "content was a JSON number; expected a JSON array",
		"json: cannot unmarshal array into Go value of type map[string]interface {}":                                 "a JSON array was given where a JSON object was expected",
	} {
		got := learnerJSONError(in)
		if !strings.Contains(got, want) || strings.Contains(got, "Go ") {
			t.Errorf("learnerJSONError(%q) = %q; want it to contain %q and no Go type", in, got, want)
		}
	}
}

// TestReportHeaderLeavesOutUnknownKata: a report of a workspace whose kata.json could not be
// read has no empty "·  ·" in its header.
func TestReportHeaderLeavesOutUnknownKata(t *testing.T) {
	var b strings.Builder
	WriteText(&b, &Report{Status: StatusError, Message: "kata.json: missing", Workspace: "/ws"}, TextOptions{})
	first, _, _ := strings.Cut(b.String(), "\n")
	if first != "kata grade · /ws" {
		t.Errorf("header %q, want %q", first, "kata grade · /ws")
	}
}

// TestVerboseOutputNamesItsProcess: with -v, a client test's stderr is labelled "client
// stderr", a server test's "server stderr".
func TestVerboseOutputNamesItsProcess(t *testing.T) {
	var b strings.Builder
	rep := &Report{Status: StatusFail, Kata: "k", Tests: []TestResult{
		{ID: "c", Name: "client thing", Status: StatusFail, Message: "m", Output: "client said this", OutputOf: "client", Step: 6},
		{ID: "s", Name: "server thing", Status: StatusFail, Message: "m", Output: "server said that", OutputOf: "server", Step: 1},
		{ID: "q", Name: "quiet server", Status: StatusFail, Message: "m", OutputOf: "server", Step: 2},
		{ID: "r", Name: "a config rule", Status: StatusFail, Message: "m", Step: 3},
	}}
	WriteText(&b, rep, TextOptions{Verbose: true})
	out := b.String()
	if !strings.Contains(out, "client stderr:\n          client said this") || !strings.Contains(out, "server stderr:\n          server said that") {
		t.Errorf("verbose report mislabels stderr:\n%s", out)
	}
	// A failing test whose process wrote nothing says so; one that ran no process says nothing.
	if n := strings.Count(out, "server stderr: (nothing written during this test)"); n != 1 || strings.Contains(out, "\n        stderr:") {
		t.Errorf("verbose report: %d quiet-server lines, want 1, and none for the config rule:\n%s", n, out)
	}
}

// TestStdoutRuleReportsUnderTheProtocolStep: "stdout carries only JSON-RPC messages" is
// reported under each shipped kata's "Keep the protocol clean" step (step 6 in
// mcp-error-responses, where it used to land under step 5, "An empty result is a success"),
// and under an existing step of a packet with no protocol-error fixture.
func TestStdoutRuleReportsUnderTheProtocolStep(t *testing.T) {
	lib := embeddedLibrary(t)
	for _, id := range lib.IDs() {
		p, _ := lib.Get(id)
		if p.Fixtures["server"] == nil {
			continue
		}
		step := protocolStep(p.Fixtures["server"])
		title := ""
		for _, s := range p.Task.Steps {
			if s.Number == step {
				title = s.Title
			}
		}
		hasProtocolFixture := slices.ContainsFunc(p.Fixtures["server"].Fixtures, func(f katas.Fixture) bool { return f.Expect.ProtocolError != 0 })
		if hasProtocolFixture && !strings.Contains(strings.ToLower(title), "protocol") {
			t.Errorf("%s: stdout rule under step %d %q, want the protocol step", id, step, title)
		}
		if title == "" {
			t.Errorf("%s: stdout rule under step %d, which the task does not have", id, step)
		}
	}
	set := &katas.FixtureSet{Fixtures: []katas.Fixture{{Task: 1}, {Task: 2}}}
	if got := protocolStep(set); got != 2 {
		t.Errorf("no protocol-error fixture: step %d, want the last graded step 2", got)
	}
}

// TestUnauthorizedRequestSaysTheAPIAnswered401: a request without the grader's bearer token
// is answered 401 whatever the fixture sets up, so the failure says so and names the fix,
// rather than leaving "Orders API: answered 200" beside an auth error.
func TestUnauthorizedRequestSaysTheAPIAnswered401(t *testing.T) {
	f := katas.Fixture{Backend: katas.Backend{Kind: katas.BackendOK}}
	dr := drawn{beh: &behaviour{kind: katas.BackendOK}}
	out := callOutcome{requests: []apiRequest{{Method: "GET", Path: "/orders/ORD-1234", Authorized: false}}}
	var ps problems
	checkRequests(f, dr, out, &ps)
	got := ps.texts()
	if len(got) != 1 || ps[0].rule != RuleBearerToken || !strings.Contains(got[0], "/orders/ORD-1234") || !strings.Contains(got[0], "answered it 401") || !strings.Contains(got[0], "${ORDERS_API_TOKEN}") {
		t.Errorf("problems %q; want one naming the path, the 401 and ${ORDERS_API_TOKEN}", got)
	}
}
