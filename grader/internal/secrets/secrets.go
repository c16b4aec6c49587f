// Package secrets finds secrets in text with gitleaks' default, maintained rule set (provider
// key prefixes such as sk-ant-, sk-proj-, ghp_, AKIA, xoxb-; generic API keys by keyword and
// entropy), applied with the standard library's regexp.
//
// The rules are generated (rules_gen.go, by generate.go) from the config/gitleaks.toml of the
// gitleaks release named by GitleaksVersion, so the grader keeps gitleaks' rules without
// linking its scanner and that scanner's dependencies (archive decoders, viper, zerolog).
// Detect follows gitleaks' detect.Detector.DetectString for text that has no file path and
// no commit: a rule runs only when one of its keywords occurs in the text (case-insensitive);
// the secret is the rule's secretGroup, else the first non-empty group, else the whole match;
// a secret at or under the rule's entropy is dropped; then the global and the rule's
// allowlists (regexes against the secret, the match or the line; stop words) drop what they
// allow; a generic rule's finding gives way to a specific rule's finding of the same secret on
// the same line. Allowlists and rules that apply only to file paths or commits never apply
// here; the generator leaves them out. Unlike gitleaks, a "gitleaks:allow" comment does not
// hide a finding: the text checked is a learner's, and a rule of the grader must not be
// switched off by the submission it grades.
//
// To follow a newer gitleaks release, change GitleaksVersion in generate.go and run
// `go generate ./grader/internal/secrets` (it downloads that release's module with
// `go mod download`; .ci/run checks that the generated file matches).
package secrets

//go:generate go run generate.go

import (
	"math"
	"regexp"
	"slices"
	"strings"
	"sync"
)

// Finding is one secret found in the text.
type Finding struct {
	// RuleID and Description are the gitleaks rule's id and description.
	RuleID, Description string
	// Match is the text the rule's regex matched; Secret is the secret within it.
	Match, Secret string
	// Line is the 1-based line of the text where the match starts.
	Line int
	// Entropy is the Shannon entropy of Secret in bits per byte.
	Entropy float64
}

// rule is one gitleaks rule, as generated from gitleaks.toml.
type rule struct {
	id, description string
	// regex is the rule's pattern, compiled on the rule's first use (re).
	regex       string
	secretGroup int
	// entropy is the minimum Shannon entropy of a secret; 0 checks none.
	entropy float64
	// keywords, lower-case: the rule runs only when the text contains one (all when empty).
	keywords   []string
	allowlists []*allowlist

	once sync.Once
	re   *regexp.Regexp
}

// allowlist is one of gitleaks' allowlists, reduced to what applies to text without a path
// or a commit.
type allowlist struct {
	// and: every check present must allow (gitleaks' condition = "AND"); else any one.
	and bool
	// target is what regexes match: "" the secret, "match" or "line".
	target string
	// regex is the allowlist's regexes joined into one alternation ("" for none).
	regex string
	// stopWords, lower-case: a secret that contains one is allowed.
	stopWords []string

	once sync.Once
	re   *regexp.Regexp
}

// compiled returns the rule's regexp, compiling it on first use.
func (r *rule) compiled() *regexp.Regexp {
	r.once.Do(func() { r.re = regexp.MustCompile(r.regex) })
	return r.re
}

// compiled returns the allowlist's regexp (nil when it has none), compiling it on first use.
func (a *allowlist) compiled() *regexp.Regexp {
	a.once.Do(func() {
		if a.regex != "" {
			a.re = regexp.MustCompile(a.regex)
		}
	})
	return a.re
}

// allows reports whether the allowlist drops the finding f found on line.
func (a *allowlist) allows(f Finding, line string) bool {
	target := f.Secret
	switch a.target {
	case "match":
		target = f.Match
	case "line":
		target = line
	}
	var checks []bool
	if re := a.compiled(); re != nil {
		checks = append(checks, target != "" && re.MatchString(target))
	}
	if len(a.stopWords) > 0 {
		lower := strings.ToLower(f.Secret)
		checks = append(checks, f.Secret != "" && slices.ContainsFunc(a.stopWords, func(w string) bool { return strings.Contains(lower, w) }))
	}
	if a.and {
		return len(checks) > 0 && !slices.Contains(checks, false)
	}
	return slices.Contains(checks, true)
}

// Detect returns the secrets that gitleaks' default rules find in text, in rule order.
func Detect(text string) []Finding {
	lower := strings.ToLower(text)
	var found []Finding
	for _, r := range rules {
		if len(r.keywords) > 0 && !slices.ContainsFunc(r.keywords, func(k string) bool { return strings.Contains(lower, k) }) {
			continue
		}
		found = append(found, r.detect(text)...)
	}
	return dropGeneric(found)
}

// detect applies one rule to text.
func (r *rule) detect(text string) []Finding {
	re := r.compiled()
	var out []Finding
	for _, m := range re.FindAllStringIndex(text, -1) {
		match := strings.Trim(text[m[0]:m[1]], "\n")
		start := m[0] + strings.Index(text[m[0]:m[1]], match)
		f := Finding{RuleID: r.id, Description: r.description, Match: match, Secret: match,
			Line: 1 + strings.Count(text[:start], "\n")}
		// gitleaks matches the rule again on the match alone to pick the secret's group.
		if groups := re.FindStringSubmatch(match); len(groups) >= 2 {
			if r.secretGroup > 0 {
				if len(groups) <= r.secretGroup {
					continue
				}
				f.Secret = groups[r.secretGroup]
			} else if i := slices.IndexFunc(groups[1:], func(s string) bool { return s != "" }); i >= 0 {
				f.Secret = groups[1+i]
			}
		}
		f.Entropy = shannonEntropy(f.Secret)
		if r.entropy != 0 && f.Entropy <= r.entropy {
			continue
		}
		line := lineAround(text, start, start+len(match))
		if slices.ContainsFunc(globalAllowlists, func(a *allowlist) bool { return a.allows(f, line) }) ||
			slices.ContainsFunc(r.allowlists, func(a *allowlist) bool { return a.allows(f, line) }) {
			continue
		}
		out = append(out, f)
	}
	return out
}

// lineAround returns the lines of text that hold text[start:end].
func lineAround(text string, start, end int) string {
	from := strings.LastIndexByte(text[:start], '\n') + 1
	to := len(text)
	if i := strings.IndexAny(text[end:], "\r\n"); i >= 0 {
		to = end + i
	}
	return text[from:to]
}

// dropGeneric drops a generic rule's finding when a specific rule found a secret containing
// it on the same line (gitleaks' filter).
func dropGeneric(found []Finding) []Finding {
	generic := func(f Finding) bool { return strings.Contains(strings.ToLower(f.RuleID), "generic") }
	var out []Finding
	for _, f := range found {
		if generic(f) && slices.ContainsFunc(found, func(g Finding) bool {
			return g.Line == f.Line && g.RuleID != f.RuleID && strings.Contains(g.Secret, f.Secret) && !generic(g)
		}) {
			continue
		}
		out = append(out, f)
	}
	return out
}

// shannonEntropy is the Shannon entropy of s in bits, as gitleaks computes it: character
// frequencies over the length in bytes.
func shannonEntropy(s string) float64 {
	if s == "" {
		return 0
	}
	counts := map[rune]int{}
	for _, c := range s {
		counts[c]++
	}
	var e float64
	inv := 1 / float64(len(s))
	for _, n := range counts {
		p := float64(n) * inv
		e -= p * math.Log2(p)
	}
	return e
}
