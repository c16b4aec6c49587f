// Package board is the instructor's live board in `kata serve`'s terminal: learners ×
// the selected kata (layer reached, quiz score, last grade), the rules and items missed
// most, who needs attention, the live quiz's distribution, and the keys that pace the class
// and run the live quiz. It draws board.View values and calls the Workshop's actions; the
// server behind it is someone else's business.
package board

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"

	"github.com/charmbracelet/x/ansi"
	"github.com/kata-mcp/kata/internal/i18n"
	"github.com/kata-mcp/kata/internal/termtext"
	"github.com/kata-mcp/kata/ui/common"
	"github.com/kata-mcp/kata/ui/keymap"
	"github.com/kata-mcp/kata/ui/markdown"
	kw "github.com/kata-mcp/kata/workshop"
	"github.com/kata-mcp/kata/workshop/board"
)

// Workshop is the workshop the board shows and acts on; *server.Workshop implements it.
type Workshop interface {
	Code() string
	View() board.View
	// Changed returns a channel closed at the board's next change.
	Changed() <-chan struct{}
	Pace(ctx context.Context, r kw.PacingRequest) (kw.State, error)
	StartQuiz(ctx context.Context, r kw.QuizRequest) (kw.Quiz, error)
	Reveal(ctx context.Context) (kw.Quiz, error)
	CloseQuiz(ctx context.Context) (kw.State, error)
}

// Options configure the board.
type Options struct {
	// JoinLine is what learners type to join; BoardURL the web board's address, both shown
	// at the top. The board is for projecting: BoardURL must not hold the instructor token.
	JoinLine, BoardURL string
	// NoColor drops colours; Light picks styles for a light background.
	NoColor, Light bool
	// Loc words the board's counts in the instructor's language (nil: English).
	Loc *i18n.Localizer
	// Now is the clock (nil: time.Now).
	Now func() time.Time
	// Coalesce is how long the board waits after a change before drawing again, so a busy
	// class does not redraw it hundreds of times a second (0: 100 ms).
	Coalesce time.Duration
	// Wait returns the command that waits for the board's next change (the channel closes);
	// nil means waiting on it, then Coalesce. Tick schedules a clock message after d; nil
	// means tea.Tick. Tests stub both and say themselves when the board changed.
	Wait func(changed <-chan struct{}) tea.Cmd
	Tick func(d time.Duration, fn func(time.Time) tea.Msg) tea.Cmd
}

// Model is the board's Bubble Tea model.
type Model struct {
	c      Workshop
	opts   Options
	st     *common.Styles
	keys   *keymap.KeyMap
	view   board.View
	kata   int // the selected kata column
	top    int // the first learner row on show
	note   string
	width  int
	height int
}

type (
	// changedMsg says the board changed; refreshMsg asks to read it again (the clock moved).
	changedMsg struct{}
	refreshMsg struct{}
	// actionMsg is the outcome of an instructor's action.
	actionMsg struct {
		note string
		err  error
	}
)

// New returns the board of c.
func New(c Workshop, opts Options) Model {
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.Coalesce <= 0 {
		opts.Coalesce = 100 * time.Millisecond
	}
	if opts.Tick == nil {
		opts.Tick = tea.Tick
	}
	if opts.Wait == nil {
		pause := opts.Coalesce
		opts.Wait = func(ch <-chan struct{}) tea.Cmd {
			return func() tea.Msg {
				<-ch
				time.Sleep(pause)
				return changedMsg{}
			}
		}
	}
	return Model{c: c, opts: opts, st: common.NewStyles(!opts.Light, opts.NoColor), keys: keymap.New(opts.Loc), view: c.View(), width: 100, height: 30}
}

// Run shows the board on the terminal until the instructor quits or ctx ends.
func Run(ctx context.Context, c Workshop, opts Options) error {
	_, err := tea.NewProgram(New(c, opts), tea.WithContext(ctx)).Run()
	if ctx.Err() != nil {
		return nil // stopped by a signal: not a failure
	}
	return err
}

// wait returns the command that waits for the next change.
func (m Model) wait() tea.Cmd { return m.opts.Wait(m.c.Changed()) }

// tick asks to read the board again in a few seconds: the idle flags move with the clock.
func (m Model) tick() tea.Cmd {
	return m.opts.Tick(5*time.Second, func(time.Time) tea.Msg { return refreshMsg{} })
}

// Init waits for changes and starts the clock.
func (m Model) Init() tea.Cmd { return tea.Batch(m.wait(), m.tick()) }

// act runs an instructor's action in a command.
func act(fn func(ctx context.Context) (string, error)) tea.Cmd {
	return func() tea.Msg {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		note, err := fn(ctx)
		return actionMsg{note: note, err: err}
	}
}

// column is the selected kata's column, nil when the workshop has none.
func (m Model) column() *board.Column {
	if len(m.view.Katas) == 0 {
		return nil
	}
	return &m.view.Katas[min(m.kata, len(m.view.Katas)-1)]
}

// open is what is open of the selected kata (everything when not paced).
func open(c *board.Column) kw.Pacing {
	if c.Open != nil {
		return *c.Open
	}
	return kw.Pacing{Kata: c.ID, Layers: len(c.Layers), Steps: c.Steps}
}

// Update handles keys, changes and action outcomes.
func (m Model) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		m.width, m.height = max(msg.Width, 1), max(msg.Height, 1)
	case changedMsg:
		m.view = m.c.View()
		return m, m.wait()
	case refreshMsg:
		m.view = m.c.View()
		return m, m.tick()
	case actionMsg:
		m.note = msg.note
		if msg.err != nil {
			m.note = m.opts.Loc.T("board.not_done", "Error", m.opts.Loc.Error(msg.err))
		}
		m.view = m.c.View()
	case tea.KeyPressMsg:
		cmd := m.key(msg)
		return m, cmd
	}
	return m, nil
}

// key handles one key press.
func (m *Model) key(msg tea.KeyPressMsg) tea.Cmd {
	k := m.keys.Board
	col := m.column()
	switch {
	case key.Matches(msg, m.keys.Quit):
		return tea.Quit
	case key.Matches(msg, k.Kata) && len(m.view.Katas) > 0:
		m.kata = (m.kata + 1) % len(m.view.Katas)
	case key.Matches(msg, k.Up):
		m.top = max(m.top-1, 0)
	case key.Matches(msg, k.Down):
		m.top = min(m.top+1, max(len(m.view.Rows)-1, 0))
	case col == nil:
		return nil
	case key.Matches(msg, k.OpenLayer), key.Matches(msg, k.CloseLayer):
		p := open(col)
		n := p.Layers + 1
		if key.Matches(msg, k.CloseLayer) {
			n = p.Layers - 1
		}
		n = max(min(n, len(col.Layers)), 1)
		id, name := col.ID, col.Layers[n-1]
		return act(func(ctx context.Context) (string, error) {
			_, err := m.c.Pace(ctx, kw.PacingRequest{Kata: id, Layers: n})
			return m.opts.Loc.T("board.layers_open", "Kata", id, "N", n, "Layer", name), err
		})
	case key.Matches(msg, k.OpenStep), key.Matches(msg, k.CloseStep):
		p := open(col)
		n := p.Steps + 1
		if key.Matches(msg, k.CloseStep) {
			n = p.Steps - 1
		}
		n = max(min(n, col.Steps), 1)
		id := col.ID
		return act(func(ctx context.Context) (string, error) {
			_, err := m.c.Pace(ctx, kw.PacingRequest{Kata: id, Steps: n})
			return m.opts.Loc.T("board.steps_open", "Kata", id, "N", n), err
		})
	case key.Matches(msg, k.Quiz), key.Matches(msg, k.Quiz5):
		n := 1
		if key.Matches(msg, k.Quiz5) {
			n = 5
		}
		id := col.ID
		return act(func(ctx context.Context) (string, error) {
			q, err := m.c.StartQuiz(ctx, kw.QuizRequest{Kata: id, Count: n})
			return m.opts.Loc.T("board.quiz_started", "Items", strings.Join(q.Items, ", ")), err
		})
	case key.Matches(msg, k.Reveal):
		return act(func(ctx context.Context) (string, error) {
			_, err := m.c.Reveal(ctx)
			return m.opts.Loc.T("board.revealed"), err
		})
	case key.Matches(msg, k.EndQuiz):
		return act(func(ctx context.Context) (string, error) {
			_, err := m.c.CloseQuiz(ctx)
			return m.opts.Loc.T("live.over_note"), err
		})
	}
	return nil
}

// View draws the board.
func (m Model) View() tea.View {
	v := tea.NewView(common.FitBlock(m.render(), m.width, m.height))
	v.AltScreen = true
	v.WindowTitle = "kata serve " + m.c.Code()
	return v
}

// render lays the board out as text.
func (m Model) render() string {
	st := m.st
	w := m.width
	var top []string
	add := func(lines *[]string, s string) { *lines = append(*lines, strings.Split(s, "\n")...) }
	loc := m.opts.Loc
	head := st.Title.Render(loc.T("board.title", "Code", m.view.Code)) + st.Subtle.Render(" · "+loc.N("count.learner", m.view.Summary.Learners))
	if m.view.Closed {
		head += st.Fail.Render(" · " + loc.T("board.closed"))
	} else if m.view.Locked {
		head += st.Fail.Render(" · " + loc.T("board.locked"))
	}
	add(&top, common.Truncate(head, w))
	label := labels(loc.T("board.join"), loc.T("board.board"), loc.T("board.kata"), loc.T("board.open"), loc.T("board.quiz"))
	// a closed or locked workshop takes nobody: nothing on the screen advertises joining
	if m.opts.JoinLine != "" && !m.view.Closed && !m.view.Locked {
		add(&top, common.Truncate(st.Label.Render(label[0])+m.opts.JoinLine, w))
	}
	if m.view.Closed {
		// what q leads to: kata serve again opens a new workshop, not this one
		add(&top, common.Truncate(st.Fail.Render(loc.T("board.stop_closed", "Key", keymap.Name(m.keys.Quit))), w))
	}
	if m.opts.BoardURL != "" {
		add(&top, common.Truncate(st.Label.Render(label[1])+st.Subtle.Render(m.opts.BoardURL), w))
	}
	add(&top, "")
	col := m.column()
	if col == nil {
		add(&top, loc.T("board.no_kata"))
		return strings.Join(top, "\n")
	}
	p := open(col)
	which := ""
	if len(m.view.Katas) > 1 {
		which = " " + loc.T("board.which", "N", m.kata+1, "Total", len(m.view.Katas), "Key", keymap.Name(m.keys.Board.Kata))
	}
	add(&top, common.Truncate(st.Label.Render(label[2])+col.ID+which, w))
	add(&top, common.Truncate(st.Label.Render(label[3])+loc.T("board.open_line", "Layers", p.Layers, "AllLayers", len(col.Layers), "Layer", col.Layers[max(p.Layers, 1)-1], "Steps", p.Steps, "AllSteps", col.Steps), w))
	top = append(top, m.quizLines()...)
	add(&top, "")

	var bottom []string
	add(&bottom, "")
	low := labels(loc.T("board.missed"), loc.T("board.attention"))
	add(&bottom, common.Truncate(st.Label.Render(low[0]+" ")+m.misses(), w))
	add(&bottom, common.WrapHanging(st.Label.Render(low[1]+" "), m.attention(), w))
	if m.note != "" {
		add(&bottom, st.Accent.Render(common.Truncate(m.note, w)))
	}
	add(&bottom, st.Subtle.Render(common.Truncate(m.help(), w)))

	table := m.table(col, max(m.height-len(top)-len(bottom), 3))
	return strings.Join(append(append(top, table...), bottom...), "\n")
}

// table lays out the learner rows of the selected kata in h lines.
func (m Model) table(col *board.Column, h int) []string {
	st := m.st
	i := slices.IndexFunc(m.view.Katas, func(c board.Column) bool { return c.ID == col.ID })
	nameW := 12
	for _, r := range m.view.Rows {
		nameW = max(nameW, min(lipgloss.Width(r.Name), 24))
	}
	pad := func(s string, n int) string { return s + strings.Repeat(" ", max(n-lipgloss.Width(s), 0)) }
	loc := m.opts.Loc
	lines := []string{st.Label.Render(pad(loc.T("board.col_learner"), nameW+2) + pad(loc.T("board.col_layer"), 18) + pad(loc.T("board.col_quiz"), 8) + loc.T("board.col_grade"))}
	if len(m.view.Rows) == 0 {
		return append(lines, st.Subtle.Render(loc.T("board.no_learner")))
	}
	rows := m.view.Rows[min(m.top, len(m.view.Rows)-1):]
	for n, r := range rows {
		if n >= h-1 {
			lines[len(lines)-1] = st.Subtle.Render(loc.T("board.more_rows", "N", len(rows)-n+1))
			break
		}
		c := board.Cell{}
		if i < len(r.Cells) {
			c = r.Cells[i]
		}
		name := common.Truncate(r.Name, nameW)
		if r.Left {
			name = st.Subtle.Render(name + " " + loc.T("board.left"))
		} else if len(r.Flags) > 0 {
			name = st.Fail.Render(name + " !")
		}
		layer, quiz, grade := "—", "—", "—"
		if c.Layer > 0 {
			layer = fmt.Sprintf("%d/%d %s", c.Layer, len(col.Layers), c.LayerName)
		}
		if c.Answered > 0 {
			quiz = fmt.Sprintf("%d/%d", c.Right, c.Answered)
		}
		if c.Graded {
			grade = fmt.Sprintf("%d/%d ", c.Passed, c.Total) + st.Mark(c.Status)
			if len(c.Failing) > 0 {
				grade += st.Subtle.Render(" " + strings.Join(c.Failing, " "))
			}
		}
		lines = append(lines, common.Truncate(pad(name, nameW+2)+pad(layer, 18)+pad(quiz, 8)+grade, m.width))
	}
	return lines
}

// quizLines describe the live quiz: each item's distribution, and once revealed its key.
func (m Model) quizLines() []string {
	st := m.st
	loc := m.opts.Loc
	q := m.view.Summary.Quiz
	label := labels(loc.T("board.join"), loc.T("board.board"), loc.T("board.kata"), loc.T("board.open"), loc.T("board.quiz"))[4]
	if q == nil {
		return []string{st.Label.Render(label) + st.Subtle.Render(loc.T("board.no_quiz", "Start", keymap.Says(m.keys.Board.Quiz, loc.T("board.start_one"))))}
	}
	head := st.Label.Render(label) + q.Kata + " · " + quizState(loc, q.State)
	if q.State == kw.QuizOpen && !q.Started.IsZero() && !m.view.At.IsZero() {
		d := max(m.view.At.Sub(q.Started), 0).Round(time.Second)
		head += st.Subtle.Render(" · " + loc.T("board.quiz_elapsed", "Time", fmt.Sprintf("%d:%02d", int(d.Minutes()), int(d.Seconds())%60)))
	}
	lines := []string{common.Truncate(head, m.width)}
	if q.State == kw.QuizOpen && len(q.Waiting) > 0 {
		lines = append(lines, common.Truncate(st.Subtle.Render("      "+loc.T("board.quiz_waiting", "Names", strings.Join(q.Waiting, ", "))), m.width))
	}
	for _, it := range q.Items {
		lines = append(lines, m.stemLines(it.Stem, max(2, stemMaxLines/len(q.Items)))...)
		var parts []string
		key := ""
		for _, o := range it.Options {
			parts = append(parts, fmt.Sprintf("%s %d", o.ID, o.Count))
			if o.Key {
				key += o.ID
			}
		}
		line := fmt.Sprintf("      %s · %s: %s", it.ID, m.opts.Loc.N("count.answer", it.Answered), strings.Join(parts, " · "))
		if key != "" {
			line += st.Pass.Render(" · " + loc.T("board.key", "Key", key))
		}
		lines = append(lines, common.Truncate(line, m.width))
	}
	return lines
}

// stemMaxLines is how many lines of stems the projected board's quiz panel shows: all of them
// for one item, shared out (at least 2 each) among several.
const stemMaxLines = 8

// stemLines render a live quiz item's stem (Markdown from the packet) for the quiz panel,
// indented under the panel's label: at most limit lines, the last one "…" when there is more. Control sequences in the packet text are dropped before rendering, and only the
// renderer's own styling is kept after it (internal/termtext).
func (m Model) stemLines(md string, limit int) []string {
	if strings.TrimSpace(md) == "" || m.width < 20 {
		return nil
	}
	out, err := markdown.Render(termtext.Markdown(md), m.width-6, markdown.StyleFor(m.opts.NoColor, !m.opts.Light))
	if err != nil {
		return nil
	}
	var lines []string
	for _, l := range strings.Split(termtext.Styled(out), "\n") {
		if strings.TrimSpace(ansi.Strip(l)) == "" && (len(lines) == 0 || strings.TrimSpace(ansi.Strip(lines[len(lines)-1])) == "") {
			continue // no blank line first, and none twice
		}
		lines = append(lines, common.Truncate("    "+l, m.width))
	}
	for len(lines) > 0 && strings.TrimSpace(ansi.Strip(lines[len(lines)-1])) == "" {
		lines = lines[:len(lines)-1]
	}
	if len(lines) > limit {
		lines = append(lines[:limit-1], "      …")
	}
	return lines
}

// quizState words a live quiz's state (workshop.QuizOpen …) in loc's language; a state this
// board does not know shows as it is.
func quizState(loc *i18n.Localizer, state string) string {
	switch state {
	case kw.QuizOpen:
		return loc.T("workshop.board.quiz_open")
	case kw.QuizRevealed:
		return loc.T("workshop.board.quiz_revealed")
	case kw.QuizClosed:
		return loc.T("workshop.board.quiz_closed")
	}
	return state
}

// misses lists the rules and items missed most.
func (m Model) misses() string {
	s := m.view.Summary
	var parts []string
	for _, r := range s.Rules[:min(len(s.Rules), 4)] {
		parts = append(parts, fmt.Sprintf("%s (%d)", r.ID, r.Count))
	}
	loc := m.opts.Loc
	none := loc.T("board.none")
	rules := loc.T("board.rules", "List", none)
	if len(parts) > 0 {
		rules = loc.T("board.rules", "List", strings.Join(parts, ", "))
	}
	parts = nil
	for _, it := range s.Items[:min(len(s.Items), 4)] {
		parts = append(parts, fmt.Sprintf("%s (%d)", it.ID, it.Count))
	}
	items := loc.T("board.items", "List", none)
	if len(parts) > 0 {
		items = loc.T("board.items", "List", strings.Join(parts, ", "))
	}
	return rules + " · " + items
}

// attention lists who needs attention.
func (m Model) attention() string {
	a := m.view.Summary.Attention
	if len(a) == 0 {
		return m.opts.Loc.T("board.nobody")
	}
	var parts []string
	for _, f := range a[:min(len(a), 6)] {
		why := f.Why
		if !f.Reason.IsZero() {
			why = m.opts.Loc.Say(f.Reason)
		}
		parts = append(parts, f.Name+": "+why)
	}
	if len(a) > 6 {
		parts = append(parts, m.opts.Loc.T("board.and_more", "N", len(a)-6))
	}
	return strings.Join(parts, " · ")
}

// help is the key line.
func (m Model) help() string {
	k := m.keys.Board
	var parts []string
	for _, b := range []key.Binding{k.OpenLayer, k.OpenStep, k.Quiz, k.Quiz5, k.Reveal, k.EndQuiz, k.Kata, k.Up} {
		parts = append(parts, b.Help().Key+" "+b.Help().Desc)
	}
	return strings.Join(parts, " • ") + " • " + m.opts.Loc.T("board.stop", "Key", keymap.Name(m.keys.Quit))
}

// labels pads the labels of one column to the widest and a space more, so the values after
// them line up in every language.
func labels(ls ...string) []string {
	w := 0
	for _, l := range ls {
		w = max(w, lipgloss.Width(l))
	}
	out := make([]string, len(ls))
	for i, l := range ls {
		out[i] = l + strings.Repeat(" ", w-lipgloss.Width(l)+1)
	}
	return out
}
