package exam

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"sort"
	"strings"
	"testing"

	"github.com/kata-mcp/kata/katas"
	"github.com/kata-mcp/kata/packets"
)

// fakePacket builds a packet with n single-answer items (key "b" of three options, scenarios
// cycling over two) and one trap table of rows rows.
func fakePacket(id string, n, rows int) *katas.Packet {
	p := &katas.Packet{Manifest: katas.Manifest{ID: id}}
	for i := range n {
		it := katas.Item{ID: fmt.Sprintf("%s-%02d", id, i+1), Scenario: []string{"s-one", "s-two"}[i%2], Choose: 1, Stem: "stem"}
		for j, key := range []bool{false, true, false} {
			it.Options = append(it.Options, katas.Option{ID: string(rune('a' + j)), Text: fmt.Sprintf("opt %d", j), Key: key})
		}
		p.Items = append(p.Items, it)
	}
	tbl := katas.TrapTable{Title: "Table"}
	for i := range rows {
		tbl.Rows = append(tbl.Rows, katas.Trap{Trap: fmt.Sprintf("trap %d", i), WhyItFails: fmt.Sprintf("why %d", i), Correct: fmt.Sprintf("fix %d", i)})
	}
	if rows > 0 {
		p.Traps = []katas.TrapTable{tbl}
	}
	return p
}

func refs(qs []Question) []string {
	var r []string
	for _, q := range qs {
		r = append(r, q.Ref)
	}
	return r
}

func TestDrawSpreadsOverKatas(t *testing.T) {
	ps := []*katas.Packet{fakePacket("aa", 20, 0), fakePacket("bb", 20, 0), fakePacket("cc", 2, 0), fakePacket("dd", 0, 0)}
	for _, seed := range []int64{1, 2, 3, 99} {
		qs := Draw(ps, 10, seed)
		if len(qs) != 10 {
			t.Fatalf("seed %d: %d questions, want 10", seed, len(qs))
		}
		per := map[string]int{}
		seen := map[string]bool{}
		for _, q := range qs {
			per[q.Kata]++
			if seen[q.Ref] {
				t.Errorf("seed %d: %s drawn twice", seed, q.Ref)
			}
			seen[q.Ref] = true
			if q.Ref != q.Kata+"/"+q.Item.ID || q.CardID == "" {
				t.Errorf("seed %d: ref %q / card %q for %s", seed, q.Ref, q.CardID, q.Item.ID)
			}
		}
		// cc has only 2 items: aa and bb share the other 8 evenly.
		if per["cc"] != 2 || per["aa"] != 4 || per["bb"] != 4 || per["dd"] != 0 {
			t.Errorf("seed %d: per kata %v, want aa 4 bb 4 cc 2", seed, per)
		}
	}
}

func TestDrawAllAndRepeatable(t *testing.T) {
	ps := []*katas.Packet{fakePacket("aa", 5, 0), fakePacket("bb", 3, 0)}
	for _, n := range []int{0, -1, 8, 100} {
		if got := len(Draw(ps, n, 7)); got != 8 {
			t.Errorf("Draw(n=%d) gave %d questions, want all 8", n, got)
		}
	}
	a, b := Draw(ps, 6, 42), Draw(ps, 6, 42)
	if !reflect.DeepEqual(a, b) {
		t.Error("the same seed drew different exams")
	}
	if reflect.DeepEqual(refs(Draw(ps, 8, 1)), refs(Draw(ps, 8, 2))) && reflect.DeepEqual(Draw(ps, 8, 1)[0].Order, Draw(ps, 8, 2)[0].Order) {
		t.Error("seeds 1 and 2 drew the same exam in the same order")
	}
}

func TestDrawSkipsARepeatedPacket(t *testing.T) {
	aa := fakePacket("aa", 3, 0)
	qs := Draw([]*katas.Packet{aa, aa, fakePacket("bb", 2, 0)}, 0, 5)
	if len(qs) != 5 {
		t.Errorf("drew %d questions from aa (3) given twice and bb (2), want 5: %v", len(qs), refs(qs))
	}
	seen := map[string]bool{}
	for _, q := range qs {
		if seen[q.Ref] {
			t.Errorf("%s drawn twice", q.Ref)
		}
		seen[q.Ref] = true
	}
}

func TestOptionsShuffledByID(t *testing.T) {
	p := fakePacket("aa", 40, 0)
	moved := 0
	for _, q := range Draw([]*katas.Packet{p}, 0, 3) {
		opts := q.Options()
		perm := append([]int(nil), q.Order...)
		sort.Ints(perm)
		if !reflect.DeepEqual(perm, []int{0, 1, 2}) {
			t.Fatalf("%s: order %v is not a permutation", q.Ref, q.Order)
		}
		if opts[0].ID != "a" {
			moved++
		}
		// The key is tracked by id wherever it lands.
		for i, o := range opts {
			if o.Key != (o.ID == "b") {
				t.Errorf("%s: display %d is %s key=%v", q.Ref, i, o.ID, o.Key)
			}
		}
		if !Correct(q.Item, []string{"b"}) {
			t.Errorf("%s: the keyed id b does not score", q.Ref)
		}
	}
	if moved == 0 {
		t.Error("no item of 40 had its options shuffled")
	}
}

func TestRebuildGivesTheSameExam(t *testing.T) {
	ps := []*katas.Packet{fakePacket("aa", 9, 0), fakePacket("bb", 9, 0)}
	qs := Draw(ps, 7, 1234)
	again, err := Rebuild(ps, refs(qs), 1234)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(qs, again) {
		t.Errorf("rebuilt exam differs:\n%v\n%v", qs, again)
	}
	for _, bad := range []string{"zz/aa-01", "aa/aa-99", "no-slash"} {
		_, err := Rebuild(ps, []string{"aa/aa-01", bad}, 1)
		if err == nil || !strings.Contains(err.Error(), bad) {
			t.Errorf("Rebuild with %q: error %v, want one naming it", bad, err)
		}
	}
}

func TestCorrectNeedsExactlyTheKeys(t *testing.T) {
	it := katas.Item{Choose: 2, Options: []katas.Option{{ID: "a", Key: true}, {ID: "b"}, {ID: "c", Key: true}, {ID: "d"}}}
	cases := []struct {
		chosen []string
		want   bool
	}{
		{[]string{"a", "c"}, true},
		{[]string{"c", "a"}, true},
		{[]string{"a"}, false},
		{[]string{"a", "b"}, false},
		{[]string{"a", "c", "d"}, false},
		{[]string{"a", "a"}, false},
		{nil, false},
	}
	for _, c := range cases {
		if got := Correct(it, c.chosen); got != c.want {
			t.Errorf("Correct(%v) = %v, want %v", c.chosen, got, c.want)
		}
	}
}

func TestScaled(t *testing.T) {
	s := DefaultScale
	cases := []struct{ points, max, want int }{
		{0, 10, 100}, {10, 10, 1000}, {7, 10, 730}, {6, 10, 640},
		{1, 3, 400}, {2, 3, 700}, // 100+300 and 100+600 exactly
		{1, 8, 213},   // 100+112.5 rounds half up to 213
		{43, 60, 745}, // 100+645
		{0, 0, 100},
	}
	for _, c := range cases {
		if got := s.Scaled(c.points, c.max); got != c.want {
			t.Errorf("Scaled(%d, %d) = %d, want %d", c.points, c.max, got, c.want)
		}
	}
	if s.Passed(719) || !s.Passed(720) {
		t.Error("the pass mark is not 720")
	}
	custom := Scale{Min: 0, Max: 100, Pass: 50}
	if got := custom.Scaled(1, 2); got != 50 || !custom.Passed(got) {
		t.Errorf("custom scale: %d", got)
	}
	if err := (Scale{Min: 100, Max: 100, Pass: 100}).Validate(); err == nil {
		t.Error("an empty scale validated")
	}
	if err := (Scale{Min: 100, Max: 1000, Pass: 1001}).Validate(); err == nil {
		t.Error("a pass mark above the maximum validated")
	}
	if err := DefaultScale.Validate(); err != nil {
		t.Error(err)
	}
}

func TestScoreBreakdown(t *testing.T) {
	ps := []*katas.Packet{fakePacket("aa", 4, 0), fakePacket("bb", 4, 0)}
	qs := Draw(ps, 0, 5)
	answers := map[string][]string{}
	for _, q := range qs {
		switch {
		case q.Kata == "aa":
			answers[q.Ref] = []string{"b"} // right
		case q.Item.Scenario == "s-one":
			answers[q.Ref] = []string{"a"} // wrong
		}
		// bb s-two: unanswered
	}
	r := Score(qs, answers, DefaultScale)
	if r.Points != 4 || r.Max != 8 || r.Scaled != 550 || r.Passed {
		t.Errorf("result %+v, want 4/8, 550, fail", r)
	}
	if got := r.ByKata["aa"]; got != (Tally{Correct: 4, Answered: 4, Total: 4}) {
		t.Errorf("aa: %+v", got)
	}
	if got := r.ByKata["bb"]; got != (Tally{Correct: 0, Answered: 2, Total: 4}) {
		t.Errorf("bb: %+v", got)
	}
	if got := r.ByScenario["s-one"]; got != (Tally{Correct: 2, Answered: 4, Total: 4}) {
		t.Errorf("s-one: %+v", got)
	}
	if got := r.ByScenario["s-two"]; got != (Tally{Correct: 2, Answered: 2, Total: 4}) {
		t.Errorf("s-two: %+v", got)
	}
}

func TestDrill(t *testing.T) {
	p := fakePacket("aa", 0, 6)
	p.Traps = append(p.Traps, katas.TrapTable{Title: "Lonely", Rows: []katas.Trap{{Trap: "t", WhyItFails: "w", Correct: "c"}}})
	qs := Drill(p, 11)
	// issue 16: as many questions as the packet has traps (kata list's count); the one-row
	// table's row takes its distractors from the other table
	if len(qs) != p.TrapCount() || len(qs) != 7 {
		t.Fatalf("%d drill questions, want 7, every trap", len(qs))
	}
	seen := map[string]bool{}
	for _, q := range qs {
		seen[q.Row.Trap] = true
		if len(q.Options) != DrillOptions {
			t.Errorf("%s: %d options, want %d", q.Row.Trap, len(q.Options), DrillOptions)
		}
		if a := q.Answer(); a < 0 || q.Options[a] != q.Row {
			t.Errorf("%s: answer index %d", q.Row.Trap, a)
		}
		table := "Table"
		if q.Row.Trap == "t" {
			table = "Lonely"
		}
		if q.Table != table || q.Kata != "aa" || q.CardID == "" {
			t.Errorf("question %+v", q)
		}
	}
	if len(seen) != 7 {
		t.Errorf("rows asked: %v", seen)
	}
	if !reflect.DeepEqual(Drill(p, 11), qs) {
		t.Error("the same seed gave another drill")
	}
	// A row whose correct pattern reads the same as another's is never offered as a distractor.
	dup := katas.TrapTable{Title: "Dup", Rows: []katas.Trap{{Trap: "x", Correct: "same"}, {Trap: "y", Correct: "Same "}, {Trap: "z", Correct: "other"}}}
	q, ok := DrillRow("aa", dup, 0, rand.New(rand.NewPCG(1, 2)))
	if !ok || len(q.Options) != 2 {
		t.Errorf("duplicate pattern offered: %+v", q.Options)
	}
}

// TestEmbeddedPackets draws a full-length mock from the real packets: 60 items spread over the
// three katas, every one rebuildable.
func TestEmbeddedPackets(t *testing.T) {
	lib, err := katas.Discover(packets.FS, "embedded")
	if err != nil {
		t.Fatal(err)
	}
	qs := Draw(lib.Packets(), 60, 2026)
	if len(qs) != 60 {
		t.Fatalf("%d questions", len(qs))
	}
	per := map[string]int{}
	for _, q := range qs {
		per[q.Kata]++
	}
	// spread evenly over the katas: each gets 60/n items, or one more
	lo := 60 / len(lib.Packets())
	for id, n := range per {
		if n != lo && n != lo+1 {
			t.Errorf("%s: %d items of 60 over %d katas, want %d or %d", id, n, len(lib.Packets()), lo, lo+1)
		}
	}
	if _, err := Rebuild(lib.Packets(), refs(qs), 2026); err != nil {
		t.Error(err)
	}
	for _, p := range lib.Packets() {
		if d := Drill(p, 1); len(d) != p.TrapCount() {
			t.Errorf("%s: %d drill questions for %d traps", p.ID, len(d), p.TrapCount())
		}
	}
}

// grouped gives items of p the groups named (item index → groups).
func grouped(p *katas.Packet, groups map[int][]string) *katas.Packet {
	for i, gs := range groups {
		p.Items[i].Groups = gs
	}
	return p
}

// sameGroup returns the first two questions of qs that share a group, or "".
func sameGroup(qs []Question) string {
	by := map[string]string{}
	for _, q := range qs {
		for _, g := range groupsOf(q.Item) {
			if prev, ok := by[g]; ok {
				return fmt.Sprintf("%s and %s (group %s)", prev, q.Ref, g)
			}
			by[g] = q.Ref
		}
	}
	return ""
}

// TestDrawTakesOneItemOfAGroup sweeps seeds and lengths over packets whose groups run within
// and across packets (an item in two groups among them): no draw holds two items of one group,
// a draw of every item holds every ungrouped item and one of each group, and n is met while
// the packets have enough items that keep apart.
func TestDrawTakesOneItemOfAGroup(t *testing.T) {
	ps := []*katas.Packet{
		grouped(fakePacket("aa", 6, 0), map[int][]string{0: {"wait"}, 1: {"wait"}, 2: {"pages"}}),
		grouped(fakePacket("bb", 5, 0), map[int][]string{0: {"wait", "pages"}, 3: {"pages"}}),
		grouped(fakePacket("cc", 3, 0), map[int][]string{0: {"wait"}, 1: {"wait"}, 2: {"wait"}}),
	}
	// 14 items; 6 ungrouped, and one or two more (one of "wait" and one of "pages", or the
	// one item in both): 7 or 8 items keep apart.
	for seed := range int64(300) {
		for _, n := range []int{1, 4, 7, 0} {
			qs := Draw(ps, n, seed)
			if s := sameGroup(qs); s != "" {
				t.Fatalf("seed %d, n %d: drew %s", seed, n, s)
			}
			if n > 0 && len(qs) != n {
				t.Fatalf("seed %d, n %d: %d items, want %d", seed, n, len(qs), n)
			}
			if n == 0 && (len(qs) < 7 || len(qs) > 8) {
				t.Fatalf("seed %d, every item: %d items, want 7 or 8: %v", seed, len(qs), refs(qs))
			}
		}
	}
}

// TestDrawShippedKeepsGroupsApart sweeps seeds over the shipped packets in every language, as
// the mock exam draws them (10 items, the full-length 60, and every item): never two items of
// one group, and the shipped packets do declare groups, across packets.
func TestDrawShippedKeepsGroupsApart(t *testing.T) {
	lib, err := katas.Discover(packets.FS, "embedded")
	if err != nil {
		t.Fatal(err)
	}
	kataOf := map[string]map[string]bool{}
	for _, p := range lib.Packets() {
		for _, it := range p.Items {
			for _, g := range it.Groups {
				if kataOf[g] == nil {
					kataOf[g] = map[string]bool{}
				}
				kataOf[g][p.ID] = true
			}
		}
	}
	across := 0
	for _, ks := range kataOf {
		if len(ks) > 1 {
			across++
		}
	}
	if across == 0 {
		t.Fatal("no group of the shipped packets spans two packets")
	}
	for _, loc := range []string{katas.English, "es", "ru"} {
		ps := lib.Localized(loc).Packets()
		for seed := range int64(60) {
			for _, n := range []int{10, 60, 0} {
				qs := Draw(ps, n, seed)
				if s := sameGroup(qs); s != "" {
					t.Fatalf("%s, seed %d, n %d: drew %s", loc, seed, n, s)
				}
				if n > 0 && len(qs) != n {
					t.Fatalf("%s, seed %d: %d items, want %d", loc, seed, len(qs), n)
				}
			}
		}
	}
}
