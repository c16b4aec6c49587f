package katas

import (
	"slices"
	"strconv"
	"strings"

	"github.com/yuin/goldmark/ast"
	extast "github.com/yuin/goldmark/extension/ast"
)

// Item is one exam item: a scenario-anchored stem, options with a rationale each, and the key(s).
type Item struct {
	// ID is the item id written in the heading's code span, e.g. "se-01"; unique in the packet.
	ID string
	// Title is the rest of the heading text.
	Title string
	// Scenario is one certification scenario id, e.g. "customer-support".
	Scenario string
	// Stem is the item's question as Markdown (paragraphs and code blocks).
	Stem string
	// Options in the order written; shuffling is the exam's job.
	Options []Option
	// Choose is how many options the learner must pick: 1 for single-answer items.
	Choose int
	// Groups are the item's groups, from its optional `Group:` paragraph (ids joined by
	// commas): items, in this packet or another, that test the same point, so that one would
	// give another away. A draw (exam.Draw) takes at most one item of a group.
	Groups []string
	// Line is the heading's line in exam.md.
	Line int
	// English is, for an item read from a locale twin of exam.md (Library.Localized), the
	// English item it translates; nil in English. Its card (srs.ItemCardID) is the English
	// item's, so a card and its reviews are the same in every locale.
	English *Item
}

// Option is one answer choice with its rationale. ID is stable across shuffles ("a", "b", …
// in written order) so answers can be recorded by id.
type Option struct {
	ID        string
	Text      string
	Key       bool
	Rationale string
	Line      int
}

// Answered reports whether chosen answers the item in full: as many options marked as it asks
// for. Only such an answer is scored; a half-marked multiple-response item is saved, not
// answered.
func (it Item) Answered(chosen []string) bool { return len(chosen) == it.Choose }

// Keys returns the ids of the keyed options.
func (it Item) Keys() []string {
	var ks []string
	for _, o := range it.Options {
		if o.Key {
			ks = append(ks, o.ID)
		}
	}
	return ks
}

// ParseExam reads exam.md (docs/packets.md, "exam.md"): one item per level-2 heading that
// starts with a code span id. Every problem is reported, each naming file and line: a missing
// scenario, an option without a rationale, a key count that does not match Choose, a
// duplicate id. The error, when not nil, is Problems.
func ParseExam(file string, src []byte) ([]Item, error) {
	return collect(func(ps *Problems) []Item { return parseExam(file, src, ps) })
}

// parseExam parses exam.md, recording every problem in ps. Items that have an id are returned
// even when they have problems, so later checks (coverage references) do not report them
// again as missing.
func parseExam(file string, src []byte, ps *Problems) []Item {
	src = cleanMarkdown(src)
	doc := parseMarkdown(src)
	_, secs := sections(doc, src)
	var items []Item
	seen := map[string]int{}
	for _, s := range secs {
		line := lineOf(src, FirstOffset(s.heading))
		code, ok := s.heading.FirstChild().(*ast.CodeSpan)
		if !ok {
			ps.add(file, line, "an item heading must start with its id in backticks, e.g. ## `se-01` Title")
			continue
		}
		it := Item{ID: plainText(code, src), Line: line, Choose: 1}
		it.Title = strings.TrimSpace(strings.TrimPrefix(plainText(s.heading, src), "`"+it.ID+"`"))
		if !idPattern.MatchString(it.ID) {
			ps.add(file, line, "item id %q must be lower-case words and digits joined by '-'", it.ID)
		}
		if prev, dup := seen[it.ID]; dup {
			ps.add(file, line, "item id %q is used twice (first at line %d)", it.ID, prev)
		} else {
			seen[it.ID] = line
		}
		chooseOK := true
		var list *ast.List
		stemStart := lineEnd(src, FirstOffset(s.heading))
		var skip [][2]int // source ranges of the Scenario/Choose paragraphs, cut from the stem
		trailing := false
		for _, b := range s.blocks {
			if p, ok := b.(*ast.Paragraph); ok && list == nil && p.Lines().Len() > 0 {
				t := plainText(p, src)
				if v, ok := cutLabel(t, "Scenario:"); ok {
					it.Scenario = v
					skip = append(skip, [2]int{nodeStart(p, src), lineEnd(src, p.Lines().At(p.Lines().Len()-1).Stop-1)})
					continue
				}
				if v, ok := cutLabel(t, "Group:"); ok {
					gline := lineOf(src, FirstOffset(p))
					if it.Groups != nil {
						ps.add(file, gline, "item %s has a second Group: paragraph; list its groups in one, joined by commas", it.ID)
					}
					it.Groups = parseGroups(file, gline, it.ID, v, ps)
					skip = append(skip, [2]int{nodeStart(p, src), lineEnd(src, p.Lines().At(p.Lines().Len()-1).Stop-1)})
					continue
				}
				if v, ok := cutLabel(t, "Choose:"); ok {
					n, err := strconv.Atoi(v)
					if err != nil || n < 1 {
						ps.add(file, lineOf(src, FirstOffset(p)), "item %s: Choose: wants a whole number ≥ 1, found %q", it.ID, v)
						chooseOK = false
					} else {
						it.Choose = n
					}
					skip = append(skip, [2]int{nodeStart(p, src), lineEnd(src, p.Lines().At(p.Lines().Len()-1).Stop-1)})
					continue
				}
			}
			if l, ok := b.(*ast.List); ok && list == nil && isTaskList(l) {
				list = l
				continue
			}
			if list != nil && !trailing {
				ps.add(file, lineOf(src, FirstOffset(b)), "item %s: nothing may follow the options list", it.ID)
				trailing = true
			}
		}
		if it.Scenario == "" {
			ps.add(file, line, "item %s has no 'Scenario:' paragraph", it.ID)
		}
		if list == nil {
			ps.add(file, line, "item %s has no options (a task list: - [ ] wrong, - [x] key)", it.ID)
			items = append(items, it)
			continue
		}
		it.Stem = strings.TrimSpace(cutRanges(src, stemStart, nodeStart(list, src), skip))
		if it.Stem == "" {
			ps.add(file, line, "item %s has no stem", it.ID)
		}
		index := 0
		for li := list.FirstChild(); li != nil; li = li.NextSibling() {
			if opt, ok := parseOption(file, src, li, index, ps); ok {
				it.Options = append(it.Options, opt)
			}
			index++
		}
		if len(it.Options) < 2 {
			ps.add(file, line, "item %s has %d option(s); it needs at least 2", it.ID, len(it.Options))
		}
		if k := len(it.Keys()); chooseOK && k != it.Choose {
			switch {
			case k == 0:
				ps.add(file, line, "item %s has 0 keys (checked boxes); it needs %d", it.ID, it.Choose)
			case it.Choose == 1:
				ps.add(file, line, "item %s has %d keys (checked boxes) but is single-answer; add 'Choose: %d' for a multiple-response item", it.ID, k, k)
			default:
				ps.add(file, line, "item %s has %d keys (checked boxes); it asks to choose %d", it.ID, k, it.Choose)
			}
		}
		items = append(items, it)
	}
	return items
}

// parseGroups reads the value of an item's Group: paragraph at line: one or more group ids
// (lower-case words and digits joined by '-') joined by commas. A malformed, empty or repeated
// id is recorded in ps; the well-formed ids are returned (never nil, so a second paragraph is
// noticed).
func parseGroups(file string, line int, id, v string, ps *Problems) []string {
	gs := []string{}
	if strings.TrimSpace(v) == "" {
		ps.add(file, line, "item %s: Group: names no group; write one or more group ids joined by commas, e.g. Group: stated-wait", id)
		return gs
	}
	for _, g := range strings.Split(v, ",") {
		g = strings.TrimSpace(g)
		switch {
		case !idPattern.MatchString(g):
			ps.add(file, line, "item %s: Group: %q is not a group id (lower-case words and digits joined by '-', several joined by commas)", id, g)
		case slices.Contains(gs, g):
			ps.add(file, line, "item %s: Group: names %q twice", id, g)
		default:
			gs = append(gs, g)
		}
	}
	return gs
}

// parseOption reads one option of the list; index is its position (0 for "a"). A problem is
// recorded in ps; ok is false when the item has no usable option here.
func parseOption(file string, src []byte, li ast.Node, index int, ps *Problems) (Option, bool) {
	first := li.FirstChild()
	line := lineOf(src, FirstOffset(li))
	if first == nil {
		ps.add(file, line, "empty option")
		return Option{}, false
	}
	cb, ok := first.FirstChild().(*extast.TaskCheckBox)
	if !ok {
		ps.add(file, line, "an option must start with [ ] or [x]")
		return Option{}, false
	}
	opt := Option{ID: optionID(index), Text: plainText(first, src), Key: cb.IsChecked, Line: line}
	if opt.Text == "" {
		ps.add(file, line, "option has no text")
		return Option{}, false
	}
	for c := first.NextSibling(); c != nil; c = c.NextSibling() {
		if bq, ok := c.(*ast.Blockquote); ok {
			opt.Rationale = blockText(bq, src)
		}
	}
	if opt.Rationale == "" {
		ps.add(file, line, "option %q has no rationale (a '> ' block quote under it)", clip(opt.Text, 40))
	}
	return opt, true
}

// optionID is the stable id of the option at index: "a" … "z", then "a1", "b1" ….
func optionID(index int) string {
	id := string(rune('a' + index%26))
	if index >= 26 {
		id += strconv.Itoa(index / 26)
	}
	return id
}

func isTaskList(l *ast.List) bool {
	li := l.FirstChild()
	if li == nil || li.FirstChild() == nil {
		return false
	}
	_, ok := li.FirstChild().FirstChild().(*extast.TaskCheckBox)
	return ok
}

func cutLabel(s, label string) (string, bool) {
	if !strings.HasPrefix(s, label) {
		return "", false
	}
	return strings.TrimSpace(strings.TrimPrefix(s, label)), true
}

// cutRanges returns src[from:to] without the given ranges.
func cutRanges(src []byte, from, to int, skip [][2]int) string {
	if to < from {
		return ""
	}
	var b strings.Builder
	pos := from
	for _, r := range skip {
		if r[0] < pos || r[0] > to {
			continue
		}
		b.Write(src[pos:r[0]])
		pos = r[1]
	}
	if pos < to {
		b.Write(src[pos:to])
	}
	return b.String()
}

func clip(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}
