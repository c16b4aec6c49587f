package grader

// The feedback checks of a declared tool (docs/grading.md#violations): a validation error
// lists every argument the input schema finds broken, once each, with the keyword that failed,
// what would pass and the value sent; no result echoes a secret-like value
// (docs/grading.md#secret-like); and a scripted model can repair the call from the feedback
// alone (docs/grading.md#repair).

import (
	"context"
	"errors"
	"maps"
	"slices"
	"strconv"
	"strings"
	"unicode"

	"github.com/kata-mcp/kata/internal/i18n"
	"github.com/kata-mcp/kata/katas"
	"github.com/kata-mcp/kata/katas/schema"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// maxRepairCalls bounds the scripted model's calls, the first one included.
const maxRepairCalls = 3

// maxFalseReported bounds the violations of valid arguments one call reports.
const maxFalseReported = 5

// secretWindow is the length of the substrings of a secret no result may hold.
const secretWindow = 8

// argName reads a violation's field: an argument's name, or its JSON pointer ("/quantity",
// RFC 6901, with ~1 for "/" and ~0 for "~").
func argName(field string) string {
	if rest, ok := strings.CutPrefix(field, "/"); ok {
		return strings.ReplaceAll(strings.ReplaceAll(rest, "~1", "/"), "~0", "~")
	}
	return field
}

// accepted lists the constraints a violation of an argument failing keywords may name: those
// keywords, and both "pattern" and "format" when the property has both and fails either.
func accepted(p *schema.Property, keywords []string) []string {
	out := slices.Clone(keywords)
	if p != nil && p.Pattern != "" && p.Format != "" && (slices.Contains(out, schema.KeyPattern) || slices.Contains(out, schema.KeyFormat)) {
		for _, k := range []string{schema.KeyPattern, schema.KeyFormat} {
			if !slices.Contains(out, k) {
				out = append(out, k)
			}
		}
	}
	return out
}

// quotedOr writes keywords quoted, joined by "or" ("\"pattern\" or \"format\"").
func quotedOr(keywords []string) i18n.Msg {
	q := make([]string, len(keywords))
	for i, k := range keywords {
		q[i] = strconv.Quote(k)
	}
	return orList(q)
}

// sentText is what the call sent for an argument, for a message: its JSON, or "left out".
func sentText(args map[string]any, arg string) i18n.Msg {
	v, ok := args[arg]
	if !ok {
		return i18n.M("grader.violations.left_out")
	}
	if secretLike(v) {
		return i18n.M("grader.violations.a_secret")
	}
	return i18n.Raw(jsonText(v))
}

// checkViolations checks the contract's violations field (name) of a failure. For a fixture
// whose arguments are broken (expect.violations), when the category is right: every argument
// the schema finds broken has exactly one violation, no other argument has one, and each
// violation's constraint, expected and received say what a model needs. For any other failure:
// no violation at all.
func checkViolations(name string, f katas.Fixture, dr drawn, payload map[string]any, right bool, ps *problems) {
	raw := payload[name]
	if f.Expect.Violations == "" {
		if list, ok := raw.([]any); ok && len(list) > 0 {
			ps.say(RuleViolationsNoFalse, i18n.M("grader.violations.not_validation", "Field", name, "Got", jsonText(raw)))
		}
		return
	}
	if !right || dr.def == nil {
		return
	}
	s := dr.def.Schema()
	broken := schema.Broken(s.Validate(dr.args))
	args := slices.Sorted(maps.Keys(broken))
	list, ok := raw.([]any)
	if !ok {
		ps.say(RuleViolationsAllAtOnce, i18n.M("grader.violations.missing", "Field", name, "Got", jsonText(raw), "Args", strings.Join(args, ", ")))
		return
	}
	seen := map[string]int{}
	falseOnes := 0
	for i, e := range list {
		obj, _ := e.(map[string]any)
		field, _ := obj["field"].(string)
		arg := argName(field)
		keywords, isBroken := broken[arg]
		if !isBroken {
			if falseOnes++; falseOnes > maxFalseReported {
				continue // a flood of violations is reported by its first few
			}
		}
		switch {
		case field == "":
			ps.say(RuleViolationsNoFalse, i18n.M("grader.violations.no_field", "Field", name, "Index", i, "Got", jsonText(e)))
		case !isBroken:
			// arg is the learner's text: quoted and clipped, so no newline or flood of it reaches the report
			ps.say(RuleViolationsNoFalse, i18n.M("grader.violations.false", "Field", name, "Index", i, "Arg", strconv.Quote(clipText(arg, 80)), "Sent", sentText(dr.args, arg)))
		default:
			if seen[arg]++; seen[arg] == 1 {
				checkViolation(arg, obj, keywords, s, dr.args, ps)
			}
		}
	}
	for _, arg := range args {
		switch n := seen[arg]; {
		case n == 0:
			ps.say(RuleViolationsAllAtOnce, i18n.M("grader.violations.unreported", "Field", name, "Arg", arg, "Keywords", quotedOr(broken[arg]), "Sent", sentText(dr.args, arg)))
		case n > 1:
			ps.say(RuleViolationsAllAtOnce, i18n.M("grader.violations.twice", "Field", name, "Arg", arg, "Times", n))
		}
	}
}

// checkViolation checks one violation of a broken argument: its constraint is a keyword the
// argument fails, its expected says what would pass, and its received is the value sent.
func checkViolation(arg string, v map[string]any, keywords []string, s *schema.Schema, args map[string]any, ps *problems) {
	p := s.Properties[arg]
	acc := accepted(p, keywords)
	kw, _ := v["constraint"].(string)
	if !slices.Contains(acc, kw) {
		ps.say(RuleViolationConstraint, i18n.M("grader.violation.constraint", "Arg", arg, "Got", jsonText(v["constraint"]), "Want", quotedOr(acc)))
		kw = acc[0]
	}
	exp, _ := v["expected"].(string)
	if why := expectedProblem(kw, exp, p, s); !why.IsZero() {
		ps.say(RuleViolationExpected, i18n.M("grader.violation.expected", "Arg", arg, "Got", jsonText(v["expected"]), "Why", why))
	}
	recv, has := v["received"]
	sent, present := args[arg]
	switch {
	case !present:
		if recv != nil {
			ps.say(RuleViolationReceived, i18n.M("grader.violation.received_absent", "Arg", arg, "Got", jsonText(recv)))
		}
	case secretLike(sent): // no-secret-echo judges what a redacted value may hold
	case !has || !sameJSON(recv, sent):
		got := i18n.M("grader.violations.absent")
		if has {
			got = i18n.Raw(jsonText(recv))
		}
		ps.say(RuleViolationReceived, i18n.M("grader.violation.received", "Arg", arg, "Got", got, "Want", jsonText(sent)))
	}
}

// expectedProblem says why a violation's expected does not tell a model what would pass the
// keyword kw of property p (nil for an invented argument), or is zero when it does.
func expectedProblem(kw, exp string, p *schema.Property, s *schema.Schema) i18n.Msg {
	if strings.TrimSpace(exp) == "" {
		return i18n.M("grader.violation.expected_empty")
	}
	var missing []string
	switch kw {
	case schema.KeyEnum:
		for _, e := range p.Enum {
			t, ok := e.(string)
			if !ok {
				t = jsonText(e)
			}
			if !strings.Contains(exp, t) {
				missing = append(missing, t)
			}
		}
		if len(missing) > 0 {
			return i18n.M("grader.violation.expected_enum", "Missing", strings.Join(missing, ", "))
		}
	case schema.KeyMinimum, schema.KeyMaximum, schema.KeyMinLength, schema.KeyMaxLength:
		if b, _ := p.Bound(kw); !containsValue(exp, b) {
			return i18n.M("grader.violation.expected_bound", "Keyword", kw, "Bound", strconv.FormatFloat(b, 'f', -1, 64))
		}
	case schema.KeyPattern, schema.KeyFormat:
		if !hasValidToken(exp, p) {
			return i18n.M("grader.violation.expected_example", "Examples", jsonText(p.Examples))
		}
	case schema.KeyAdditionalProperties:
		for _, n := range s.Names() {
			if !strings.Contains(exp, n) {
				missing = append(missing, n)
			}
		}
		if len(missing) > 0 {
			return i18n.M("grader.violation.expected_names", "Missing", strings.Join(missing, ", "))
		}
	}
	return i18n.Msg{}
}

// hasValidToken reports whether text holds a token — delimited by white space, quotes or
// commas, with any surrounding punctuation trimmed — that passes the property.
func hasValidToken(text string, p *schema.Property) bool {
	for _, tok := range strings.FieldsFunc(text, func(r rune) bool { return unicode.IsSpace(r) || strings.ContainsRune("\"'`,", r) }) {
		for _, t := range []string{tok, strings.Trim(tok, ".;:!?()[]{}<>")} {
			if len(p.Check(t)) == 0 {
				return true
			}
		}
	}
	return false
}

// checkNoSecret fails a result any of whose text — structuredContent or a text block — holds
// eight characters in a row of a secret-like value the call sent. The secret is never quoted.
func checkNoSecret(res *mcp.CallToolResult, secrets []string, ps *problems) {
	if res == nil || len(secrets) == 0 {
		return
	}
	type place struct{ where, text string }
	var places []place
	if res.StructuredContent != nil {
		places = append(places, place{"structuredContent", jsonText(res.StructuredContent)})
	}
	for i, c := range res.Content {
		if t, ok := c.(*mcp.TextContent); ok {
			places = append(places, place{"content[" + strconv.Itoa(i) + "].text", t.Text})
		}
	}
	for _, sec := range secrets {
		for i := 0; i+secretWindow <= len(sec); i++ {
			for _, pl := range places {
				if strings.Contains(pl.text, sec[i:i+secretWindow]) {
					ps.say(RuleNoSecretEcho, i18n.M("grader.no_secret.found", "Where", pl.where, "Window", secretWindow))
					return
				}
			}
		}
	}
}

// checkDeclaredSuccess checks a declared tool's success beyond its key: the payload carries
// the body the API answered the POST with, and the POST carried the call's arguments.
func checkDeclaredSuccess(f katas.Fixture, dr drawn, out callOutcome, payload map[string]any, ps *problems) {
	key := f.Expect.Success.PayloadKey()
	got, present := payload[key]
	if !present {
		return // checkSuccess says so
	}
	posts := postsOf(out.requests)
	switch {
	case out.sent == nil || len(posts) == 0:
		ps.say(RuleSuccessPayload, i18n.M("grader.declared_success.no_post", "Path", dr.def.Endpoint.Path))
	case !sameJSON(got, out.sent):
		ps.say(RuleSuccessPayload, i18n.M("grader.declared_success.payload", "Key", strconv.Quote(key), "Got", jsonText(got), "Want", jsonText(out.sent)))
	case !sameJSON(posts[0].Body, dr.args):
		ps.say(RuleSuccessPayload, i18n.M("grader.declared_success.body", "Path", dr.def.Endpoint.Path, "Got", jsonText(posts[0].Body), "Want", jsonText(dr.args)))
	}
}

// repairArgs is the scripted model: for each violation that locates an argument broken in args
// and names a keyword it fails, it puts back the argument's true value (adds a missing one,
// removes an invented one); anything else it leaves.
func repairArgs(s *schema.Schema, args, trueArgs map[string]any, feedback any) map[string]any {
	next := maps.Clone(args)
	broken := schema.Broken(s.Validate(args))
	list, _ := feedback.([]any)
	for _, e := range list {
		obj, _ := e.(map[string]any)
		field, _ := obj["field"].(string)
		arg := argName(field)
		kw, _ := obj["constraint"].(string)
		if keywords, ok := broken[arg]; !ok || !slices.Contains(accepted(s.Properties[arg], keywords), kw) {
			continue
		}
		if v, ok := trueArgs[arg]; ok {
			next[arg] = v
		} else {
			delete(next, arg)
		}
	}
	return next
}

// repair plays the scripted model against the server from the first call's result: it
// repairs the arguments from the feedback and calls again, at most maxRepairCalls calls in
// all; the last must be a success carrying the body the API created, and exactly one POST,
// with the true arguments, must have reached the API during the repair
// (docs/grading.md#repair).
func (r *run) repair(ctx context.Context, w *worker, f katas.Fixture, dr drawn, res *mcp.CallToolResult) problems {
	var ps problems
	if res == nil || dr.repairBeh == nil {
		return ps
	}
	s := dr.def.Schema()
	id := dr.orderID
	r.api.setOrder(id, dr.repairBeh)
	before := len(r.api.requestsFor(id))
	vname, _, _ := r.packet.Contract.Field(katas.RoleViolations)
	args := dr.args
	for calls := 1; res.IsError; calls++ {
		payload, _, _ := payloadOf(res)
		if calls == maxRepairCalls {
			ps.say(RuleRepair, i18n.M("grader.repair.still_failing", "Calls", calls, "Args", jsonText(args), "Got", jsonText(payload)))
			return ps
		}
		next := repairArgs(s, args, dr.trueArgs, payload[vname])
		if sameJSON(next, args) {
			ps.say(RuleRepair, i18n.M("grader.repair.stuck", "Field", vname, "Got", jsonText(payload[vname])))
			return ps
		}
		args = next
		cctx, cancel := context.WithTimeout(ctx, callDeadline(dr))
		var err error
		res, err = w.conn.session.CallTool(cctx, &mcp.CallToolParams{Name: f.Tool, Arguments: args})
		cancel()
		if err != nil {
			ps.say(RuleRepair, i18n.M("grader.repair.call_failed", "Args", jsonText(args), "Error", learnerJSONError(err.Error())))
			if errors.Is(cctx.Err(), context.DeadlineExceeded) {
				w.restart()
			}
			return ps
		}
	}
	reqs := r.api.requestsFor(id)
	posts := postsOf(reqs[min(before, len(reqs)):])
	payload, _, _ := payloadOf(res)
	sent := r.api.sentFor(id)
	switch {
	case len(posts) != 1:
		ps.say(RuleRepair, i18n.MN("grader.repair.posts", len(posts), "Path", dr.def.Endpoint.Path))
	case !sameJSON(posts[0].Body, dr.trueArgs):
		ps.say(RuleRepair, i18n.M("grader.repair.body", "Path", dr.def.Endpoint.Path, "Got", jsonText(posts[0].Body), "Want", jsonText(dr.trueArgs)))
	case !sameJSON(payload[dr.def.Success], sent):
		ps.say(RuleRepair, i18n.M("grader.repair.result", "Key", strconv.Quote(dr.def.Success), "Got", jsonText(payload[dr.def.Success]), "Want", jsonText(sent)))
	}
	return ps
}

// postsOf keeps the POST requests of reqs.
func postsOf(reqs []apiRequest) []apiRequest {
	return slices.DeleteFunc(slices.Clone(reqs), func(q apiRequest) bool { return q.Method != "POST" })
}
