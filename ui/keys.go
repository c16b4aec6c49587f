package ui

import "charm.land/bubbles/v2/key"

// globalKeys are owned by the root model and work on every screen.
type globalKeys struct {
	Quit key.Binding
	Back key.Binding
	Help key.Binding
}

func newGlobalKeys() globalKeys {
	return globalKeys{
		Quit: key.NewBinding(key.WithKeys("q", "ctrl+c"), key.WithHelp("q", "quit")),
		Back: key.NewBinding(key.WithKeys("esc"), key.WithHelp("esc", "back")),
		Help: key.NewBinding(key.WithKeys("?"), key.WithHelp("?", "keys")),
	}
}

// scrollKeys move a viewport; the screens that scroll share them.
type scrollKeys struct {
	Up, Down, PageUp, PageDown, Top, Bottom key.Binding
}

// newScrollKeys returns the scrolling keys; withLetters adds j/k and g/G (off where those
// letters mean something else).
func newScrollKeys(withLetters bool) scrollKeys {
	k := scrollKeys{
		Up:       key.NewBinding(key.WithKeys("up"), key.WithHelp("↑/↓", "scroll")),
		Down:     key.NewBinding(key.WithKeys("down")),
		PageUp:   key.NewBinding(key.WithKeys("pgup"), key.WithHelp("pgup/pgdn", "page")),
		PageDown: key.NewBinding(key.WithKeys("pgdown", "space")),
		Top:      key.NewBinding(key.WithKeys("home"), key.WithHelp("home/end", "top/bottom")),
		Bottom:   key.NewBinding(key.WithKeys("end")),
	}
	if withLetters {
		k.Up = key.NewBinding(key.WithKeys("up", "k"), key.WithHelp("↑/↓ j/k", "scroll"))
		k.Down = key.NewBinding(key.WithKeys("down", "j"))
		k.Top = key.NewBinding(key.WithKeys("g", "home"), key.WithHelp("g/G", "top/bottom"))
		k.Bottom = key.NewBinding(key.WithKeys("G", "end"))
	}
	return k
}

// catalogKeys are the catalog's keys.
type catalogKeys struct {
	Up, Down, Open, Exam, Review key.Binding
}

func newCatalogKeys() catalogKeys {
	return catalogKeys{
		Up:     key.NewBinding(key.WithKeys("up", "k"), key.WithHelp("↑/↓", "move")),
		Down:   key.NewBinding(key.WithKeys("down", "j")),
		Open:   key.NewBinding(key.WithKeys("enter"), key.WithHelp("enter", "open")),
		Exam:   key.NewBinding(key.WithKeys("x"), key.WithHelp("x", "mock exam")),
		Review: key.NewBinding(key.WithKeys("r"), key.WithHelp("r", "review due")),
	}
}

// kataKeys are the kata screen's keys (plus scrolling).
type kataKeys struct {
	Next, Prev, Layer        key.Binding
	Exam, Traps, Task, Drill key.Binding
	Copy                     key.Binding
	scroll                   scrollKeys
}

func newKataKeys() kataKeys {
	return kataKeys{
		Next:   key.NewBinding(key.WithKeys("right", "l", "tab"), key.WithHelp("←/→", "layer")),
		Prev:   key.NewBinding(key.WithKeys("left", "h", "shift+tab")),
		Layer:  key.NewBinding(key.WithKeys("1", "2", "3", "4", "5", "6", "7", "8", "9"), key.WithHelp("1-5", "jump")),
		Exam:   key.NewBinding(key.WithKeys("x"), key.WithHelp("x", "quiz")),
		Drill:  key.NewBinding(key.WithKeys("d"), key.WithHelp("d", "drill")),
		Copy:   key.NewBinding(key.WithKeys("c"), key.WithHelp("c", "copy a prompt")),
		Traps:  key.NewBinding(key.WithKeys("t"), key.WithHelp("t", "traps")),
		Task:   key.NewBinding(key.WithKeys("w"), key.WithHelp("w", "task")),
		scroll: newScrollKeys(true),
	}
}

// taskKeys are the task screen's keys.
type taskKeys struct {
	Init, Grade, Edit, Up, Down, PageUp, PageDown key.Binding
}

func newTaskKeys() taskKeys {
	return taskKeys{
		Init:     key.NewBinding(key.WithKeys("i"), key.WithHelp("i", "create workspace")),
		Grade:    key.NewBinding(key.WithKeys("g"), key.WithHelp("g", "grade")),
		Edit:     key.NewBinding(key.WithKeys("e"), key.WithHelp("e", "edit in $EDITOR")),
		Up:       key.NewBinding(key.WithKeys("up", "k"), key.WithHelp("↑/↓", "select test")),
		Down:     key.NewBinding(key.WithKeys("down", "j")),
		PageUp:   key.NewBinding(key.WithKeys("pgup"), key.WithHelp("pgup/pgdn", "scroll")),
		PageDown: key.NewBinding(key.WithKeys("pgdown")),
	}
}
