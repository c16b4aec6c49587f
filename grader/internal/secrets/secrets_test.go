package secrets

import (
	"regexp"
	"strings"
	"testing"
)

// key is n characters of a random-looking key alphabet, the same for every call.
func key(n int) string {
	const alphabet = "Zx81HqLmA0pQ77vB2nYtR4sW9cK3eD6f"
	return strings.Repeat(alphabet, n/len(alphabet)+1)[:n]
}

// TestRulesCompile: every rule and allowlist of the generated rule set compiles with the
// standard library's regexp (gitleaks' own build uses it too), and the set is gitleaks' whole
// content rule set, not a stub.
func TestRulesCompile(t *testing.T) {
	if len(rules) < 200 {
		t.Fatalf("%d rules; gitleaks %s has over 200 that apply to text", len(rules), GitleaksVersion)
	}
	for _, r := range rules {
		if _, err := regexp.Compile(r.regex); err != nil {
			t.Errorf("rule %s: %v", r.id, err)
		}
		for _, a := range append(append([]*allowlist{}, globalAllowlists...), r.allowlists...) {
			if _, err := regexp.Compile(a.regex); err != nil {
				t.Errorf("rule %s: allowlist: %v", r.id, err)
			}
		}
	}
}

// TestDetectProviderKeys: provider keys in the shape of .mcp.json env values are found by
// their provider's rule, the secret alone reported.
func TestDetectProviderKeys(t *testing.T) {
	cases := []struct{ line, rule, secret string }{
		{`"ANTHROPIC_API_KEY": "sk-ant-api03-` + key(93) + `AA"`, "anthropic-api-key", "sk-ant-api03-" + key(93) + "AA"},
		{`"OPENAI_API_KEY": "sk-proj-` + key(58) + `T3BlbkFJ` + key(58) + `"`, "openai-api-key", "sk-proj-" + key(58) + "T3BlbkFJ" + key(58)},
		{`"GITHUB_TOKEN": "ghp_` + key(36) + `"`, "github-pat", "ghp_" + key(36)},
		{`"AWS_ACCESS_KEY_ID": "AKIAZ7Q4XW2LRT5NYB3K"`, "aws-access-token", "AKIAZ7Q4XW2LRT5NYB3K"},
		{`"SLACK_BOT_TOKEN": "xoxb-1234567890123-1234567890123-` + key(24) + `"`, "slack-bot-token", "xoxb-1234567890123-1234567890123-" + key(24)},
		// No provider rule for a cut-short key: the generic rule finds it by its name.
		{`"DOCS_KEY": "sk-1234567890abcdefABCDEF0123"`, "generic-api-key", "sk-1234567890abcdefABCDEF0123"},
		{`"api_key": "` + key(28) + `"`, "generic-api-key", key(28)},
	}
	for _, c := range cases {
		got := Detect(c.line)
		if len(got) != 1 || got[0].RuleID != c.rule || got[0].Secret != c.secret || got[0].Line != 1 {
			t.Errorf("Detect(%q) = %+v, want one %s finding of %q on line 1", c.line, got, c.rule, c.secret)
		}
	}
}

// TestDetectAllows: references, placeholders and low-entropy values are not secrets
// (gitleaks' global allowlist, stop words and entropy thresholds).
func TestDetectAllows(t *testing.T) {
	for _, line := range []string{
		`"ORDERS_API_TOKEN": "${ORDERS_API_TOKEN}"`,
		`"api_key": "${ORDERS_API_TOKEN}"`,
		`"api_key": "aaaaaaaaaaaaaaaaaaaaaaaa"`,
		`"api_key": "abcdefghijklmnopqrstuvwxyz0123"`,
		`"command": "python3", "args": ["server.py"]`,
	} {
		if got := Detect(line); len(got) != 0 {
			t.Errorf("Detect(%q) = %+v, want nothing", line, got)
		}
	}
}

// TestDetectLines: in text of several lines each finding names the line its match starts on.
func TestDetectLines(t *testing.T) {
	text := "{\n  \"env\": {\n    \"A\": \"x\",\n    \"GITHUB_TOKEN\": \"ghp_" + key(36) + "\"\n  }\n}\n"
	got := Detect(text)
	if len(got) != 1 || got[0].Line != 4 {
		t.Fatalf("Detect = %+v, want one finding on line 4", got)
	}
}

// TestGitleaksAllowDoesNotHide: the text is a learner's submission; a "gitleaks:allow" comment
// in it (which makes gitleaks' scanner skip the line) does not switch the rule off.
func TestGitleaksAllowDoesNotHide(t *testing.T) {
	line := `"GITHUB_TOKEN": "ghp_` + key(36) + `", "note": "gitleaks:allow"`
	if got := Detect(line); len(got) != 1 || got[0].RuleID != "github-pat" {
		t.Fatalf("Detect(%q) = %+v, want the github-pat finding", line, got)
	}
}

// TestShannonEntropy: gitleaks' figures for a few strings.
func TestShannonEntropy(t *testing.T) {
	for s, want := range map[string]float64{"": 0, "aaaa": 0, "ab": 1, "abcd": 2} {
		if got := shannonEntropy(s); got != want {
			t.Errorf("shannonEntropy(%q) = %v, want %v", s, got, want)
		}
	}
}
