// Package exam is the pure logic of kata's mock exams and trap drills: drawing items across
// katas with shuffled options, rebuilding an interrupted attempt from its refs and seed,
// scoring (an item scores only when exactly its keyed options are chosen) and the scaled score.
//
// Nothing here does I/O or reads a clock; every random draw comes from the seed, so the same
// (packets, n, seed) always gives the same exam.
package exam

import (
	"fmt"
	"hash/fnv"
	"math/rand/v2"
	"sort"
	"strings"

	"github.com/kata-mcp/kata/katas"
	"github.com/kata-mcp/kata/katas/srs"
)

// Question is one drawn item as it appears in an exam: its kata, the item, the display order of
// its options, its ref and its card.
type Question struct {
	// Kata is the packet id the item comes from.
	Kata string
	// Item is the item as parsed; its Options stay in written order with stable ids.
	Item katas.Item
	// Order holds indices into Item.Options in display order (a permutation).
	Order []int
	// Ref is "<kata>/<item id>", the item's name in an attempt.
	Ref string
	// CardID is the item's spaced-repetition card (itemCardID).
	CardID string
}

// Options returns the item's options in display order; their IDs are the written-order ids
// ("a", "b", …) that answers are recorded by.
func (q Question) Options() []katas.Option {
	out := make([]katas.Option, len(q.Order))
	for i, j := range q.Order {
		out[i] = q.Item.Options[j]
	}
	return out
}

// Ref names an item in an attempt: "<kata>/<item id>".
func Ref(kata, itemID string) string { return kata + "/" + itemID }

// CountAnswered counts the answers, keyed by Ref, that answer their item in full
// (katas.Item.Answered); chosen gives an answer's option ids. A ref whose item the packets lack
// is not counted.
func CountAnswered[A any](packets []*katas.Packet, answers map[string]A, chosen func(A) []string) int {
	n := 0
	for _, p := range packets {
		for _, it := range p.Items {
			if a, ok := answers[Ref(p.ID, it.ID)]; ok && it.Answered(chosen(a)) {
				n++
			}
		}
	}
	return n
}

// newQuestion builds the question for an item; its option order depends only on the seed and
// the ref, so Rebuild gives the same order as Draw.
func newQuestion(kata string, it katas.Item, seed int64) Question {
	ref := Ref(kata, it.ID)
	return Question{
		Kata:   kata,
		Item:   it,
		Order:  rngFor(seed, ref).Perm(len(it.Options)),
		Ref:    ref,
		CardID: srs.ItemCardID(kata, it),
	}
}

// rngFor returns a generator seeded by the exam seed and a name (PCG, math/rand/v2).
func rngFor(seed int64, name string) *rand.Rand {
	h := fnv.New64a()
	h.Write([]byte(name))
	return rand.New(rand.NewPCG(uint64(seed), h.Sum64()))
}

// Draw draws n items from the packets, spread as evenly as the katas allow (each kata gets
// n/k items, the remainder going one each to seed-chosen katas; a kata with too few items gives
// its share to the others), in a seed-shuffled order, each with its options shuffled. n <= 0
// or n >= the number of items takes every item. Packets without items, and a packet given again
// (same id), are skipped: no item is drawn twice.
//
// At most one item of a group (katas.Item.Groups: items that test the same point, in one
// packet or across packets) is drawn: a kata's turn passes over an item that shares a group
// with one already drawn, so with groups the exam may hold fewer than n items when the packets
// have fewer that keep apart. Packets without groups draw as if the rule did not exist.
func Draw(packets []*katas.Packet, n int, seed int64) []Question {
	rng := rngFor(seed, "draw")
	type pool struct {
		p     *katas.Packet
		order []int
		next  int   // the next index of order to consider
		taken []int // indices into p.Items, in the order drawn
	}
	var pools []*pool
	total := 0
	seen := map[string]bool{}
	for _, p := range packets {
		if len(p.Items) == 0 || seen[p.ID] {
			continue
		}
		seen[p.ID] = true
		pools = append(pools, &pool{p: p, order: rng.Perm(len(p.Items))})
		total += len(p.Items)
	}
	if n <= 0 || n > total {
		n = total
	}
	// Hand out one item at a time, round-robin from a seed-chosen start: each kata in turn takes
	// the next item of its order whose groups are all still free, and a kata with none left is
	// passed over.
	start := 0
	if len(pools) > 0 {
		start = rng.IntN(len(pools))
	}
	used := map[string]bool{}
	free := func(it katas.Item) bool {
		for _, g := range groupsOf(it) {
			if used[g] {
				return false
			}
		}
		return true
	}
	for given, i, idle := 0, start, 0; given < n && idle < len(pools); i++ {
		pl := pools[i%len(pools)]
		for pl.next < len(pl.order) && !free(pl.p.Items[pl.order[pl.next]]) {
			pl.next++
		}
		if pl.next == len(pl.order) {
			idle++ // this kata is spent; the loop ends when every kata is
			continue
		}
		idle = 0
		j := pl.order[pl.next]
		pl.next++
		pl.taken = append(pl.taken, j)
		for _, g := range groupsOf(pl.p.Items[j]) {
			used[g] = true
		}
		given++
	}
	var qs []Question
	for _, pl := range pools {
		for _, j := range pl.taken {
			qs = append(qs, newQuestion(pl.p.ID, pl.p.Items[j], seed))
		}
	}
	rng.Shuffle(len(qs), func(i, j int) { qs[i], qs[j] = qs[j], qs[i] })
	return qs
}

// groupsOf returns an item's groups: the English item's for a translated one (a twin keeps
// them, CheckTwin), so a draw keeps the same items apart in every language.
func groupsOf(it katas.Item) []string {
	if it.English != nil {
		return it.English.Groups
	}
	return it.Groups
}

// Rebuild rebuilds the questions of an attempt from its refs (in exam order) and seed, with
// the same option order Draw gave them. An unknown kata or item (removed since the attempt
// began) is an error naming the ref.
func Rebuild(packets []*katas.Packet, refs []string, seed int64) ([]Question, error) {
	byID := map[string]*katas.Packet{}
	for _, p := range packets {
		byID[p.ID] = p
	}
	qs := make([]Question, 0, len(refs))
	for _, ref := range refs {
		kata, id, ok := strings.Cut(ref, "/")
		if !ok {
			return nil, fmt.Errorf("exam item ref %q is not <kata>/<item id>", ref)
		}
		p, ok := byID[kata]
		if !ok {
			return nil, fmt.Errorf("exam item %s: kata %q is not in the library", ref, kata)
		}
		found := false
		for _, it := range p.Items {
			if it.ID == id {
				qs = append(qs, newQuestion(kata, it, seed))
				found = true
				break
			}
		}
		if !found {
			return nil, fmt.Errorf("exam item %s: kata %s has no item %q any more", ref, kata, id)
		}
	}
	return qs, nil
}

// Correct reports whether chosen (option ids, any order) is exactly the item's keyed set: no
// key missing, nothing else chosen. A multiple-response item scores only this way.
func Correct(it katas.Item, chosen []string) bool {
	keys := it.Keys()
	if len(chosen) != len(keys) {
		return false
	}
	got := append([]string(nil), chosen...)
	sort.Strings(got)
	sort.Strings(keys)
	for i := range keys {
		if got[i] != keys[i] {
			return false
		}
	}
	return true
}

// Scale maps raw points to a scaled score: Min at 0 points, Max at full marks, linear between,
// with Pass the passing mark. It imitates the certification's 100–1000 reporting scale with a
// pass at 720; it is our approximation, not the official scaling (which is not published and
// equates forms statistically).
type Scale struct{ Min, Max, Pass int }

// DefaultScale is 100–1000 with a pass at 720.
var DefaultScale = Scale{Min: 100, Max: 1000, Pass: 720}

// Scaled returns Min + (Max−Min) × points / max rounded half up (100 + 900 × points/max with
// the default scale); Min when max is 0.
func (s Scale) Scaled(points, max int) int {
	if max <= 0 {
		return s.Min
	}
	points = min(points, max)
	span := s.Max - s.Min
	return s.Min + (2*span*points+max)/(2*max)
}

// Passed reports whether a scaled score reaches the passing mark.
func (s Scale) Passed(scaled int) bool { return scaled >= s.Pass }

// Validate reports a scale that cannot be used: Min >= Max, or Pass outside [Min, Max].
func (s Scale) Validate() error {
	if s.Min >= s.Max {
		return fmt.Errorf("exam scale: the minimum %d must be below the maximum %d", s.Min, s.Max)
	}
	if s.Pass < s.Min || s.Pass > s.Max {
		return fmt.Errorf("exam scale: the passing mark %d must lie between %d and %d", s.Pass, s.Min, s.Max)
	}
	return nil
}

// Tally counts the items of one group: how many were asked, answered and correct.
type Tally struct{ Correct, Answered, Total int }

// Result is a scored exam: raw points (one per correct item) out of Max (the number of items),
// the scaled score, pass/fail, and tallies per kata id and per scenario id.
type Result struct {
	Points, Max, Scaled int
	Passed              bool
	ByKata, ByScenario  map[string]Tally
}

// Score scores the questions against answers (ref → chosen option ids; a missing or empty
// answer scores nothing) on the scale s.
func Score(qs []Question, answers map[string][]string, s Scale) Result {
	r := Result{Max: len(qs), ByKata: map[string]Tally{}, ByScenario: map[string]Tally{}}
	for _, q := range qs {
		chosen := answers[q.Ref]
		ok := len(chosen) > 0 && Correct(q.Item, chosen)
		for _, t := range []struct {
			m map[string]Tally
			k string
		}{{r.ByKata, q.Kata}, {r.ByScenario, q.Item.Scenario}} {
			tl := t.m[t.k]
			tl.Total++
			if len(chosen) > 0 {
				tl.Answered++
			}
			if ok {
				tl.Correct++
			}
			t.m[t.k] = tl
		}
		if ok {
			r.Points++
		}
	}
	r.Scaled = s.Scaled(r.Points, r.Max)
	r.Passed = s.Passed(r.Scaled)
	return r
}

// DrillOptions is the most options a drill question offers: the row's own correct pattern and
// up to three from other rows of the same table.
const DrillOptions = 4

// DrillQuestion is one trap row asked as a question: the learner is shown Row.Trap and picks
// Row.Correct among the correct patterns of Options.
type DrillQuestion struct {
	// Kata is the packet id; Table the trap table's title.
	Kata, Table string
	// Row is the trap asked about.
	Row katas.Trap
	// Options are rows of the same table (Row among them) in display order; each offers its
	// Correct pattern. At most DrillOptions; rows whose pattern reads the same as Row's are left
	// out.
	Options []katas.Trap
	// CardID is the row's spaced-repetition card (trapCardID).
	CardID string
}

// Answer returns the index in Options of the row asked about.
func (d DrillQuestion) Answer() int {
	for i, o := range d.Options {
		if o == d.Row {
			return i
		}
	}
	return -1
}

// Drill turns every row of every trap table of p into a question, in a seed-shuffled order, so
// the drill asks as many traps as the packet has (Packet.TrapCount, what kata list counts). A
// row whose own table offers no distractor (a table of one row) takes its distractors from the
// packet's other tables; only a packet with a single distinct pattern has rows left out.
func Drill(p *katas.Packet, seed int64) []DrillQuestion {
	rng := rngFor(seed, "drill/"+p.ID)
	var qs []DrillQuestion
	for ti, tbl := range p.Traps {
		for i := range tbl.Rows {
			q, ok := DrillRow(p.ID, tbl, i, rng)
			if !ok {
				q, ok = drillAcross(p, ti, i, rng)
			}
			if ok {
				qs = append(qs, q)
			}
		}
	}
	rng.Shuffle(len(qs), func(i, j int) { qs[i], qs[j] = qs[j], qs[i] })
	return qs
}

// drillAcross builds the question for row i of table ti with distractors from the packet's
// other tables.
func drillAcross(p *katas.Packet, ti, i int, rng *rand.Rand) (DrillQuestion, bool) {
	tbl := p.Traps[ti]
	wide := katas.TrapTable{Title: tbl.Title, Rows: []katas.Trap{tbl.Rows[i]}}
	for tj, o := range p.Traps {
		if tj != ti {
			wide.Rows = append(wide.Rows, o.Rows...)
		}
	}
	return DrillRow(p.ID, wide, 0, rng)
}

// DrillRow builds the question for row i of tbl, drawing distractors with rng; ok is false
// when the table offers no distractor.
func DrillRow(kata string, tbl katas.TrapTable, i int, rng *rand.Rand) (DrillQuestion, bool) {
	row := tbl.Rows[i]
	var others []katas.Trap
	for j, o := range tbl.Rows {
		if j != i && !strings.EqualFold(strings.TrimSpace(o.Correct), strings.TrimSpace(row.Correct)) {
			others = append(others, o)
		}
	}
	if len(others) == 0 {
		return DrillQuestion{}, false
	}
	rng.Shuffle(len(others), func(a, b int) { others[a], others[b] = others[b], others[a] })
	opts := append([]katas.Trap{row}, others[:min(len(others), DrillOptions-1)]...)
	rng.Shuffle(len(opts), func(a, b int) { opts[a], opts[b] = opts[b], opts[a] })
	return DrillQuestion{Kata: kata, Table: tbl.Title, Row: row, Options: opts, CardID: srs.TrapCardID(kata, tbl.Title, row)}, true
}
