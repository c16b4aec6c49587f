package grader

import (
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"

	"github.com/kata-mcp/kata/internal/i18n"
	"github.com/kata-mcp/kata/katas"
)

// RuleID is a graded rule's stable id. A failing test lists the ids of the rules it broke
// (TestResult.Rules), `kata show KATA --rules` lists every rule of a kata, and docs/grading.md
// explains each under the anchor "rule-<id>".
type RuleID string

// Rule is one graded rule: its id, the part of the submission it grades, and the sentence
// that states it. The text a failure shows is written once, where the rule is checked
// (contract.go for the server's results, policy.go for the client, config.go for .mcp.json).
type Rule struct {
	ID RuleID
	// Part is "server", "client" or "config".
	Part string
	// Section is the anchor, in docs/grading.md, of the section that explains the rule.
	Section string
	// Statement says the rule in one sentence.
	Statement string
	// applies limits the rule to the katas it accepts; nil means every kata grading Part.
	applies func(p *katas.Packet) bool
}

// StatementIn is the rule's statement in loc's language (nil: English): a server or client
// rule's from the grader's catalog (grader.rule.<id>), a config rule's from p, the packet read
// in that language (katas.Packet.TestText: its locale twin of fixtures/config.json; p may be
// nil). Where neither has the words, the English Statement. docs/grading.md and `kata rules`
// keep the English.
func (r Rule) StatementIn(loc *i18n.Localizer, p *katas.Packet) string {
	if loc == nil || loc.Lang() == katas.English {
		return r.Statement
	}
	if r.Part == "config" {
		if p != nil {
			if words, ok := p.TestText(string(r.ID)); ok && words.Rule != "" {
				return words.Rule
			}
		}
		return r.Statement
	}
	if id := ruleMessageID(r.ID); loc.T(id) != id {
		return loc.T(id)
	}
	return r.Statement
}

// ruleMessageID is the catalog id of a server or client rule's statement.
func ruleMessageID(id RuleID) string { return "grader.rule." + string(id) }

// Doc is the rule's entry in the rule index of docs/grading.md, which links to Section.
func (r Rule) Doc() string { return "docs/grading.md#rule-" + string(r.ID) }

// Command is the command that explains the rule to a user who has only the binary:
// "kata show KATA --rules ID".
func (r Rule) Command(kata string) string { return "kata show " + kata + " --rules " + string(r.ID) }

// Server rules: what the tools/call results of the learner's server are checked for
// (docs/grading.md, "The tools" and "The typed error payload").
const (
	RuleToolsList          RuleID = "tools-list"
	RuleFailureIsResult    RuleID = "failure-is-result"
	RuleValidResult        RuleID = "valid-result"
	RuleUnknownTool        RuleID = "unknown-tool"
	RuleArgumentsInHandler RuleID = "arguments-in-handler"
	RulePayloadJSON        RuleID = "payload-json"
	RuleTextMirror         RuleID = "text-mirror"
	RuleSuccessPayload     RuleID = "success-payload"
	RuleIsErrorAgrees      RuleID = "is-error-agrees"
	RuleTypedPayload       RuleID = "typed-payload"
	RuleFieldPresent       RuleID = "field-present"
	RuleFieldType          RuleID = "field-type"
	RuleCategory           RuleID = "category"
	RuleRetryable          RuleID = "retryable"
	RuleRetryAfter         RuleID = "retry-after"
	RuleRetryAfterNull     RuleID = "retry-after-null"
	RuleAttemptedQuery     RuleID = "attempted-query"
	RulePartialResults     RuleID = "partial-results"
	RuleArgumentName       RuleID = "argument-name"
	RuleNoRequestInvalid   RuleID = "no-request-for-invalid"
	RuleBearerToken        RuleID = "bearer-token"
	RuleOneRequest         RuleID = "one-request"
	RuleTimeoutHonoured    RuleID = "timeout-honoured"
	RuleAnswers            RuleID = "answers"
	RuleStaysUp            RuleID = "stays-up"
	RuleStdoutProtocol     RuleID = "stdout-protocol-only"
	RuleNoToken            RuleID = "no-token-in-result"
	RuleMessageNoURL       RuleID = "message-no-url"
	RuleMessageNoTrace     RuleID = "message-no-stack-trace"
	RuleMessageNoStatus    RuleID = "message-no-status-code"
)

// Feedback rules: what a declared tool's validation error tells a model (docs/grading.md#violations).
const (
	RuleViolationsAllAtOnce RuleID = "violations-all-at-once"
	RuleViolationsNoFalse   RuleID = "violations-no-false"
	RuleViolationConstraint RuleID = "violation-constraint"
	RuleViolationExpected   RuleID = "violation-expected"
	RuleViolationReceived   RuleID = "violation-received"
	RuleNoSecretEcho        RuleID = "no-secret-echo"
	RuleRepair              RuleID = "feedback-repair"
)

// Client rules: the decisions a client makes from the typed flags (docs/grading.md, "The
// client harness"); client-1 … client-7 are the seven rules of a correct retry policy, in
// the order a client applies them.
const (
	RuleClientSuccess   RuleID = "client-1"
	RuleClientEscalate  RuleID = "client-2"
	RuleClientUnknown   RuleID = "client-3"
	RuleClientRetryBoth RuleID = "client-4"
	RuleClientSleep     RuleID = "client-5"
	RuleClientBounded   RuleID = "client-6"
	RuleClientProse     RuleID = "client-7"
	RuleClientProtocol  RuleID = "client-protocol"
)

// Repair rules: the decisions of a client's repair loop against a scripted model
// (docs/grading.md, "The repair-loop client"); repair-1 … repair-6 in the order a client
// applies them after each invoke.
const (
	RuleRepairSuccess    RuleID = "repair-1"
	RuleRepairUnknown    RuleID = "repair-2"
	RuleRepairValidation RuleID = "repair-3"
	RuleRepairTransient  RuleID = "repair-4"
	RuleRepairStop       RuleID = "repair-5"
	RuleRepairProse      RuleID = "repair-6"
)

// hasScenarios returns whether a packet has a client scenario of the kind (repair or retry):
// the client-N rules apply to a kata with retry scenarios, the repair-N rules to one with
// repair scenarios.
func hasScenarios(repair bool) func(p *katas.Packet) bool {
	return func(p *katas.Packet) bool {
		if p.Scenarios == nil {
			return false
		}
		return slices.ContainsFunc(p.Scenarios.Scenarios, func(s katas.Scenario) bool {
			return s.IsRepair(s.Policy.Merge(p.Scenarios.Policy)) == repair
		})
	}
}

// has reports whether the kata's contract has a field with the role.
func has(role katas.FieldRole) func(p *katas.Packet) bool {
	return func(p *katas.Packet) bool { _, _, ok := p.Contract.Field(role); return ok }
}

// expectsProtocolError reports whether a server fixture of the kata calls a tool that does
// not exist.
func expectsProtocolError(p *katas.Packet) bool {
	if set := p.Fixtures["server"]; set != nil {
		for _, f := range set.Fixtures {
			if f.Expect.ProtocolError != 0 {
				return true
			}
		}
	}
	return false
}

// setsSecret reports whether a server fixture of the kata sends a secret-like value.
func setsSecret(p *katas.Packet) bool {
	return anyFixture(p, func(f katas.Fixture) bool {
		return slices.Contains(slices.Collect(maps.Values(f.Set)), any(katas.SecretLike))
	})
}

// repairs reports whether a server fixture of the kata plays the scripted model.
func repairs(p *katas.Packet) bool {
	return anyFixture(p, func(f katas.Fixture) bool { return f.Repair })
}

// anyFixture reports whether a server fixture of the kata satisfies ok.
func anyFixture(p *katas.Packet, ok func(katas.Fixture) bool) bool {
	set := p.Fixtures["server"]
	return set != nil && slices.ContainsFunc(set.Fixtures, ok)
}

// serverRules are the server rules, in the order a reader meets them.
var serverRules = []Rule{
	{RuleToolsList, "server", "tools-list", "tools/list declares every tool the kata calls, each with an object input schema", nil},
	{RuleFailureIsResult, "server", "tool-results", "a tool failure is a tools/call result with isError: true, never a JSON-RPC error", nil},
	{RuleValidResult, "server", "tool-results", "every result decodes as a CallToolResult (isError a JSON boolean, content blocks well formed)", nil},
	{RuleUnknownTool, "server", "unknown-tools", "a call of a tool the server does not have gets a JSON-RPC error (-32602, or -32601); a tool result with isError: true passes with a note", expectsProtocolError},
	{RuleArgumentsInHandler, "server", "input-schemas", "a missing or malformed argument is answered with the kata's typed payload, not with an SDK's untyped schema error", nil},
	{RulePayloadJSON, "server", "tool-results", "the payload is a JSON object, in structuredContent or as the JSON text of the first content block", nil},
	{RuleTextMirror, "server", "tool-results", "a result with structuredContent carries the same payload as JSON text in its first content block", nil},
	{RuleSuccessPayload, "server", "tool-results", "a success has isError false or absent and carries the API's data under the tool's key (order, orders, refund, return)", nil},
	{RuleIsErrorAgrees, "server", "tool-results", "a failure has result.isError true, and the payload's isError agrees with it", nil},
	{RuleTypedPayload, "server", "error-payload", "a failure's payload is the kata's typed error object", nil},
	{RuleFieldPresent, "server", "error-payload", "every required field of the contract is present", nil},
	{RuleFieldType, "server", "field-types", "every field of the contract has its JSON type", nil},
	{RuleCategory, "server", "category-mapping", "the category is the one the API's behaviour maps to in the kata's table", nil},
	{RuleRetryable, "server", "error-payload", "isRetryable equals the category's retryability in the contract", nil},
	{RuleRetryAfter, "server", "retry-after-seconds", "a failure whose API response stated a wait (a 429, or a 503 with Retry-After) carries it in whole seconds, in whichever retryable category it maps to (an HTTP-date converted against the clock, a date already passed as 0)", has(katas.RoleRetryAfter)},
	{RuleRetryAfterNull, "server", "retry-after-seconds", "the wait is null when the API sent no Retry-After, and for every category that does not carry it", has(katas.RoleRetryAfter)},
	{RuleAttemptedQuery, "server", "attempted-query", "attemptedQuery contains every argument value the call was given", has(katas.RoleAttemptedQuery)},
	{RulePartialResults, "server", "partial-results", "partialResults holds the orders fetched before the failure, in order, or null when there were none", has(katas.RolePartialResults)},
	{RuleArgumentName, "server", "field", "a validation error names the argument at fault exactly as in the tool's input schema", has(katas.RoleArgument)},
	{RuleViolationsAllAtOnce, "server", "violations", "a validation error lists every broken argument at once, each in exactly one violation", has(katas.RoleViolations)},
	{RuleViolationsNoFalse, "server", "violations", "no violation names an argument that was valid, and no other failure lists violations", has(katas.RoleViolations)},
	{RuleViolationConstraint, "server", "violations", "a violation's constraint is the JSON Schema keyword the argument failed", has(katas.RoleViolations)},
	{RuleViolationExpected, "server", "violations", "a violation's expected says what would pass: every allowed value, the bound, a valid example or every allowed argument", has(katas.RoleViolations)},
	{RuleViolationReceived, "server", "violations", "a violation's received is the value sent (absent or null for a missing argument)", has(katas.RoleViolations)},
	{RuleNoSecretEcho, "server", "secret-like", "no result holds eight characters in a row of a secret-like value the call sent", setsSecret},
	{RuleRepair, "server", "repair", "a model that follows the feedback alone repairs the call within three calls, and only the repaired call reaches the API", repairs},
	{RuleNoRequestInvalid, "server", "malformed-arguments", "an invalid argument is rejected before any request reaches the Orders API", nil},
	{RuleBearerToken, "server", "api-auth", "every request carries Authorization: Bearer with ORDERS_API_TOKEN", nil},
	{RuleOneRequest, "server", "one-request", "one request per lookup, page, refund or return: the server never retries on its own", nil},
	{RuleTimeoutHonoured, "server", "api-timeout", "every request gives up after ORDERS_API_TIMEOUT_SECONDS", nil},
	{RuleAnswers, "server", "api-timeout", "every call is answered within its deadline", nil},
	{RuleStaysUp, "server", "instances", "the server does not exit or crash during a call", nil},
	{RuleStdoutProtocol, "server", "stdout", "stdout carries only JSON-RPC messages; logs go to stderr", nil},
	{RuleNoToken, "server", "result-text", "no field of a result (payload, text blocks, partialResults, explanation, message) carries the Orders API token or the Authorization header", nil},
	{RuleMessageNoURL, "server", "result-text", "the customer-facing message holds no URL or host of the API", hasCustomerMessage},
	{RuleMessageNoTrace, "server", "result-text", "the customer-facing message holds no stack trace and no exception type", hasCustomerMessage},
	{RuleMessageNoStatus, "server", "result-text", "the customer-facing message holds no HTTP status code", hasCustomerMessage},
}

// retryScenarios and repairScenarios say whether a packet has retry or repair scenarios.
var retryScenarios, repairScenarios = hasScenarios(false), hasScenarios(true)

// clientRules are the client rules: the seven decisions of a correct retry client, the six of
// a repair loop, then the harness protocol. Their statements are the "rule N: …" texts a
// failing scenario names.
var clientRules = []Rule{
	{RuleClientSuccess, "client", "client-rule-1", "isError absent or false is a success and true an error, whatever else the payload holds; any other value is a malformed result, logged as unknown and aborted with category \"unknown\"", retryScenarios},
	{RuleClientEscalate, "client", "client-rule-2", "a category in escalate escalates at once, before any retryability check", retryScenarios},
	{RuleClientUnknown, "client", "client-rule-3", "an error whose category is missing or not in the policy's categories is logged as unknown, then aborted with category \"unknown\"", retryScenarios},
	{RuleClientRetryBoth, "client", "client-rule-4", "retry only when isRetryable is JSON true and the policy's category is retryable; otherwise abort", retryScenarios},
	{RuleClientSleep, "client", "client-rule-5", "before retry r, sleep exactly retryAfterSeconds when it is a number (the stated wait replaces the backoff for that retry, whatever the category), else baseDelaySeconds × multiplier^(r−1)", retryScenarios},
	{RuleClientBounded, "client", "client-rule-6", "at most maxRetries retries, then exhausted at once, with no sleep after the last attempt", retryScenarios},
	{RuleClientProse, "client", "client-rule-7", "explanation text never changes a decision: the same flags give the same invokes, sleeps and outcome", retryScenarios},
	{RuleRepairSuccess, "client", "repair-rule-1", "isError absent or false is a success; any other value but true is a malformed result, logged as unknown and aborted with category \"unknown\"", repairScenarios},
	{RuleRepairUnknown, "client", "repair-rule-2", "an error whose category is missing or not in the policy's categories is logged as unknown, then aborted with category \"unknown\"", repairScenarios},
	{RuleRepairValidation, "client", "repair-rule-3", "a validation error goes back to the model with its feedback while fewer than maxRepairs repairs were made, and the proposal is sent; the same arguments proposed again abort at once, and a spent repair budget is exhausted without a propose", repairScenarios},
	{RuleRepairTransient, "client", "repair-rule-4", "an error is retried with the same request only when isRetryable is JSON true and the policy's category is retryable, after one sleep (retryAfterSeconds when a number, else baseDelaySeconds × multiplier^(r−1)), at most maxRetries times on a budget apart from the repairs', then exhausted", repairScenarios},
	{RuleRepairStop, "client", "repair-rule-5", "every other error stops the loop: abort with its category, no propose, no retry", repairScenarios},
	{RuleRepairProse, "client", "repair-rule-6", "message text never changes a decision: the same flags give the same invokes, proposes, sleeps and outcome", repairScenarios},
	{RuleClientProtocol, "client", "client-messages", "the client speaks the harness protocol: JSON lines on stdout, the scenario's request unchanged, one outcome per scenario", nil},
}

// rule returns the rule with the id from the server and client tables.
func rule(id RuleID) Rule {
	for _, r := range slices.Concat(serverRules, clientRules) {
		if r.ID == id {
			return r
		}
	}
	panic("grader: no rule " + string(id)) // ids are constants of this file
}

// RulesFor lists the rules the packet's graded parts are checked against: the config rules
// of fixtures/config.json, the server rules and the client rules that apply to its contract.
func RulesFor(p *katas.Packet) []Rule {
	var out []Rule
	grades := func(part string) bool { return slices.Contains(p.Graded, part) }
	if grades("config") && p.ConfigRules != nil {
		for _, c := range p.ConfigRules.Rules {
			out = append(out, Rule{ID: RuleID(c.ID), Part: "config", Section: "config-rules", Statement: c.Rule})
		}
	}
	for _, set := range [][]Rule{serverRules, clientRules} {
		for _, r := range set {
			if grades(r.Part) && (r.applies == nil || r.applies(p)) {
				out = append(out, r)
			}
		}
	}
	return out
}

// WriteRulesIn writes the rules as a table — part, id, statement, and where docs/grading.md
// explains them — in loc's language (nil: English): the statements as Rule.StatementIn words
// them and the fixtures' names from p, the packet as loc's locale reads it. Part names and
// rule ids stay as they are.
func WriteRulesIn(w io.Writer, p *katas.Packet, loc *i18n.Localizer) {
	rules := RulesFor(p)
	width := 0
	for _, r := range rules {
		width = max(width, len(r.ID))
	}
	fmt.Fprintln(w, loc.N("grader.rules_head", len(rules), "Kata", p.ID))
	part := ""
	for _, r := range rules {
		if r.Part != part {
			part = r.Part
			fmt.Fprintf(w, "\n%s\n", part)
		}
		fmt.Fprintf(w, "  %-*s  %s\n", width, r.ID, r.StatementIn(loc, p))
		if r.ID == RuleCategory && p.Fixtures["server"] != nil {
			// The kata's table: which behaviour of the Orders API maps to which category.
			for _, f := range p.Fixtures["server"].Fixtures {
				if f.Expect.Category != "" {
					name := f.Name
					if words, ok := p.TestText(f.ID); ok && loc != nil {
						name = words.Name
					}
					fmt.Fprintf(w, "  %-*s    %s → %s\n", width, "", name, f.Expect.Category)
				}
			}
		}
	}
}

// WriteRuleIndex writes the rule index of docs/grading.md: a Markdown table with one row per
// rule of the packets (each id once, in table order: config, server, client), its anchor
// "rule-<id>", the katas it applies to, its statement and a link to the section explaining it.
func WriteRuleIndex(w io.Writer, packets []*katas.Packet) {
	var ids []RuleID
	rules := map[RuleID]Rule{}
	katasOf := map[RuleID][]string{}
	for _, p := range packets {
		for _, r := range RulesFor(p) {
			if _, seen := rules[r.ID]; !seen {
				ids = append(ids, r.ID)
				rules[r.ID] = r
			}
			katasOf[r.ID] = append(katasOf[r.ID], p.ID)
		}
	}
	// Config rules first, in packet order; then the server and client tables' own order.
	pos := func(id RuleID) int {
		if i := slices.IndexFunc(slices.Concat(serverRules, clientRules), func(r Rule) bool { return r.ID == id }); i >= 0 {
			return i
		}
		return -1
	}
	slices.SortStableFunc(ids, func(a, b RuleID) int { return pos(a) - pos(b) })
	fmt.Fprintln(w, "| rule | part | katas | says | explained in |")
	fmt.Fprintln(w, "| --- | --- | --- | --- | --- |")
	for _, id := range ids {
		r := rules[id]
		ks := "all"
		if len(katasOf[id]) < len(packets) {
			ks = strings.Join(katasOf[id], ", ")
		}
		fmt.Fprintf(w, "| <a id=\"rule-%s\"></a>`%s` | %s | %s | %s | [%s](#%s) |\n", id, id, r.Part, ks, strings.ReplaceAll(r.Statement, "|", "\\|"), r.Section, r.Section)
	}
}
