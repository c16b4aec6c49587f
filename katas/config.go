package katas

import (
	"fmt"
	"slices"
	"strings"
)

// ConfigChecks are the config rules the grader implements, by name (docs/grading.md#config-rules):
//   - "credential-refs": env and header values whose name looks like a credential are ${VAR}
//     references, never literals;
//   - "no-literal-secrets": no string anywhere in .mcp.json matches a secret detector rule
//     (gitleaks' default rules: provider key prefixes, bearer tokens, generic API keys);
//   - "no-bare-dollar": no $VAR without braces, which Claude Code leaves unexpanded;
//   - "portable-paths": no absolute path into a home folder, since .mcp.json is committed.
var ConfigChecks = []string{"credential-refs", "no-literal-secrets", "no-bare-dollar", "portable-paths"}

// ConfigSet is fixtures/config.json: the config rules a kata grades, each a test of its own.
type ConfigSet struct {
	Part  string       `json:"part"`
	Rules []ConfigRule `json:"rules"`
}

// ConfigRule is one graded config rule.
type ConfigRule struct {
	ID   string `json:"id"`
	Name string `json:"name"`
	Task int    `json:"task"`
	Rule string `json:"rule"`
	// Check is one of ConfigChecks.
	Check string `json:"check"`
}

// ParseConfigRules decodes fixtures/config.json; an unknown check is a problem with its line.
// Every problem is reported (the error, when not nil, is Problems).
func ParseConfigRules(file string, src []byte) (*ConfigSet, error) {
	return collect(func(ps *Problems) *ConfigSet { return parseConfigRules(file, src, ps) })
}

// parseConfigRules decodes and checks config rules, recording every problem in ps; nil when the
// JSON cannot be decoded.
func parseConfigRules(file string, src []byte, ps *Problems) *ConfigSet {
	var set ConfigSet
	if err := decodeStrict(file, src, &set); err != nil {
		ps.addErr(file, err)
		return nil
	}
	if len(set.Rules) == 0 {
		ps.add(file, 1, "no rules")
	}
	seen := map[string]bool{}
	for i, r := range set.Rules {
		line := fixtureLine(src, r.ID)
		where := fmt.Sprintf("rule %d (%q)", i+1, r.ID)
		bad := func(format string, args ...any) { ps.add(file, line, "%s: %s", where, fmt.Sprintf(format, args...)) }
		if r.ID == "" || seen[r.ID] {
			bad("id is empty or used twice")
		}
		if strings.TrimSpace(r.Name) == "" {
			bad("name is empty")
		}
		if r.Task < 1 {
			bad("task must name a task step")
		}
		if !slices.Contains(ConfigChecks, r.Check) {
			bad("unknown check %q (known: %s)", r.Check, strings.Join(ConfigChecks, ", "))
		}
		seen[r.ID] = true
	}
	return &set
}
