package katas

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Item-writing checks (docs/packets.md, "Item-writing checks"): cues that let a test-wise
// learner find the key without knowing the subject. They follow the NBME Item-Writing Guide
// (6th ed., "technical item flaws": longest option, convergence, word repeats, absolute
// terms, "all/none of the above") and Haladyna, Downing & Rodriguez (2002), "A review of
// multiple-choice item-writing guidelines" (guidelines 22–31 on options). kata validate
// reports them as warnings; with --strict they are problems.

// KeyLengthRatio is the most a key's length may be of the longest distractor's (NBME: the
// correct answer should not be longer than the distractors).
const KeyLengthRatio = 1.5

// LongestKeyShare is the largest share of a packet's single-answer items whose key is (or ties
// for) the longest option; above it, "pick the longest" beats chance on the bank. The same
// share bounds the items whose key is the shortest option.
const LongestKeyShare = 0.35

// EchoWords is how many stem words a key must repeat, that no distractor repeats, to cue it
// (a "clang" association: NBME word repeats; Haladyna et al. guideline 28b).
const EchoWords = 2

// StemSimilarity is the Jaccard similarity of two stems' word 3-shingle sets from which they
// count as near-duplicates (Broder 1997, "On the resemblance and containment of documents").
// Two items a mock exam can draw together must not ask the same question (Haladyna et al.
// guideline 4: items independent of each other).
const StemSimilarity = 0.25

// ItemRef names one item of a packet for the cross-packet checks: the packet id, the exam.md
// path as problems name it, and the item.
type ItemRef struct {
	Kata string
	File string
	Item Item
}

// optionLength is an option's length in characters as the learner reads it (code-span
// backticks are not shown, so they do not count).
func optionLength(o Option) int {
	return utf8.RuneCountInString(strings.ReplaceAll(o.Text, "`", ""))
}

// keyIsShortest reports whether an item's key is no longer than any distractor: once keys are
// written short, "pick the shortest" is the test-wise learner's next strategy.
func keyIsShortest(it Item) bool {
	key, shortest := 0, -1
	for _, o := range it.Options {
		n := optionLength(o)
		switch {
		case o.Key:
			key = max(key, n)
		case shortest < 0 || n < shortest:
			shortest = n
		}
	}
	return key > 0 && shortest >= 0 && key <= shortest
}

// keyIsLongest reports whether an item's key is at least as long as every distractor, so a
// learner who picks the longest option finds it (ties count: such a learner still has a fair
// chance).
func keyIsLongest(it Item) bool {
	key, longest := 0, 0
	for _, o := range it.Options {
		if o.Key {
			key = max(key, optionLength(o))
		} else {
			longest = max(longest, optionLength(o))
		}
	}
	return key > 0 && key >= longest
}

// checkItemWriting adds a warning to ws for every item-writing cue of a packet's items:
// a key longer than KeyLengthRatio × the longest distractor, a packet where more than
// LongestKeyShare of the single-answer items have the longest (or the shortest) option as key,
// an "all/none of
// these" option, a key that repeats stem words no distractor repeats, and a title whose words
// appear in a key and in no distractor.
func checkItemWriting(exam string, items []Item, ws *Problems) {
	single, longest, shortest := 0, []string{}, []string{}
	for _, it := range items {
		if len(it.Options) < 2 || len(it.Keys()) == 0 {
			continue // a structural problem, reported by parsing
		}
		distractors := 0
		for _, o := range it.Options {
			if !o.Key {
				distractors = max(distractors, optionLength(o))
			}
		}
		for _, o := range it.Options {
			if o.Key && distractors > 0 && float64(optionLength(o)) > KeyLengthRatio*float64(distractors) {
				ws.add(exam, o.Line, "item %s: the key is %d characters, %.1f× the longest distractor (%d); a key longer than %.1f× is a length cue (NBME; Haladyna et al. 2002, guideline 24): shorten it or make the distractors as specific",
					it.ID, optionLength(o), float64(optionLength(o))/float64(distractors), distractors, KeyLengthRatio)
			}
			if m := allOrNone(o.Text); m != "" && letterRef(o.Text) == "" {
				ws.add(exam, o.Line, "item %s: an option says %q; \"all/none of the above\" lets partial knowledge find the key (NBME; Haladyna et al. 2002, guidelines 25–26): write a full option", it.ID, m)
			}
		}
		if it.Choose == 1 {
			single++
			if keyIsLongest(it) {
				longest = append(longest, it.ID)
			}
			if keyIsShortest(it) {
				shortest = append(shortest, it.ID)
			}
		}
		if echo := keyOnlyWords(it, stemWords(it.Stem)); len(echo) >= EchoWords {
			ws.add(exam, it.Line, "item %s: the key repeats stem words no distractor has (%s); a word association cues the key (NBME \"clang clue\"; Haladyna et al. 2002, guideline 28b)", it.ID, strings.Join(echo, ", "))
		}
		if words := keyOnlyWords(it, titleWords(it.Title)); len(words) > 0 {
			ws.add(exam, it.Line, "item %s: the title %q shares %s with the key and with no distractor; a title gives nothing away", it.ID, it.Title, strings.Join(words, ", "))
		}
	}
	if single > 0 && float64(len(longest)) > LongestKeyShare*float64(single) {
		ws.add(exam, 1, "the key is the longest option in %d of %d single-answer items (%.0f%%, at most %.0f%%): picking the longest option beats chance (NBME; Haladyna et al. 2002, guideline 24): %s",
			len(longest), single, 100*float64(len(longest))/float64(single), 100*LongestKeyShare, strings.Join(longest, ", "))
	}
	if single > 0 && float64(len(shortest)) > LongestKeyShare*float64(single) {
		ws.add(exam, 1, "the key is the shortest option in %d of %d single-answer items (%.0f%%, at most %.0f%%): picking the shortest option beats chance (NBME; Haladyna et al. 2002, guideline 24): %s",
			len(shortest), single, 100*float64(len(shortest))/float64(single), 100*LongestKeyShare, strings.Join(shortest, ", "))
	}
}

var allOrNonePattern = regexp.MustCompile(`(?i)\b(?:all|none|both|neither) of (?:these|those|them|the (?:above|below|options|answers|choices|others|other options))\b|\b(?:all|none) (?:the )?above\b`)

// allOrNone returns the "all of the above" kind of phrase in an option's text, or "".
func allOrNone(s string) string {
	return allOrNonePattern.FindString(s)
}

// keyOnlyWords returns, in order, the words of cue (stemmed, see words) that occur in some
// key of it and in none of its distractors.
func keyOnlyWords(it Item, cue []string) []string {
	inKey, inDistractor := map[string]bool{}, map[string]bool{}
	for _, o := range it.Options {
		for _, w := range words(o.Text) {
			if o.Key {
				inKey[w] = true
			} else {
				inDistractor[w] = true
			}
		}
	}
	var out []string
	for _, w := range cue {
		if inKey[w] && !inDistractor[w] && !slices.Contains(out, w) {
			out = append(out, w)
		}
	}
	return out
}

// stemWords are the distinct content words of a stem.
func stemWords(stem string) []string { return words(stem) }

// titleWords are the distinct content words of a title.
func titleWords(title string) []string { return words(title) }

// stopWords are the function words and the exam's own vocabulary that carry no cue.
var stopWords = map[string]bool{}

func init() {
	for _, w := range strings.Fields(`a about above after again against all also an and any are as at be because been
	before being below between both but by can could did do does doing down during each few for from
	further had has have having here how if in into is it its itself just may might more most much must
	no nor not now of off on once only or other our out over own same should so some such than that
	the their them then there these they this those through to too under until up very was we were what
	when where which while who whom why will with would you your yours one two three four five
	choose correct true statement statements right best else ever every whatever`) {
		stopWords[w] = true
	}
}

// words splits text into distinct content words: lower-cased runs of letters and digits
// (code identifiers kept whole), stop words and words under four letters dropped, each
// reduced by stem so "retries", "retried" and "retry" meet.
func words(text string) []string {
	var out []string
	seen := map[string]bool{}
	for _, f := range strings.FieldsFunc(strings.ToLower(text), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r) && r != '_'
	}) {
		if utf8.RuneCountInString(f) < 4 || stopWords[f] {
			continue
		}
		s := stem(f)
		if !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	return out
}

// stem strips common English inflections and derivations, enough for cue matching (not a
// full Porter stemmer): "escalation", "escalates" and "escalate" all give "escal".
func stem(w string) string {
	for _, suf := range []string{"ations", "ation", "ions", "ion", "ings", "ing", "ies", "ied", "ers", "er", "es", "ed", "ly", "able", "s", "e", "y"} {
		if s, ok := strings.CutSuffix(w, suf); ok && utf8.RuneCountInString(s) >= 4 {
			return stem0(s)
		}
	}
	return w
}

// stem0 finishes a stem: a trailing "at" of a Latin verb ("escalat") goes, so verbs and nouns
// meet.
func stem0(s string) string {
	if t, ok := strings.CutSuffix(s, "at"); ok && utf8.RuneCountInString(t) >= 4 {
		return t
	}
	return s
}

// shingles returns the set of word 3-grams of text (all words, lower-cased, so a near-copy
// with a few words changed shares most of them).
func shingles(text string) map[string]bool {
	ws := strings.FieldsFunc(strings.ToLower(text), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r) && r != '_' && r != '-'
	})
	set := map[string]bool{}
	for i := 0; i+3 <= len(ws); i++ {
		set[strings.Join(ws[i:i+3], " ")] = true
	}
	if len(ws) > 0 && len(ws) < 3 {
		set[strings.Join(ws, " ")] = true
	}
	return set
}

// jaccard is |a ∩ b| / |a ∪ b|, 0 for two empty sets.
func jaccard(a, b map[string]bool) float64 {
	inter := 0
	for s := range a {
		if b[s] {
			inter++
		}
	}
	union := len(a) + len(b) - inter
	if union == 0 {
		return 0
	}
	return float64(inter) / float64(union)
}

// keyText is an item's keyed options' texts, sorted and joined, for comparing keys.
func keyText(it Item) string {
	var ks []string
	for _, o := range it.Options {
		if o.Key {
			ks = append(ks, strings.ToLower(o.Text))
		}
	}
	slices.Sort(ks)
	return strings.Join(ks, "\n")
}

// NearDuplicates returns a warning for every item of check whose stem is a near-duplicate
// (StemSimilarity or more) of another item's, in check or in others: one with a different key
// contradicts it, one with the same key repeats it in a mock exam that draws both. Each
// warning is at the checked item's heading and names the other item's file and line. Pairs
// within check are reported on both items.
func NearDuplicates(check, others []ItemRef) Problems {
	type shingled struct {
		ItemRef
		set map[string]bool
	}
	prep := func(rs []ItemRef) []shingled {
		out := make([]shingled, len(rs))
		for i, r := range rs {
			out[i] = shingled{r, shingles(r.Item.Stem)}
		}
		return out
	}
	a, b := prep(check), prep(others)
	var ws Problems
	for i, x := range a {
		for j, y := range append(slices.Clone(a), b...) {
			if j == i || (j < len(a) && x.Kata == y.Kata && x.Item.ID == y.Item.ID) {
				continue
			}
			sim := jaccard(x.set, y.set)
			if sim < StemSimilarity {
				continue
			}
			where := fmt.Sprintf("%s/%s (%s:%d)", y.Kata, y.Item.ID, y.File, y.Item.Line)
			if keyText(x.Item) != keyText(y.Item) {
				ws.add(x.File, x.Item.Line, "item %s: its stem is a near-duplicate (%.0f%% shared word triples) of %s, which has another key; the mock exam can draw both, so make them one item or clearly different ones",
					x.Item.ID, 100*sim, where)
			} else {
				ws.add(x.File, x.Item.Line, "item %s: its stem is a near-duplicate (%.0f%% shared word triples) of %s with the same key; the mock exam can draw both: keep one",
					x.Item.ID, 100*sim, where)
			}
		}
	}
	return ws
}
