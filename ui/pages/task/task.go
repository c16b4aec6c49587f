// Package task is a packet's task, as rustlings shows an exercise: the summary of the last
// grade first (and what changed since the one before), the first failing test in focus with
// its message and a hint, then the steps with their results; enter on a step shows its text
// beside its tests. It creates the workspace in the language chosen for the kata, grades it
// with live progress (and again on each save), and opens it in the editor.
package task

import (
	"os/exec"
	"slices"
	"strings"

	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/spinner"
	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"

	"github.com/kata-mcp/kata/grader"
	"github.com/kata-mcp/kata/internal/progress"
	"github.com/kata-mcp/kata/internal/record"
	"github.com/kata-mcp/kata/katas"
	"github.com/kata-mcp/kata/ui/common"
	"github.com/kata-mcp/kata/ui/components/stem"
	"github.com/kata-mcp/kata/ui/components/viewport"
	"github.com/kata-mcp/kata/ui/keymap"
)

// wsState is what the task screen knows of the workspace folder.
type wsState int

const (
	wsUnknown wsState = iota // not checked yet
	wsMissing
	wsReady
)

// Model shows the task: the last grade's summary and first failure, the workspace, and the
// steps with their results; one step at a time can be open beside its tests.
type Model struct {
	c      common.Common
	p      *katas.Packet
	dir    string
	ws     wsState
	wsErr  string
	wsLang string // the workspace's language (its kata.json), once it exists
	chosen string // the language chosen for the kata, "" for none
	note   string // the last action's outcome, e.g. "Created from the python template."
	busy   bool   // creating the workspace
	run    *gradeRun
	spin   spinner.Model
	done   int
	total  int
	status string // what the grader is doing now
	live   []grader.TestResult
	// report is the grading on show (nil while one runs); last the latest finished one, prev
	// the one before it: the screen says what changed between them.
	report, last, prev *grader.Report
	// stored is the last grade of this workspace the progress store kept (from an earlier run
	// of the app or kata grade), shown until a grading of this run takes its place.
	stored *progress.GradeRun
	order  []string // the run's fixed test order (grader.TestOrder)
	rules  map[grader.RuleID]grader.Rule
	step   int    // the selected step, an index into p.Task.Steps
	open   bool   // the selected step is open: its text beside its tests
	test   string // the id of the selected test of the open step
	follow bool
	// first are the ids of the tests that failed in the last grade, run first in the grading
	// under way (grader.Options.First).
	first []string
	// regrade is set when a file changed during a grading: grade again when it ends.
	regrade bool
	// watching is set once the watcher command is out: later workspace checks start none.
	watching bool
	stepText stem.Model // the open step's text, rendered
	// tk is the task as read in the workspace's language tkLang (katas.Packet.TaskIn): the
	// steps name that language's functions, types and null.
	tk     katas.Task
	tkLang string
	opts   Options
	vp     *viewport.Model
	// top is the summary above the viewport (always in sight); lines the content laid out for
	// the width below it; spinAt is the line of top with the grading spinner (-1 for none),
	// the only line a spinner tick redraws.
	top    []string
	lines  []string
	spinAt int
}

// Options configure a task page.
type Options struct {
	// Dir is the workspace folder.
	Dir string
	// Grade grades the workspace; Runs tracks the gradings in flight for the program's exit.
	Grade GradeFunc
	Runs  *Runs
	// Watch re-grades the workspace each time one of its files is saved, with Watchers owning
	// the watchers (nil Watchers means no watching).
	Watch    bool
	Watchers *Watchers
	// Editor is the editor's command line (its fields, e.g. ["code", "-w"]); empty means vi.
	// Exec runs it with the terminal handed over.
	Editor []string
	Exec   func(cmd *exec.Cmd, done tea.ExecCallback) tea.Cmd
}

// New returns the task page of packet p.
func New(c common.Common, p *katas.Packet, opts Options) *Model {
	sp := spinner.MiniDot
	if c.Styles.NoColor() {
		sp = spinner.Line
	}
	rules := map[grader.RuleID]grader.Rule{}
	for _, r := range grader.RulesFor(p) {
		rules[r.ID] = r
	}
	return &Model{
		c:      c,
		p:      p,
		opts:   opts,
		dir:    opts.Dir,
		order:  grader.TestOrder(p),
		rules:  rules,
		spin:   spinner.New(spinner.WithSpinner(sp)),
		vp:     viewport.New(),
		spinAt: -1,
	}
}

// language is the template `i` creates the workspace from: the workspace's own once it
// exists, else the one chosen for the kata, else the default.
func (m *Model) language() string {
	if m.wsLang != "" {
		return m.wsLang
	}
	return m.c.Language(m.p.Languages, m.chosen)
}

// storedGradeMsg carries the last grade of workspace dir that the progress store kept.
type storedGradeMsg struct {
	kata, dir string
	g         *progress.GradeRun
}

// task is the task in the workspace's language (the one chosen, or the default before the
// workspace exists).
func (m *Model) task() katas.Task {
	if lang := m.language(); lang != m.tkLang || m.tk.Steps == nil {
		m.tk, m.tkLang = m.p.TaskIn(lang), lang
	}
	return m.tk
}

// Open returns the commands that check the workspace folder and read the language chosen for
// the kata and the workspace's last grade; the root calls it when the screen is shown.
func (m *Model) Open() tea.Cmd {
	id, dir := m.p.ID, m.dir
	read := m.c.Read(m.c.T("store.reading_language"), func(s common.Store) (tea.Msg, error) {
		l, err := s.Language(id)
		return common.LanguageMsg{Kata: id, Language: l}, err
	})
	var last tea.Cmd
	if m.last == nil { // a grade of this run is newer than anything stored
		last = m.c.Read(m.c.T("store.reading_last_grade"), func(s common.Store) (tea.Msg, error) {
			g, err := s.LastGradeIn(id, dir)
			return storedGradeMsg{kata: id, dir: dir, g: g}, err
		})
	}
	return tea.Batch(statWorkspace(m.p.ID, m.dir), read, last)
}

// running reports whether a grading is in flight.
func (m *Model) running() bool { return m.run != nil }

// tests returns the results on show in the run's fixed order: the report's, or those finished
// so far (which therefore never change places as more finish).
func (m *Model) tests() []grader.TestResult {
	if m.report != nil {
		return m.report.Tests
	}
	return m.live
}

// ShortHelp lists the keys that apply now.
func (m *Model) ShortHelp() []key.Binding {
	k := m.c.Keys.Task
	var b []key.Binding
	if m.ws != wsReady {
		b = append(b, k.Init)
		if len(m.p.Languages) > 1 {
			b = append(b, k.Language)
		}
	}
	if !m.running() {
		b = append(b, k.Grade)
	}
	if m.ws == wsReady {
		b = append(b, k.Edit)
	}
	if !m.open {
		b = append(b, k.Open)
	}
	return append(b, k.Up, k.PageUp)
}

// FullHelp lists the task screen's keys.
func (m *Model) FullHelp() [][]key.Binding {
	k := m.c.Keys.Task
	return [][]key.Binding{{k.Init, k.Language, k.Grade, k.Edit}, {k.Up, k.Open, k.PageUp}}
}

// HelpNote says what the screen shows and how the language is chosen.
func (m *Model) HelpNote() string {
	return m.c.T("task.help_note", "Open", keymap.Name(m.c.Keys.Task.Open), "Back", keymap.Name(m.c.Keys.Back), "Language", keymap.Name(m.c.Keys.Task.Language))
}

// SetSize sizes the viewport and asks for the open step's text at the new width.
func (m *Model) SetSize(w, h int) tea.Cmd {
	m.c.SetSize(w, h)
	m.refresh()
	return m.requestStep()
}

// Back closes the open step.
func (m *Model) Back() (tea.Cmd, bool) {
	if !m.open {
		return nil, false
	}
	m.open = false
	m.follow = true
	m.refresh()
	return nil, true
}

// Update handles the workspace, grading and selection messages.
func (m *Model) Update(msg tea.Msg) tea.Cmd {
	var cmd tea.Cmd
	switch msg := msg.(type) {
	case workspaceMsg:
		if msg.packet != m.p.ID || msg.dir != m.dir {
			return nil
		}
		m.ws, m.wsLang = wsMissing, ""
		if msg.exists {
			m.ws, m.wsLang = wsReady, msg.language
		}
		m.wsErr = ""
		if msg.err != nil {
			m.wsErr = msg.err.Error()
		}
		if msg.created {
			m.busy = false
			if msg.err == nil {
				m.note = m.c.T("task.created", "Language", m.language())
			} else {
				m.note = ""
			}
		}
		if m.ws == wsReady && m.opts.Watch && m.opts.Watchers != nil && !m.watching {
			// Saving a file of the workspace re-grades it; the command starts the watcher.
			m.watching = true
			cmd = m.opts.Watchers.Watch(m.dir)
		}
	case common.LanguageMsg:
		if msg.Kata != m.p.ID {
			return nil
		}
		m.chosen = msg.Language
	case storedGradeMsg:
		if msg.kata != m.p.ID || msg.dir != m.dir {
			return nil
		}
		m.stored = msg.g
	case common.RenderedMsg:
		if !m.stepText.Take(msg) {
			return nil
		}
	case workspaceChangedMsg:
		if msg.dir != m.dir {
			return nil
		}
		next := m.opts.Watchers.next(m.dir)
		if m.running() {
			m.regrade = true
			m.refresh()
			return next
		}
		m.note = m.c.T("task.changed")
		cmd = tea.Batch(next, m.startGrade())
	case gradeEventMsg:
		if m.run == nil || msg.id != m.run.id {
			return nil
		}
		m.progress(msg.ev)
		cmd = waitGrade(m.run)
	case gradeDoneMsg:
		if m.run == nil || msg.id != m.run.id {
			return nil
		}
		m.run = nil
		m.finish(msg.rep)
		cmd = m.recordGrade(msg.rep)
		// The note said why this grading ran ("A file changed: grading again."); it is over,
		// so the workspace line goes back to ready (a note kept here outlived its grading).
		m.note = ""
		if m.regrade {
			m.regrade = false
			m.note = m.c.T("task.changed_while")
			cmd = tea.Batch(cmd, m.startGrade())
		}
	case editorDoneMsg:
		if msg.dir != m.dir {
			return nil
		}
		m.note = m.c.T("task.back_from_editor")
		if msg.err != nil {
			m.note = m.c.T("task.editor_failed", "Error", msg.err.Error())
		}
		cmd = statWorkspace(m.p.ID, m.dir)
	case tea.MouseWheelMsg:
		m.vp.Wheel(msg)
	case spinner.TickMsg:
		if !m.running() {
			return nil
		}
		m.spin, cmd = m.spin.Update(msg)
		m.redrawSpinner()
		return cmd
	case tea.KeyPressMsg:
		cmd = m.key(msg)
	case common.WorkshopMsg: // the instructor may have opened a step: lay out again
	default:
		return nil
	}
	m.refresh()
	return cmd
}

// finish takes a finished grading: it goes on show, the previous one is kept to compare with,
// and the first failing step is selected (its first failing test when a step is open).
func (m *Model) finish(rep *grader.Report) {
	rep = grader.Localize(rep, m.c.Loc, m.p) // the screen's words; progress keeps ids and statuses
	m.report = rep
	if rep.Status != grader.StatusError {
		if m.last != nil && m.last.Status != grader.StatusError {
			m.prev = m.last
		}
		m.last = rep
	}
	if first := grader.FirstFailure(rep); first != nil && !m.open {
		if i := m.stepIndex(first.Step); i >= 0 {
			m.step = i
		}
	}
	if sel := m.selectedTest(); m.open && (sel == nil || sel.ID != m.test || sel.Status == grader.StatusPass) {
		m.test = "" // the selected test passes now (or is gone): the step's first failure instead
	}
	m.follow = m.open
	if !m.open {
		m.vp.GotoTop() // the first failure, under the summary
	}
}

// key handles one key press.
func (m *Model) key(msg tea.KeyPressMsg) tea.Cmd {
	k := m.c.Keys.Task
	switch {
	case key.Matches(msg, k.Init):
		switch {
		case m.busy:
		case m.ws == wsReady:
			m.note = m.c.T("task.exists")
		default:
			m.busy = true
			m.note = m.c.T("task.creating")
			return initWorkspace(m.p, m.dir, m.language())
		}
	case key.Matches(msg, k.Language):
		if m.ws == wsReady {
			m.note = m.c.T("task.language_fixed", "Language", m.language(), "Key", keymap.Name(k.Init))
			return nil
		}
		m.note = ""
		return m.c.SetLanguage(m.p.ID, common.NextLanguage(m.p.Languages, m.language()))
	case key.Matches(msg, k.Edit):
		if m.ws != wsReady {
			m.note = m.noWorkspace()
			return nil
		}
		return m.edit()
	case key.Matches(msg, k.Grade):
		switch {
		case m.running():
		case m.ws == wsMissing:
			m.note = m.noWorkspace()
		default:
			m.note = ""
			return m.startGrade()
		}
	case key.Matches(msg, k.Open) && !m.open && len(m.task().Steps) > 0:
		m.open, m.test, m.follow = true, "", true
		m.vp.GotoTop()
		return m.requestStep()
	case key.Matches(msg, k.Up):
		m.move(-1)
	case key.Matches(msg, k.Down):
		m.move(1)
	default:
		m.vp.PageKey(msg, keymap.Scroll{PageUp: k.PageUp, PageDown: k.PageDown})
	}
	return nil
}

// move moves the selection by d: a step in the list, a test of the open step.
func (m *Model) move(d int) {
	m.follow = true
	if !m.open {
		m.step = max(min(m.step+d, len(m.task().Steps)-1), 0)
		return
	}
	ts := m.stepTests()
	if len(ts) == 0 {
		return
	}
	i := 0
	for j, t := range ts {
		if t.ID == m.test {
			i = j
		}
	}
	if m.selectedTest() == nil {
		i = 0
		d = 0
	}
	m.test = ts[max(min(i+d, len(ts)-1), 0)].ID
}

// noWorkspace says there is no workspace yet and which key creates it.
func (m *Model) noWorkspace() string {
	return m.c.T("task.no_workspace", "Key", keymap.Name(m.c.Keys.Task.Init))
}

// startGrade clears the results on show and starts a grading; the view shows "grading…" at
// once. The last finished grading is kept to say what changed.
func (m *Model) startGrade() tea.Cmd {
	m.report, m.live, m.done, m.total, m.status = nil, nil, 0, 0, m.c.T("task.starting")
	m.first = grader.Failing(m.last) // failed last time: run first, their verdict shown first
	m.run = m.opts.Runs.newRun()
	return tea.Batch(m.spin.Tick, startGrade(m.run, m.opts.Runs, m.opts.Grade, m.dir, m.first))
}

// firstVerdict says, once every test that failed last time has finished in the grading under
// way, how many pass now: "" before then, or when none failed.
func (m *Model) firstVerdict() string {
	if len(m.first) == 0 {
		return ""
	}
	pass, seen := 0, 0
	for _, t := range m.live {
		if slices.Contains(m.first, t.ID) {
			seen++
			if t.Status == grader.StatusPass {
				pass++
			}
		}
	}
	if seen < len(m.first) {
		return ""
	}
	return m.c.T("task.first_verdict", "Pass", pass, "Total", len(m.first))
}

// progress applies one grading event; finished tests take their place in the run's order.
func (m *Model) progress(ev grader.Event) {
	if ev.Total > 0 {
		m.total = ev.Total
	}
	m.done = max(m.done, ev.Done)
	switch ev.Kind {
	case grader.EventTestStarted:
		m.status = grader.LocalizeTest(grader.TestResult{ID: ev.TestID, Name: ev.Test}, m.c.Loc, m.p).Name
	case grader.EventTestFinished:
		if ev.Result != nil {
			m.live = append(m.live, grader.LocalizeTest(*ev.Result, m.c.Loc, m.p))
			grader.SortTests(m.live, m.order)
		}
	case grader.EventInfo:
		if ev.Message != "" {
			m.status = m.c.Loc.Say(ev.Says)
			if ev.Says.IsZero() {
				m.status = ev.Message
			}
		}
	}
}

// View draws the task title and the content.
func (m *Model) View() string {
	st := m.c.Styles
	// The task's title gives way on a narrow screen; the step number, the "in English" marker
	// and the scroll percentage after it always show.
	var tail string
	if m.open {
		if s, ok := m.selectedStep(); ok {
			tail += st.Subtle.Render(" · " + m.c.T("grade.step", "Step", s.Number))
		}
	}
	if m.p.InEnglish("task.md") {
		tail += " " + st.Accent.Render("· "+common.InEnglish(m.p.Locale))
	}
	if pc := m.vp.Percent(); pc != "" {
		tail += "  " + st.Subtle.Render(pc)
	}
	title := common.Truncate(st.Title.Render(m.p.Task.Title), max(m.c.Width-lipgloss.Width(tail), 8)) + tail
	top := ""
	if len(m.top) > 0 {
		top = strings.Join(m.top, "\n") + "\n"
	}
	return common.Truncate(title, m.c.Width) + "\n\n" + top + "\n" + m.vp.View()
}

// recordGrade stores a finished grading run.
func (m *Model) recordGrade(rep *grader.Report) tea.Cmd {
	g := record.GradeRun(rep, m.c.Now())
	g.Kata, g.Workspace = m.p.ID, m.dir // the screen's own, even when the report could not say
	return m.c.Write("", m.c.T("store.recording_grade"), func(s common.Store) error { return s.RecordGrade(g) }, common.Changed)
}
