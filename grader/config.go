package grader

import (
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/kata-mcp/kata/internal/i18n"
	"github.com/zricethezav/gitleaks/v8/detect"
)

// credentialName matches env and header names that carry credentials.
var credentialName = regexp.MustCompile(`(?i)(token|secret|passw|api[_-]?key|apikey|credential|auth|private[_-]?key|(^|[_-])key$)`)

// providerKey matches a literal in the shape of the provider API keys that start with "sk-"
// (Anthropic sk-ant-…, OpenAI sk-… and sk-proj-…, and others that copied the shape): the
// prefix and at least 20 key characters. gitleaks' provider rules insist on each provider's
// exact length and suffix; a key cut short or padded while pasting is still a leaked key.
var providerKey = regexp.MustCompile(`(^|[^A-Za-z0-9_-])(sk-[A-Za-z0-9_-]{20,})`)

// bareDollar matches $VAR without braces, which Claude Code does not expand.
var bareDollar = regexp.MustCompile(`\$[A-Za-z_][A-Za-z0-9_]*`)

// homePath matches absolute paths into a user's home folder.
var homePath = regexp.MustCompile(`(^|[\s="'])(/home/[^/\s"']+|/Users/[^/\s"']+|~/|/root/)`)

// varRef matches one ${VAR} or ${VAR:-default} reference; group 2 is the default.
var varRef = regexp.MustCompile(`\$\{[A-Za-z_][A-Za-z0-9_]*(:-([^}]*))?\}`)

// literalText is what of s reaches the server as written: each reference replaced by its
// default (the text used when the variable is unset), so a secret hidden in a default
// (`${TOKEN:-sk-live-…}`) counts as the literal it is.
func literalText(s string) string { return varRef.ReplaceAllString(s, "$2") }

var (
	detectorOnce sync.Once
	detector     *detect.Detector
	detectorErr  error
)

// secretDetector is gitleaks' detector with its default, maintained rule set (provider key
// prefixes such as sk-ant-, sk-proj-, ghp_, AKIA, xoxb-; generic API keys by keyword and
// entropy). Built once: compiling the rules takes a moment.
func secretDetector() (*detect.Detector, error) {
	detectorOnce.Do(func() { detector, detectorErr = detect.NewDetectorDefaultConfig() })
	return detector, detectorErr
}

// configValue is one string of .mcp.json that Claude Code reads: where it is and what it is.
type configValue struct {
	server, where, key, value string
	line                      int
}

// configValues lists every command, arg, env, url and header string of every server entry.
func configValues(mc *MCPConfig) []configValue {
	var out []configValue
	for _, name := range mc.ServerNames() {
		e := mc.Servers[name]
		add := func(where, key, v string) {
			if v != "" {
				out = append(out, configValue{server: name, where: where, key: key, value: v, line: valueLine(mc.raw, v)})
			}
		}
		add("command", "", e.Command)
		for i, a := range e.Args {
			add(fmt.Sprintf("args[%d]", i), "", a)
		}
		for _, k := range slices.Sorted(maps.Keys(e.Env)) {
			add("env", k, e.Env[k])
		}
		add("url", "", e.URL)
		for _, k := range slices.Sorted(maps.Keys(e.Headers)) {
			add("headers", k, e.Headers[k])
		}
	}
	return out
}

// place names the value for a learner: ".mcp.json:LINE: server \"NAME\" WHERE [KEY]".
func (v configValue) place() i18n.Msg {
	where := v.where
	if v.key != "" {
		where += " " + v.key
	}
	return i18n.M("harness.config.place", "Line", v.line, "Server", strconv.Quote(v.server), "Where", where)
}

// redact shows the first characters of a suspected secret only.
func redact(s string) i18n.Msg {
	if len(s) <= 8 {
		return i18n.Raw(strings.Repeat("*", len(s)))
	}
	return i18n.MN("harness.config.redacted", len(s), "Start", s[:6])
}

// checkConfigRule applies one config rule to the workspace's .mcp.json and returns the
// problems, each naming the line.
func checkConfigRule(check string, mc *MCPConfig) []i18n.Msg {
	var probs []i18n.Msg
	switch check {
	case "credential-refs":
		for _, v := range configValues(mc) {
			if (v.where == "env" || v.where == "headers") && credentialName.MatchString(v.key) {
				literal := strings.TrimSpace(literalText(v.value))
				literal = strings.TrimSpace(strings.TrimPrefix(strings.TrimPrefix(literal, "Bearer"), "Basic"))
				if literal != "" {
					ref := "${" + strings.ToUpper(strings.NewReplacer("-", "_").Replace(v.key)) + "}"
					probs = append(probs, i18n.M("harness.config.literal_credential", "Place", v.place(), "Redacted", redact(v.value), "Example", strconv.Quote(ref)))
				}
			}
		}
	case "no-literal-secrets":
		d, err := secretDetector()
		if err != nil {
			return []i18n.Msg{i18n.M("harness.config.detector_failed", "Error", err.Error())}
		}
		lines := strings.Split(string(mc.raw), "\n")
		for i, line := range lines {
			scan := literalText(line)
			found := false
			for _, f := range d.DetectString(scan) {
				found = true
				probs = append(probs, i18n.M("harness.config.secret", "Line", i+1, "Redacted", redact(f.Secret), "Rule", f.RuleID, "Description", strings.TrimSuffix(f.Description, ".")))
			}
			if m := providerKey.FindStringSubmatch(scan); m != nil && !found {
				probs = append(probs, i18n.M("harness.config.provider_key", "Line", i+1, "Redacted", redact(m[2])))
			}
		}
	case "no-bare-dollar":
		for _, v := range configValues(mc) {
			rest := varRef.ReplaceAllString(v.value, "")
			if m := bareDollar.FindString(rest); m != "" {
				probs = append(probs, i18n.M("harness.config.bare_dollar", "Place", v.place(), "Ref", m, "Literal", strconv.Quote(m)))
			}
		}
	case "portable-paths":
		for _, v := range configValues(mc) {
			if v.where == "command" || strings.HasPrefix(v.where, "args") {
				if m := homePath.FindString(v.value); m != "" {
					probs = append(probs, i18n.M("harness.config.home_path", "Place", v.place(), "Path", strconv.Quote(strings.TrimSpace(m))))
				}
			}
		}
	default:
		probs = append(probs, i18n.M("harness.config.unknown_check", "Check", strconv.Quote(check)))
	}
	slices.SortStableFunc(probs, func(a, b i18n.Msg) int { return strings.Compare(a.English(), b.English()) })
	return probs
}

// runConfigTests reports each config rule of the kata as a test of its own.
func (r *run) runConfigTests() {
	for _, rule := range r.packet.ConfigRules.Rules {
		r.announceStart(rule.ID, rule.Name)
		t := TestResult{ID: rule.ID, Name: rule.Name, Step: rule.Task, Rule: rule.Rule}
		var probs problems
		for _, m := range checkConfigRule(rule.Check, r.mcp) {
			probs.say(RuleID(rule.ID), m)
		}
		r.recordVerdict(t, probs, i18n.Msg{})
	}
}
