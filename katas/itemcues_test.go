package katas

import (
	"fmt"
	"strings"
	"testing"
)

// keyedAt builds a single-answer item with the given options, keyed at index key.
func keyedAt(id string, key int, options ...string) Item {
	it := Item{ID: id, Title: "T", Stem: "Which one fits " + id + "?", Choose: 1, Line: 10}
	for i, o := range options {
		it.Options = append(it.Options, Option{ID: optionID(i), Text: o, Key: i == key, Rationale: "why", Line: 11 + i})
	}
	return it
}

// warned returns the warnings of ws that contain want.
func warned(ws Problems, want string) []string {
	var out []string
	for _, w := range ws {
		if strings.Contains(w.Msg, want) {
			out = append(out, w.Error())
		}
	}
	return out
}

// plainBank is n items with four options of equal form and length, keyed a, b, c, d in turn:
// no strategy beats chance on it.
func plainBank(n int) []Item {
	var items []Item
	for i := range n {
		items = append(items, keyedAt(fmt.Sprintf("x-%d", i), i%4, "retry it later on", "ask for the id", "hand it to a person", "stop and report"))
	}
	return items
}

func TestMostSpecificCue(t *testing.T) {
	var ws Problems
	checkBankCues("p/exam.md", plainBank(12), &ws)
	if len(ws) != 0 {
		t.Fatalf("a plain bank: %v", ws)
	}
	// The planted cue: the key alone names a field in backticks and a number.
	var items []Item
	for i := range 12 {
		items = append(items, keyedAt(fmt.Sprintf("x-%d", i), i%4, "retry it later on", "ask for the id", "hand it to a person", "stop and report"))
		items[i].Options[i%4].Text = "`retryAfterSeconds: 20`"
	}
	ws = nil
	checkBankCues("p/exam.es.md", items, &ws)
	if got := warned(ws, "picking the most specific option finds the key in 12.0 of 12"); len(got) != 1 || ws[0].File != "p/exam.es.md" {
		t.Errorf("a planted specific key: %v", ws)
	}
}

func TestOddOneOutCue(t *testing.T) {
	// The planted cue: the key is far shorter than three options of one length, so it is the
	// odd one out (and not the longest, which LongestKeyShare would catch).
	var items []Item
	for i := range 12 {
		opts := []string{"retry it later on", "ask for the id a", "hand it to a per", "stop and report a"}
		opts[i%4] = "stop"
		items = append(items, keyedAt(fmt.Sprintf("x-%d", i), i%4, opts...))
	}
	var ws Problems
	checkBankCues("p/exam.md", items, &ws)
	if got := warned(ws, "picking the odd one out by length finds the key"); len(got) != 1 {
		t.Errorf("a planted odd key: %v", ws)
	}
	// Half of them fixed: 6 of 12 is 50 %, still above 25 % + 10.
	for i := range 6 {
		items[i].Options[i%4].Text = "stop and say it"
	}
	ws = nil
	checkBankCues("p/exam.md", items, &ws)
	if got := warned(ws, "odd one out"); len(got) != 1 {
		t.Errorf("half fixed: %v", ws)
	}
}

func TestKeyPositions(t *testing.T) {
	var ws Problems
	checkKeyPositions("p/exam.md", plainBank(12), &ws)
	if len(ws) != 0 {
		t.Fatalf("keys a, b, c, d in turn: %v", ws)
	}
	var items []Item
	for i := range 12 {
		items = append(items, keyedAt(fmt.Sprintf("x-%d", i), 1, "one", "two", "three", "four"))
	}
	ws = nil
	checkKeyPositions("p/exam.md", items, &ws)
	if got := warned(ws, "sit unevenly in written order (a 0, b 12, c 0, d 0"); len(got) != 1 {
		t.Errorf("every key at b: %v", ws)
	}
	// "Choose two" items all keyed a and b; then spread.
	two := func(id string, a, b int) Item {
		it := keyedAt(id, a, "one", "two", "three", "four", "five")
		it.Options[b].Key = true
		it.Choose = 2
		return it
	}
	multi := []Item{two("m-1", 0, 1), two("m-2", 0, 1), two("m-3", 0, 1)}
	ws = nil
	checkKeyPositions("p/exam.md", multi, &ws)
	if got := warned(ws, "3 of 3 multiple-response items are keyed at the same letters (a and b"); len(got) != 1 {
		t.Errorf("every choose-two at a and b: %v", ws)
	}
	multi = []Item{two("m-1", 0, 1), two("m-2", 2, 4), two("m-3", 1, 3)}
	ws = nil
	checkKeyPositions("p/exam.md", multi, &ws)
	if len(ws) != 0 {
		t.Errorf("spread choose-two keys: %v", ws)
	}
}

func TestGiveAways(t *testing.T) {
	taker := keyedAt("g-1", 0,
		"`permission`, not retryable; the coordinator renews the token or escalates.",
		"`transient`, retryable; the caller backs off.",
		"`validation`, with the customer's id named.",
		"Nothing yet: the server renews the token first.")
	taker.Stem = "Every `search_orders` call fails with `401 {\"error\": \"token_expired\"}`. What should the tool return?"
	other := keyedAt("g-2", 1, "Retry it.", "Fail the job.", "Skip it.", "Pass the job.")
	other.Stem = "A nightly job's lookups all fail; the log shows the refund tool was never called. What now?"
	if g := GiveAways([]Item{taker, other}); len(g) != 0 {
		t.Fatalf("unrelated items: %+v", g)
	}
	// The planted give-away: another stem states the taker's answer for the same situation.
	giver := other
	giver.Stem = "A nightly job's `search_orders` calls fail with `401 {\"error\": \"token_expired\"}`, and the tool returns `permission`, not retryable, so the coordinator must escalate. What should the pipeline do?"
	var ws Problems
	checkGiveAways("p/exam.md", []Item{taker, giver}, &ws)
	if got := warned(ws, "item g-1: the stem of item g-2 (line 10) gives its key away"); len(got) != 1 {
		t.Errorf("a stem that answers another item: %v", ws)
	}
	// The planted shared option: one item's key is another's option.
	shower := other
	shower.Options[2].Text = "`permission`, not retryable; the coordinator renews the token or escalates."
	ws = nil
	checkGiveAways("p/exam.md", []Item{taker, shower}, &ws)
	if got := warned(ws, "item g-1: its key"); len(got) != 1 || !strings.Contains(got[0], "is an option of item g-2") {
		t.Errorf("a key shown as another item's option: %v", ws)
	}
}

func TestCueStrategyTies(t *testing.T) {
	it := keyedAt("t-1", 0, "abcd", "abcd", "ab", "abcdef")
	if h := CueStrategies[3].Hit(it); h != 0 { // shortest is "ab", not the key
		t.Errorf("shortest: %v", h)
	}
	it = keyedAt("t-2", 0, "abcd", "abcd", "abcd", "abcd")
	for _, s := range CueStrategies {
		if h := s.Hit(it); h != 0.25 {
			t.Errorf("%s on four equal options: %v, want 0.25", s.Name, h)
		}
	}
}
