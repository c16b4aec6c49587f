package task

import (
	"fmt"
	"strconv"
	"strings"

	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/kata-mcp/kata/grader"
	"github.com/kata-mcp/kata/katas"
	"github.com/kata-mcp/kata/ui/common"
	"github.com/kata-mcp/kata/ui/keymap"
)

// sideBySide is the width from which an open step's text and its tests stand side by side;
// narrower, the tests come first and the text under them.
const sideBySide = 100

// maxOutputLines bounds the stderr lines a failure shows here (kata grade -v shows it all).
const maxOutputLines = 12

// stepsWidth caps the width of the steps list, so each step's result stays near its title.
const stepsWidth = 80

// maxNamed bounds the fixed and new tests named under the summary.
const maxNamed = 5

// refresh lays the content out again (after a change of state or width) and, after a selection
// move, keeps the selection (and as much of its details as fit) in sight.
func (m *Model) refresh() {
	if m.c.Width == 0 {
		return
	}
	var top block
	m.spinAt = m.summary(&top)
	m.top = top
	m.vp.SetSize(m.c.Width, max(m.c.Height-2-len(top)-1, 1))
	var first, last int
	if m.open {
		m.lines, first, last = m.stepContent()
	} else {
		m.lines, first, last = m.listContent()
	}
	m.vp.SetContent(strings.Join(m.lines, "\n"))
	if m.follow {
		m.vp.FollowRange(first, last)
	}
	m.follow = false
}

// redrawSpinner redraws the grading line alone, for a spinner tick: the rest of the content
// stays as laid out.
func (m *Model) redrawSpinner() {
	if m.spinAt < 0 || m.spinAt >= len(m.top) {
		return
	}
	m.top[m.spinAt] = m.gradingLine()
}

// gradingLine is the line shown while grading: the spinner, the count and what runs now.
func (m *Model) gradingLine() string {
	count := ""
	if m.total > 0 {
		count = fmt.Sprintf(" %d/%d", m.done, m.total)
	}
	return common.Truncate(m.spin.View()+" "+m.c.T("task.grading")+count+" "+m.c.Styles.Subtle.Render(m.status), m.c.Width)
}

// block collects wrapped lines.
type block []string

func (b *block) add(s string) { *b = append(*b, strings.Split(s, "\n")...) }

// summary lays out the top of the screen: the grading under way, or the last grade's summary
// and what changed since the one before (the fixed and the new named), or how to grade.
func (m *Model) summary(b *block) (spinAt int) {
	st := m.c.Styles
	w := m.c.Width
	spinAt = -1
	switch {
	case m.running():
		spinAt = len(*b)
		*b = append(*b, m.gradingLine())
		if v := m.firstVerdict(); v != "" {
			b.add(common.WrapHanging("  ", st.Label.Render(v), w))
		}
	case m.report == nil && m.stored != nil:
		m.storedSummary(b)
	case m.report == nil:
		b.add(common.WrapHanging("", m.c.T("task.press_grade", "Key", keymap.Name(m.c.Keys.Task.Grade)), w))
	case m.report.Status == grader.StatusError:
		msg := m.report.Message
		if msg == "" {
			msg = m.c.T("task.not_gradable")
		}
		box := st.ErrBox.Width(w)
		inner := max(w-box.GetHorizontalFrameSize(), 1)
		b.add(box.Render(ansi.Wrap(m.c.T("task.could_not_grade", "Message", sanitize(msg)), inner, "")))
	default:
		rep := m.report
		pass, fail, errored := rep.Counts()
		s := m.c.T("grade.passed_failed", "Passed", pass, "Failed", fail)
		if errored > 0 {
			s += m.c.T("grade.and_errored", "Errored", errored)
		}
		b.add(common.WrapHanging("", st.Label.Render(s)+st.Subtle.Render(" · "+m.c.T("grade.seed", "Seed", rep.Seed)+" · "+m.c.T("grade.ms", "N", rep.DurationMS)), w))
		if m.prev != nil && rep == m.last {
			d := grader.Compare(m.prev, rep)
			b.add(common.WrapHanging("", m.c.T("task.since", "Delta", m.c.T("grade.delta", "Fixed", len(d.Fixed), "Still", len(d.StillFailing), "New", len(d.New))), w))
			fixed, added := m.c.T("grade.fixed"), m.c.T("grade.new")
			pad := max(lipgloss.Width(fixed), lipgloss.Width(added))
			name := func(word string, ts []grader.TestResult) {
				for i, t := range ts {
					if i == maxNamed {
						b.add(st.Subtle.Render("  " + m.c.T("task.and_more", "More", len(ts)-maxNamed)))
						break
					}
					b.add(common.Truncate("  "+word+" "+t.Name, w))
				}
			}
			name(st.Pass.Render(fixed)+strings.Repeat(" ", pad-lipgloss.Width(fixed)), d.Fixed)
			name(st.Fail.Render(added)+strings.Repeat(" ", pad-lipgloss.Width(added)), d.New)
		}
	}
	return spinAt
}

// storedSummary lays out the last grade the progress store kept for this workspace (a grade
// of an earlier run of the app, or of kata grade): when, its counts and seed, and that grading
// again shows each test.
func (m *Model) storedSummary(b *block) {
	st := m.c.Styles
	w := m.c.Width
	g := m.stored
	when := g.At.Local().Format("2006-01-02 15:04")
	var s string
	if g.Status == grader.StatusError {
		s = m.c.T("task.stored_error", "When", when)
	} else {
		counts := m.c.T("grade.passed_failed", "Passed", g.Passed, "Failed", g.Failed)
		if g.Errored > 0 {
			counts += m.c.T("grade.and_errored", "Errored", g.Errored)
		}
		s = st.Mark(g.Status) + " " + m.c.T("task.stored", "When", when, "Counts", st.Label.Render(counts)) +
			st.Subtle.Render(" · "+m.c.T("grade.seed", "Seed", g.Seed)+" · "+m.c.T("grade.ms", "N", g.Duration.Milliseconds()))
	}
	b.add(common.WrapHanging("", s, w))
	b.add(st.Subtle.Render(common.WrapHanging("", m.c.T("task.stored_again", "Key", keymap.Name(m.c.Keys.Task.Grade)), w)))
}

// workspace lays out where the workspace is, its language and what to do with it.
func (m *Model) workspace(b *block) {
	st := m.c.Styles
	w := m.c.Width
	k := m.c.Keys.Task
	b.add(st.Label.Render(m.c.T("task.workspace")) + " " + st.Subtle.Render(m.language()))
	b.add(common.WrapHanging("  ", m.dir, w))
	switch {
	case m.wsErr != "":
		b.add(st.Fail.Render(common.WrapHanging("  ", m.wsErr, w)))
	case m.note != "":
		b.add(st.Accent.Render(common.WrapHanging("  ", m.note, w)))
	case m.ws == wsUnknown:
		b.add(st.Subtle.Render("  " + m.c.T("task.checking")))
	case m.ws == wsMissing:
		more := ""
		if len(m.p.Languages) > 1 {
			more = " " + m.c.T("task.picks_another", "Key", keymap.Name(k.Language), "Languages", strings.Join(m.p.Languages, ", "))
		}
		b.add(common.WrapHanging("  ", m.c.T("task.not_created", "Key", keymap.Name(k.Init), "Language", m.language(), "More", more), w))
	default:
		b.add(st.Subtle.Render(common.WrapHanging("  ", m.c.T("task.ready", "Key", keymap.Name(k.Grade)), w)))
	}
}

// listContent lays out what follows the summary: the workspace, the first failure in focus
// and the steps with their results; it returns the lines and the selected step's line twice
// (the range to keep in sight).
func (m *Model) listContent() (lines []string, first, last int) {
	st := m.c.Styles
	w := m.c.Width
	var b block
	m.workspace(&b)
	if f := m.firstFailure(); f != nil {
		b.add("")
		b.add(common.Truncate(st.Label.Render(m.c.T("grade.first_failure"))+st.Subtle.Render(" · "+m.stepLabel(f.Step)), w))
		b.add(common.Truncate("  "+st.Mark(f.Status)+" "+f.Name, w))
		b.add(m.details(*f, true))
	}
	b.add("")
	b.add(st.Label.Render(m.c.T("task.steps")) + st.Subtle.Render(" · "+keymap.Says(m.c.Keys.Task.Open, m.c.T("task.read_step"))))
	first = -1
	for i, s := range m.task().Steps {
		line := m.stepLine(s, i == m.step)
		if i == m.step {
			first = len(b)
		}
		b.add(line)
	}
	return b, first, first
}

// stepLine is a step of the list: its number and title, and its results on the right.
func (m *Model) stepLine(s katas.Step, selected bool) string {
	st := m.c.Styles
	w := min(m.c.Width, stepsWidth)
	res := m.stepResult(s.Number)
	prefix := "  "
	title := fmt.Sprintf("%d. %s", s.Number, s.Title)
	if !m.c.StepOpen(m.p.ID, s.Number) {
		title = fmt.Sprintf("%d. %s", s.Number, st.Subtle.Render(m.c.T("task.locked")))
	}
	if selected {
		prefix = st.Accent.Render("> ")
		title = st.Selected.Render(title)
	}
	room := w - lipgloss.Width(res) - 3
	left := prefix + common.Truncate(title, max(room, 1))
	gap := max(w-lipgloss.Width(left)-lipgloss.Width(res), 1)
	return left + strings.Repeat(" ", gap) + res
}

// stepResult sums up a step's tests: "✓ 5/5", "✗ 1/5", "…" while none has finished yet, "" before
// any grading.
func (m *Model) stepResult(n int) string {
	st := m.c.Styles
	pass, total := 0, 0
	for _, t := range m.tests() {
		if t.Step == n {
			total++
			if t.Status == grader.StatusPass {
				pass++
			}
		}
	}
	switch {
	case total == 0 && m.running():
		return st.Subtle.Render("…")
	case total == 0:
		return ""
	case pass == total && !m.running():
		return st.Mark(grader.StatusPass) + fmt.Sprintf(" %d/%d", pass, total)
	case pass == total:
		return st.Subtle.Render(m.c.T("task.so_far", "Passed", pass, "Total", total))
	}
	return st.Mark(grader.StatusFail) + fmt.Sprintf(" %d/%d", pass, total)
}

// stepContent lays out the open step: its text and its tests (the selected failing one with
// its details), side by side on a wide screen, the tests first on a narrow one. It returns the
// lines and the selected test's lines.
func (m *Model) stepContent() (lines []string, first, last int) {
	s, _ := m.selectedStep()
	w := m.c.Width
	if w >= sideBySide {
		left := w * 55 / 100
		right := w - left - 3
		text := m.stepLines(s, left)
		tests, tf, tl := m.testLines(s, right)
		bar := m.c.Styles.Subtle.Render(" │ ")
		for i := range max(len(text), len(tests)) {
			l, r := "", ""
			if i < len(text) {
				l = text[i]
			}
			if i < len(tests) {
				r = tests[i]
			}
			l = ansi.Truncate(l, left, "")
			lines = append(lines, l+strings.Repeat(" ", max(left-lipgloss.Width(l), 0))+bar+r)
		}
		return lines, tf, tl
	}
	tests, tf, tl := m.testLines(s, w)
	lines = append(lines, tests...)
	lines = append(lines, "")
	lines = append(lines, m.stepLines(s, w)...)
	return lines, tf, tl
}

// stepLines is the step's text, rendered for width (plain until the rendering is in).
func (m *Model) stepLines(s katas.Step, width int) []string {
	st := m.c.Styles
	if !m.c.StepOpen(m.p.ID, s.Number) {
		// a workshop's instructor has not opened this step: neither its title nor its text
		return strings.Split(common.WrapHanging("", st.Subtle.Render(m.c.T("task.step_locked", "Step", s.Number)), width), "\n")
	}
	head := common.WrapHanging("", st.Title.Render(m.c.T("task.step_head", "Step", s.Number, "Title", s.Title)), width)
	body := m.stepText.ViewTop(m.stepDoc(s), s.Markdown, width)
	return strings.Split(head+"\n"+body, "\n")
}

// testLines lays out the open step's tests in the run's order (so they never reorder while
// grading): each with its mark, the selected one highlighted with, when it did not pass, its
// details. It returns the lines and the selected test's first and last line (-1, -1 if none).
func (m *Model) testLines(s katas.Step, width int) ([]string, int, int) {
	st := m.c.Styles
	ts := m.stepTests()
	pass := 0
	for _, t := range ts {
		if t.Status == grader.StatusPass {
			pass++
		}
	}
	var b block
	switch {
	case len(ts) == 0 && m.running():
		b.add(st.Label.Render(m.c.T("task.tests")) + st.Subtle.Render(" · "+m.c.T("task.none_finished")))
	case len(ts) == 0:
		b.add(common.WrapHanging("", st.Label.Render(m.c.T("task.tests"))+st.Subtle.Render(" · "+m.c.T("task.tests_not_graded", "Key", keymap.Name(m.c.Keys.Task.Grade))), width))
	default:
		b.add(st.Label.Render(m.c.T("task.tests")) + st.Subtle.Render(" · "+m.c.T("task.tests_passed", "Passed", pass, "Total", len(ts))))
	}
	sel := m.selectedTest()
	if sel != nil && m.test == "" && m.running() {
		m.test = sel.ID // pinned: a failure finishing above it while grading does not take its place
	}
	first, last := -1, -1
	for _, t := range ts {
		if sel == nil || t.ID != sel.ID {
			b.add(common.Truncate("  "+st.Mark(t.Status)+" "+t.Name, width))
			continue
		}
		first = len(b)
		b.add(common.Truncate(st.Accent.Render("> ")+st.Mark(t.Status)+" "+st.Selected.Render(t.Name), width))
		if t.Status != grader.StatusPass {
			b.add(m.detailsAt(t, false, width))
		}
		last = len(b) - 1
	}
	return b, first, last
}

// details lays out a failed test's rule, message, output and hint under it, at the screen's
// width; withStep points the hint at the step's text.
func (m *Model) details(t grader.TestResult, withStep bool) string {
	return m.detailsAt(t, withStep, m.c.Width)
}

// detailsAt is details at width w.
func (m *Model) detailsAt(t grader.TestResult, withStep bool, w int) string {
	st := m.c.Styles
	const indent = "    "
	var b block
	if t.Rule != "" {
		b.add(common.WrapHanging(indent+m.c.T("grade.rule")+" ", sanitize(t.Rule), w))
	}
	for _, l := range strings.Split(sanitize(t.Message), "\n") {
		if strings.TrimSpace(l) != "" {
			b.add(common.WrapHanging(indent, l, w))
		}
	}
	if out := strings.TrimRight(sanitize(t.Output), "\n"); out != "" {
		b.add(st.Label.Render(indent + m.c.T("grade.output")))
		lines := strings.Split(ansi.Hardwrap(out, max(w-len(indent)-2, 1), true), "\n")
		if len(lines) > maxOutputLines {
			b.add(st.Subtle.Render(indent + "  " + m.c.T("task.lines_before", "Lines", len(lines)-maxOutputLines)))
			lines = lines[len(lines)-maxOutputLines:]
		}
		for _, l := range lines {
			b.add(st.Subtle.Render(indent + "  " + l))
		}
	}
	if h := m.hint(t, withStep); h != "" {
		b.add(st.Accent.Render(common.WrapHanging(indent+m.c.T("grade.hint")+" ", h, w)))
	}
	b.add("")
	return strings.Join(b, "\n")
}

// hint says where to look: the statement of the first rule the test broke, in the interface's
// language, and the command that explains it (kata show KATA --rules ID), and (withStep) the step of the task that says what to do.
func (m *Model) hint(t grader.TestResult, withStep bool) string {
	var parts []string
	for _, id := range t.FailedRules {
		if r, ok := m.rules[id]; ok {
			parts = append(parts, r.StatementIn(m.c.Loc, m.p)+" ("+r.Command(m.p.ID)+")")
			break
		}
	}
	if withStep {
		if _, ok := m.task().Step(t.Step); ok {
			parts = append(parts, m.c.T("task.step_says", "Step", t.Step, "Key", keymap.Name(m.c.Keys.Task.Open)))
		}
	}
	return strings.Join(parts, "; ")
}

// stepLabel names a task step: "step 2 · Map failures".
func (m *Model) stepLabel(n int) string {
	if s, ok := m.task().Step(n); ok {
		return m.c.T("grade.step_title", "Step", n, "Title", s.Title)
	}
	if n > 0 {
		return m.c.T("grade.step", "Step", n)
	}
	return m.c.T("grade.whole_run")
}

// firstFailure is the first failing test of the results on show, in step order.
func (m *Model) firstFailure() *grader.TestResult {
	if m.report != nil {
		return grader.FirstFailure(m.report)
	}
	return nil
}

// stepIndex is the index of step n in the task, -1 if none.
func (m *Model) stepIndex(n int) int {
	for i, s := range m.task().Steps {
		if s.Number == n {
			return i
		}
	}
	return -1
}

// selectedStep is the step under the cursor.
func (m *Model) selectedStep() (katas.Step, bool) {
	if m.step < 0 || m.step >= len(m.task().Steps) {
		return katas.Step{}, false
	}
	return m.task().Steps[m.step], true
}

// stepTests are the selected step's tests, in the run's order.
func (m *Model) stepTests() []grader.TestResult {
	s, ok := m.selectedStep()
	if !ok {
		return nil
	}
	var out []grader.TestResult
	for _, t := range m.tests() {
		if t.Step == s.Number {
			out = append(out, t)
		}
	}
	return out
}

// selectedTest is the open step's selected test: the one picked, else its first failing
// test, else its first; nil when it has none.
func (m *Model) selectedTest() *grader.TestResult {
	ts := m.stepTests()
	for i := range ts {
		if ts[i].ID == m.test {
			return &ts[i]
		}
	}
	for i := range ts {
		if ts[i].Status != grader.StatusPass {
			return &ts[i]
		}
	}
	if len(ts) > 0 {
		return &ts[0]
	}
	return nil
}

// stepDoc is the rendering key's document of step s.
func (m *Model) stepDoc(s katas.Step) string {
	return m.p.ID + "#" + m.language() + "#step-" + strconv.Itoa(s.Number)
}

// requestStep asks for the open step's text at its width and style.
func (m *Model) requestStep() tea.Cmd {
	s, ok := m.selectedStep()
	if !ok || !m.open || m.c.Width == 0 {
		return nil
	}
	width := m.c.Width
	if width >= sideBySide {
		width = width * 55 / 100
	}
	return m.stepText.Request(common.RenderKey{Doc: m.stepDoc(s), Width: width, Style: m.c.MDStyle}, s.Markdown)
}

// sanitize makes learner-produced text safe to draw: grader.Sanitize (the one sanitiser every
// report goes through; a Report arrives sanitised, error text from elsewhere may not), and
// tabs expanded so widths are known.
func sanitize(s string) string {
	return strings.ReplaceAll(grader.Sanitize(s), "\t", "    ")
}
