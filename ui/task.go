package ui

import (
	"fmt"
	"os"
	"os/exec"
	"strings"
	"time"

	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/spinner"
	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
	"github.com/kata-mcp/kata/ui/common"
	"github.com/kata-mcp/kata/ui/components/viewport"

	"github.com/kata-mcp/kata/grader"
	"github.com/kata-mcp/kata/katas"
	"github.com/kata-mcp/kata/katas/progress"
	"github.com/kata-mcp/kata/ui/keymap"
)

// wsState is what the task screen knows of the workspace folder.
type wsState int

const (
	wsUnknown wsState = iota // not checked yet
	wsMissing
	wsReady
)

// taskModel shows the task's steps and the workspace, creates the workspace, grades it with
// live progress and lists the results; the selected failed test shows its message and output.
type taskModel struct {
	c      *app
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
	vp      *viewport.Model
	width   int
	height  int
}

func newTask(c *app, p *katas.Packet) *taskModel {
	sp := spinner.MiniDot
	if c.opts.NoColor {
		sp = spinner.Line
	}
	return &taskModel{
		c:    c,
		p:    p,
		dir:  c.opts.Workspace(p.ID),
		spin: spinner.New(spinner.WithSpinner(sp)),
		vp:   viewport.New(),
	}
}

// language is the template `i` creates the workspace from.
func (m *taskModel) language() string {
	if l := m.c.opts.Language; l != "" {
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
func (m *taskModel) Open() tea.Cmd { return statWorkspace(m.p.ID, m.dir) }

// running reports whether a grading is in flight.
func (m *taskModel) running() bool { return m.run != nil }

// tests returns the results on show: the report's, or those finished so far.
func (m *taskModel) tests() []grader.TestResult {
	if m.report != nil {
		return m.report.Tests
	}
	return m.live
}

// ShortHelp lists the keys that apply now.
func (m *taskModel) ShortHelp() []key.Binding {
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
func (m *taskModel) FullHelp() [][]key.Binding {
	k := m.c.Keys.Task
	return [][]key.Binding{{k.Init, k.Grade, k.Edit}, {k.Up, k.PageUp}}
}

// SetSize sizes the viewport.
func (m *taskModel) SetSize(w, h int) tea.Cmd {
	m.width, m.height = w, h
	m.vp.SetSize(w, h-2)
	m.refresh()
	return nil
}

// Update handles the workspace, grading and selection messages.
func (m *taskModel) Update(msg tea.Msg) tea.Cmd {
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
		if m.ws == wsReady && m.c.opts.Watch {
			// Saving a file of the workspace re-grades it.
			cmd = m.c.watch.watch(m.dir)
		}
	case workspaceChangedMsg:
		if msg.dir != m.dir {
			return nil
		}
		next := m.c.watch.next(m.dir)
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
	case tea.KeyPressMsg:
		cmd = m.key(msg)
	default:
		return nil
	}
	m.refresh()
	return cmd
}

// key handles one key press.
func (m *taskModel) key(msg tea.KeyPressMsg) tea.Cmd {
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
func (m *taskModel) noWorkspace() string {
	return "There is no workspace yet: press " + keymap.Name(m.c.Keys.Task.Init) + " to create it."
}

// startGrade clears the last results and starts a grading; the view shows "grading…" at once.
func (m *taskModel) startGrade() tea.Cmd {
	m.report, m.live, m.done, m.total, m.status, m.cursor = nil, nil, 0, 0, "starting", 0
	m.run = m.c.runs.newRun()
	return tea.Batch(m.spin.Tick, startGrade(m.run, m.c.runs, m.c.opts.Grade, m.dir))
}

// progress applies one grading event.
func (m *taskModel) progress(ev grader.Event) {
	if ev.Total > 0 {
		m.total = ev.Total
	}
	m.done = max(m.done, ev.Done)
	switch ev.Phase {
	case "start":
		m.status = ev.Test
	case "done":
		if ev.Result != nil {
			m.live = append(m.live, *ev.Result)
		}
	case "info":
		if ev.Message != "" {
			m.status = ev.Message
		}
	}
}

// refresh rebuilds the viewport content and, after a selection move, keeps the selected test
// and as much of its details as fit in sight.
func (m *taskModel) refresh() {
	if m.width == 0 {
		return
	}
	content, first, last := m.content()
	m.vp.SetContent(content)
	if m.follow {
		m.vp.FollowRange(first, last)
	}
	m.follow = false
}

// content lays the screen out and returns the lines of the selected test and its details
// (-1, -1 if none).
func (m *taskModel) content() (string, int, int) {
	st := m.c.Styles
	w := m.width
	var lines []string
	add := func(s string) { lines = append(lines, strings.Split(s, "\n")...) }

	add(st.Label.Render("Steps"))
	for _, s := range m.p.Task.Steps {
		add(common.WrapHanging(fmt.Sprintf("  %d. ", s.Number), s.Title, w))
	}
	add("")
	add(st.Label.Render("Workspace"))
	add(common.WrapHanging("  ", m.dir, w))
	switch {
	case m.wsErr != "":
		add(st.Fail.Render(common.WrapHanging("  ", m.wsErr, w)))
	case m.note != "":
		add(st.Accent.Render(common.WrapHanging("  ", m.note, w)))
	case m.ws == wsUnknown:
		add(st.Subtle.Render("  checking…"))
	case m.ws == wsMissing:
		add(common.WrapHanging("  ", "Not created yet: press "+keymap.Name(m.c.Keys.Task.Init)+" to create it from the "+m.language()+" template.", w))
	default:
		add(st.Subtle.Render(common.WrapHanging("  ", "Ready. Edit the files there, then press "+keymap.Name(m.c.Keys.Task.Grade)+" to grade.", w)))
	}
	add("")

	switch {
	case m.running():
		count := ""
		if m.total > 0 {
			count = fmt.Sprintf(" %d/%d", m.done, m.total)
		}
		add(common.Truncate(m.spin.View()+" Grading…"+count+" "+st.Subtle.Render(m.status), w))
		add("")
	case m.report == nil:
		add(common.WrapHanging("", "Press "+keymap.Name(m.c.Keys.Task.Grade)+" to grade the workspace against the hidden fixtures.", w))
		return strings.Join(lines, "\n"), -1, -1
	default:
		rep := m.report
		if rep.Status == grader.StatusError {
			msg := rep.Message
			if msg == "" {
				msg = "the submission could not be graded"
			}
			box := st.ErrBox.Width(w)
			inner := max(w-box.GetHorizontalFrameSize(), 1)
			add(box.Render(ansi.Wrap("Could not grade: "+sanitize(msg), inner, "")))
		}
		pass, fail, errored := rep.Counts()
		summary := fmt.Sprintf("%d passed, %d failed", pass, fail)
		if errored > 0 {
			summary += fmt.Sprintf(", %d errored", errored)
		}
		add(st.Label.Render(summary) + st.Subtle.Render(fmt.Sprintf(" · seed %d · %s", rep.Seed, time.Duration(rep.DurationMS)*time.Millisecond)))
		add("")
	}

	first, last := -1, -1
	for i, t := range m.tests() {
		step := st.Subtle.Render(fmt.Sprintf("  step %d", t.TaskID))
		if t.TaskID <= 0 {
			step = st.Subtle.Render("  whole run")
		}
		if i != m.cursor || m.running() {
			add(common.Truncate("  "+st.Mark(t.Status)+" "+t.Name+step, w))
			continue
		}
		first = len(lines)
		add(common.Truncate(st.Accent.Render("> ")+st.Mark(t.Status)+" "+st.Selected.Render(t.Name)+step, w))
		if t.Status != grader.StatusPass {
			add(m.details(t))
		}
		last = len(lines) - 1
	}
	return strings.Join(lines, "\n"), first, last
}

// details lays out a failed test's step, rule, message and output, indented under it.
func (m *taskModel) details(t grader.TestResult) string {
	st := m.c.Styles
	const indent = "    "
	w := m.width
	var lines []string
	add := func(s string) { lines = append(lines, strings.Split(s, "\n")...) }
	add(st.Subtle.Render(common.WrapHanging(indent, m.stepLabel(t.TaskID), w)))
	if t.Rule != "" {
		add(common.WrapHanging(indent+"Rule: ", sanitize(t.Rule), w))
	}
	for _, l := range strings.Split(sanitize(t.Message), "\n") {
		if strings.TrimSpace(l) != "" {
			add(common.WrapHanging(indent, l, w))
		}
	}
	if out := strings.TrimRight(sanitize(t.Output), "\n"); out != "" {
		add(st.Label.Render(indent + "Output (stderr):"))
		for _, l := range strings.Split(ansi.Hardwrap(out, max(w-len(indent)-2, 1), true), "\n") {
			add(st.Subtle.Render(indent + "  " + l))
		}
	}
	add("")
	return strings.Join(lines, "\n")
}

// stepLabel names a task step: "step 2 · Map failures".
func (m *taskModel) stepLabel(n int) string {
	if s, ok := m.p.Task.Step(n); ok {
		return fmt.Sprintf("step %d · %s", n, s.Title)
	}
	if n > 0 {
		return fmt.Sprintf("step %d", n)
	}
	return "whole run"
}

// sanitize makes learner-produced text safe to draw: escape sequences and carriage returns
// dropped, tabs expanded.
func sanitize(s string) string {
	s = ansi.Strip(s)
	s = strings.ReplaceAll(s, "\r\n", "\n")
	s = strings.ReplaceAll(s, "\r", "")
	s = strings.ReplaceAll(s, "\t", "    ")
	return strings.Map(func(r rune) rune {
		if r < 0x20 && r != '\n' {
			return -1
		}
		return r
	}, s)
}

// View draws the task title and the content.
func (m *taskModel) View() string {
	st := m.c.Styles
	title := st.Title.Render(m.p.Task.Title)
	if pc := m.vp.Percent(); pc != "" {
		title += "  " + st.Subtle.Render(pc)
	}
	return common.Truncate(title, m.width) + "\n\n" + m.vp.View()
}

// editorDoneMsg says the editor opened on dir has exited.
type editorDoneMsg struct {
	dir string
	err error
}

// editorCommand returns the editor to run on dir: $VISUAL, else $EDITOR (either may carry
// arguments, e.g. "code -w"), else vi.
func editorCommand(getenv func(string) string, dir string) *exec.Cmd {
	ed := strings.Fields(getenv("VISUAL"))
	if len(ed) == 0 {
		ed = strings.Fields(getenv("EDITOR"))
	}
	if len(ed) == 0 {
		ed = []string{"vi"}
	}
	cmd := exec.Command(ed[0], append(ed[1:], dir)...)
	cmd.Dir = dir
	return cmd
}

// edit hands the terminal to the editor on the workspace and comes back when it exits.
func (m *taskModel) edit() tea.Cmd {
	dir := m.dir
	return m.c.opts.Exec(editorCommand(os.Getenv, dir), func(err error) tea.Msg { return editorDoneMsg{dir: dir, err: err} })
}

// recordGrade stores a finished grading run.
func (m *taskModel) recordGrade(rep *grader.Report) tea.Cmd {
	pass, fail, errored := rep.Counts()
	g := progress.GradeRun{Kata: m.p.ID, Workspace: m.dir, Seed: rep.Seed, Status: rep.Status, Passed: pass, Failed: fail, Errored: errored,
		Duration: time.Duration(rep.DurationMS) * time.Millisecond, At: m.c.Now()}
	return m.c.Write("", "recording the grade", func(s Store) error { return s.RecordGrade(g) }, common.Changed)
}
