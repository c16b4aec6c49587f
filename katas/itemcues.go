package katas

import (
	"fmt"
	"io/fs"
	"maps"
	"math"
	"path"
	"regexp"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Bank-level cue checks (docs/packets.md, "Item-writing checks"): strategies a learner who
// knows nothing can play on the whole bank, measured as the share of single-answer items they
// answer right against a blind guess, and the written positions of the keys. Each runs in
// every language of the bank, since a translation can make an option longer or drop a quote.

// CueMargin is how far above chance, in share of a packet's single-answer items, the
// most-specific and the odd-one-out strategies may score before kata validate warns. Thirty
// four-option items give chance 25 % with a standard error of about 8 points, so 10 points
// flags a cue, not bad luck.
const CueMargin = 0.10

// MinCueItems is the smallest number of single-answer items a bank-level rate is computed on;
// a workshop packet of a handful of items is too small for a rate to mean anything.
const MinCueItems = 8

// KeyPositionChi2 is the critical value of Pearson's χ² test, at p = 0.01, for each number
// of degrees of freedom (index = options − 1) against which the written key positions of the
// single-answer items are tested for balance (Haladyna et al. 2002, guideline 23: balance the
// key's position). An export or a printout keeps the written order, so it must not favour a
// letter.
var KeyPositionChi2 = []float64{0, 6.635, 9.210, 11.345, 13.277, 15.086}

// KeySetShare is the largest share of a packet's multiple-response items that may have the
// same written key positions (every "choose two" keyed a and b is a cue on paper).
const KeySetShare = 0.5

var (
	digitPattern  = regexp.MustCompile(`\p{Nd}`)
	quotedPattern = regexp.MustCompile(`"[^"]+"|“[^”]+”|«[^»]+»|„[^“”]+[“”]`)
)

// specificity counts the kinds of specific detail an option shows, the cue a test-wise learner
// reads as "the precise answer": a number, a code span (a field name or value in backticks),
// a quoted value. 0 to 3.
func specificity(o Option) int {
	n := 0
	if digitPattern.MatchString(o.Text) {
		n++
	}
	if strings.Count(o.Text, "`") >= 2 {
		n++
	}
	if quotedPattern.MatchString(o.Text) {
		n++
	}
	return n
}

// oddness is how far option i's length is from the mean length of the item's other options:
// the "odd one out" a learner picks when one option looks unlike the rest.
func oddness(it Item, i int) float64 {
	sum, n := 0, 0
	for j, o := range it.Options {
		if j != i {
			sum += optionLength(o)
			n++
		}
	}
	if n == 0 {
		return 0
	}
	return math.Abs(float64(optionLength(it.Options[i])) - float64(sum)/float64(n))
}

// CueStrategy is a way to pick one option of a single-answer item without knowing the subject:
// it scores each option, and the learner picks among the options with the highest score
// (compared in order, the first number first), at random among ties.
type CueStrategy struct {
	// Name is how reports name the strategy ("most specific option").
	Name string
	// Score gives option i of it its score.
	Score func(it Item, i int) []float64
}

// CueStrategies are the strategies the bank is measured against: the most specific option
// (the most kinds of specific detail; ties broken by odd length), an option with any specific
// detail (the same with "has any" in place of "how many kinds"), the odd one out by length, the
// longest and the shortest.
var CueStrategies = []CueStrategy{
	{"most specific option", func(it Item, i int) []float64 {
		return []float64{float64(specificity(it.Options[i])), oddness(it, i)}
	}},
	{"any specific detail", func(it Item, i int) []float64 {
		return []float64{float64(min(specificity(it.Options[i]), 1)), oddness(it, i)}
	}},
	{"odd one out by length", func(it Item, i int) []float64 { return []float64{oddness(it, i)} }},
	{"longest option", func(it Item, i int) []float64 { return []float64{float64(optionLength(it.Options[i]))} }},
	{"shortest option", func(it Item, i int) []float64 { return []float64{-float64(optionLength(it.Options[i]))} }},
}

// Hit is the chance that s picks its key: 1 when the key alone scores highest, 1/k when it
// ties with k−1 others, 0 otherwise. Lengths are compared to 0.01 character, so equal means
// equal. Only single-answer items are meaningful; others give 0.
func (s CueStrategy) Hit(it Item) float64 {
	if it.Choose != 1 || len(it.Options) < 2 {
		return 0
	}
	scores := make([][]float64, len(it.Options))
	for i := range it.Options {
		scores[i] = s.Score(it, i)
	}
	cmp := func(a, b []float64) int {
		for k := range a {
			if d := a[k] - b[k]; math.Abs(d) > 0.01 {
				if d > 0 {
					return 1
				}
				return -1
			}
		}
		return 0
	}
	best := slices.MaxFunc(scores, cmp)
	tied, key := 0, false
	for i, o := range it.Options {
		if cmp(scores[i], best) == 0 {
			tied++
			key = key || o.Key
		}
	}
	if !key {
		return 0
	}
	return 1 / float64(tied)
}

// CueRate is what a strategy scores on a bank's single-answer items.
type CueRate struct {
	Strategy string
	// Items is the number of single-answer items; Hits the strategy's expected number of right
	// answers; Chance a blind guess's (the sum of 1/options).
	Items        int
	Hits, Chance float64
	// Found are the items where the strategy picks the key (alone or in a tie).
	Found []string
}

// Share is the strategy's hit rate, 0 with no items.
func (r CueRate) Share() float64 { return share(r.Hits, r.Items) }

// ChanceShare is a blind guess's hit rate, 0 with no items.
func (r CueRate) ChanceShare() float64 { return share(r.Chance, r.Items) }

func share(x float64, n int) float64 {
	if n == 0 {
		return 0
	}
	return x / float64(n)
}

// CueRates measures every CueStrategies strategy on the single-answer items of a bank.
func CueRates(items []Item) []CueRate {
	var out []CueRate
	for _, s := range CueStrategies {
		r := CueRate{Strategy: s.Name}
		for _, it := range items {
			if it.Choose != 1 || len(it.Options) < 2 || len(it.Keys()) != 1 {
				continue
			}
			r.Items++
			r.Chance += 1 / float64(len(it.Options))
			if h := s.Hit(it); h > 0 {
				r.Hits += h
				r.Found = append(r.Found, it.ID)
			}
		}
		out = append(out, r)
	}
	return out
}

// checkBankCues warns when a most-specific (most kinds, or any specific detail) or the
// odd-one-out strategy scores more than CueMargin above chance on a bank of at least MinCueItems single-answer items. exam is the
// file the bank was read from (exam.md or a locale twin).
func checkBankCues(exam string, items []Item, ws *Problems) {
	for _, r := range CueRates(items) {
		if r.Strategy == "longest option" || r.Strategy == "shortest option" {
			continue // longest and shortest: checkItemWriting's LongestKeyShare
		}
		if r.Items < MinCueItems || r.Share() <= r.ChanceShare()+CueMargin {
			continue
		}
		ws.add(exam, 1, "picking the %s finds the key in %.1f of %d single-answer items (%.0f%%; chance %.0f%%, at most %.0f points above it): the options' form gives the key away (NBME; Haladyna et al. 2002, guideline 24); make the distractors as specific, or the key plainer: %s",
			r.Strategy, r.Hits, r.Items, 100*r.Share(), 100*r.ChanceShare(), 100*CueMargin, strings.Join(r.Found, ", "))
	}
}

// checkKeyPositions warns when the written positions of the keys are unbalanced: for the
// single-answer items, Pearson's χ² of the key letters against equal shares fails
// KeyPositionChi2 (items grouped by their number of options); for the multiple-response
// items, more than KeySetShare of them (and at least two) keyed at the same letters.
func checkKeyPositions(exam string, items []Item, ws *Problems) {
	byN := map[int][]int{} // options → key count per position
	sets := map[string][]string{}
	multi := 0
	for _, it := range items {
		keys := it.Keys()
		if len(keys) == 0 || len(it.Options) < 2 {
			continue
		}
		if it.Choose > 1 {
			multi++
			k := strings.Join(keys, "+")
			sets[k] = append(sets[k], it.ID)
			continue
		}
		n := len(it.Options)
		if byN[n] == nil {
			byN[n] = make([]int, n)
		}
		for i, o := range it.Options {
			if o.Key {
				byN[n][i]++
			}
		}
	}
	for _, n := range slices.Sorted(maps.Keys(byN)) {
		counts := byN[n]
		total := 0
		for _, c := range counts {
			total += c
		}
		if total < MinCueItems || n-1 >= len(KeyPositionChi2) {
			continue
		}
		exp := float64(total) / float64(n)
		chi2 := 0.0
		for _, c := range counts {
			chi2 += (float64(c) - exp) * (float64(c) - exp) / exp
		}
		if chi2 > KeyPositionChi2[n-1] {
			var parts []string
			for i, c := range counts {
				parts = append(parts, fmt.Sprintf("%s %d", optionID(i), c))
			}
			ws.add(exam, 1, "the keys of the %d single-answer items with %d options sit unevenly in written order (%s; χ² %.1f > %.1f, p < 0.01): an export or a printout keeps that order (Haladyna et al. 2002, guideline 23): move keys to the rarer letters",
				total, n, strings.Join(parts, ", "), chi2, KeyPositionChi2[n-1])
		}
	}
	if multi >= 2 {
		for _, k := range slices.Sorted(maps.Keys(sets)) {
			if ids := sets[k]; len(ids) >= 2 && float64(len(ids)) > KeySetShare*float64(multi) {
				ws.add(exam, 1, "%d of %d multiple-response items are keyed at the same letters (%s: %s): spread the keys across positions (Haladyna et al. 2002, guideline 23)",
					len(ids), multi, strings.ReplaceAll(k, "+", " and "), strings.Join(ids, ", "))
			}
		}
	}
}

// checkTwinBankCues runs checkBankCues on each locale twin of the packet's exam.md in folder
// dir (exam.es.md, …): a translation changes the options' lengths and may drop a quote. A twin
// that does not parse is CheckTwins' to report.
func checkTwinBankCues(fsys fs.FS, dir string, ws *Problems) {
	entries, err := fs.ReadDir(fsys, dir)
	if err != nil {
		return
	}
	for _, e := range entries {
		if en, _, ok := SplitTwin(e.Name()); !ok || en != "exam.md" || e.IsDir() {
			continue
		}
		file := path.Join(dir, e.Name())
		src, err := fs.ReadFile(fsys, file)
		if err != nil {
			continue
		}
		var ignored Problems
		checkBankCues(file, parseExam(file, src, &ignored), ws)
	}
}

// GiveAwayScore is the score from which one item's stem counts as giving another item's key
// away (GiveAways): the weight of the key's own words found in the stem times the weight of
// the situation the two stems share, each word weighted 1/(the number of the packet's items
// that use it), so the packet's common vocabulary counts for little and a rare detail for much.
const GiveAwayScore = 0.5

// GiveAwayWords is how many of a key's own words (in no distractor of its item) another
// item's stem must repeat before GiveAwayScore is looked at.
const GiveAwayWords = 2

// GiveAway is one item whose stem or options give away another item's key.
type GiveAway struct {
	// Giver is the item that gives the key away; Taker the item whose key it gives.
	Giver, Taker Item
	// Words are the key's own words the giver's stem repeats (stemmed), or the option text
	// the giver shows when it shows the key itself.
	Words []string
	// Score is the give-away score (0 when the giver shows the key as an option).
	Score float64
}

// cueTokens are the distinct content words of text for the give-away check: lower-cased runs
// of letters and digits of three characters or more (so status codes count), stop words left
// out, each reduced by stem.
func cueTokens(text string) map[string]bool {
	set := map[string]bool{}
	for _, f := range strings.FieldsFunc(strings.ToLower(text), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r) && r != '_'
	}) {
		if utf8.RuneCountInString(f) >= 3 && !stopWords[f] {
			set[stem(f)] = true
		}
	}
	return set
}

// normOption is an option's text as compared across items: lower case, code-span backticks and
// runs of space folded.
func normOption(s string) string {
	return strings.Join(strings.Fields(strings.ToLower(strings.ReplaceAll(s, "`", ""))), " ")
}

// GiveAways returns, for a packet's items, every ordered pair where one item gives another's
// key away: its stem repeats at least GiveAwayWords of the other key's own words (words no
// distractor of that item has) and scores GiveAwayScore or more with them (see there), or one
// of its options is the other item's key word for word. A mock exam can draw both, and a
// learner who met the first can answer the second from it (Haladyna et al. 2002, guideline 4:
// items independent of each other). The check is lexical: it finds a key copied into
// another item's stem or options, not a give-away in other words.
func GiveAways(items []Item) []GiveAway { return giveAwaysAt(items, GiveAwayScore) }

// giveAwaysAt is GiveAways with the score threshold given.
func giveAwaysAt(items []Item, threshold float64) []GiveAway {
	df := map[string]int{}
	stems := make([]map[string]bool, len(items))
	own := make([]map[string]bool, len(items))
	for i, it := range items {
		all := it.Stem
		inDistractor := map[string]bool{}
		for _, o := range it.Options {
			all += "\n" + o.Text
			if !o.Key {
				maps.Copy(inDistractor, cueTokens(o.Text))
			}
		}
		for w := range cueTokens(all) {
			df[w]++
		}
		stems[i] = cueTokens(it.Stem)
		own[i] = map[string]bool{}
		for _, o := range it.Options {
			if o.Key {
				for w := range cueTokens(o.Text) {
					if !inDistractor[w] {
						own[i][w] = true
					}
				}
			}
		}
	}
	weight := func(set map[string]bool, in map[string]bool) (float64, []string) {
		sum, found := 0.0, []string(nil)
		for _, w := range slices.Sorted(maps.Keys(set)) {
			if in[w] && df[w] > 0 {
				sum += 1 / float64(df[w])
				found = append(found, w)
			}
		}
		return sum, found
	}
	var out []GiveAway
	for y, taker := range items {
		keys := map[string]bool{}
		for _, o := range taker.Options {
			if o.Key {
				keys[normOption(o.Text)] = true
			}
		}
		for x, giver := range items {
			if x == y || giver.ID == taker.ID {
				continue
			}
			shown := ""
			for _, o := range giver.Options {
				if keys[normOption(o.Text)] {
					shown = o.Text
					break
				}
			}
			if shown != "" {
				out = append(out, GiveAway{Giver: giver, Taker: taker, Words: []string{shown}})
				continue
			}
			k, found := weight(own[y], stems[x])
			if len(found) < GiveAwayWords {
				continue
			}
			s, _ := weight(stems[y], stems[x])
			if k*s >= threshold {
				out = append(out, GiveAway{Giver: giver, Taker: taker, Words: found, Score: k * s})
			}
		}
	}
	return out
}

// checkGiveAways warns at the taker's heading for every pair GiveAways finds in a packet's
// exam.md.
func checkGiveAways(exam string, items []Item, ws *Problems) {
	for _, g := range GiveAways(items) {
		if g.Score == 0 {
			ws.add(exam, g.Taker.Line, "item %s: its key %q is an option of item %s (line %d) too; the mock exam can draw both, and one answers the other (Haladyna et al. 2002, guideline 4): write different options",
				g.Taker.ID, clip(g.Words[0], 60), g.Giver.ID, g.Giver.Line)
			continue
		}
		ws.add(exam, g.Taker.Line, "item %s: the stem of item %s (line %d) gives its key away (it repeats the key's own words %s in the same situation, score %.2f ≥ %.2f); the mock exam can draw both (Haladyna et al. 2002, guideline 4): take the answer out of that stem",
			g.Taker.ID, g.Giver.ID, g.Giver.Line, strings.Join(g.Words, ", "), g.Score, GiveAwayScore)
	}
}
