// Package task is a packet's task: its steps and workspace, creating the workspace, grading it with live progress (and again on each save), opening it in the editor, and the results.
package task

import (
	"os/exec"

	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/spinner"
	tea "charm.land/bubbletea/v2"

	"github.com/kata-mcp/kata/grader"
	"github.com/kata-mcp/kata/katas"
	"github.com/kata-mcp/kata/ui/common"
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

// Model shows the task's steps and the workspace, creates the workspace, grades it with
// live progress and lists the results; the selected failed test shows its message and output.
type Model struct {
	c      common.Common
	p      *katas.Packet
	dir    string
	ws     wsState
	wsErr  string
	note   string // the last action's outcome, e.g. "Created from the python template."
	busy   bool   // creating the workspace
	run    *gradeRun
	spin   spinner.Model
	done   int
	total  int
	status string // what the grader is doing now
	live   []grader.TestResult
	report *grader.Report
	cursor int
	follow bool
	// regrade is set when a file changed during a grading: grade again when it ends.
	regrade bool
	// watching is set once the watcher command is out: later workspace checks start none.
	watching bool
	opts     Options
	vp       *viewport.Model
	// lines is the content laid out for the width; spinAt is the line of the grading spinner
	// (-1 for none), the only line a spinner tick redraws.
	lines  []string
	spinAt int
}

// Options configure a task page.
type Options struct {
	// Dir is the workspace folder.
	Dir string
	// Language is the template `i` creates the workspace from; empty means "python" when the
	// packet has it, else the packet's first language.
	Language string
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
	return &Model{
		c:      c,
		p:      p,
		opts:   opts,
		dir:    opts.Dir,
		spin:   spinner.New(spinner.WithSpinner(sp)),
		vp:     viewport.New(),
		spinAt: -1,
	}
}

// language is the template `i` creates the workspace from.
func (m *Model) language() string {
	if l := m.opts.Language; l != "" {
		return l
	}
	for _, l := range m.p.Languages {
		if l == "python" {
			return l
		}
	}
	if len(m.p.Languages) > 0 {
		return m.p.Languages[0]
	}
	return "python"
}

// Open returns the command that checks the workspace folder; the root calls it when the
// screen is shown.
func (m *Model) Open() tea.Cmd { return statWorkspace(m.p.ID, m.dir) }

// running reports whether a grading is in flight.
func (m *Model) running() bool { return m.run != nil }

// tests returns the results on show: the report's, or those finished so far.
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
	}
	if !m.running() {
		b = append(b, k.Grade)
	}
	if m.ws == wsReady {
		b = append(b, k.Edit)
	}
	if len(m.tests()) > 0 {
		b = append(b, k.Up)
	}
	return append(b, k.PageUp)
}

// FullHelp lists the task screen's keys in one column.
func (m *Model) FullHelp() [][]key.Binding {
	k := m.c.Keys.Task
	return [][]key.Binding{{k.Init, k.Grade, k.Edit}, {k.Up, k.PageUp}}
}

// SetSize sizes the viewport.
func (m *Model) SetSize(w, h int) tea.Cmd {
	m.c.SetSize(w, h)
	m.vp.SetSize(w, h-2)
	m.refresh()
	return nil
}

// Update handles the workspace, grading and selection messages.
func (m *Model) Update(msg tea.Msg) tea.Cmd {
	var cmd tea.Cmd
	switch msg := msg.(type) {
	case workspaceMsg:
		if msg.packet != m.p.ID || msg.dir != m.dir {
			return nil
		}
		m.ws = wsMissing
		if msg.exists {
			m.ws = wsReady
		}
		m.wsErr = ""
		if msg.err != nil {
			m.wsErr = msg.err.Error()
		}
		if msg.created {
			m.busy = false
			if msg.err == nil {
				m.note = "Created from the " + m.language() + " template."
			} else {
				m.note = ""
			}
		}
		if m.ws == wsReady && m.opts.Watch && m.opts.Watchers != nil && !m.watching {
			// Saving a file of the workspace re-grades it; the command starts the watcher.
			m.watching = true
			cmd = m.opts.Watchers.Watch(m.dir)
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
		m.note = "A file changed: grading again."
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
		m.report = msg.rep
		cmd = m.recordGrade(msg.rep)
		m.cursor = 0
		for i, t := range m.report.Tests {
			if t.Status != grader.StatusPass {
				m.cursor = i
				break
			}
		}
		m.follow = true
		if m.regrade {
			m.regrade = false
			m.note = "A file changed while grading: grading again."
			cmd = tea.Batch(cmd, m.startGrade())
		}
	case editorDoneMsg:
		if msg.dir != m.dir {
			return nil
		}
		m.note = "Back from the editor."
		if msg.err != nil {
			m.note = "The editor failed: " + msg.err.Error()
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

// key handles one key press.
func (m *Model) key(msg tea.KeyPressMsg) tea.Cmd {
	k := m.c.Keys.Task
	switch {
	case key.Matches(msg, k.Init):
		switch {
		case m.busy:
		case m.ws == wsReady:
			m.note = "The workspace already exists; it is never overwritten."
		default:
			m.busy = true
			m.note = "Creating the workspace…"
			return initWorkspace(m.p, m.dir, m.language())
		}
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
	case key.Matches(msg, k.Up):
		m.cursor = max(m.cursor-1, 0)
		m.follow = true
	case key.Matches(msg, k.Down):
		m.cursor = max(min(m.cursor+1, len(m.tests())-1), 0)
		m.follow = true
	default:
		m.vp.PageKey(msg, keymap.Scroll{PageUp: k.PageUp, PageDown: k.PageDown})
	}
	return nil
}

// noWorkspace says there is no workspace yet and which key creates it.
func (m *Model) noWorkspace() string {
	return "There is no workspace yet: press " + keymap.Name(m.c.Keys.Task.Init) + " to create it."
}

// startGrade clears the last results and starts a grading; the view shows "grading…" at once.
func (m *Model) startGrade() tea.Cmd {
	m.report, m.live, m.done, m.total, m.status, m.cursor = nil, nil, 0, 0, "starting", 0
	m.run = m.opts.Runs.newRun()
	return tea.Batch(m.spin.Tick, startGrade(m.run, m.opts.Runs, m.opts.Grade, m.dir))
}

// progress applies one grading event.
func (m *Model) progress(ev grader.Event) {
	if ev.Total > 0 {
		m.total = ev.Total
	}
	m.done = max(m.done, ev.Done)
	switch ev.Kind {
	case grader.EventTestStarted:
		m.status = ev.Test
	case grader.EventTestFinished:
		if ev.Result != nil {
			m.live = append(m.live, *ev.Result)
		}
	case grader.EventInfo:
		if ev.Message != "" {
			m.status = ev.Message
		}
	}
}

// View draws the task title and the content.
func (m *Model) View() string {
	st := m.c.Styles
	title := st.Title.Render(m.p.Task.Title)
	if pc := m.vp.Percent(); pc != "" {
		title += "  " + st.Subtle.Render(pc)
	}
	return common.Truncate(title, m.c.Width) + "\n\n" + m.vp.View()
}

// recordGrade stores a finished grading run.
func (m *Model) recordGrade(rep *grader.Report) tea.Cmd {
	g := rep.GradeRun(m.c.Now())
	g.Kata, g.Workspace = m.p.ID, m.dir // the screen's own, even when the report could not say
	return m.c.Write("", "recording the grade", func(s common.Store) error { return s.RecordGrade(g) }, common.Changed)
}
