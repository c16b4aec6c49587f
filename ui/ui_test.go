package ui

import (
	"context"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"charm.land/bubbles/v2/spinner"
	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/kata-mcp/kata/grader"
	"github.com/kata-mcp/kata/katas"
	"github.com/kata-mcp/kata/ui/common"
)

// loadLib loads the test packets.
func loadLib(t *testing.T) *katas.Library {
	t.Helper()
	lib, err := katas.Discover(os.DirFS("../katas/testdata/packets"), "test")
	if err != nil {
		t.Fatalf("Discover: %v", err)
	}
	return lib
}

// driver runs a model the way the program would, synchronously: each message's command is
// run and its messages fed back until none is left. Spinner ticks are dropped (the next tick
// would sleep), so nothing here waits on a clock.
type driver struct {
	t     *testing.T
	m     tea.Model
	quit  bool
	clock time.Time
	ticks []func(time.Time) tea.Msg // countdown ticks waiting for the clock to move
}

// t0 is the fake clock's start.
var t0 = time.Date(2026, 3, 14, 9, 0, 0, 0, time.UTC)

// withClock gives opts a fake clock that only advance moves, and ticks that fire only then.
func (d *driver) withClock(opts Options) Options {
	d.clock = t0
	if opts.Now == nil {
		opts.Now = func() time.Time { return d.clock }
	}
	if opts.Tick == nil {
		opts.Tick = func(_ time.Duration, fn func(time.Time) tea.Msg) tea.Cmd {
			d.ticks = append(d.ticks, fn)
			return nil
		}
	}
	return opts
}

// advance moves the fake clock by dt and fires the ticks that were waiting.
func (d *driver) advance(dt time.Duration) {
	d.t.Helper()
	d.clock = d.clock.Add(dt)
	ticks := d.ticks
	d.ticks = nil
	for _, fn := range ticks {
		d.send(fn(d.clock))
	}
}

func newDriver(t *testing.T, opts Options, w, h int) *driver {
	t.Helper()
	return newDriverLib(t, loadLib(t), opts, w, h)
}

func newDriverLib(t *testing.T, lib *katas.Library, opts Options, w, h int) *driver {
	t.Helper()
	if opts.Style == "" {
		opts.Style = "ascii"
	}
	if opts.Workspace == nil {
		dir := t.TempDir()
		opts.Workspace = func(id string) string { return dir + "/" + id }
	}
	if opts.Seed == 0 {
		opts.Seed = 7
	}
	d := &driver{t: t}
	d.m = New(lib, d.withClock(opts))
	d.send(d.m.Init())
	d.send(tea.WindowSizeMsg{Width: w, Height: h})
	return d
}

// send feeds a message (or runs a command) and everything that follows from it.
func (d *driver) send(first any) {
	d.t.Helper()
	var queue []tea.Msg
	switch v := first.(type) {
	case nil:
		return
	case tea.Cmd:
		queue = d.run(v)
	case tea.Msg:
		queue = []tea.Msg{v}
	}
	for steps := 0; len(queue) > 0; steps++ {
		if steps > 10000 {
			d.t.Fatal("message loop does not settle")
		}
		msg := queue[0]
		queue = queue[1:]
		if _, ok := msg.(tea.QuitMsg); ok {
			d.quit = true
			continue
		}
		var cmd tea.Cmd
		d.m, cmd = d.m.Update(msg)
		queue = append(queue, d.run(cmd)...)
	}
}

// run executes a command, flattening batches.
func (d *driver) run(cmd tea.Cmd) []tea.Msg {
	if cmd == nil {
		return nil
	}
	switch msg := cmd().(type) {
	case nil:
		return nil
	case spinner.TickMsg:
		return nil
	case tea.BatchMsg:
		var out []tea.Msg
		for _, c := range msg {
			out = append(out, d.run(c)...)
		}
		return out
	default:
		return []tea.Msg{msg}
	}
}

// press sends key presses: "enter", "esc", "up", or a single character.
func (d *driver) press(keys ...string) {
	d.t.Helper()
	for _, k := range keys {
		d.send(keyMsg(k))
	}
}

func keyMsg(k string) tea.KeyPressMsg {
	switch k {
	case "enter":
		return tea.KeyPressMsg{Code: tea.KeyEnter}
	case "esc":
		return tea.KeyPressMsg{Code: tea.KeyEscape}
	case "tab":
		return tea.KeyPressMsg{Code: tea.KeyTab}
	case "up":
		return tea.KeyPressMsg{Code: tea.KeyUp}
	case "down":
		return tea.KeyPressMsg{Code: tea.KeyDown}
	case "left":
		return tea.KeyPressMsg{Code: tea.KeyLeft}
	case "right":
		return tea.KeyPressMsg{Code: tea.KeyRight}
	case "pgdown":
		return tea.KeyPressMsg{Code: tea.KeyPgDown}
	case "backspace":
		return tea.KeyPressMsg{Code: tea.KeyBackspace}
	case " ", "space":
		return tea.KeyPressMsg{Code: tea.KeySpace, Text: " "}
	case "ctrl+c":
		return tea.KeyPressMsg{Code: 'c', Mod: tea.ModCtrl}
	}
	r := []rune(k)
	return tea.KeyPressMsg{Code: r[0], Text: k}
}

// view returns the frame as plain text, trailing spaces trimmed.
func (d *driver) view() string {
	v := d.m.View()
	lines := strings.Split(ansi.Strip(v.Content), "\n")
	for i, l := range lines {
		lines[i] = strings.TrimRight(l, " ")
	}
	return strings.Join(lines, "\n")
}

func (d *driver) lib() *katas.Library { return d.m.(Model).c.Lib }

func (d *driver) mustSee(want ...string) {
	d.t.Helper()
	v := d.view()
	for _, w := range want {
		if !strings.Contains(v, w) {
			d.t.Fatalf("view lacks %q:\n%s", w, v)
		}
	}
}

func (d *driver) mustNotSee(unwanted ...string) {
	d.t.Helper()
	v := d.view()
	for _, w := range unwanted {
		if strings.Contains(v, w) {
			d.t.Fatalf("view shows %q:\n%s", w, v)
		}
	}
}

// checkFrame asserts the frame is exactly w×h cells at most.
func (d *driver) checkFrame(w, h int) {
	d.t.Helper()
	content := d.m.View().Content
	lines := strings.Split(content, "\n")
	if len(lines) != h {
		d.t.Errorf("frame has %d lines, want %d", len(lines), h)
	}
	for i, l := range lines {
		if lw := lipgloss.Width(l); lw > w {
			d.t.Errorf("line %d is %d wide (> %d): %q", i, lw, w, ansi.Strip(l))
		}
	}
}

func TestCatalogListsPackets(t *testing.T) {
	d := newDriver(t, Options{}, 80, 24)
	d.mustSee("A minimal kata", "(mini-kata)", "The smallest packet that loads", "2 items · 2 traps · 2 fixtures · python workspace · test")
	d.checkFrame(80, 24)
	if v := d.m.View(); !v.AltScreen {
		t.Error("the view does not ask for the alt screen")
	}
}

func TestLayersAreLoadedOneAtATime(t *testing.T) {
	d := newDriver(t, Options{}, 80, 24)
	d.press("enter")
	d.mustSee("Errors carry **flags**", "More knowledge", "1 knowledge", "3 examples")
	if r := d.lib().Resident(); r == nil || r.Name != "knowledge" {
		t.Fatalf("resident layer = %+v, want knowledge", r)
	}
	d.press("3")
	d.mustSee(`{"isError": true, "errorCategory": "transient"}`)
	d.mustNotSee("Errors carry")
	if r := d.lib().Resident(); r == nil || r.Packet != "mini-kata" || r.Name != "examples" {
		t.Fatalf("resident layer = %+v, want examples", r)
	}
	d.press("right") // agents: front matter shown as code, not as a heading
	d.mustSee("name: reviewer", "You review error paths.")
	d.press("tab") // templates
	d.mustSee("5 templates")
	d.press("left", "left", "left", "left")
	d.mustSee("Errors carry **flags**")
	d.checkFrame(80, 24)
	d.press("esc")
	d.mustSee("A minimal kata", "The smallest packet")
}

func TestStaleRenderingIsDropped(t *testing.T) {
	d := newDriver(t, Options{}, 80, 24)
	d.press("enter")
	old := common.RenderKey{Doc: "mini-kata/knowledge", Width: 80, Style: "ascii"}
	// While the screen wants that rendering, a result for it shows.
	d.send(common.RenderedMsg{Key: old, Out: "CURRENT CONTENT"})
	d.mustSee("CURRENT CONTENT")
	// A result for the old width arrives after the screen moved on: it must not show.
	d.send(tea.WindowSizeMsg{Width: 100, Height: 30})
	d.send(common.RenderedMsg{Key: old, Out: "STALE CONTENT"})
	d.mustNotSee("STALE CONTENT")
	d.mustSee("Errors carry **flags**")
}

func TestResizeRerenders(t *testing.T) {
	d := newDriver(t, Options{}, 120, 40)
	d.press("enter")
	d.checkFrame(120, 40)
	d.send(tea.WindowSizeMsg{Width: 40, Height: 12})
	d.checkFrame(40, 12)
	d.mustSee("Errors carry **flags**; the")
	d.send(tea.WindowSizeMsg{Width: 80, Height: 24})
	d.mustSee("Errors carry **flags**; the client reads flags, never prose.")
	d.checkFrame(80, 24)
}

// letterOf returns the letter of the option whose text is on show.
func (d *driver) letterOf(text string) string {
	d.t.Helper()
	for _, l := range strings.Split(d.view(), "\n") {
		if k := strings.Index(l, ") "+text); k >= 1 {
			return l[k-1 : k]
		}
	}
	d.t.Fatalf("no option %q on show:\n%s", text, d.view())
	return ""
}

func TestQuizCorrectAndIncorrect(t *testing.T) {
	d := newDriver(t, Options{}, 80, 30)
	d.press("enter", "x")
	d.mustSee("Question 1 of 2", "mk-01", "customer-support", "What does the client do?",
		") Retry, because the text says so.", ") Stop without retrying.", ") Ask the model to read the text.")
	d.mustNotSee("The text is for people") // rationales only after answering
	d.mustNotSee("Flags or prose")         // nor the title, which could cue the key
	// A letter only marks (the footer says "a-z/space mark • enter answer"): the learner can
	// change their mind before enter gives the answer.
	first := d.letterOf("Retry, because the text says so.")
	d.press(first)
	d.mustSee("(x) "+first+") Retry, because the text says so.", "enter answer")
	d.mustNotSee("correct", "Flags or prose")
	stop := d.letterOf("Stop without retrying.")
	d.press(stop)
	d.mustSee("(x) " + stop + ") Stop without retrying.")
	d.mustNotSee("(x) "+first+")", "correct")
	d.press("enter")
	d.mustSee("Flags or prose", "✓ correct", "The text is for people; control follows the flags.",
		"The flag says the failure will not heal by waiting.",
		"That moves a deterministic decision back into the model.",
		") Stop without retrying. [key] [your choice]", "rated good")
	d.mustNotSee("incorrect")
	d.press("n")
	d.mustSee("Question 2 of 2", "A search finds nothing.")
	wrong, key := d.letterOf("A not_found error."), d.letterOf("A success with an empty list.")
	d.press(wrong, "enter")
	d.mustSee("✗ incorrect", "the key is "+key, ") A success with an empty list. [key]",
		") A not_found error. [your choice]", "Nothing found is an answer, not a failure.",
		"The caller would retry or escalate a correct answer.", "rated again")
	d.press("enter")
	d.mustSee("Score: 1/2 (50%)", "Missed:", "mk-02 Empty search")
	d.press("r")
	d.mustSee("Question 1 of 2")
	d.press("esc")
	d.mustSee("1 knowledge")
}

// TestQuizShufflesOptions: the quiz shows options in a seed-drawn order, the same for the same
// seed, and another order for some other seed.
func TestQuizShufflesOptions(t *testing.T) {
	order := func(seed int64) string {
		d := newDriver(t, Options{Seed: seed}, 80, 30)
		d.press("enter", "x")
		return d.letterOf("Retry, because the text says so.") + d.letterOf("Stop without retrying.")
	}
	first := order(1)
	if again := order(1); again != first {
		t.Errorf("seed 1 gave %s, then %s", first, again)
	}
	for seed := int64(2); seed < 40; seed++ {
		if order(seed) != first {
			return
		}
	}
	t.Error("38 seeds all gave the written order")
}

func TestTrapTableFits80(t *testing.T) {
	for _, w := range []int{80, 60, 40, 120} {
		d := newDriver(t, Options{}, w, 24)
		d.press("enter", "t")
		d.mustSee("Traps", "Server side", "Why it fails", "Correct pattern")
		if w >= 80 {
			d.mustSee("│ Trap", "Return typed flags")
		}
		d.checkFrame(w, 24)
	}
}

func TestTrapTableScrolls(t *testing.T) {
	d := newDriver(t, Options{}, 80, 8)
	d.press("enter", "t")
	d.mustNotSee("Let the client retry")
	d.press("G")
	d.mustSee("Let the client retry")
	d.checkFrame(80, 8)
}

func stubReport() *grader.Report {
	return &grader.Report{Version: 3, Status: grader.StatusFail, Kata: "mini-kata", Seed: 4242, DurationMS: 1200,
		Tests: []grader.TestResult{
			{ID: "validates", Name: "lookup_order validates order_id", Status: grader.StatusPass, Step: 1},
			{ID: "maps", Name: "503 maps to transient", Status: grader.StatusFail, Step: 2, Rule: "5xx is transient, retryable",
				Message: "expected errorCategory \"transient\", got \"unknown\"", Output: "Traceback: boom\n", FailedRules: []grader.RuleID{grader.RuleCategory}},
		}}
}

// TestTaskGradeShowsResults (issue 16, defect 3): after a grade the task screen says the
// summary first, puts the first failing test in focus with its message, output and a hint,
// and lists the steps with their results; enter on a step shows its full text beside its
// tests, esc goes back to the steps.
func TestTaskGradeShowsResults(t *testing.T) {
	t.Setenv("NO_COLOR", "")
	var gotDir string
	var events int
	grade := func(ctx context.Context, dir string, progress func(grader.Event)) *grader.Report {
		gotDir = dir
		rep := stubReport()
		progress(grader.Event{Kind: grader.EventInfo, Message: "starting the server"})
		for i, tr := range rep.Tests {
			progress(grader.Event{Kind: grader.EventTestStarted, Test: tr.Name, Done: i, Total: 2})
			progress(grader.Event{Kind: grader.EventTestFinished, Test: tr.Name, Result: &tr, Done: i + 1, Total: 2})
			events++
		}
		return rep
	}
	root := t.TempDir()
	for _, w := range []int{80, 120} {
		d := newDriver(t, Options{Grade: grade, Workspace: func(id string) string { return root + "/" + id }}, w, 30)
		d.press("enter", "w")
		d.mustSee("Task: a tiny server", "1. Validate arguments", "2. Map failures", root+"/mini-kata")
		if w == 80 {
			d.mustSee("press i")
			d.press("g")
			d.mustSee("no workspace yet")
			d.press("i")
			d.mustSee("Created from the python template")
			if _, err := os.Stat(root + "/mini-kata/TASK.md"); err != nil {
				t.Fatalf("workspace not created: %v", err)
			}
		}
		d.press("g")
		if gotDir != root+"/mini-kata" {
			t.Fatalf("grade ran on %q with %d events", gotDir, events)
		}
		lines := strings.Split(d.view(), "\n")
		if !strings.HasPrefix(lines[2], "1 passed, 1 failed · seed 4242") {
			t.Errorf("%d: the summary is not first:\n%s", w, d.view())
		}
		d.mustSee("First failure · step 2 · Map failures", "✗ 503 maps to transient",
			"Rule: 5xx is transient, retryable", `expected errorCategory "transient", got "unknown"`, "Traceback: boom",
			"Hint: ", "(kata show mini-kata --rules", "says what to do",
			"1. Validate arguments", "✓ 1/1", "> 2. Map failures", "✗ 0/1")
		d.mustNotSee("Check `order_id` yourself.", "Check order_id yourself.") // no step text in the list
		d.press("enter")                                                       // the selected step (the first failing one) opens beside its tests
		d.mustSee("Step 2 · Map failures", "Map 5xx to transient.", "Tests · 0 of 1 passed", "> ✗ 503 maps to transient", `expected errorCategory "transient"`)
		if w >= 100 {
			for _, l := range strings.Split(d.view(), "\n") {
				if strings.Contains(l, "Map 5xx to transient.") && !strings.Contains(l, "│") {
					t.Errorf("%d: the step's text is not beside its tests: %q", w, l)
				}
			}
		}
		d.press("esc", "up", "enter")
		d.mustSee("Step 1 · Validate arguments", "Check order_id yourself.", "> ✓ lookup_order validates order_id")
		d.mustNotSee("Traceback: boom")
		d.press("esc")
		d.mustSee("First failure", "> 1. Validate arguments")
		d.checkFrame(w, 30)
	}
}

func TestTaskNoColorMarks(t *testing.T) {
	grade := func(ctx context.Context, dir string, progress func(grader.Event)) *grader.Report { return stubReport() }
	d := newDriver(t, Options{Grade: grade, NoColor: true}, 80, 24)
	d.press("enter", "w", "i", "g")
	d.mustSee("FAIL 503 maps to transient", "PASS 1/1", "FAIL 0/1")
	d.press("up", "enter")
	d.mustSee("PASS lookup_order validates order_id")
	d.mustNotSee("✓", "✗")
}

func TestTaskErrorReport(t *testing.T) {
	grade := func(ctx context.Context, dir string, progress func(grader.Event)) *grader.Report {
		return &grader.Report{Version: 3, Status: grader.StatusError, Message: ".mcp.json has no server named \"orders\"", Seed: 7, Tests: []grader.TestResult{}}
	}
	d := newDriver(t, Options{Grade: grade}, 80, 24)
	d.press("enter", "w", "i", "g")
	d.mustSee("Could not grade:", `.mcp.json has no server named "orders"`)
	d.mustNotSee("First failure", "seed 7")
}

func TestTaskProgressWhileRunning(t *testing.T) {
	release := make(chan struct{})
	grade := func(ctx context.Context, dir string, progress func(grader.Event)) *grader.Report {
		progress(grader.Event{Kind: grader.EventTestStarted, Test: "first test", Done: 0, Total: 3})
		<-release
		return stubReport()
	}
	d := newDriver(t, Options{Grade: grade}, 80, 24)
	d.press("enter", "w", "i")
	// Drive by hand: the first message is the start event; the wait for the next one blocks
	// until release.
	m := d.m.(Model)
	task := m.sessions["mini-kata"].task
	cmd := task.Update(keyMsg("g"))
	var next tea.Cmd
	for _, msg := range d.run(cmd) {
		d.m, next = d.m.Update(msg)
	}
	d.mustSee("Grading… 0/3", "first test")
	close(release)
	d.send(next)
	d.mustSee("1 passed, 1 failed")
}

func TestQuitFromAnywhere(t *testing.T) {
	for _, k := range []string{"q", "ctrl+c"} {
		d := newDriver(t, Options{}, 80, 24)
		d.press("enter", "x", k)
		if !d.quit {
			t.Errorf("%s did not quit", k)
		}
	}
}

func TestNoTerminalQueryAtStart(t *testing.T) {
	t.Setenv("NO_COLOR", "")
	m := New(loadLib(t), Options{})
	if m.c.MDStyle != "dark" {
		t.Fatalf("start style %q, want dark", m.c.MDStyle)
	}
	// Init may read the store, never the terminal: no message it yields is a colour query.
	d := &driver{t: t, m: m}
	for _, msg := range d.run(m.Init()) {
		if s := fmt.Sprintf("%T", msg); strings.Contains(s, "Color") {
			t.Errorf("Init asks the terminal: %s", s)
		}
	}
	if s := New(loadLib(t), Options{Style: "light"}).c.MDStyle; s != "light" {
		t.Errorf("Style light gave %q", s)
	}
}

func TestTheme(t *testing.T) {
	cases := []struct {
		flag, kataTheme, colorfgbg, want string
		bad                              bool
	}{
		{"", "", "", "dark", false},
		{"light", "dark", "", "light", false},
		{"", "light", "15;0", "light", false},
		{"auto", "", "0;15", "light", false},
		{"", "", "15;0", "dark", false},
		{"", "", "default;default", "dark", false},
		{"", "", "0;default;7", "light", false},
		{"purple", "", "", "", true},
		{"", "neon", "", "", true},
	}
	for _, c := range cases {
		env := map[string]string{"KATA_THEME": c.kataTheme, "COLORFGBG": c.colorfgbg}
		got, err := Theme(c.flag, func(k string) string { return env[k] })
		if (err != nil) != c.bad || got != c.want {
			t.Errorf("Theme(%q, KATA_THEME=%q, COLORFGBG=%q) = %q, %v", c.flag, c.kataTheme, c.colorfgbg, got, err)
		}
	}
}

// TestNoColorUsesNoTTY: NO_COLOR set and not empty asks for no colour (https://no-color.org),
// and NoColor renders Markdown with the notty style.
func TestNoColorUsesNoTTY(t *testing.T) {
	for v, want := range map[string]bool{"": false, "1": true, "0": true} {
		if got := NoColor(func(k string) string { return map[string]string{"NO_COLOR": v}[k] }); got != want {
			t.Errorf("NO_COLOR=%q: NoColor %v", v, got)
		}
	}
	m := New(loadLib(t), Options{NoColor: true})
	if m.c.MDStyle != "notty" || !m.c.Styles.NoColor() {
		t.Fatalf("NoColor: style %q, colourless styles %v", m.c.MDStyle, m.c.Styles.NoColor())
	}
}
