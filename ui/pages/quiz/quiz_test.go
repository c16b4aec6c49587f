package quiz

import (
	"strings"
	"testing"

	"github.com/kata-mcp/kata/katas"
	"github.com/kata-mcp/kata/ui/components/deck"
)

// TestCardsSayEnglish: a quiz whose exam.md is read in English although the user reads Russian
// says so in every card's head; one read in Russian, or in English by choice, does not.
func TestCardsSayEnglish(t *testing.T) {
	p := &katas.Packet{Manifest: katas.Manifest{ID: "k"}, Items: []katas.Item{{ID: "k-01", Title: "t", Scenario: "s", Stem: "Which?", Choose: 1,
		Options: []katas.Option{{ID: "a", Text: "one", Key: true}, {ID: "b", Text: "two"}}}}}
	for _, c := range []struct {
		locale   string
		fallback []string
		marked   bool
	}{{"ru", []string{"exam.md"}, true}, {"ru", []string{"traps.md"}, false}, {"", nil, false}} {
		p.Locale, p.Fallback = c.locale, c.fallback
		head := deck.ItemCards(p, 1, nil)[0].Head
		if strings.Contains(head, "на английском") != c.marked {
			t.Errorf("locale %q, fallback %v: head %q", c.locale, c.fallback, head)
		}
	}
}
