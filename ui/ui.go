// Package ui is kata's interactive terminal interface: one Bubble Tea root model that owns the
// global keys and routes messages to the catalog, kata, exam, traps and task screens.
package ui

import (
	"context"
	"fmt"
	"os"
	"time"

	"charm.land/bubbles/v2/help"
	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"

	"github.com/kata-mcp/kata/grader"
	"github.com/kata-mcp/kata/katas"
	"github.com/kata-mcp/kata/ui/markdown"
)

// GradeFunc grades the workspace in dir, calling progress as tests start and finish, and
// returns the report (never nil). The default calls grader.Grade with the Library.
type GradeFunc func(ctx context.Context, dir string, progress func(grader.Event)) *grader.Report

// Options configure the interface. The zero value is usable.
type Options struct {
	// Grade runs a grading; nil means grader.Grade over the Library. Tests stub it.
	Grade GradeFunc
	// Watch makes the task screen re-grade the workspace each time one of its files is saved
	// (fsnotify, debounced). Run's callers turn it on; model tests leave it off, since the
	// watch command blocks until a file changes.
	Watch bool
	// Workspace maps a kata id to its workspace folder; nil means katas.DefaultWorkspace.
	Workspace func(id string) string
	// Style is the glamour style ("dark", "light", "notty", "ascii"). Empty means automatic:
	// "dark" at first, "light" if the terminal reports a light background. With NoColor the
	// style is "notty" (or "ascii" if asked for); otherwise a named style is kept as given.
	Style string
	// NoColor drops colours and uses PASS/FAIL instead of ✓/✗. New also sets it when the
	// NO_COLOR environment variable is non-empty.
	NoColor bool
	// Language is the template language `i` creates a workspace from; empty means "python"
	// when the packet has it, else the packet's first language.
	Language string
}

// gradeStopTimeout bounds how long Run waits, after the program ends, for a running grading
// to kill its processes and return.
const gradeStopTimeout = 10 * time.Second

// screenID names a screen.
type screenID int

const (
	catalogScreen screenID = iota
	kataScreen
	examScreen
	trapsScreen
	taskScreen
)

// screen is one page of the interface. Update does no I/O (it returns commands); SetSize is
// called when the screen becomes active and on resize, with the space above the help line, and
// may return a command to re-render for the new width or style.
type screen interface {
	help.KeyMap
	Update(msg tea.Msg) tea.Cmd
	View() string
	SetSize(width, height int) tea.Cmd
}

// common is what every screen shares: the library, the options and the current look.
type common struct {
	lib       *katas.Library
	opts      Options
	st        styles
	mdStyle   string
	autoStyle bool
	loader    *layerLoader
	runs      *runTracker
	watch     *watchers
}

// setDark switches the automatic look to a dark or light background.
func (c *common) setDark(dark bool) {
	c.st = newStyles(dark, false)
	c.mdStyle = markdown.StyleFor(false, dark)
}

// session holds the screens of one opened packet, kept while the program runs so that
// returning to a packet finds its exam progress and grade results.
type session struct {
	kata  *kataModel
	exam  *examModel
	traps *trapsModel
	task  *taskModel
}

// screens lists the session's screens.
func (s *session) screens() []screen {
	return []screen{s.kata, s.exam, s.traps, s.task}
}

// openPacketMsg asks the root to open a packet's kata screen.
type openPacketMsg struct{ id string }

// navMsg asks the root to show another screen of the current packet.
type navMsg struct{ to screenID }

func navigate(to screenID) tea.Cmd { return func() tea.Msg { return navMsg{to} } }

// Model is the root Bubble Tea model: it owns the global keys (q and ctrl+c quit, esc goes
// back), the help line and the screen stack, and routes every other message to the screens.
type Model struct {
	c        *common
	keys     globalKeys
	help     help.Model
	width    int
	height   int
	catalog  *catalogModel
	sessions map[string]*session
	packet   string
	current  screenID
}

// New builds the interface over lib. It does no I/O; the program's first messages size it.
func New(lib *katas.Library, opts Options) Model {
	if opts.Workspace == nil {
		opts.Workspace = katas.DefaultWorkspace
	}
	if opts.Grade == nil {
		opts.Grade = func(ctx context.Context, dir string, progress func(grader.Event)) *grader.Report {
			return grader.Grade(ctx, lib, dir, grader.Options{Progress: progress})
		}
	}
	if os.Getenv("NO_COLOR") != "" {
		opts.NoColor = true
	}
	c := &common{lib: lib, opts: opts, loader: newLayerLoader(lib), runs: newRunTracker(), watch: newWatchers()}
	switch {
	case opts.NoColor:
		c.mdStyle = markdown.StyleNoTTY
		if opts.Style == markdown.StyleASCII {
			c.mdStyle = opts.Style
		}
		c.st = newStyles(true, true)
	case opts.Style != "":
		c.mdStyle = opts.Style
		c.st = newStyles(opts.Style != markdown.StyleLight, false)
	default:
		c.autoStyle = true
		c.setDark(true)
	}
	h := help.New()
	h.Styles = c.st.help
	m := Model{
		c:        c,
		keys:     newGlobalKeys(),
		help:     h,
		width:    80,
		height:   24,
		catalog:  newCatalog(c),
		sessions: map[string]*session{},
	}
	return m
}

// Run runs the interface on the terminal until the learner quits. A grading still running
// is cancelled and awaited (its processes killed) before Run returns.
func Run(lib *katas.Library, opts Options) error {
	m := New(lib, opts)
	_, err := tea.NewProgram(m).Run()
	m.c.watch.stopAll()
	m.c.runs.stopAll(gradeStopTimeout)
	if err != nil {
		return fmt.Errorf("ui: %w", err)
	}
	return nil
}

// Init asks the terminal for its background colour (answered or not; nothing waits for it).
func (m Model) Init() tea.Cmd {
	if m.c.autoStyle {
		return tea.RequestBackgroundColor
	}
	return nil
}

// active returns the screen on show.
func (m Model) active() screen {
	if s, ok := m.sessions[m.packet]; ok {
		switch m.current {
		case kataScreen:
			return s.kata
		case examScreen:
			return s.exam
		case trapsScreen:
			return s.traps
		case taskScreen:
			return s.task
		}
	}
	return m.catalog
}

// resize gives the active screen the space above the help line.
func (m Model) resize() tea.Cmd {
	return m.active().SetSize(m.width, max(m.height-1, 1))
}

// Update routes a message: global keys first, keys to the active screen, everything else
// (render results, grading progress, spinner ticks) to every screen.
func (m Model) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		m.width, m.height = max(msg.Width, 1), max(msg.Height, 1)
		m.help.SetWidth(m.width)
		return m, m.resize()
	case tea.BackgroundColorMsg:
		if !m.c.autoStyle {
			return m, nil
		}
		m.c.setDark(msg.IsDark())
		m.help.Styles = m.c.st.help
		return m, m.resize()
	case tea.KeyPressMsg:
		switch {
		case key.Matches(msg, m.keys.Quit):
			return m, tea.Quit
		case key.Matches(msg, m.keys.Back):
			switch m.current {
			case catalogScreen:
				return m, nil
			case kataScreen:
				m.current = catalogScreen
			default:
				m.current = kataScreen
			}
			return m, m.resize()
		}
		return m, m.active().Update(msg)
	case openPacketMsg:
		p, ok := m.c.lib.Get(msg.id)
		if !ok {
			return m, nil
		}
		if _, ok := m.sessions[p.ID]; !ok {
			m.sessions[p.ID] = &session{
				kata:  newKata(m.c, p),
				exam:  newExam(m.c, p),
				traps: newTraps(m.c, p),
				task:  newTask(m.c, p),
			}
		}
		m.packet, m.current = p.ID, kataScreen
		return m, tea.Batch(m.resize(), m.sessions[p.ID].task.Open())
	case navMsg:
		if _, ok := m.sessions[m.packet]; !ok {
			return m, nil
		}
		m.current = msg.to
		cmds := []tea.Cmd{m.resize()}
		if msg.to == taskScreen {
			cmds = append(cmds, m.sessions[m.packet].task.Open())
		}
		return m, tea.Batch(cmds...)
	}
	cmds := []tea.Cmd{m.catalog.Update(msg)}
	for _, s := range m.sessions {
		for _, sc := range s.screens() {
			cmds = append(cmds, sc.Update(msg))
		}
	}
	return m, tea.Batch(cmds...)
}

// View draws the active screen above a help line of its keys and the global ones.
func (m Model) View() tea.View {
	sc := m.active()
	body := fitBlock(sc.View(), m.width, max(m.height-1, 1))
	line := fitBlock(m.helpLine(sc), m.width, 1)
	v := tea.NewView(body + "\n" + line)
	v.AltScreen = true
	v.WindowTitle = "kata"
	return v
}

// helpLine renders the screen's keys followed by the global ones; when the line is too long
// the screen's last keys are dropped first, so "esc back" and "q quit" always show.
func (m Model) helpLine(sc screen) string {
	own, global := sc.ShortHelp(), m.globalHelp()
	measure := m.help
	measure.SetWidth(0) // no truncation
	for len(own) > 0 && lipgloss.Width(measure.ShortHelpView(append(own[:len(own):len(own)], global...))) > m.width {
		own = own[:len(own)-1]
	}
	return m.help.ShortHelpView(append(own[:len(own):len(own)], global...))
}

// globalHelp lists the global keys that apply on the active screen.
func (m Model) globalHelp() []key.Binding {
	if m.current == catalogScreen {
		return []key.Binding{m.keys.Quit}
	}
	return []key.Binding{m.keys.Back, m.keys.Quit}
}
