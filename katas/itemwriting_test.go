package katas

import (
	"strings"
	"testing"
)

// item builds a single-answer item from a stem, a title and options; the first option is the key.
func item(id, title, stem string, options ...string) Item {
	it := Item{ID: id, Title: title, Stem: stem, Choose: 1, Line: 10}
	for i, o := range options {
		it.Options = append(it.Options, Option{ID: optionID(i), Text: o, Key: i == 0, Rationale: "why", Line: 11 + i})
	}
	return it
}

func TestItemWritingChecks(t *testing.T) {
	cases := []struct {
		name string
		it   Item
		want string // a substring of the one warning expected; "" for none
	}{
		{"balanced", item("x-1", "A lookup", "The Orders API answers 503. What does the server return?",
			"transient, retryable", "validation, not retryable", "permission, escalated"), ""},
		{"long key", item("x-2", "A lookup", "The Orders API answers 503. What does the server return?",
			"transient and retryable, with partial results and the attempted query recorded for the log", "validation", "permission"),
			"item x-2: the key is 90 characters"},
		{"all of these", item("x-3", "A lookup", "Which status codes are retryable?",
			"408 and 429, plus 5xx", "All of these options", "Only 200"), `an option says "All of these"`},
		{"echo", item("x-4", "A lookup", "The client escalates an expired token to a person. Which category fits?",
			"auth, which the client escalates to a person", "transient, retried with backoff", "fatal, aborted at once"),
			"the key repeats stem words no distractor has (client, escal, person)"},
		{"title", item("x-5", "Escalate before retry", "An expired token comes back marked retryable. What does the client do?",
			"It hands it to a person: it escalates", "It retries it with a backoff", "It aborts without a log line"),
			`the title "Escalate before retry" shares escal with the key`},
	}
	for _, c := range cases {
		var ws Problems
		checkItemWriting("p/exam.md", []Item{c.it}, &ws)
		// one item alone is always "the longest key in 1 of 1"; drop that per-packet line here
		var got []string
		for _, w := range ws {
			if w.Line != 1 {
				got = append(got, w.Error())
			}
		}
		switch {
		case c.want == "" && len(got) > 0:
			t.Errorf("%s: unexpected warnings %q", c.name, got)
		case c.want != "" && (len(got) != 1 || !strings.Contains(got[0], c.want)):
			t.Errorf("%s: got %q, want one warning containing %q", c.name, got, c.want)
		}
	}
}

func TestLongestKeyShare(t *testing.T) {
	mid := item("s", "T", "Which one?", "abc", "abcd", "ab")
	long := item("l", "T", "Which one?", "abcd", "ab", "abc")
	short := item("t", "T", "Which one?", "ab", "abcd", "abc")
	var ws Problems
	checkItemWriting("p/exam.md", []Item{long, mid, short}, &ws) // 1 of 3 each: 33 %, allowed
	if len(ws) != 0 {
		t.Errorf("1 of 3: %v", ws)
	}
	ws = nil
	checkItemWriting("p/exam.md", []Item{short, short, mid}, &ws)
	if len(ws) != 1 || ws[0].Line != 1 || !strings.Contains(ws[0].Msg, "the key is the shortest option in 2 of 3") {
		t.Errorf("shortest 2 of 3: %v", ws)
	}
	ws = nil
	checkItemWriting("p/exam.md", []Item{long, long, mid}, &ws) // 2 of 3
	if len(ws) != 1 || ws[0].Line != 1 || !strings.Contains(ws[0].Msg, "2 of 3 single-answer items") {
		t.Errorf("2 of 3: %v", ws)
	}
}

func TestNearDuplicates(t *testing.T) {
	stem := "A support agent calls lookup_order with ORD-99120, a well-formed id. The Orders API answers 404. What should the server return?"
	a := ItemRef{Kata: "one", File: "one/exam.md", Item: item("a-1", "T", stem, "fatal", "transient")}
	b := ItemRef{Kata: "two", File: "two/exam.md", Item: item("b-1", "T", strings.Replace(stem, "A support agent", "An agent", 1), "validation", "transient")}
	c := ItemRef{Kata: "two", File: "two/exam.md", Item: item("b-2", "T", "A 429 arrives with no Retry-After header during a sale. What does the client sleep?", "backoff", "zero")}
	ws := NearDuplicates([]ItemRef{a}, []ItemRef{b, c})
	if len(ws) != 1 || ws[0].File != "one/exam.md" || !strings.Contains(ws[0].Msg, "two/b-1 (two/exam.md:10), which has another key") {
		t.Errorf("got %v", ws)
	}
	same := b
	same.Item.Options = a.Item.Options
	if ws := NearDuplicates([]ItemRef{a, same}, nil); len(ws) != 2 || !strings.Contains(ws[0].Msg, "with the same key") {
		t.Errorf("a pair within the checked items: %v", ws)
	}
}

// TestTitleNumbers: a title that spells out (in any language kata speaks) or writes a number
// only the key has is a warning at the heading; a number a distractor names too is not.
func TestTitleNumbers(t *testing.T) {
	opts := []string{"30 seconds, the wait the payload states.", "2 seconds, the backoff step.", "1 second: the schedule starts over."}
	for _, c := range []struct {
		title, want string
	}{
		{"Thirty after one", `the title "Thirty after one" names 30, a number in the key`},
		{"Treinta después de uno", "names 30"},
		{"Тридцать после одной", "names 30"},
		{"Throttled at 30", "names 30"},
		{"Throttled on the second try", ""},
		{"One second, then what?", ""}, // 1 is in a distractor too
	} {
		var ws Problems
		checkTitleNumbers("p/exam.md", []Item{item("x-1", c.title, "What is the shortest sleep?", opts...)}, &ws)
		switch {
		case c.want == "" && len(ws) > 0:
			t.Errorf("%q: %v", c.title, ws)
		case c.want != "" && (len(ws) != 1 || !strings.Contains(ws[0].Error(), "p/exam.md:10: item x-1: "+c.want) && !strings.Contains(ws[0].Error(), c.want)):
			t.Errorf("%q: want a warning with %q, got %v", c.title, c.want, ws)
		}
	}
	if got := strings.Join(numbers("Refunds over $1,200, 1.200 $ or 1 200 $; not 07"), " "); got != "1200 7" {
		t.Errorf("numbers: %q", got)
	}
}
