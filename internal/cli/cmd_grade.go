package cli

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"slices"
	"sync"
	"syscall"

	"github.com/kata-mcp/kata/grader"
	"github.com/kata-mcp/kata/grader/autograder"
	"github.com/kata-mcp/kata/grader/sandbox"
	"github.com/kata-mcp/kata/internal/i18n"
	"github.com/kata-mcp/kata/internal/record"
	"github.com/kata-mcp/kata/katas"
	"github.com/kata-mcp/kata/ui"
	"github.com/spf13/cobra"
)

// gradeFlags are kata grade's flags.
type gradeFlags struct {
	asJSON      bool
	seed        int64
	verbose     bool
	watch       bool
	junitFile   string
	resultsFile string
	gradescope  string
	classroom   string
	kata        string
	workflowSum string
	visibility  string
}

func newGradeCmd() *cobra.Command {
	var f gradeFlags
	cmd := &cobra.Command{
		Use:   "grade [DIR]",
		Short: "Grade a workspace against its kata's hidden fixtures (exit 0 pass, 1 fail, 2 error)",
		Args:  cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			dir := "."
			if len(args) == 1 {
				dir = args[0]
			}
			return runGrade(cmd, dir, f)
		},
	}
	fl := cmd.Flags()
	fl.BoolVar(&f.asJSON, "json", false, "print the report as JSON (Exercism results.json v3 fields plus kata, seed, duration_ms)")
	fl.Int64Var(&f.seed, "seed", 0, "repeat a run's random draws (the report prints its seed)")
	fl.BoolVarP(&f.verbose, "verbose", "v", false, "show the learner process's stderr (server or client) for failed tests")
	fl.BoolVarP(&f.watch, "watch", "w", false, "re-grade each time a workspace file is saved (ctrl+c to stop)")
	fl.StringVar(&f.resultsFile, "results", "", "also write the JSON report to `FILE` (always written, even when the submission cannot be graded)")
	fl.StringVar(&f.junitFile, "junit", "", "also write a JUnit XML report to `FILE`, for CI")
	fl.StringVar(&f.gradescope, "gradescope", "", "also write the report as Gradescope's results.json to `FILE` (the autograder of kata export gradescope)")
	fl.StringVar(&f.classroom, "classroom", "", "also append the report as a GitHub Classroom result (a line result=BASE64) to `FILE`, such as \"$GITHUB_OUTPUT\"")
	fl.StringVar(&f.visibility, "visibility", "", "with --gradescope: every test's Gradescope visibility, `VIS`: visible, hidden, after_due_date or after_published")
	fl.StringVar(&f.workflowSum, "workflow", "", "with --classroom: check .github/workflows/classroom.yml against the SHA-256 `HASH` kata export classroom gave it, and report a workflow that differs")
	fl.StringVar(&f.kata, "kata", "", "grade only a workspace of this `KATA`: another kata's workspace is an error report (an assignment's autograder)")
	return cmd
}

// grading is one kata grade command: its flags, the library, the workspace and where it writes.
type grading struct {
	cmd  *cobra.Command
	f    gradeFlags
	lib  *katas.Library
	dir  string
	loc  *i18n.Localizer
	opts grader.Options
	rec  *record.Recorder
}

// runGrade grades dir once, or on every save with --watch, and turns the verdict into the exit
// status (docs/grading.md#exit-codes): 0 pass, 1 fail, 2 cannot grade, 130 interrupted.
func runGrade(cmd *cobra.Command, dir string, f gradeFlags) error {
	var assignment []string // the kata --kata names: the workspace must be of it
	if f.kata != "" {
		assignment = []string{f.kata}
	}
	lib, err := loadLibraryNamed(cmd, assignment)
	if err != nil {
		return err
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	g := &grading{cmd: cmd, f: f, lib: lib, dir: dir, loc: i18n.New(userLocale(cmd)),
		opts: grader.Options{Seed: f.seed, SeedSet: cmd.Flags().Changed("seed")}}
	errw := cmd.ErrOrStderr()
	if n := sandbox.DetectIsolation().NoticeIn(g.loc); n != "" {
		note(errw, g.loc, i18n.Raw(n))
	}
	switch {
	case f.asJSON:
	case isTerminal(errw):
		g.opts.OnEvent = g.progressLine()
	default:
		g.opts.OnEvent = g.progressLog()
	}
	g.rec = record.New(errw, g.loc) // saves each run to the progress store; never fails grading
	defer g.rec.Close()
	rep, err := g.once(ctx, nil)
	if err != nil {
		return err
	}
	if f.watch {
		if rep, err = g.watch(ctx, rep); err != nil {
			return err
		}
	} else if ctx.Err() != nil {
		// interrupted (ctrl-c, SIGTERM): the report says so; the shell convention for a run
		// stopped by a signal is 128+SIGINT, not one of the verdicts 0/1/2
		return exitError{exitInterrupted}
	}
	if code := rep.ExitCode(); code != 0 {
		return exitError{code}
	}
	return nil
}

// progressLine returns the OnEvent that keeps one line on the terminal naming the running
// test, in the reader's language.
func (g *grading) progressLine() func(grader.Event) {
	errw := g.cmd.ErrOrStderr()
	var p *katas.Packet // the workspace's kata as the reader reads it, for test names
	if kc, err := grader.LoadKataConfig(g.dir); err == nil {
		p, _ = localized(g.cmd, g.lib).Get(kc.Kata)
	}
	return func(e grader.Event) {
		if e.Kind == grader.EventTestStarted {
			name := grader.LocalizeTest(grader.TestResult{ID: e.TestID, Name: e.Test}, g.loc, p).Name
			fmt.Fprintf(errw, "\r\x1b[K[%d/%d] %s", e.Done+1, e.Total, name)
		}
	}
}

// progressLog returns the OnEvent for a stderr that is not a terminal (piped, logged): a line
// when the workspace's build starts, since a first Go build takes long enough to look hung,
// and nothing per test.
func (g *grading) progressLog() func(grader.Event) {
	errw := g.cmd.ErrOrStderr()
	var once sync.Once
	return func(e grader.Event) {
		if e.Kind == grader.EventInfo && e.Says.ID == "harness.progress.building" {
			once.Do(func() { note(errw, g.loc, i18n.M("cli.building")) })
		}
	}
}

// withFirstVerdict wraps onEvent (which may be nil) so that, once every test of first (the
// ones that failed last time, run first) has finished, a line on w says how many pass now,
// before the rest of the grading ends. On a terminal the line first clears the progress line.
func withFirstVerdict(w io.Writer, loc *i18n.Localizer, first []string, onEvent func(grader.Event)) func(grader.Event) {
	clear := ""
	if isTerminal(w) {
		clear = "\r\x1b[K"
	}
	left, pass := len(first), 0
	return func(e grader.Event) {
		if onEvent != nil {
			onEvent(e)
		}
		if e.Kind != grader.EventTestFinished || e.Result == nil || !slices.Contains(first, e.TestID) || left == 0 {
			return
		}
		if e.Result.Status == grader.StatusPass {
			pass++
		}
		if left--; left == 0 {
			fmt.Fprintf(w, "%s%s\n", clear, loc.T("cli.first_verdict", "Pass", pass, "Total", len(first)))
		}
	}
}

// once grades and writes the report; after an earlier grading (prev, in --watch) the text says
// only what changed and the first failure. With --kata, a workspace of another kata gets a
// report that says so instead of a grading.
func (g *grading) once(ctx context.Context, prev *grader.Report) (*grader.Report, error) {
	var rep *grader.Report
	if g.f.kata != "" {
		rep = autograder.CheckKata(g.dir, g.f.kata, g.opts.Seed)
	}
	if rep == nil {
		opts := g.opts
		if prev != nil { // a re-grade in --watch: the tests that failed last time run first
			opts.First = grader.Failing(prev)
			if len(opts.First) > 0 && !g.f.asJSON {
				opts.OnEvent = withFirstVerdict(g.cmd.ErrOrStderr(), g.loc, opts.First, opts.OnEvent)
			}
		}
		rep = grader.Grade(ctx, g.lib, g.dir, opts)
	}
	if ctx.Err() == nil { // an interrupted run is no verdict: keep the last one
		g.rec.Record(rep)
	}
	if g.opts.OnEvent != nil && isTerminal(g.cmd.ErrOrStderr()) { // clear the progress line
		fmt.Fprint(g.cmd.ErrOrStderr(), "\r\x1b[K")
	}
	if err := writeReportFiles(rep, g.f.resultsFile, g.f.junitFile); err != nil {
		return rep, err
	}
	workflow := ""
	if g.f.workflowSum != "" {
		if workflow = autograder.CheckWorkflow(g.dir, g.f.workflowSum); workflow != "" {
			warning(g.cmd.ErrOrStderr(), g.loc, i18n.M("out.workflow_differs", "Problem", workflow))
		}
	}
	if err := writeAssignmentFiles(g.lib, g.f.kata, rep, g.f.gradescope, g.f.visibility, g.f.classroom, workflow); err != nil {
		return rep, err
	}
	out := g.cmd.OutOrStdout()
	if g.f.asJSON {
		return rep, grader.WriteJSON(out, rep)
	}
	to := grader.TextOptions{Color: isTerminal(out) && !ui.NoColor(os.Getenv), Verbose: g.f.verbose, Loc: g.loc}
	if p, ok := localized(g.cmd, g.lib).Get(rep.Kata); ok { // step titles as TASK.md has them
		to.Steps, to.Packet = grader.StepTitles(p), p
	}
	if prev != nil {
		grader.WriteChanges(out, prev, rep, to)
	} else {
		grader.WriteText(out, rep, to)
	}
	return rep, nil
}

// watch grades again on every save until ctx ends, each report saying what changed since the
// one before; it returns the last report, whose verdict is the exit status.
func (g *grading) watch(ctx context.Context, rep *grader.Report) (*grader.Report, error) {
	errw := g.cmd.ErrOrStderr()
	fmt.Fprintf(errw, "\n%s\n", g.loc.T("cli.watching", "Dir", g.dir))
	err := grader.WatchWorkspace(ctx, g.dir, grader.DefaultDebounce, func() {
		fmt.Fprintf(errw, "\n── %s ──\n", g.loc.T("cli.file_changed"))
		if r, err := g.once(ctx, rep); err == nil {
			rep = r
		}
		fmt.Fprintf(errw, "\n%s\n", g.loc.T("cli.watching", "Dir", g.dir))
	})
	if err != nil && ctx.Err() == nil {
		return rep, err
	}
	return rep, nil
}

// writeAssignmentFiles writes the Gradescope and GitHub Classroom reports asked for, scored
// against the assignment's kata (--kata), else the report's own.
func writeAssignmentFiles(lib *katas.Library, kata string, rep *grader.Report, gradescope, visibility, classroom, workflow string) error {
	if kata == "" {
		kata = rep.Kata
	}
	p, ok := lib.Get(kata)
	if !ok {
		p = &katas.Packet{} // an unknown kata is worth nothing
	}
	if gradescope != "" {
		if err := writeFileWith(gradescope, func(w io.Writer) error { return autograder.WriteGradescope(w, p, rep, visibility) }); err != nil {
			return fmt.Errorf("writing the report: %w", err)
		}
	}
	if classroom != "" {
		f, err := os.OpenFile(classroom, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
		if err != nil {
			return fmt.Errorf("writing the report: %w", err)
		}
		if err := autograder.WriteClassroomOutput(f, p, rep, workflow); err != nil {
			f.Close()
			return fmt.Errorf("writing %s: %w", classroom, err)
		}
		return f.Close()
	}
	return nil
}

// writeReportFiles writes the reports asked for with --results and --junit.
func writeReportFiles(rep *grader.Report, resultsFile, junitFile string) error {
	write := func(path string, fn func(io.Writer, *grader.Report) error) error {
		if path == "" {
			return nil
		}
		f, err := os.Create(path)
		if err != nil {
			return fmt.Errorf("writing the report: %w", err)
		}
		if err := fn(f, rep); err != nil {
			f.Close()
			return fmt.Errorf("writing %s: %w", path, err)
		}
		return f.Close()
	}
	if err := write(resultsFile, grader.WriteJSON); err != nil {
		return err
	}
	return write(junitFile, grader.WriteJUnit)
}

// note writes "kata: note: …" with m, in loc's language, on w (stderr).
func note(w io.Writer, loc *i18n.Localizer, m i18n.Msg) {
	fmt.Fprintln(w, loc.T("out.note", "Text", loc.Say(m)))
}

// warning writes "kata: warning: …" with m, in loc's language, on w (stderr).
func warning(w io.Writer, loc *i18n.Localizer, m i18n.Msg) {
	fmt.Fprintln(w, loc.T("out.warning", "Text", loc.Say(m)))
}
