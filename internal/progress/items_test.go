package progress

import (
	"bytes"
	"strings"
	"testing"

	"github.com/kata-mcp/kata/katas"
	"github.com/kata-mcp/kata/katas/srs"
)

// TestItemStats: practice and submitted exam answers give each item's p-value and option
// counts; an open exam's answers, trap drills and answers to an earlier version of an item
// do not enter the figures, and answers to a removed item are only counted.
func TestItemStats(t *testing.T) {
	s, _ := openTemp(t)
	single := katas.Item{ID: "k-01", Title: "One", Stem: "Which?", Choose: 1, Options: []katas.Option{
		{ID: "a", Text: "right", Key: true}, {ID: "b", Text: "wrong"}, {ID: "c", Text: "also wrong"}}}
	multi := katas.Item{ID: "k-02", Title: "Two", Stem: "Which two?", Choose: 2, Options: []katas.Option{
		{ID: "a", Text: "yes", Key: true}, {ID: "b", Text: "yes too", Key: true}, {ID: "c", Text: "no"}}}
	unanswered := katas.Item{ID: "k-03", Title: "Three", Stem: "None?", Choose: 1, Options: []katas.Option{
		{ID: "a", Text: "x", Key: true}, {ID: "b", Text: "y"}}}
	p := &katas.Packet{Manifest: katas.Manifest{ID: "k"}, Items: []katas.Item{single, multi, unanswered}}
	old := single
	old.Stem = "Which, before the edit?"
	answer := func(it katas.Item, chosen ...string) Answer {
		return Answer{Kata: "k", ItemID: it.ID, CardID: srs.ItemCardID("k", it), Chosen: chosen,
			Correct: strings.Join(chosen, ",") == strings.Join(it.Keys(), ","), At: t0}
	}
	for _, a := range []Answer{
		answer(single, "a"), answer(single, "b"), answer(single, "b"), answer(single, "c"),
		answer(old, "a"),
		answer(multi, "a", "b"), answer(multi, "a", "c"),
		{Kata: "k", ItemID: "k-99", CardID: itemCard("k", "k-99"), Chosen: []string{"a"}, At: t0},
		{Kata: "k", ItemID: "row-1", CardID: "trap:k:0123456789ab", Chosen: []string{"a"}, At: t0},
	} {
		must(t, s.RecordAnswer(a))
	}
	id, err := s.StartAttempt(Attempt{Katas: []string{"k"}, Items: []string{"k/k-01", "k/k-02"}, Started: t0})
	must(t, err)
	must(t, s.FinishAttempt(Attempt{ID: id, Finished: t0}, []Answer{answer(multi, "a", "b")}))
	open, err := s.StartAttempt(Attempt{Katas: []string{"k"}, Items: []string{"k/k-01"}, Started: t0})
	must(t, err)
	must(t, s.SaveExamAnswer(open, "k/k-01", []string{"a"}, false, t0))

	rep, err := s.ItemStats([]*katas.Packet{p})
	must(t, err)
	if len(rep.Items) != 2 || rep.Unmatched != 1 {
		t.Fatalf("report: %+v", rep)
	}
	one, two := rep.Items[0], rep.Items[1]
	if one.ItemID != "k-01" || one.Answered != 4 || one.Correct != 1 || one.PValue != 0.25 || one.EarlierVersions != 1 {
		t.Errorf("k-01: %+v", one)
	}
	if got := []int{one.Options[0].Chosen, one.Options[1].Chosen, one.Options[2].Chosen}; got[0] != 1 || got[1] != 2 || got[2] != 1 || one.Options[1].Share != 0.5 || !one.Options[0].Key {
		t.Errorf("k-01 options: %+v", one.Options)
	}
	if two.ItemID != "k-02" || two.Answered != 3 || two.Correct != 2 || two.Options[2].Chosen != 1 || two.Options[0].Chosen != 3 {
		t.Errorf("k-02: %+v", two)
	}
	var b bytes.Buffer
	rep.WriteText(&b)
	for _, want := range []string{"k\n  k-01  One\n      p = 0.25 (1 of 4 answers right); 1 to earlier versions\n    * a  25%  right\n      b  50%  wrong\n",
		"p = 0.67 (2 of 3 answers right), choose 2", "1 answer to items no longer in the packets"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("text lacks %q:\n%s", want, b.String())
		}
	}
}
