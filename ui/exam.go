package ui

import (
	"fmt"
	"sort"
	"strings"

	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/viewport"
	tea "charm.land/bubbletea/v2"

	"github.com/kata-mcp/kata/katas"
)

// examHeader is the number of lines above the viewport.
const examHeader = 2

// examAnswer is the learner's answer to one item.
type examAnswer struct {
	chosen  []string // option ids, sorted
	correct bool
}

// examModel asks the packet's items one at a time: the stem (rendered Markdown), the options
// lettered in display order; once answered, whether it was right and every option's rationale;
// at the end the score and the misses.
type examModel struct {
	c        *common
	p        *katas.Packet
	keys     examKeys
	idx      int             // the item on show
	cursor   int             // display position of the highlighted option
	marked   map[string]bool // options marked so far on a multiple-answer item
	answers  []*examAnswer   // per item; nil until answered
	finished bool
	follow   bool      // the next refresh scrolls the cursor (or verdict) into sight
	want     renderKey // the stem rendering asked for
	stem     string    // the rendered stem of want, "" until it arrives
	vp       viewport.Model
	width    int
	height   int
}

func newExam(c *common, p *katas.Packet) *examModel {
	m := &examModel{c: c, p: p, keys: newExamKeys(), vp: viewport.New()}
	m.reset()
	return m
}

// reset starts the exam over.
func (m *examModel) reset() {
	m.idx, m.cursor, m.finished = 0, 0, false
	m.marked = map[string]bool{}
	m.answers = make([]*examAnswer, len(m.p.Items))
	m.stem = ""
	m.want = renderKey{}
}

// item returns the item on show.
func (m *examModel) item() katas.Item { return m.p.Items[m.idx] }

// order returns the item's options in display order. Options are shown as written for now;
// a shuffle would permute this slice, ids stay stable.
func (m *examModel) order(it katas.Item) []katas.Option { return it.Options }

// letter is the display letter of position i.
func letter(i int) string { return string(rune('a' + i)) }

// ShortHelp lists the keys that apply to the exam's current state.
func (m *examModel) ShortHelp() []key.Binding {
	switch {
	case len(m.p.Items) == 0:
		return nil
	case m.finished:
		return []key.Binding{m.keys.Restart, m.keys.Scroll, m.keys.PageUp}
	case m.answers[m.idx] != nil:
		return []key.Binding{m.keys.Next, m.keys.Scroll, m.keys.PageUp}
	case m.item().Choose > 1:
		return []key.Binding{m.keys.Up, m.keys.Toggle, m.keys.Choose, m.keys.PageUp}
	default:
		return []key.Binding{m.keys.Up, m.keys.Choose, m.keys.PageUp}
	}
}

// FullHelp lists the exam's keys in one column.
func (m *examModel) FullHelp() [][]key.Binding { return [][]key.Binding{m.ShortHelp()} }

// SetSize sizes the viewport and re-renders the stem for a new width or style.
func (m *examModel) SetSize(w, h int) tea.Cmd {
	m.width, m.height = w, h
	m.vp.SetWidth(w)
	m.vp.SetHeight(max(h-examHeader, 1))
	cmd := m.requestStem()
	m.refresh()
	return cmd
}

// requestStem asks for the current item's stem at the current width and style.
func (m *examModel) requestStem() tea.Cmd {
	if len(m.p.Items) == 0 || m.finished || m.width == 0 {
		return nil
	}
	it := m.item()
	k := renderKey{doc: m.p.ID + "#" + it.ID, width: m.width, style: m.c.mdStyle}
	if k == m.want {
		return nil
	}
	m.want, m.stem = k, ""
	return renderMarkdown(k, it.Stem)
}

// Update answers, moves on and takes stem renderings.
func (m *examModel) Update(msg tea.Msg) tea.Cmd {
	switch msg := msg.(type) {
	case renderedMsg:
		if msg.key != m.want {
			return nil
		}
		if msg.err == nil {
			m.stem = strings.TrimRight(msg.out, "\n ")
		}
		m.refresh()
		return nil
	case tea.KeyPressMsg:
		if len(m.p.Items) == 0 {
			return nil
		}
		cmd := m.key(msg)
		m.refresh()
		return cmd
	}
	return nil
}

// key handles one key press.
func (m *examModel) key(msg tea.KeyPressMsg) tea.Cmd {
	if key.Matches(msg, m.keys.PageUp) {
		m.vp.PageUp()
		return nil
	}
	if key.Matches(msg, m.keys.PageDown) {
		m.vp.PageDown()
		return nil
	}
	if m.finished || m.answers[m.idx] != nil {
		switch {
		case key.Matches(msg, m.keys.Up):
			m.vp.ScrollUp(1)
			return nil
		case key.Matches(msg, m.keys.Down):
			m.vp.ScrollDown(1)
			return nil
		}
	}
	if m.finished {
		if key.Matches(msg, m.keys.Restart) {
			m.reset()
			m.vp.GotoTop()
			return m.requestStem()
		}
		return nil
	}
	it := m.item()
	opts := m.order(it)
	if m.answers[m.idx] != nil {
		if key.Matches(msg, m.keys.Next) {
			return m.next()
		}
		return nil
	}
	s := msg.String()
	m.follow = true
	switch {
	case key.Matches(msg, m.keys.Up):
		m.cursor = max(m.cursor-1, 0)
	case key.Matches(msg, m.keys.Down):
		m.cursor = min(m.cursor+1, len(opts)-1)
	case key.Matches(msg, m.keys.Toggle) && it.Choose > 1:
		m.toggle(opts[m.cursor].ID)
	case key.Matches(msg, m.keys.Choose):
		if it.Choose == 1 {
			m.answer([]string{opts[m.cursor].ID})
		} else if len(m.marked) == it.Choose {
			m.answer(m.markedIDs())
		}
	case len(s) == 1 && s[0] >= 'a' && int(s[0]-'a') < len(opts):
		i := int(s[0] - 'a')
		m.cursor = i
		if it.Choose == 1 {
			m.answer([]string{opts[i].ID})
		} else {
			m.toggle(opts[i].ID)
		}
	}
	return nil
}

// toggle marks or unmarks an option of a multiple-answer item, never beyond Choose.
func (m *examModel) toggle(id string) {
	if m.marked[id] {
		delete(m.marked, id)
	} else if len(m.marked) < m.item().Choose {
		m.marked[id] = true
	}
}

func (m *examModel) markedIDs() []string {
	ids := make([]string, 0, len(m.marked))
	for id := range m.marked {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	return ids
}

// answer records the chosen options of the item on show.
func (m *examModel) answer(chosen []string) {
	sort.Strings(chosen)
	keys := m.item().Keys()
	sort.Strings(keys)
	m.answers[m.idx] = &examAnswer{chosen: chosen, correct: strings.Join(chosen, ",") == strings.Join(keys, ",")}
}

// next moves to the following item, or to the score after the last.
func (m *examModel) next() tea.Cmd {
	m.cursor = 0
	m.marked = map[string]bool{}
	m.vp.GotoTop()
	if m.idx+1 >= len(m.p.Items) {
		m.finished = true
		return nil
	}
	m.idx++
	return m.requestStem()
}

// score counts the correct answers.
func (m *examModel) score() (correct, total int) {
	for _, a := range m.answers {
		if a != nil && a.correct {
			correct++
		}
	}
	return correct, len(m.p.Items)
}

// refresh rebuilds the viewport content from the state and keeps the cursor in sight.
func (m *examModel) refresh() {
	if m.width == 0 || len(m.p.Items) == 0 {
		return
	}
	content, line, top := m.content()
	m.vp.SetContent(content)
	switch {
	case !m.follow || line < 0:
	case top:
		m.vp.SetYOffset(line)
	case line < m.vp.YOffset():
		m.vp.SetYOffset(line)
	case line >= m.vp.YOffset()+m.vp.Height():
		m.vp.SetYOffset(line - m.vp.Height() + 1)
	}
	m.follow = false
}

// content lays out the item (or the score) and returns the line to keep in sight: the cursor
// before answering, the verdict (to be put at the top) after; -1 for none.
func (m *examModel) content() (string, int, bool) {
	st := m.c.st
	w := m.width
	if m.finished {
		return m.scoreContent(), -1, false
	}
	it := m.item()
	ans := m.answers[m.idx]
	var lines []string
	add := func(s string) { lines = append(lines, strings.Split(s, "\n")...) }
	add(st.label.Render(wrapHanging("  ", it.Title, w)))
	if m.stem != "" {
		add(m.stem)
	} else {
		add("")
		add(wrapHanging("  ", it.Stem, w))
	}
	add("")
	if it.Choose > 1 && ans == nil {
		add(st.subtle.Render(fmt.Sprintf("  Choose %d: mark with the letters or space, then enter.", it.Choose)))
		add("")
	}
	cursorLine, verdictLine := -1, -1
	if ans != nil {
		verdictLine = len(lines)
		if ans.correct {
			add(st.pass.Render("  ✓ correct"))
		} else {
			var keys []string
			for i, o := range m.order(it) {
				if o.Key {
					keys = append(keys, letter(i))
				}
			}
			add(st.fail.Render("  ✗ incorrect") + " — the key is " + strings.Join(keys, ", "))
		}
		add("")
	}
	for i, o := range m.order(it) {
		prefix := "  " + letter(i) + ") "
		if ans == nil {
			cur := "  "
			if i == m.cursor {
				cur = "> "
				cursorLine = len(lines)
			}
			box := ""
			if it.Choose > 1 {
				box = "[ ] "
				if m.marked[o.ID] {
					box = "[x] "
				}
			}
			prefix = cur + box + letter(i) + ") "
			text := wrapHanging(prefix, o.Text, w)
			if i == m.cursor {
				text = st.accent.Render(text)
			}
			add(text)
			continue
		}
		chosen := contains(ans.chosen, o.ID)
		var tags []string
		if o.Key {
			tags = append(tags, st.pass.Render("[key]"))
		}
		if chosen {
			if o.Key {
				tags = append(tags, st.pass.Render("[your choice]"))
			} else {
				tags = append(tags, st.fail.Render("[your choice]"))
			}
		}
		text := o.Text
		if len(tags) > 0 {
			text += " " + strings.Join(tags, " ")
		}
		if i > 0 {
			add("")
		}
		add(wrapHanging(prefix, text, w))
		add(st.subtle.Render(wrapHanging("     ", o.Rationale, w)))
	}
	if ans != nil {
		add("")
		next := "next question"
		if m.idx+1 >= len(m.p.Items) {
			next = "see the score"
		}
		add(st.subtle.Render("  n/enter: " + next))
		return strings.Join(lines, "\n"), verdictLine, true
	}
	return strings.Join(lines, "\n"), cursorLine, false
}

// scoreContent lays out the final score and the misses.
func (m *examModel) scoreContent() string {
	st := m.c.st
	correct, total := m.score()
	pct := 0
	if total > 0 {
		pct = correct * 100 / total
	}
	var b strings.Builder
	b.WriteString(st.title.Render(fmt.Sprintf("  Score: %d/%d (%d%%)", correct, total, pct)))
	b.WriteString("\n\n")
	var missed []string
	for i, it := range m.p.Items {
		a := m.answers[i]
		if a != nil && a.correct {
			continue
		}
		var chose, keys []string
		for j, o := range m.order(it) {
			if a != nil && contains(a.chosen, o.ID) {
				chose = append(chose, letter(j))
			}
			if o.Key {
				keys = append(keys, letter(j))
			}
		}
		line := fmt.Sprintf("%s %s — you chose %s, the key is %s", it.ID, it.Title, orNone(chose), strings.Join(keys, ", "))
		missed = append(missed, wrapHanging("  • ", line, m.width))
	}
	if len(missed) == 0 {
		b.WriteString(st.pass.Render("  No misses."))
	} else {
		b.WriteString(st.label.Render("  Missed:"))
		b.WriteString("\n")
		b.WriteString(strings.Join(missed, "\n"))
	}
	b.WriteString("\n\n")
	b.WriteString(st.subtle.Render("  r: retake the exam · esc: back to the layers"))
	return b.String()
}

func orNone(s []string) string {
	if len(s) == 0 {
		return "nothing"
	}
	return strings.Join(s, ", ")
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// View draws the progress line and the item.
func (m *examModel) View() string {
	st := m.c.st
	if len(m.p.Items) == 0 {
		return st.title.Render("Exam") + "\n\nThis packet has no exam items."
	}
	var head string
	if m.finished {
		head = st.title.Render("Exam") + " " + st.subtle.Render("— "+m.p.Title)
	} else {
		it := m.item()
		head = st.title.Render(fmt.Sprintf("Question %d of %d", m.idx+1, len(m.p.Items))) + " " +
			st.subtle.Render("· "+it.ID+" · scenario: "+it.Scenario)
	}
	return truncate(head, m.width) + "\n\n" + m.vp.View()
}
