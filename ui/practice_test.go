package ui

import (
	"context"
	"errors"
	"fmt"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/kata-mcp/kata/grader"
	"github.com/kata-mcp/kata/internal/progress"
	"github.com/kata-mcp/kata/katas"
	"github.com/kata-mcp/kata/katas/srs"
	"github.com/kata-mcp/kata/ui/common"
	"github.com/kata-mcp/kata/ui/components/deck"
	"github.com/kata-mcp/kata/ui/components/question"
	"github.com/kata-mcp/kata/ui/pages/kata"
)

// drillTraps is a trap table of four rows, so each drill question has four options.
const drillTraps = "# Traps\n\n## Server side\n\n| Trap | Why it fails | Correct pattern |\n| --- | --- | --- |\n" +
	"| Prose errors | The client must guess | Typed flags |\n" +
	"| Retry inside | Retries multiply | Let the client retry |\n" +
	"| Print to stdout | Corrupts JSON-RPC | Log to stderr |\n" +
	"| String booleans | \"false\" is truthy | JSON booleans |\n"

func drillLib(t *testing.T) *katas.Library {
	t.Helper()
	fsys := fstest.MapFS{}
	copyPacket(t, fsys, "drill-kata", map[string]string{"traps.md": drillTraps})
	lib, err := katas.Discover(fsys, "test")
	if err != nil {
		t.Fatal(err)
	}
	return lib
}

// practice returns the practice deck on show.
func (d *driver) practice() *deck.Model {
	m := d.m.(Model)
	switch m.current {
	case common.ReviewScreen:
		return m.review.Model
	case common.DrillScreen:
		return m.sessions[m.packet].drill
	}
	return m.sessions[m.packet].quiz
}

// pick answers the card on show right or wrong.
func (d *driver) pick(right bool) {
	d.t.Helper()
	p := d.practice()
	for i, o := range p.Current().Opts {
		if o.Key == right {
			d.press(question.Letter(i), "enter")
			return
		}
	}
}

func TestTrapDrillMissesComeBack(t *testing.T) {
	st := newMemStore()
	d := newDriverLib(t, drillLib(t), Options{Store: st}, 80, 24)
	d.press("enter", "d")
	d.mustSee("Trap 1 of 4", "trap table: Server side", "Which pattern avoids this trap?", "Trap: ")
	d.mustNotSee("Why it fails")
	first := d.practice().Current()
	d.pick(false)
	d.mustSee("✗ incorrect", "Why it fails: "+first.Why, "The pattern for: ", "comes back later in the drill", "rated again")
	d.mustSee("Trap 1 of 5") // the miss was queued again
	for i := 0; i < 4; i++ {
		d.press("n")
		d.pick(true)
		d.mustSee("✓ correct")
	}
	if d.practice().Current().CardID != first.CardID {
		t.Errorf("the fifth card is %s, want the missed %s", d.practice().Current().Trap, first.Trap)
	}
	// It comes back with its key under another letter.
	keyAt := func(c deck.Card) int {
		for i, o := range c.Opts {
			if o.Key {
				return i
			}
		}
		return -1
	}
	if keyAt(d.practice().Current()) == keyAt(first) {
		t.Errorf("the missed card came back with its key still at %s)", question.Letter(keyAt(first)))
	}
	d.press("n")
	d.mustSee("Trap drill — done", "Score: 3/4 (75%)", "right the first time", "Missed:", first.Trap)
	if len(st.answers) != 5 {
		t.Fatalf("%d answers recorded, want 5", len(st.answers))
	}
	a := st.answers[0]
	if a.Correct || a.Kata != "drill-kata" || srs.KindOf(a.CardID) != srs.KindTrap || !strings.HasPrefix(a.ItemID, "traps.md:") {
		t.Errorf("first answer %+v", a)
	}
	d.press("r")
	d.mustSee("Trap 1 of 4")
	// The drill is also reachable from the trap tables.
	d.press("esc", "t", "d")
	d.mustSee("Trap 1 of 4")
}

func TestQuizRecordsAnswers(t *testing.T) {
	st := newMemStore()
	d := newDriver(t, Options{Store: st}, 80, 24)
	d.press("enter")
	d.advance(10 * time.Minute) // reading the layers is not time spent answering
	d.press("x")
	d.advance(20 * time.Second)
	d.pick(true)
	d.mustSee("✓ correct", "rated good")
	d.press("n")
	d.advance(5 * time.Second)
	d.pick(true)
	d.mustSee("rated easy")
	if len(st.answers) != 2 {
		t.Fatalf("answers %+v", st.answers)
	}
	a := st.answers[0]
	if !a.Correct || a.Kata != "mini-kata" || a.ItemID != "mk-01" || a.Elapsed != 20*time.Second || a.Chosen[0] != "b" || srs.KindOf(a.CardID) != srs.KindItem {
		t.Errorf("answer %+v", a)
	}
}

// TestQuizEnterWithNothingMarkedAnswersNothing: enter with no option marked does not answer
// the option under the cursor: nothing is recorded, the card is not rated, and the screen says
// what to do; the quiz is then answered with a letter and enter as usual.
func TestQuizEnterWithNothingMarkedAnswersNothing(t *testing.T) {
	st := newMemStore()
	d := newDriver(t, Options{Store: st}, 80, 24)
	d.press("enter", "x", "down", "enter")
	d.mustSee("Nothing is marked yet")
	// On a screen too short for the item, the note is brought into sight.
	small := newDriver(t, Options{}, 60, 10)
	small.press("enter", "x", "enter")
	small.mustSee("Nothing is marked yet")
	d.mustNotSee("✓ correct", "✗ incorrect", "rated")
	st.mu.Lock()
	n := len(st.answers)
	st.mu.Unlock()
	if n != 0 {
		t.Fatalf("enter with nothing marked recorded %d answers", n)
	}
	d.pick(true)
	d.mustSee("✓ correct")
	// The mock exam too: enter with nothing marked stays on the item and marks nothing.
	d.press("esc", "esc", "x", "enter")
	d.mustSee("item 1 of", "Nothing is marked yet")
	if ref := d.mock().Current().Ref; len(d.mock().Chosen(ref)) != 0 {
		t.Errorf("enter with nothing marked chose %v", d.mock().Chosen(ref))
	}
}

func TestReviewRunsDueThenNewCards(t *testing.T) {
	st := newMemStore()
	lib := loadLib(t)
	p, _ := lib.Get("mini-kata")
	due := srs.ItemCardID(p.ID, p.Items[1])
	st.due = []progress.DueCard{
		{CardID: due, Kind: srs.KindItem, Kata: p.ID, Ref: "mini-kata/mk-02"},
		{CardID: "item:mini-kata:gone:000000000000", Kind: srs.KindItem, Kata: p.ID}, // an edited item's old card
	}
	d := newDriver(t, Options{Store: st, Start: StartReview}, 80, 24)
	// mk-02 is due; mk-01 is new; the two trap rows have one distractor each.
	d.mustSee("Review · 1 due · 3 new", "Card 1 of 4", "mk-02", "A search finds nothing.")
	d.mustNotSee("Empty search") // the title shows once answered
	d.pick(false)
	d.mustSee("✗ incorrect", "rated again", "Empty search")
	for i := 0; i < 3; i++ {
		d.press("n")
		d.pick(true)
	}
	d.press("n")
	d.mustSee("Review — done", "Score: 3/4", "Every answer was recorded")
	if len(st.answers) != 4 || st.answers[0].CardID != due || st.answers[0].Correct {
		t.Errorf("answers %+v", st.answers)
	}
	// Everything seen, nothing due: the next session is empty.
	st.due = nil
	d.press("esc", "r")
	d.mustSee("Nothing is due and every card has been seen")
}

func TestReviewWithoutStoreShowsNewCards(t *testing.T) {
	d := newDriver(t, Options{Start: StartReview}, 80, 24)
	d.mustSee("Review · 0 due · 4 new", "Card 1 of 4")
}

func TestCatalogShowsProgress(t *testing.T) {
	st := newMemStore()
	lib := loadLib(t)
	p, _ := lib.Get("mini-kata")
	st.due = []progress.DueCard{{CardID: srs.ItemCardID(p.ID, p.Items[0]), Kind: srs.KindItem, Kata: p.ID}}
	st.grades = []progress.GradeRun{{Kata: "mini-kata", Status: "fail", Passed: 7, Failed: 2}}
	d := newDriver(t, Options{Store: st, NoColor: true}, 80, 24)
	d.mustSee("due today (1): r review · x mock exam", "read 0/5 layers · no mock exam yet · last grade FAIL 7/9 · 1 due")
	d.press("enter")
	d.mustSee("Errors carry")
	d.advance(kata.MinReadTime) // a short layer: on screen for its time, it is read
	d.press("2")
	d.mustSee("Review")
	d.advance(kata.MinReadTime)
	if !st.layers["mini-kata/knowledge"] || !st.layers["mini-kata/prompts"] {
		t.Errorf("layers read: %v", st.layers)
	}
	d.press("esc")
	d.mustSee("read 2/5 layers")
}

// TestLastGradeIsTheWorkspaces: the catalog and the task screen show the last grade of the
// app's workspace, kept by the store across restarts, even when a scratch copy was graded
// since; a kata whose workspace was never graded shows another folder's grade naming the
// folder, and a grade that could not run says so rather than "0/0".
func TestLastGradeIsTheWorkspaces(t *testing.T) {
	st := newMemStore()
	root := t.TempDir()
	ws := root + "/mini-kata"
	at := time.Date(2026, 3, 2, 9, 30, 0, 0, time.Local)
	st.grades = []progress.GradeRun{
		{Kata: "mini-kata", Workspace: ws, Status: "pass", Passed: 9, Seed: 42, Duration: 1500 * time.Millisecond, At: at},
		{Kata: "mini-kata", Workspace: "/tmp/scratch", Status: "fail", Passed: 3, Failed: 6, At: at.Add(time.Hour)},
	}
	opts := Options{Store: st, NoColor: true, Workspace: func(id string) string { return root + "/" + id }}
	d := newDriver(t, opts, 100, 30)
	d.mustSee("last grade PASS 9/9 · 0 due")
	d.mustNotSee("3/9")
	d.press("enter", "w")
	d.mustSee("PASS Last grade, 2026-03-02 09:30: 9 passed, 0 failed · seed 42 · 1500 ms", "Press g to grade again and see each test.")

	st.grades = st.grades[1:] // only the scratch copy was ever graded
	d = newDriver(t, opts, 100, 30)
	d.mustSee("last grade FAIL 3/9 (in /tmp/scratch)")
	d.press("enter", "w")
	d.mustSee("Press g to grade the workspace") // the scratch grade is not this workspace's

	st.grades = []progress.GradeRun{{Kata: "mini-kata", Workspace: ws, Status: "error", At: at}}
	d = newDriver(t, opts, 100, 30)
	d.mustSee("last grade ERROR could not grade")
	d.mustNotSee("0/0")
	d.press("enter", "w")
	d.mustSee("Last grade, 2026-03-02 09:30: the workspace could not be graded.")
}

// TestCatalogRereadsStaleCounts checks that cards falling due while the catalog sits open show
// after the next key once a minute has passed, and not at every key before.
func TestCatalogRereadsStaleCounts(t *testing.T) {
	st := newMemStore()
	lib := loadLib(t)
	p, _ := lib.Get("mini-kata")
	d := newDriver(t, Options{Store: st}, 80, 24)
	d.mustSee("due today (0)")
	st.mu.Lock()
	st.due = []progress.DueCard{{CardID: srs.ItemCardID(p.ID, p.Items[0]), Kind: srs.KindItem, Kata: p.ID}}
	st.mu.Unlock()
	d.press("down")
	d.mustSee("due today (0)") // read less than a minute ago
	d.advance(time.Minute)
	d.press("down")
	d.mustSee("due today (1)")
}

func TestTaskRecordsGradeAndOpensEditor(t *testing.T) {
	st := newMemStore()
	grade := func(ctx context.Context, dir string, progress func(grader.Event)) *grader.Report { return stubReport() }
	var ran []string
	fakeExec := func(cmd *exec.Cmd, done tea.ExecCallback) tea.Cmd {
		ran = append(ran, strings.Join(cmd.Args, " ")+" in "+cmd.Dir)
		return func() tea.Msg { return done(nil) }
	}
	root := t.TempDir()
	d := newDriver(t, Options{Store: st, Grade: grade, Exec: fakeExec, Editor: "myeditor --wait", Workspace: func(id string) string { return filepath.Join(root, id) }}, 80, 24)
	d.press("enter", "w", "e")
	d.mustSee("no workspace yet")
	d.press("i", "g")
	d.mustSee("1 passed, 1 failed")
	if len(st.grades) != 1 || st.grades[0].Status != "fail" || st.grades[0].Seed != 4242 || st.grades[0].Passed != 1 || st.grades[0].Failed != 1 {
		t.Errorf("grades %+v", st.grades)
	}
	d.press("e")
	ws := filepath.Join(root, "mini-kata")
	if len(ran) != 1 || ran[0] != "myeditor --wait "+ws+" in "+ws {
		t.Errorf("editor runs %q", ran)
	}
	d.mustSee("Back from the editor.")
}

// TestEditorFromEnvironment: $VISUAL first, then $EDITOR, else nothing (the task page runs vi).
func TestEditorFromEnvironment(t *testing.T) {
	env := map[string]string{}
	get := func(k string) string { return env[k] }
	if ed := Editor(get); ed != "" {
		t.Errorf("no editor set gave %q", ed)
	}
	env["EDITOR"] = "nano"
	if ed := Editor(get); ed != "nano" {
		t.Errorf("EDITOR gave %q", ed)
	}
	env["VISUAL"] = "code -w"
	if ed := Editor(get); ed != "code -w" {
		t.Errorf("VISUAL and EDITOR gave %q", ed)
	}
}

func TestCopyPromptToClipboard(t *testing.T) {
	d := newDriver(t, Options{}, 80, 24)
	d.press("enter", "2")
	d.mustSee("c copy a prompt")
	m := d.m.(Model)
	k := m.sessions["mini-kata"].kata
	cmd := k.Update(keyMsg("c"))
	for _, msg := range d.run(cmd) {
		d.send(msg)
	}
	d.mustSee("Copy which prompt to the clipboard?", "a) Prompts")
	cmd = k.Update(keyMsg("a"))
	if cmd == nil {
		t.Fatal("picking a prompt gave no command")
	}
	if got := strings.ToLower(strings.TrimPrefix(typeName(cmd()), "tea.")); !strings.Contains(got, "clipboard") {
		t.Errorf("the command sends %s, not a clipboard write", got)
	}
	d.send(tea.KeyPressMsg{}) // redraw
	d.mustSee("to the clipboard (OSC 52")
	// At 40 columns the notice wraps rather than losing its end; the frame still fits.
	d.send(tea.WindowSizeMsg{Width: 40, Height: 12})
	d.mustSee("characters).")
	d.checkFrame(40, 12)
}

func TestHelpOverlay(t *testing.T) {
	d := newDriver(t, Options{}, 80, 24)
	d.press("?")
	d.mustSee("Keys — catalog", "mock exam", "review due", "Everywhere", "quit")
	d.press("?")
	d.mustSee("A minimal kata")
	d.press("enter", "?")
	d.mustSee("Keys — kata layers", "d drill", "copy a prompt", "top/bottom")
	d.checkFrame(80, 24)
	d.press("esc")
	d.mustSee("1 knowledge") // esc closed the overlay, it did not go back
	d.press("w", "?")
	d.mustSee("Keys — task", "edit in $EDITOR", "create workspace")
}

func TestMouseWheelScrolls(t *testing.T) {
	d := newDriver(t, Options{}, 80, 8)
	d.press("enter", "t")
	d.mustNotSee("Let the client retry")
	for i := 0; i < 10; i++ {
		d.send(tea.MouseWheelMsg{Button: tea.MouseWheelDown})
	}
	d.mustSee("Let the client retry")
	if v := d.m.View(); v.MouseMode != tea.MouseModeCellMotion {
		t.Errorf("mouse mode %v", v.MouseMode)
	}
}

func TestStartupWarning(t *testing.T) {
	d := newDriver(t, Options{Warning: "progress is not saved: cannot open /x/progress.db"}, 80, 24)
	d.mustSee("⚠ progress is not saved: cannot open /x/progress.db")
	d.checkFrame(80, 24)
	d.press("down")
	d.mustNotSee("⚠")
	d.checkFrame(80, 24)
}

// TestLongWarningWraps checks that a store failure longer than the width is shown whole, on up
// to three lines above the help line, and the frame still fits.
func TestLongWarningWraps(t *testing.T) {
	d := newDriver(t, Options{}, 80, 24)
	d.send(common.StoreErrMsg{Op: "submitting the exam", Err: errors.New("progress store /home/learner/.local/state/kata/progress.db: submitting exam attempt 2: exam attempt 2 is already submitted")})
	d.mustSee("⚠ progress not saved (submitting the exam)", "attempt 2 is already submitted")
	d.checkFrame(80, 24)
	d.mustSee("? keys • q quit")
}

func typeName(v any) string { return fmt.Sprintf("%T", v) }

func TestReviewStartsOverWithFreshCards(t *testing.T) {
	st := newMemStore()
	d := newDriver(t, Options{Store: st, Start: StartReview}, 80, 24)
	d.mustSee("0 due · 4 new")
	for i := 0; i < 4; i++ {
		d.pick(true)
		d.press("n")
	}
	d.mustSee("Review — done", "Score: 4/4")
	d.press("r")
	d.mustSee("Nothing is due and every card has been seen")
}

func TestMouseWheelMovesCatalogCursor(t *testing.T) {
	fsys := fstest.MapFS{}
	copyPacket(t, fsys, "k-one", nil)
	copyPacket(t, fsys, "k-two", nil)
	lib, err := katas.Discover(fsys, "test")
	if err != nil {
		t.Fatal(err)
	}
	d := newDriverLib(t, lib, Options{}, 80, 24)
	d.mustSee("> A minimal kata (k-one)")
	d.send(tea.MouseWheelMsg{Button: tea.MouseWheelDown})
	d.mustSee("> A minimal kata (k-two)")
	d.send(tea.MouseWheelMsg{Button: tea.MouseWheelUp})
	d.mustSee("> A minimal kata (k-one)")
}
