package katas

import (
	"io/fs"
	"reflect"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"

	"github.com/kata-mcp/kata/packets"
)

// Long front matter values are folded so that a subagent's description reads whole on a
// narrow terminal (issue 27), and YAML still reads the same values: every embedded agent file,
// plus values a packet author could write that must be left alone.
func TestFoldFrontMatterKeepsTheValues(t *testing.T) {
	cases := []string{
		"name: a\ndescription: " + strings.Repeat("word ", 30) + "\ntools: Read, Grep",
		"description: 'quoted " + strings.Repeat("x ", 40) + "'",
		"description: |\n  block " + strings.Repeat("y ", 40),
		"description: value with a # comment " + strings.Repeat("z ", 30),
		"description: [a, b, " + strings.Repeat("c, ", 30) + "d]",
		"description: colon: inside " + strings.Repeat("w ", 30),
	}
	err := fs.WalkDir(packets.FS, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.Contains(p, "/agents/") || !strings.HasSuffix(p, ".md") {
			return err
		}
		b, err := fs.ReadFile(packets.FS, p)
		if err != nil {
			return err
		}
		s := string(b)
		if strings.HasPrefix(s, "---\n") {
			if end := strings.Index(s[4:], "\n---\n"); end >= 0 {
				cases = append(cases, s[4:4+end])
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range cases {
		var want, got map[string]any
		if err := yaml.Unmarshal([]byte(c), &want); err != nil {
			continue // not YAML to begin with: nothing to keep
		}
		folded := foldFrontMatter(c)
		if err := yaml.Unmarshal([]byte(folded), &got); err != nil || !reflect.DeepEqual(got, want) {
			t.Errorf("folding changed the values (%v):\n%s\n---\n%s", err, c, folded)
		}
		for _, l := range strings.Split(folded, "\n") {
			if len([]rune(l)) > frontMatterFold+20 && strings.HasPrefix(l, "description: ") && !strings.ContainsAny(l[13:14], "'\"|[") && !strings.Contains(l, " #") {
				t.Errorf("a long line left unfolded: %q", l)
			}
		}
	}
}
