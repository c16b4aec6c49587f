// Package question is one multiple-choice question being answered: its options in display
// order, the learner's marks and cursor, the keys that change them, and its layout before and
// after the answer (the key, the choice, every rationale).
package question

import (
	"maps"
	"slices"
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"github.com/kata-mcp/kata/internal/i18n"
	"github.com/kata-mcp/kata/katas/exam"
	"github.com/kata-mcp/kata/ui/common"
	"github.com/kata-mcp/kata/ui/keymap"
)

// Choice is one option as a question screen shows it.
type Choice struct {
	ID   string // the stable id answers are recorded by ("a", "b", … in written order)
	Text string
	Key  bool
	Note string // shown once the answer is revealed: the option's rationale
}

// Choices turns a question's options (display order) into choices.
func Choices(q exam.Question) []Choice {
	var cs []Choice
	for _, o := range q.Options() {
		cs = append(cs, Choice{ID: o.ID, Text: common.Inline(o.Text), Key: o.Key, Note: common.Inline(o.Rationale)})
	}
	return cs
}

// DrillChoices turns a drill question's rows into choices: each offers its correct pattern, and
// once revealed says (in loc's language) which trap it is the pattern for.
func DrillChoices(q exam.DrillQuestion, loc *i18n.Localizer) []Choice {
	var cs []Choice
	for i, o := range q.Options {
		note := loc.T("question.pattern_for", "Trap", common.Inline(o.Trap))
		cs = append(cs, Choice{ID: Letter(i), Text: common.Inline(o.Correct), Key: o == q.Row, Note: note})
	}
	return cs
}

// Model is one question being answered: its options in display order, the learner's marks and
// the cursor. It does the key handling shared by the quiz, the drill, the review and the mock
// exam, and lays the options out.
type Model struct {
	opts   []Choice
	choose int             // how many options make an answer (1 for single-answer items)
	cursor int             // display position of the highlighted option
	marked map[string]bool // option ids marked so far
	note   note            // the hint after a refused mark or answer
}

// note is the hint a question shows after a refused key.
type note int

// The hints: none, "unmark one first" (a mark past the count), "choose exactly n" (an answer
// short of it).
const (
	noNote note = iota
	fullNote
	shortNote
	noneNote // enter with nothing marked on a single-answer item
)

// New returns the question of opts (display order) answered by choose options (at least 1).
func New(opts []Choice, choose int) Model {
	return Model{opts: opts, choose: max(choose, 1), marked: map[string]bool{}}
}

// Chosen returns the marked option ids, sorted.
func (a *Model) Chosen() []string { return slices.Sorted(maps.Keys(a.marked)) }

// HasNote reports whether the options end with a note on the last key (a refused mark or
// answer), which the page should bring into sight.
func (a *Model) HasNote() bool { return a.note != noNote }

// Marked is how many options are marked.
func (a *Model) Marked() int { return len(a.marked) }

// complete reports whether exactly choose options are marked.
func (a *Model) complete() bool { return len(a.marked) == a.choose }

// Set replaces the marks with ids (a resumed answer).
func (a *Model) Set(ids []string) {
	a.marked = map[string]bool{}
	for _, id := range ids {
		a.marked[id] = true
	}
}

// mark marks option i: a single-answer item replaces its mark, a multiple-response item toggles
// it, never beyond choose. It reports whether the marks changed.
func (a *Model) mark(i int) bool {
	if i < 0 || i >= len(a.opts) {
		return false
	}
	a.cursor = i
	id := a.opts[i].ID
	a.note = noNote
	switch {
	case a.choose == 1:
		if a.marked[id] && len(a.marked) == 1 {
			return false
		}
		a.marked = map[string]bool{id: true}
	case a.marked[id]:
		delete(a.marked, id)
	case len(a.marked) >= a.choose:
		a.note = fullNote
		return false
	default:
		a.marked[id] = true
	}
	return true
}

// Result is what a key did to a question.
type Result int

// What a key did.
const (
	None     Result = iota // the key was not the question's
	Moved                  // the cursor moved or a mark was refused
	Changed                // the marks changed
	Answered               // enter with a complete answer
)

// Key applies a key press: km's Cursor, Question and Letter bindings. A letter (or space on the
// cursor's option) only marks; enter answers, so a mind can change before it. Enter with too
// few options marked (none, on a single-answer item) answers nothing: it says what to mark, and
// the card is neither recorded nor scheduled.
func (a *Model) Key(msg tea.KeyPressMsg, km *keymap.KeyMap) Result {
	letter := keymap.Index(km.Letter, msg.String())
	switch {
	case key.Matches(msg, km.Cursor.Up):
		a.cursor = max(a.cursor-1, 0)
		return Moved
	case key.Matches(msg, km.Cursor.Down):
		a.cursor = min(a.cursor+1, len(a.opts)-1)
		return Moved
	case key.Matches(msg, km.Question.Mark):
		if a.mark(a.cursor) {
			return Changed
		}
		return Moved
	case key.Matches(msg, km.Question.Answer):
		if a.complete() {
			return Answered
		}
		a.note = shortNote
		if a.choose == 1 {
			a.note = noneNote
		}
		return Moved
	case letter >= 0 && letter < len(a.opts):
		if a.mark(letter) {
			return Changed
		}
		return Moved
	}
	return None
}

// Lines lays out the options for answering: cursor, mark boxes (multiple-response items, or
// every item when radio is set) and the letters, with a refused key's hint in loc's language.
// It returns the lines and the cursor's line.
func (a *Model) Lines(st *common.Styles, loc *i18n.Localizer, w int, radio bool) ([]string, int) {
	var lines []string
	cursorLine := -1
	for i, o := range a.opts {
		cur := "  "
		if i == a.cursor {
			cur = "> "
			cursorLine = len(lines)
		}
		box := ""
		switch {
		case a.choose > 1:
			box = "[ ] "
			if a.marked[o.ID] {
				box = "[x] "
			}
		case radio:
			box = "( ) "
			if a.marked[o.ID] {
				box = "(x) "
			}
		}
		text := common.WrapHanging(cur+box+Letter(i)+") ", o.Text, w)
		if i == a.cursor {
			text = st.Accent.Render(text)
		}
		lines = append(lines, strings.Split(text, "\n")...)
	}
	var hint string
	switch a.note {
	case fullNote:
		hint = loc.N("question.unmark_first", a.choose)
	case shortNote:
		hint = loc.N("question.choose_exactly", a.choose, "Marked", len(a.marked))
	case noneNote:
		hint = loc.T("question.mark_first")
	}
	if hint != "" {
		lines = append(lines, "")
		lines = append(lines, strings.Split(st.Fail.Render(common.WrapHanging("  ", hint, w)), "\n")...)
	}
	return lines, cursorLine
}

// Reveal lays out the answered options: each with [key] and [your choice] tags and its note
// (the rationale) beneath, the tags in loc's language.
func Reveal(st *common.Styles, loc *i18n.Localizer, w int, opts []Choice, chosen []string) []string {
	var lines []string
	for i, o := range opts {
		var tags []string
		if o.Key {
			tags = append(tags, st.Pass.Render(loc.T("question.tag_key")))
		}
		if slices.Contains(chosen, o.ID) {
			if o.Key {
				tags = append(tags, st.Pass.Render(loc.T("question.tag_choice")))
			} else {
				tags = append(tags, st.Fail.Render(loc.T("question.tag_choice")))
			}
		}
		text := o.Text
		if len(tags) > 0 {
			text += " " + strings.Join(tags, " ")
		}
		if i > 0 {
			lines = append(lines, "")
		}
		lines = append(lines, strings.Split(common.WrapHanging("  "+Letter(i)+") ", text, w), "\n")...)
		if o.Note != "" {
			lines = append(lines, strings.Split(st.Subtle.Render(common.WrapHanging("     ", o.Note, w)), "\n")...)
		}
	}
	return lines
}

// Verdict says whether the answer was right, naming the key's letters when it was not.
func Verdict(st *common.Styles, loc *i18n.Localizer, opts []Choice, correct bool) string {
	if correct {
		return st.Pass.Render("  " + loc.T("question.correct"))
	}
	return st.Fail.Render("  "+loc.T("question.incorrect")) + " — " + loc.T("question.key_is", "Letters", KeyLetters(opts))
}

// KeyLetters lists the display letters of the keyed options: "b" or "a, c".
func KeyLetters(opts []Choice) string {
	var ks []string
	for i, o := range opts {
		if o.Key {
			ks = append(ks, Letter(i))
		}
	}
	return strings.Join(ks, ", ")
}

// Exactly reports whether chosen is exactly the keyed options.
func Exactly(opts []Choice, chosen []string) bool {
	n := 0
	for _, o := range opts {
		if o.Key {
			n++
			if !slices.Contains(chosen, o.ID) {
				return false
			}
		}
	}
	return n == len(chosen)
}

// ChooseHint tells how to answer a multiple-response item.
func ChooseHint(st *common.Styles, km *keymap.KeyMap, loc *i18n.Localizer, choose, marked int) string {
	return st.Subtle.Render("  " + loc.N("question.choose_hint", choose, "Mark", keymap.Key(km.Question.Mark), "Answer", keymap.Key(km.Question.Answer), "Marked", marked))
}

// Letter is the display letter of position i: "a" for 0.
func Letter(i int) string { return string(rune('a' + i)) }

// Title is an item or trap card's title line, wrapped under a two-space indent.
func Title(st *common.Styles, title string, w int) string {
	return st.Label.Render(common.WrapHanging("  ", title, w))
}
