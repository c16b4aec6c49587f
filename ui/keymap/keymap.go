// Package keymap holds every key binding of the interface, grouped by screen. Screens match keys
// against these bindings, and every help line and every key named in screen text is built from
// them (Name, Says), so a key is changed here and nowhere else.
package keymap

import (
	"charm.land/bubbles/v2/key"

	"github.com/kata-mcp/kata/internal/i18n"
)

// KeyMap is every binding of the interface. The root owns Quit, Back and Help; each screen
// reads its own group and the shared Cursor, Scroll and Read groups.
type KeyMap struct {
	// Quit ends the program from every screen; Back goes one screen up (and closes an overlay
	// first); Help shows every key of the screen on show.
	Quit, Back, Help key.Binding
	// Letter is a letter a–z: an option of a question, or a prompt in the copy picker, by the
	// letter shown beside it.
	Letter key.Binding
	// Cursor moves a cursor: the catalog's packet, a question's option, the mock exam's jump list.
	Cursor Cursor
	// Scroll scrolls a screen whose letters mean something (questions, results, the task).
	Scroll Scroll
	// Read scrolls a document where letters mean nothing else (kata layers, trap tables).
	Read Scroll
	// Find searches or filters what a screen lists (the catalog, a layer, the trap tables).
	Find Find

	Catalog  Catalog
	Kata     Kata
	Traps    Traps
	Question Question
	Practice Practice
	MockExam MockExam
	Task     Task
	Join     Join
	LiveQuiz LiveQuiz
	Board    Board
}

// Cursor moves a cursor one place.
type Cursor struct {
	Up, Down key.Binding
}

// Scroll moves a viewport: a line, a page, or to an end; Left and Right scroll code lines
// sideways. A zero binding matches nothing, so a screen without Top and Bottom leaves them
// unset.
type Scroll struct {
	Up, Down, PageUp, PageDown, Top, Bottom, Left, Right key.Binding
}

// Find is the keys of a search or filter (as in less and lazygit): Open starts typing the
// text; while typing, Done keeps it and every other key edits it (esc, the root's Back,
// cancels); Next and Prev go to the next and previous hit of a search.
type Find struct {
	Open, Done, Next, Prev key.Binding
}

// Catalog is the catalog's keys (besides Cursor).
type Catalog struct {
	// Open opens the packet under the cursor; MockExam starts (or resumes) the mock exam;
	// Review starts a review of the due cards; Language picks the workspace language of the
	// kata under the cursor; Join joins an instructor's workshop (or shows the one joined).
	// Join takes j from the cursor keys there.
	Open, MockExam, Review, Language, Join key.Binding
}

// Join is the join screen's keys.
type Join struct {
	// Next moves between the address and the name; Submit joins; Leave leaves the workshop
	// joined.
	Next, Submit, Leave key.Binding
}

// LiveQuiz is the live quiz's keys besides answering (Question, Cursor, Letter).
type LiveQuiz struct {
	// Next and Prev move between the quiz's items.
	Next, Prev key.Binding
}

// Board is the instructor's board keys (kata serve in a terminal).
type Board struct {
	// Kata selects the next kata column the pacing and quiz keys act on.
	Kata key.Binding
	// OpenLayer opens the next layer for the class, CloseLayer locks the last one open
	// again; OpenStep and CloseStep do the same for task steps.
	OpenLayer, CloseLayer, OpenStep, CloseStep key.Binding
	// Quiz starts a live quiz of the kata's next item, Quiz5 of its next five; Reveal shows
	// everyone the key, rationales and distribution; EndQuiz ends it.
	Quiz, Quiz5, Reveal, EndQuiz key.Binding
	// Up and Down scroll the learners.
	Up, Down key.Binding
}

// Kata is the kata screen's keys (besides Read).
type Kata struct {
	// Next and Prev switch layers; Layer jumps to a layer by its number.
	Next, Prev, Layer key.Binding
	// Quiz, Drill, Traps and Task open the packet's other screens.
	Quiz, Drill, Traps, Task key.Binding
	// Copy opens the picker of the prompts layer's prompts; CopyCode (the same key on the
	// other layers) copies the code block on screen, or opens a picker of those on screen.
	Copy, CopyCode key.Binding
}

// Traps is the trap tables' keys (besides Read).
type Traps struct {
	// Drill starts the trap drill.
	Drill key.Binding
}

// Question is the keys of a question being answered (besides Cursor and Letter).
type Question struct {
	// Mark marks the option under the cursor; Answer gives the marked options as the answer.
	Mark, Answer key.Binding
}

// Practice is the keys of a practice deck (quiz, drill, review) once a card is answered.
type Practice struct {
	// Next shows the next card (or the summary after the last); Restart starts over.
	Next, Restart key.Binding
}

// MockExam is the mock exam's keys besides answering (Question, Cursor, Letter).
type MockExam struct {
	// Next and Prev move between items (while answering and in the review).
	Next, Prev key.Binding
	// Flag flags the item on show for review before submitting.
	Flag key.Binding
	// Jump opens the jump list; Go jumps to the item under its cursor; Close closes it.
	Jump, Go, Close key.Binding
	// Submit asks whether to submit; Yes submits, No keeps going.
	Submit, Yes, No key.Binding
	// Review opens the review of every item after submitting.
	Review key.Binding
	// Resume resumes an unfinished mock exam; New abandons it and starts a new one.
	Resume, New key.Binding
}

// Task is the task screen's keys.
type Task struct {
	// Init creates the workspace from a template; Grade grades it; Edit opens it in the editor;
	// Language picks the template language before the workspace exists.
	Init, Grade, Edit, Language key.Binding
	// Up and Down select a step (or, on a step, a test); Open shows the selected step's text
	// beside its results; PageUp and PageDown scroll.
	Up, Down, Open, PageUp, PageDown key.Binding
}

// New returns the interface's key map with its help texts in loc's language (nil: English).
func New(loc *i18n.Localizer) *KeyMap {
	up, down := key.WithKeys("up", "k"), key.WithKeys("down", "j")
	pageUp, pageDown := key.WithKeys("pgup"), key.WithKeys("pgdown")
	pages := key.WithHelp("pgup/pgdn", loc.T("key.page"))
	return &KeyMap{
		Quit:   key.NewBinding(key.WithKeys("q", "ctrl+c"), key.WithHelp("q", loc.T("key.quit"))),
		Back:   key.NewBinding(key.WithKeys("esc"), key.WithHelp("esc", loc.T("key.back"))),
		Help:   key.NewBinding(key.WithKeys("?"), key.WithHelp("?", loc.T("key.keys"))),
		Letter: key.NewBinding(key.WithKeys(letters()...), key.WithHelp("a-z", loc.T("key.pick"))),
		Cursor: Cursor{
			Up:   key.NewBinding(up, key.WithHelp("↑/↓", loc.T("key.move"))),
			Down: key.NewBinding(down),
		},
		Scroll: Scroll{
			Up:       key.NewBinding(up, key.WithHelp("↑/↓", loc.T("key.scroll"))),
			Down:     key.NewBinding(down),
			PageUp:   key.NewBinding(pageUp, pages),
			PageDown: key.NewBinding(pageDown),
		},
		// On a document the letters mean nothing else: the help names j/k, space pages down
		// and g/G go to the ends.
		Read: Scroll{
			Up:       key.NewBinding(up, key.WithHelp("↑/↓ j/k", loc.T("key.scroll"))),
			Down:     key.NewBinding(down),
			PageUp:   key.NewBinding(pageUp, pages),
			PageDown: key.NewBinding(key.WithKeys("pgdown", "space")),
			Top:      key.NewBinding(key.WithKeys("g", "home"), key.WithHelp("g/G", loc.T("key.top_bottom"))),
			Bottom:   key.NewBinding(key.WithKeys("G", "end")),
			Left:     key.NewBinding(key.WithKeys("H", "shift+left"), key.WithHelp("H/L", loc.T("key.code_sideways"))),
			Right:    key.NewBinding(key.WithKeys("L", "shift+right")),
		},
		Find: Find{
			Open: key.NewBinding(key.WithKeys("/"), key.WithHelp("/", loc.T("key.find"))),
			Done: key.NewBinding(key.WithKeys("enter"), key.WithHelp("enter", loc.T("key.keep_it"))),
			Next: key.NewBinding(key.WithKeys("n"), key.WithHelp("n/N", loc.T("key.next_previous_hit"))),
			Prev: key.NewBinding(key.WithKeys("N")),
		},
		Catalog: Catalog{
			Open:     key.NewBinding(key.WithKeys("enter"), key.WithHelp("enter", loc.T("key.open"))),
			MockExam: key.NewBinding(key.WithKeys("x"), key.WithHelp("x", loc.T("key.mock_exam"))),
			Review:   key.NewBinding(key.WithKeys("r"), key.WithHelp("r", loc.T("key.review_due"))),
			Language: key.NewBinding(key.WithKeys("l"), key.WithHelp("l", loc.T("key.language"))),
			Join:     key.NewBinding(key.WithKeys("j"), key.WithHelp("j", loc.T("key.workshop"))),
		},
		Join: Join{
			Next:   key.NewBinding(key.WithKeys("tab", "shift+tab", "up", "down"), key.WithHelp("tab", loc.T("key.next_field"))),
			Submit: key.NewBinding(key.WithKeys("enter"), key.WithHelp("enter", loc.T("key.join"))),
			Leave:  key.NewBinding(key.WithKeys("L"), key.WithHelp("L", loc.T("key.leave_the_workshop"))),
		},
		LiveQuiz: LiveQuiz{
			Next: key.NewBinding(key.WithKeys("right", "n"), key.WithHelp("←/→ n/p", loc.T("key.item"))),
			Prev: key.NewBinding(key.WithKeys("left", "p")),
		},
		Board: Board{
			Kata:       key.NewBinding(key.WithKeys("tab"), key.WithHelp("tab", loc.T("key.next_kata"))),
			OpenLayer:  key.NewBinding(key.WithKeys("o"), key.WithHelp("o/O", loc.T("key.open_lock_a_layer"))),
			CloseLayer: key.NewBinding(key.WithKeys("O")),
			OpenStep:   key.NewBinding(key.WithKeys("s"), key.WithHelp("s/S", loc.T("key.open_lock_a_step"))),
			CloseStep:  key.NewBinding(key.WithKeys("S")),
			Quiz:       key.NewBinding(key.WithKeys("l"), key.WithHelp("l", loc.T("key.live_quiz_next_item"))),
			Quiz5:      key.NewBinding(key.WithKeys("5"), key.WithHelp("5", loc.T("key.live_quiz_next_5"))),
			Reveal:     key.NewBinding(key.WithKeys("r"), key.WithHelp("r", loc.T("key.reveal"))),
			EndQuiz:    key.NewBinding(key.WithKeys("e"), key.WithHelp("e", loc.T("key.end_the_quiz"))),
			Up:         key.NewBinding(up, key.WithHelp("↑/↓", loc.T("key.scroll"))),
			Down:       key.NewBinding(down),
		},
		Kata: Kata{
			Next:     key.NewBinding(key.WithKeys("right", "l", "tab"), key.WithHelp("←/→", loc.T("key.layer"))),
			Prev:     key.NewBinding(key.WithKeys("left", "h", "shift+tab")),
			Layer:    key.NewBinding(key.WithKeys("1", "2", "3", "4", "5", "6", "7", "8", "9"), key.WithHelp("1-5", loc.T("key.jump"))),
			Quiz:     key.NewBinding(key.WithKeys("x"), key.WithHelp("x", loc.T("key.quiz"))),
			Drill:    key.NewBinding(key.WithKeys("d"), key.WithHelp("d", loc.T("key.drill"))),
			Traps:    key.NewBinding(key.WithKeys("t"), key.WithHelp("t", loc.T("key.traps"))),
			Task:     key.NewBinding(key.WithKeys("w"), key.WithHelp("w", loc.T("key.task"))),
			Copy:     key.NewBinding(key.WithKeys("c"), key.WithHelp("c", loc.T("key.copy_a_prompt"))),
			CopyCode: key.NewBinding(key.WithKeys("c"), key.WithHelp("c", loc.T("key.copy_code"))),
		},
		Traps: Traps{
			Drill: key.NewBinding(key.WithKeys("d"), key.WithHelp("d", loc.T("key.drill_these_traps"))),
		},
		Question: Question{
			Mark:   key.NewBinding(key.WithKeys("space"), key.WithHelp("a-z/space", loc.T("key.mark"))),
			Answer: key.NewBinding(key.WithKeys("enter"), key.WithHelp("enter", loc.T("key.answer"))),
		},
		Practice: Practice{
			Next:    key.NewBinding(key.WithKeys("n", "enter"), key.WithHelp("n/enter", loc.T("key.next"))),
			Restart: key.NewBinding(key.WithKeys("r"), key.WithHelp("r", loc.T("key.start_over"))),
		},
		MockExam: MockExam{
			Next:   key.NewBinding(key.WithKeys("right", "n"), key.WithHelp("←/→ n/p", loc.T("key.item"))),
			Prev:   key.NewBinding(key.WithKeys("left", "p")),
			Flag:   key.NewBinding(key.WithKeys("f"), key.WithHelp("f", loc.T("key.flag"))),
			Jump:   key.NewBinding(key.WithKeys("o"), key.WithHelp("o", loc.T("key.jump_list"))),
			Go:     key.NewBinding(key.WithKeys("enter"), key.WithHelp("enter", loc.T("key.go_to_item"))),
			Close:  key.NewBinding(key.WithKeys("o"), key.WithHelp("o/esc", loc.T("key.close_the_list"))),
			Submit: key.NewBinding(key.WithKeys("s"), key.WithHelp("s", loc.T("key.submit"))),
			Yes:    key.NewBinding(key.WithKeys("y", "enter"), key.WithHelp("y/enter", loc.T("key.submit_now"))),
			No:     key.NewBinding(key.WithKeys("n", "esc"), key.WithHelp("n/esc", loc.T("key.keep_going"))),
			Review: key.NewBinding(key.WithKeys("r"), key.WithHelp("r", loc.T("key.review"))),
			Resume: key.NewBinding(key.WithKeys("r"), key.WithHelp("r", loc.T("key.resume"))),
			New:    key.NewBinding(key.WithKeys("n"), key.WithHelp("n", loc.T("key.new_mock_exam"))),
		},
		Task: Task{
			Init:     key.NewBinding(key.WithKeys("i"), key.WithHelp("i", loc.T("key.create_workspace"))),
			Grade:    key.NewBinding(key.WithKeys("g"), key.WithHelp("g", loc.T("key.grade"))),
			Edit:     key.NewBinding(key.WithKeys("e"), key.WithHelp("e", loc.T("key.edit_in_editor"))),
			Language: key.NewBinding(key.WithKeys("l"), key.WithHelp("l", loc.T("key.language"))),
			Up:       key.NewBinding(up, key.WithHelp("↑/↓", loc.T("key.select"))),
			Down:     key.NewBinding(down),
			Open:     key.NewBinding(key.WithKeys("enter"), key.WithHelp("enter", loc.T("key.read_the_step"))),
			PageUp:   key.NewBinding(pageUp, key.WithHelp("pgup/pgdn", loc.T("key.scroll"))),
			PageDown: key.NewBinding(pageDown),
		},
	}
}

// letters returns "a" to "z".
func letters() []string {
	out := make([]string, 0, 26)
	for r := 'a'; r <= 'z'; r++ {
		out = append(out, string(r))
	}
	return out
}

// Name is how screen text names a binding's keys: its help label ("n/enter"), or its first key
// when it has no help ("space").
func Name(b key.Binding) string {
	if h := b.Help().Key; h != "" {
		return h
	}
	if ks := b.Keys(); len(ks) > 0 {
		return ks[0]
	}
	return ""
}

// Key is a binding's first key as the terminal names it ("space", "enter").
func Key(b key.Binding) string {
	if ks := b.Keys(); len(ks) > 0 {
		return ks[0]
	}
	return ""
}

// Says is a hint for screen text: "r: start over", the key named as in the help.
func Says(b key.Binding, does string) string { return Name(b) + ": " + does }

// Index returns the position of the letter or digit msg names within b's keys ("c" in a–z is
// 2), or -1 when msg is not one of them.
func Index(b key.Binding, msg string) int {
	for i, k := range b.Keys() {
		if k == msg {
			return i
		}
	}
	return -1
}
