package ui

import (
	"fmt"
	"sort"
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"

	"github.com/kata-mcp/kata/katas/exam"
	"github.com/kata-mcp/kata/ui/keymap"
	"github.com/kata-mcp/kata/ui/markdown"
)

// choice is one option as a question screen shows it.
type choice struct {
	id   string // the stable id answers are recorded by ("a", "b", … in written order)
	text string
	key  bool
	note string // shown once the answer is revealed: the option's rationale
}

// choicesOf turns a question's options (display order) into choices.
func choicesOf(q exam.Question) []choice {
	var cs []choice
	for _, o := range q.Options() {
		cs = append(cs, choice{id: o.ID, text: inline(o.Text), key: o.Key, note: inline(o.Rationale)})
	}
	return cs
}

// drillChoices turns a drill question's rows into choices: each offers its correct pattern, and
// once revealed says which trap it is the pattern for.
func drillChoices(q exam.DrillQuestion) []choice {
	var cs []choice
	for i, o := range q.Options {
		note := "The pattern for: " + inline(o.Trap)
		cs = append(cs, choice{id: letter(i), text: inline(o.Correct), key: o == q.Row, note: note})
	}
	return cs
}

// inline renders the inline Markdown of an option, rationale or trap cell as plain terminal
// text: code spans without their backticks, emphasis without its markers.
func inline(s string) string { return markdown.Inline(s, lipgloss.NewStyle()) }

// ask is one question being answered: its options in display order, the learner's marks and
// the cursor. It does the key handling shared by the quiz, the drill, the review and the mock
// exam, and lays the options out.
type ask struct {
	opts   []choice
	choose int             // how many options make an answer (1 for single-answer items)
	cursor int             // display position of the highlighted option
	marked map[string]bool // option ids marked so far
	note   string          // a one-line hint after a refused mark
}

func newAsk(opts []choice, choose int) ask {
	return ask{opts: opts, choose: max(choose, 1), marked: map[string]bool{}}
}

// chosen returns the marked option ids, sorted.
func (a *ask) chosen() []string {
	ids := make([]string, 0, len(a.marked))
	for id := range a.marked {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	return ids
}

// complete reports whether exactly choose options are marked.
func (a *ask) complete() bool { return len(a.marked) == a.choose }

// set replaces the marks with ids (a resumed answer).
func (a *ask) set(ids []string) {
	a.marked = map[string]bool{}
	for _, id := range ids {
		a.marked[id] = true
	}
}

// mark marks option i: a single-answer item replaces its mark, a multiple-response item toggles
// it, never beyond choose. It reports whether the marks changed.
func (a *ask) mark(i int) bool {
	if i < 0 || i >= len(a.opts) {
		return false
	}
	a.cursor = i
	id := a.opts[i].id
	a.note = ""
	switch {
	case a.choose == 1:
		if a.marked[id] && len(a.marked) == 1 {
			return false
		}
		a.marked = map[string]bool{id: true}
	case a.marked[id]:
		delete(a.marked, id)
	case len(a.marked) >= a.choose:
		a.note = fmt.Sprintf("Choose exactly %d: unmark one first.", a.choose)
		return false
	default:
		a.marked[id] = true
	}
	return true
}

// askResult is what a key did to a question.
type askResult int

const (
	askNone     askResult = iota // the key was not the question's
	askMoved                     // the cursor moved or a mark was refused
	askChanged                   // the marks changed
	askAnswered                  // enter (or a letter on a single-answer item, when instant) with a complete answer
)

// key applies a key press. instant makes a letter on a single-answer item answer at once (the
// quiz, drill and review); the mock exam passes false, where a letter only marks.
func (a *ask) key(msg tea.KeyPressMsg, km *keymap.KeyMap, instant bool) askResult {
	letter := keymap.Index(km.Letter, msg.String())
	switch {
	case key.Matches(msg, km.Cursor.Up):
		a.cursor = max(a.cursor-1, 0)
		return askMoved
	case key.Matches(msg, km.Cursor.Down):
		a.cursor = min(a.cursor+1, len(a.opts)-1)
		return askMoved
	case key.Matches(msg, km.Question.Mark):
		if a.mark(a.cursor) {
			return askChanged
		}
		return askMoved
	case key.Matches(msg, km.Question.Answer):
		if a.choose == 1 && len(a.marked) == 0 {
			a.mark(a.cursor)
		}
		if a.complete() {
			return askAnswered
		}
		a.note = fmt.Sprintf("Choose exactly %d (%d marked).", a.choose, len(a.marked))
		return askMoved
	case letter >= 0 && letter < len(a.opts):
		changed := a.mark(letter)
		if instant && a.choose == 1 {
			return askAnswered
		}
		if changed {
			return askChanged
		}
		return askMoved
	}
	return askNone
}

// choiceLines lays out the options for answering: cursor, mark boxes (multiple-response items,
// or every item when radio is set) and the letters. It returns the lines and the cursor's line.
func (a *ask) choiceLines(st styles, w int, radio bool) ([]string, int) {
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
			if a.marked[o.id] {
				box = "[x] "
			}
		case radio:
			box = "( ) "
			if a.marked[o.id] {
				box = "(x) "
			}
		}
		text := wrapHanging(cur+box+letter(i)+") ", o.text, w)
		if i == a.cursor {
			text = st.accent.Render(text)
		}
		lines = append(lines, strings.Split(text, "\n")...)
	}
	if a.note != "" {
		lines = append(lines, "", st.fail.Render(wrapHanging("  ", a.note, w)))
	}
	return lines, cursorLine
}

// revealLines lays out the answered options: each with [key] and [your choice] tags and its
// note (the rationale) beneath.
func revealLines(st styles, w int, opts []choice, chosen []string) []string {
	var lines []string
	for i, o := range opts {
		var tags []string
		if o.key {
			tags = append(tags, st.pass.Render("[key]"))
		}
		if contains(chosen, o.id) {
			if o.key {
				tags = append(tags, st.pass.Render("[your choice]"))
			} else {
				tags = append(tags, st.fail.Render("[your choice]"))
			}
		}
		text := o.text
		if len(tags) > 0 {
			text += " " + strings.Join(tags, " ")
		}
		if i > 0 {
			lines = append(lines, "")
		}
		lines = append(lines, strings.Split(wrapHanging("  "+letter(i)+") ", text, w), "\n")...)
		if o.note != "" {
			lines = append(lines, strings.Split(st.subtle.Render(wrapHanging("     ", o.note, w)), "\n")...)
		}
	}
	return lines
}

// verdictLine says whether chosen was right, naming the key's letters when it was not.
func verdictLine(st styles, opts []choice, correct bool) string {
	if correct {
		return st.pass.Render("  ✓ correct")
	}
	var keys []string
	for i, o := range opts {
		if o.key {
			keys = append(keys, letter(i))
		}
	}
	return st.fail.Render("  ✗ incorrect") + " — the key is " + strings.Join(keys, ", ")
}

// chooseHint tells how to answer a multiple-response item.
func chooseHint(st styles, km *keymap.KeyMap, choose, marked int) string {
	return st.subtle.Render(fmt.Sprintf("  Choose %d: mark with the letters or %s, then %s. (%d marked)", choose, keymap.Key(km.Question.Mark), keymap.Key(km.Question.Answer), marked))
}

// letter is the display letter of position i.
func letter(i int) string { return string(rune('a' + i)) }

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
