package katas

import (
	"fmt"
	"strings"
)

// ConfigChecks are the config rules the grader implements, by name (exercise-orders.md §6):
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

// ParseConfigRules decodes fixtures/config.json; an unknown check is an error with its line.
func ParseConfigRules(file string, src []byte) (*ConfigSet, error) {
	var set ConfigSet
	if err := decodeStrict(file, src, &set); err != nil {
		return nil, err
	}
	if len(set.Rules) == 0 {
		return nil, errAt(file, 1, "no rules")
	}
	seen := map[string]bool{}
	for i, r := range set.Rules {
		line := fixtureLine(src, r.ID)
		where := fmt.Sprintf("rule %d (%q)", i+1, r.ID)
		switch {
		case r.ID == "" || seen[r.ID]:
			return nil, errAt(file, line, "%s: id is empty or used twice", where)
		case strings.TrimSpace(r.Name) == "":
			return nil, errAt(file, line, "%s: name is empty", where)
		case r.Task < 1:
			return nil, errAt(file, line, "%s: task must name a task step", where)
		case !contains(ConfigChecks, r.Check):
			return nil, errAt(file, line, "%s: unknown check %q (known: %s)", where, r.Check, strings.Join(ConfigChecks, ", "))
		}
		seen[r.ID] = true
	}
	return &set, nil
}
