// Package ui is kata's interactive terminal interface: one Bubble Tea root model that owns the
// global keys (quit, back, the ? help overlay), the help line and the store warning line, and
// routes messages to the pages. The packages:
//
//   - ui/keymap: every key binding, grouped by screen (the mock exam's flag key is
//     keymap.MockExam.Flag); help lines and screen hints are built from it.
//   - ui/common: what every page shares (size, library, styles, keymap, clock, progress store),
//     the Page interface, the messages pages send the root, and the text formatters.
//   - ui/components: viewport (size, scroll keys, wheel), question (options, marks, reveal),
//     stem (a stem rendered off the Update loop), tabs, and deck (a practice deck of cards).
//   - ui/pages: catalog, kata (layers, prompt copy), quiz, traps, drill, task, mockexam, review.
//   - ui/markdown and ui/traptable: rendering Markdown and trap tables for the terminal.
//
// Pages do no I/O in Update. Everything that touches the disk (layers, the progress Store,
// grading, watching the workspace, the editor) runs in a tea.Cmd and comes back as a message; a
// Store failure becomes a one-line warning and never stops the interface. The environment is
// read once, by Run.
package ui

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"slices"
	"strings"
	"time"

	"charm.land/bubbles/v2/help"
	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"

	"github.com/kata-mcp/kata/grader"
	"github.com/kata-mcp/kata/katas"
	"github.com/kata-mcp/kata/ui/common"
	"github.com/kata-mcp/kata/ui/components/deck"
	"github.com/kata-mcp/kata/ui/keymap"
	"github.com/kata-mcp/kata/ui/pages/catalog"
	"github.com/kata-mcp/kata/ui/pages/drill"
	"github.com/kata-mcp/kata/ui/pages/join"
	"github.com/kata-mcp/kata/ui/pages/kata"
	"github.com/kata-mcp/kata/ui/pages/livequiz"
	"github.com/kata-mcp/kata/ui/pages/mockexam"
	"github.com/kata-mcp/kata/ui/pages/quiz"
	"github.com/kata-mcp/kata/ui/pages/review"
	"github.com/kata-mcp/kata/ui/pages/task"
	"github.com/kata-mcp/kata/ui/pages/traps"
	"github.com/kata-mcp/kata/workshop"
)

// GradeFunc grades the workspace in dir, calling progress as tests start and finish, and
// returns the report (never nil). The default calls grader.Grade with the Library.
type GradeFunc = task.GradeFunc

// Start names the screen the interface opens on.
type Start int

const (
	// StartCatalog opens the catalog of katas.
	StartCatalog Start = iota
	// StartExam opens the mock exam (Options.Exam), offering to resume an unfinished one.
	StartExam
	// StartReview opens a review session of the due cards (Options.Exam.Katas limits it).
	StartReview
)

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
	// Style is the glamour style ("dark", "light", "notty", "ascii"); empty means "dark". The
	// interface never asks the terminal for its colours (a query a detached terminal never
	// answers): callers decide with Theme. With NoColor the style is "notty" (or "ascii" if
	// asked for).
	Style string
	// NoColor drops colours and uses PASS/FAIL instead of ✓/✗. Run sets it when the NO_COLOR
	// environment variable is non-empty (see NoColor); New reads no environment.
	NoColor bool
	// Language is the template language `i` creates a workspace from when the learner chose
	// none for the kata (l on the catalog or the task screen, remembered in the Store); empty
	// means "python" when the packet has it, else the packet's first language.
	Language string
	// Locale is the language the interface's text is in, a code of locale.Supported ("es",
	// "ru"); empty means English. Run's callers resolve it with locale.Resolve.
	Locale string
	// Store keeps the learner's progress; nil means none: everything works, nothing is saved.
	// A failing store shows a one-line warning and never stops the interface.
	Store Store
	// Start is the screen to open on; Exam configures the mock exam (and, for StartReview, the
	// katas to review).
	Start Start
	Exam  ExamOptions
	// Now is the clock; nil means time.Now. Tick schedules a clock message after d; nil means
	// tea.Tick. Tests pin both to drive the countdown by hand.
	Now  func() time.Time
	Tick func(d time.Duration, fn func(time.Time) tea.Msg) tea.Cmd
	// Seed draws mock exams, drills and option orders; 0 means a new seed from the clock each time.
	Seed int64
	// Warning is shown on the warning line at start, e.g. why the store could not be opened.
	Warning string
	// Skipped says which packets were skipped for their problems, one line each (where, then
	// each problem's file:line); the catalog keeps them on show and the warning line says so
	// at start, so a packet of one's own never vanishes behind the embedded one unnoticed.
	Skipped []string
	// Exec runs an external program (the editor) with the terminal handed over; nil means
	// tea.ExecProcess.
	Exec func(cmd *exec.Cmd, done tea.ExecCallback) tea.Cmd
	// Editor is the command line of the editor `e` opens the workspace in, e.g. "code -w";
	// empty means vi. Run sets it from $VISUAL or $EDITOR (see Editor) when empty.
	Editor string
	// Workshop is the link to an instructor's workshop (kata join): j in the catalog joins
	// one, layers and task steps the instructor has not opened show locked, and a live quiz
	// the instructor starts opens at once. nil means none (self-study only).
	Workshop common.Workshop
}

// ExamOptions configure the mock exam: the katas it draws from, its size, time limit and scale.
type ExamOptions = mockexam.Options

// DefaultExamItems is the size of a mock exam when none is asked for.
const DefaultExamItems = mockexam.DefaultItems

// gradeStopTimeout bounds how long Run waits, after the program ends, for a running grading
// to kill its processes and return.
const gradeStopTimeout = 10 * time.Second

// app is what the root holds for the pages it builds: the Common, the options, and the
// services shared across packets (the layer loader, the gradings in flight, the watchers).
type app struct {
	common.Common
	opts   Options
	loader *kata.Loader
	runs   *task.Runs
	watch  *task.Watchers
}

// session holds the screens of one opened packet, kept while the program runs so that
// returning to a packet finds its quiz progress and grade results.
type session struct {
	kata  *kata.Model
	quiz  *deck.Model
	traps *traps.Model
	task  *task.Model
	drill *deck.Model
}

// screens lists the session's screens.
func (s *session) screens() []common.Page {
	return []common.Page{s.kata, s.quiz, s.traps, s.task, s.drill}
}

// Model is the root Bubble Tea model: it owns the global keys (q and ctrl+c quit, esc goes
// back, ? shows every key), the help line, the store warning and the screen stack, and routes
// every other message to the screens.
type Model struct {
	c        *app
	keys     *keymap.KeyMap
	help     help.Model
	width    int
	height   int
	catalog  *catalog.Model
	sessions map[string]*session
	mockExam *mockexam.Model
	review   *review.Model
	join     *join.Model
	live     *livequiz.Model
	packet   string
	current  common.Screen
	// prev is the screen the live quiz opened over, where esc returns.
	prev    common.Screen
	overlay bool   // the full help is on show
	warning string // the last store failure, until the next key
	footer  int    // the help lines the screen was last sized for
	// said is the sequence number of the instructor's last message shown (kata class say)
	said int64
}

// New builds the interface over lib. It does no I/O; the program's first messages size it.
func New(lib *katas.Library, opts Options) Model {
	if opts.Workspace == nil {
		opts.Workspace = katas.DefaultWorkspace
	}
	if opts.Grade == nil {
		opts.Grade = func(ctx context.Context, dir string, onEvent func(grader.Event)) *grader.Report {
			return grader.Grade(ctx, lib, dir, grader.Options{OnEvent: onEvent})
		}
	}
	if opts.Exec == nil {
		opts.Exec = tea.ExecProcess
	}
	cc := common.New(lib, common.Config{Style: opts.Style, NoColor: opts.NoColor, Store: opts.Store, Now: opts.Now, Tick: opts.Tick, Seed: opts.Seed, Language: opts.Language, Locale: opts.Locale, Workshop: opts.Workshop, Workspace: opts.Workspace})
	if opts.Workshop != nil {
		cc.SetWorkshop(opts.Workshop.Status()) // locks hold from the first frame
	}
	c := &app{Common: cc, opts: opts, loader: kata.NewLoader(lib), runs: task.NewRuns(), watch: task.NewWatchers()}
	h := help.New()
	h.Styles = c.Styles.Help
	m := Model{
		c:        c,
		keys:     c.Keys,
		help:     h,
		width:    80,
		height:   24,
		catalog:  catalog.New(c.Common),
		sessions: map[string]*session{},
		mockExam: mockexam.New(c.Common, opts.Exam),
		review:   review.New(c.Common, opts.Exam.Katas),
		join:     join.New(c.Common),
		live:     livequiz.New(c.Common),
		warning:  opts.Warning,
		footer:   1,
	}
	if len(opts.Skipped) > 0 {
		m.catalog.SetSkipped(opts.Skipped)
		note := c.T("root.skipped")
		m.warning = strings.TrimSpace(strings.Join([]string{note, m.warning}, " "))
	}
	switch opts.Start {
	case StartExam:
		m.current = common.MockExamScreen
	case StartReview:
		m.current = common.ReviewScreen
	}
	return m
}

// Run runs the interface on the terminal until the learner quits. It reads the environment
// once, before New: NO_COLOR and the editor when opts leave them unset. A grading still
// running is cancelled and awaited (its processes killed) before Run returns.
func Run(lib *katas.Library, opts Options) error {
	opts.NoColor = opts.NoColor || NoColor(os.Getenv)
	if opts.Editor == "" {
		opts.Editor = Editor(os.Getenv)
	}
	m := New(lib, opts)
	_, err := tea.NewProgram(m).Run()
	m.c.watch.StopAll()
	m.c.runs.StopAll(gradeStopTimeout)
	if err != nil {
		return fmt.Errorf("ui: %w", err)
	}
	return nil
}

// Init loads the catalog's progress, parses the packets in the background (the catalog shows
// them by their manifests, so the first frame waits for none), and starts the screen asked for.
func (m Model) Init() tea.Cmd {
	lib := m.c.Lib
	warm := func() tea.Msg { lib.Packets(); return nil }
	cmds := []tea.Cmd{m.catalog.Refresh(), warm, m.c.WaitWorkshop()}
	switch m.current {
	case common.MockExamScreen:
		cmds = append(cmds, m.mockExam.Start())
	case common.ReviewScreen:
		cmds = append(cmds, m.review.Start())
	}
	return tea.Batch(cmds...)
}

// active returns the screen on show.
func (m Model) active() common.Page {
	switch m.current {
	case common.MockExamScreen:
		return m.mockExam
	case common.ReviewScreen:
		return m.review
	case common.JoinScreen:
		return m.join
	case common.LiveQuizScreen:
		return m.live
	}
	if s, ok := m.sessions[m.packet]; ok {
		switch m.current {
		case common.KataScreen:
			return s.kata
		case common.QuizScreen:
			return s.quiz
		case common.TrapsScreen:
			return s.traps
		case common.TaskScreen:
			return s.task
		case common.DrillScreen:
			return s.drill
		}
	}
	return m.catalog
}

// bodyHeight is the height left for the active screen: all but the help lines and, when
// shown, the warning line.
func (m Model) bodyHeight() int {
	return max(m.height-max(m.footer, 1)-len(m.warningLines()), 1)
}

// maxWarningLines bounds the warning above the help line; a longer warning is cut.
const maxWarningLines = 3

// warningLines wraps the warning (if any) to the width, at most maxWarningLines lines and
// never more than leaves one line for the screen.
func (m Model) warningLines() []string {
	if m.warning == "" {
		return nil
	}
	lines := strings.Split(common.WrapHanging("⚠ ", m.warning, m.width), "\n")
	return lines[:min(len(lines), maxWarningLines, max(m.height-2, 1))]
}

// resize gives the active screen the space above the help line.
func (m Model) resize() tea.Cmd {
	return m.active().SetSize(m.width, m.bodyHeight())
}

// back goes one screen up: from a packet's screens to its kata screen, from there and from the
// mock exam and the review to the catalog.
func (m *Model) back() tea.Cmd {
	if b, ok := m.active().(common.Backer); ok {
		if cmd, handled := b.Back(); handled {
			return cmd
		}
	}
	switch m.current {
	case common.CatalogScreen:
		return nil
	case common.LiveQuizScreen:
		m.current = m.prev
		if m.current == common.CatalogScreen {
			return tea.Batch(m.resize(), m.catalog.Refresh())
		}
		return m.resize()
	case common.KataScreen, common.MockExamScreen, common.ReviewScreen, common.JoinScreen:
		m.current = common.CatalogScreen
		return tea.Batch(m.resize(), m.catalog.Refresh())
	default:
		m.current = common.KataScreen
	}
	return m.resize()
}

// Update routes a message: global keys first, keys and mouse wheels to the active screen,
// everything else (render results, grading progress, store answers, ticks) to every screen.
// When the keys to show need another number of help lines, the screen is sized again.
func (m Model) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	next, cmd := m.update(msg)
	mm := next.(Model)
	if n := len(mm.helpLines(mm.active())); n != mm.footer {
		mm.footer = n
		cmd = tea.Batch(cmd, mm.resize())
	}
	return mm, cmd
}

// update is Update before the help lines are counted.
func (m Model) update(msg tea.Msg) (tea.Model, tea.Cmd) {
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		m.width, m.height = max(msg.Width, 1), max(msg.Height, 1)
		m.help.SetWidth(m.width)
		return m, m.resize()
	case tea.KeyPressMsg:
		hadWarning := m.warning != ""
		m.warning = ""
		var cmd tea.Cmd
		typing := false
		if t, ok := m.active().(common.Typer); ok && !m.overlay {
			typing = t.Typing()
		}
		switch {
		case typing && msg.String() == "ctrl+c":
			return m, tea.Quit
		case typing && key.Matches(msg, m.keys.Back):
			cmd = m.back()
		case typing:
			cmd = m.active().Update(msg) // q and ? are text while typing
		case key.Matches(msg, m.keys.Quit):
			return m, tea.Quit
		case m.overlay:
			if key.Matches(msg, m.keys.Help) || key.Matches(msg, m.keys.Back) {
				m.overlay = false
			}
		case key.Matches(msg, m.keys.Help):
			m.overlay = true
		case key.Matches(msg, m.keys.Back):
			cmd = m.back()
		default:
			cmd = m.active().Update(msg)
		}
		if hadWarning {
			cmd = tea.Batch(cmd, m.resize())
		}
		return m, cmd
	case tea.MouseWheelMsg:
		return m, m.active().Update(msg)
	case tea.PasteMsg:
		return m, m.active().Update(msg)
	case common.WorkshopMsg:
		cmd := m.workshop(msg)
		return m, cmd
	case common.ShowJoinMsg:
		m.current = common.JoinScreen
		m.join.Activate()
		return m, m.resize()
	case common.StoreErrMsg:
		m.warning = m.c.T("root.not_saved", "Op", msg.Op, "Error", msg.Err)
		return m, tea.Batch(m.resize(), m.broadcast(msg))
	case common.ProgressChangedMsg:
		return m, tea.Batch(m.catalog.Refresh(), m.broadcast(msg))
	case common.OpenPacketMsg:
		p, ok := m.c.Lib.Get(msg.ID)
		if !ok {
			return m, nil
		}
		if _, ok := m.sessions[p.ID]; !ok {
			m.sessions[p.ID] = &session{
				kata:  kata.New(m.c.Common, p, m.c.loader),
				quiz:  quiz.New(m.c.Common, p),
				traps: traps.New(m.c.Common, p),
				task: task.New(m.c.Common, p, task.Options{
					Dir: m.c.opts.Workspace(p.ID), Grade: m.c.opts.Grade, Runs: m.c.runs,
					Watch: m.c.opts.Watch, Watchers: m.c.watch, Editor: strings.Fields(m.c.opts.Editor), Exec: m.c.opts.Exec,
				}),
				drill: drill.New(m.c.Common, p),
			}
		}
		m.packet, m.current = p.ID, common.KataScreen
		return m, tea.Batch(m.resize(), m.sessions[p.ID].task.Open())
	case common.ShowMsg:
		if _, ok := m.sessions[m.packet]; !ok {
			return m, nil
		}
		m.current = msg.Screen
		if a, ok := m.active().(common.Activator); ok {
			a.Activate()
		}
		cmds := []tea.Cmd{m.resize()}
		if msg.Screen == common.TaskScreen {
			cmds = append(cmds, m.sessions[m.packet].task.Open())
		}
		return m, tea.Batch(cmds...)
	case common.StartMockExamMsg:
		m.current = common.MockExamScreen
		if m.mockExam.Taking() {
			return m, m.resize()
		}
		m.mockExam = mockexam.New(m.c.Common, m.c.opts.Exam)
		return m, tea.Batch(m.mockExam.Start(), m.resize())
	case common.StartReviewMsg:
		m.current = common.ReviewScreen
		m.review = review.New(m.c.Common, m.c.opts.Exam.Katas)
		return m, tea.Batch(m.review.Start(), m.resize())
	}
	return m, m.broadcast(msg)
}

// workshop takes a status of the workshop link: every screen sees it (locks may have
// opened), a live quiz the instructor just started opens over the screen on show, and the
// next status is awaited.
func (m *Model) workshop(msg common.WorkshopMsg) tea.Cmd {
	m.c.SetWorkshop(msg.Status)
	cmds := []tea.Cmd{m.broadcast(msg), m.c.WaitWorkshop()}
	if st := msg.Status.State; st != nil && st.Message != "" && st.MessageSeq > m.said {
		// the instructor's message, on the warning line until the next key
		m.said = st.MessageSeq
		m.warning = m.c.T("root.instructor_says", "Message", st.Message)
	}
	if st := msg.Status.State; st != nil && st.Quiz != nil && st.Quiz.State == workshop.QuizOpen && st.Quiz.ID != m.live.ID() {
		cmds = append(cmds, m.live.Start(*st.Quiz))
		if m.current != common.LiveQuizScreen {
			m.prev, m.current = m.current, common.LiveQuizScreen
		}
		m.overlay = false
		cmds = append(cmds, m.resize())
	}
	return tea.Batch(cmds...)
}

// broadcast gives a message to every screen.
func (m Model) broadcast(msg tea.Msg) tea.Cmd {
	cmds := []tea.Cmd{m.catalog.Update(msg), m.mockExam.Update(msg), m.review.Update(msg), m.join.Update(msg), m.live.Update(msg)}
	for _, s := range m.sessions {
		for _, sc := range s.screens() {
			cmds = append(cmds, sc.Update(msg))
		}
	}
	return tea.Batch(cmds...)
}

// View draws the active screen (or the full help) above the warning and the help line. Mouse
// cell motion is on so the wheel scrolls.
func (m Model) View() tea.View {
	sc := m.active()
	var body string
	if m.overlay {
		body = common.FitBlock(m.fullHelp(sc), m.width, m.bodyHeight())
	} else {
		body = common.FitBlock(sc.View(), m.width, m.bodyHeight())
	}
	if w := m.warningLines(); len(w) > 0 {
		body += "\n" + common.FitBlock(m.c.Styles.Fail.Render(strings.Join(w, "\n")), m.width, len(w))
	}
	line := common.FitBlock(strings.Join(m.helpLines(sc), "\n"), m.width, max(m.footer, 1))
	v := tea.NewView(body + "\n" + line)
	v.AltScreen = true
	v.MouseMode = tea.MouseModeCellMotion
	v.WindowTitle = "kata"
	return v
}

// maxHelpLines bounds the key lines at the bottom.
const maxHelpLines = 2

// helpLines renders the screen's keys followed by the global ones, on one line when they fit
// and on two when they do not. Scroll keys (named in the full help) go first when room is
// short, unless the screen's content overflows it (common.Overflower); then, beyond two lines,
// the screen's last keys; "? keys", "esc back" and "q quit" always show.
func (m Model) helpLines(sc common.Page) []string {
	own, global := sc.ShortHelp(), m.globalHelp()
	if m.overlay {
		own = nil
	}
	fits := func(bs []key.Binding, n int) ([]string, bool) {
		lines := m.wrapHelp(append(bs[:len(bs):len(bs)], global...))
		return lines, len(lines) <= n
	}
	if lines, ok := fits(own, 1); ok {
		return lines
	}
	primary := own
	keepScroll := false
	if o, ok := sc.(common.Overflower); ok && !m.overlay {
		keepScroll = o.Overflows() // more to see than fits: the scroll keys say how
	}
	for i := len(own) - 1; i >= 0 && !keepScroll; i-- { // the scroll keys go one at a time, the last first
		if !m.isScrollKey(own[i]) {
			continue
		}
		primary = slices.Delete(slices.Clone(primary), i, i+1)
		if lines, ok := fits(primary, 1); ok {
			return lines
		}
	}
	for n := len(primary); n >= 0; n-- {
		if lines, ok := fits(primary[:n], maxHelpLines); ok {
			return lines
		}
	}
	return m.wrapHelp(global)
}

// wrapHelp lays bindings out as help lines no wider than the screen, breaking between keys.
func (m Model) wrapHelp(bs []key.Binding) []string {
	measure := m.help
	measure.SetWidth(0) // no truncation
	sep := m.help.Styles.ShortSeparator.Render(m.help.ShortSeparator)
	var lines []string
	cur := ""
	for _, b := range bs {
		if !b.Enabled() || b.Help().Key == "" {
			continue
		}
		item := measure.ShortHelpView([]key.Binding{b})
		switch {
		case cur == "":
			cur = item
		case lipgloss.Width(cur+sep+item) <= m.width:
			cur += sep + item
		default:
			lines = append(lines, cur)
			cur = item
		}
	}
	if cur != "" {
		lines = append(lines, cur)
	}
	return lines
}

// isScrollKey reports whether b is one of the scroll keys, the first to leave a short line.
func (m Model) isScrollKey(b key.Binding) bool {
	k := m.keys
	for _, s := range []key.Binding{k.Read.Up, k.Read.PageUp, k.Read.Top, k.Read.Left, k.Scroll.Up, k.Scroll.PageUp, k.Task.PageUp, k.Cursor.Up} {
		if b.Help() == s.Help() {
			return true
		}
	}
	return false
}

// globalHelp lists the global keys that apply on the active screen.
func (m Model) globalHelp() []key.Binding {
	if m.current == common.CatalogScreen {
		return []key.Binding{m.keys.Help, m.keys.Quit}
	}
	return []key.Binding{m.keys.Help, m.keys.Back, m.keys.Quit}
}

// fullHelp lays out every key of the active screen and the global keys.
func (m Model) fullHelp(sc common.Page) string {
	st := m.c.Styles
	h := m.help
	h.SetWidth(m.width)
	lines := []string{st.Title.Render(m.c.T("root.keys")) + st.Subtle.Render(" — "+m.c.ScreenName(m.current)), ""}
	lines = append(lines, h.FullHelpView(sc.FullHelp()), "")
	lines = append(lines, st.Label.Render(m.c.T("root.everywhere")), h.FullHelpView([][]key.Binding{{m.keys.Help, m.keys.Back, m.keys.Quit}}))
	if n, ok := sc.(common.Noter); ok {
		lines = append(lines, "", common.WrapHanging("", n.HelpNote(), m.width))
	}
	lines = append(lines, "", st.Subtle.Render(common.WrapHanging("", m.c.T("root.mouse"), m.width)),
		st.Subtle.Render(m.c.T("root.close_help", "Help", keymap.Name(m.keys.Help), "Back", keymap.Name(m.keys.Back))))
	return strings.Join(lines, "\n")
}
