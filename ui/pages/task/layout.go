package task

import (
	"fmt"
	"strings"
	"time"

	"github.com/charmbracelet/x/ansi"

	"github.com/kata-mcp/kata/grader"
	"github.com/kata-mcp/kata/ui/common"
	"github.com/kata-mcp/kata/ui/keymap"
)

// refresh lays the content out again (after a change of state or width) and, after a selection
// move, keeps the selected test and as much of its details as fit in sight.
func (m *Model) refresh() {
	if m.c.Width == 0 {
		return
	}
	var first, last int
	m.lines, m.spinAt, first, last = m.content()
	m.vp.SetContent(strings.Join(m.lines, "\n"))
	if m.follow {
		m.vp.FollowRange(first, last)
	}
	m.follow = false
}

// redrawSpinner redraws the grading line alone, for a spinner tick: the rest of the content
// stays as laid out.
func (m *Model) redrawSpinner() {
	if m.spinAt < 0 || m.spinAt >= len(m.lines) {
		return
	}
	m.lines[m.spinAt] = m.gradingLine()
	m.vp.SetContent(strings.Join(m.lines, "\n"))
}

// gradingLine is the line shown while grading: the spinner, the count and what runs now.
func (m *Model) gradingLine() string {
	count := ""
	if m.total > 0 {
		count = fmt.Sprintf(" %d/%d", m.done, m.total)
	}
	return common.Truncate(m.spin.View()+" Grading…"+count+" "+m.c.Styles.Subtle.Render(m.status), m.c.Width)
}

// content lays the screen out as lines and returns them with the grading line's index (-1 if
// none) and the lines of the selected test and its details (-1, -1 if none).
func (m *Model) content() (lines []string, spinAt, first, last int) {
	st := m.c.Styles
	w := m.c.Width
	spinAt = -1
	add := func(s string) { lines = append(lines, strings.Split(s, "\n")...) }

	add(st.Label.Render("Steps"))
	for _, s := range m.p.Task.Steps {
		title := s.Title
		if !m.c.StepOpen(m.p.ID, s.Number) {
			title = st.Subtle.Render("locked: " + common.Locked)
		}
		add(common.WrapHanging(fmt.Sprintf("  %d. ", s.Number), title, w))
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
		spinAt = len(lines)
		lines = append(lines, m.gradingLine())
		add("")
	case m.report == nil:
		add(common.WrapHanging("", "Press "+keymap.Name(m.c.Keys.Task.Grade)+" to grade the workspace against the hidden fixtures.", w))
		return lines, spinAt, -1, -1
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

	first, last = -1, -1
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
	return lines, spinAt, first, last
}

// details lays out a failed test's step, rule, message and output, indented under it.
func (m *Model) details(t grader.TestResult) string {
	st := m.c.Styles
	const indent = "    "
	w := m.c.Width
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
func (m *Model) stepLabel(n int) string {
	if s, ok := m.p.Task.Step(n); ok {
		return fmt.Sprintf("step %d · %s", n, s.Title)
	}
	if n > 0 {
		return fmt.Sprintf("step %d", n)
	}
	return "whole run"
}

// sanitize makes learner-produced text safe to draw: grader.Sanitize (the one sanitiser every
// report goes through; a Report arrives sanitised, error text from elsewhere may not), and
// tabs expanded so widths are known.
func sanitize(s string) string {
	return strings.ReplaceAll(grader.Sanitize(s), "\t", "    ")
}
