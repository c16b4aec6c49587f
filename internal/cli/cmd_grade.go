package cli

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"

	"github.com/kata-mcp/kata/grader"
	"github.com/kata-mcp/kata/grader/autograder"
	"github.com/kata-mcp/kata/internal/i18n"
	"github.com/kata-mcp/kata/internal/record"
	"github.com/kata-mcp/kata/katas"
	"github.com/kata-mcp/kata/ui"
	"github.com/spf13/cobra"
)

func newGradeCmd() *cobra.Command {
	var (
		asJSON      bool
		seed        int64
		verbose     bool
		watch       bool
		junitFile   string
		resultsFile string
		gradescope  string
		classroom   string
		kata        string
	)
	cmd := &cobra.Command{
		Use:   "grade [DIR]",
		Short: "Grade a workspace against its kata's hidden fixtures (exit 0 pass, 1 fail, 2 error)",
		Args:  cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			var assignment []string // the kata --kata names: the workspace must be of it
			if kata != "" {
				assignment = []string{kata}
			}
			lib, err := loadLibraryNamed(cmd, assignment)
			if err != nil {
				return err
			}
			dir := "."
			if len(args) == 1 {
				dir = args[0]
			}
			ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			opts := grader.Options{Seed: seed, SeedSet: cmd.Flags().Changed("seed")}
			errw := cmd.ErrOrStderr()
			if n := grader.DetectIsolation().NoticeIn(i18n.New(userLocale(cmd))); n != "" {
				note(errw, i18n.New(userLocale(cmd)), i18n.Raw(n))
			}
			if !asJSON && isTerminal(errw) {
				loc := i18n.New(userLocale(cmd))
				var p *katas.Packet // the workspace's kata as the reader reads it, for test names
				if kc, err := grader.LoadKataConfig(dir); err == nil {
					p, _ = localized(cmd, lib).Get(kc.Kata)
				}
				opts.OnEvent = func(e grader.Event) {
					if e.Kind == grader.EventTestStarted {
						name := grader.LocalizeTest(grader.TestResult{ID: e.TestID, Name: e.Test}, loc, p).Name
						fmt.Fprintf(errw, "\r\x1b[K[%d/%d] %s", e.Done+1, e.Total, name)
					}
				}
			}
			rec := record.New(errw, i18n.New(userLocale(cmd))) // saves each run to the progress store; never fails grading
			defer rec.Close()
			// gradeOnce grades and writes the report; after an earlier grading (prev, in
			// --watch) the text says only what changed and the first failure. With --kata, a
			// workspace of another kata gets a report that says so instead of a grading.
			gradeOnce := func(prev *grader.Report) (*grader.Report, error) {
				var rep *grader.Report
				if kata != "" {
					rep = autograder.CheckKata(dir, kata, opts.Seed)
				}
				if rep == nil {
					rep = grader.Grade(ctx, lib, dir, opts)
				}
				if ctx.Err() == nil { // an interrupted run is no verdict: keep the last one
					rec.Record(rep)
				}
				if opts.OnEvent != nil {
					fmt.Fprint(errw, "\r\x1b[K")
				}
				if err := writeReportFiles(rep, resultsFile, junitFile); err != nil {
					return rep, err
				}
				if err := writeAssignmentFiles(lib, kata, rep, gradescope, classroom); err != nil {
					return rep, err
				}
				out := cmd.OutOrStdout()
				if asJSON {
					return rep, grader.WriteJSON(out, rep)
				}
				to := grader.TextOptions{Color: isTerminal(out) && !ui.NoColor(os.Getenv), Verbose: verbose, Loc: i18n.New(userLocale(cmd))}
				if p, ok := localized(cmd, lib).Get(rep.Kata); ok { // step titles as TASK.md has them
					to.Steps, to.Packet = grader.StepTitles(p), p
				}
				if prev != nil {
					grader.WriteChanges(out, prev, rep, to)
				} else {
					grader.WriteText(out, rep, to)
				}
				return rep, nil
			}
			rep, err := gradeOnce(nil)
			if err != nil {
				return err
			}
			if watch {
				loc := i18n.New(userLocale(cmd))
				fmt.Fprintf(errw, "\n%s\n", loc.T("cli.watching", "Dir", dir))
				werr := grader.WatchWorkspace(ctx, dir, grader.DefaultDebounce, func() {
					fmt.Fprintf(errw, "\n── %s ──\n", loc.T("cli.file_changed"))
					if r, err := gradeOnce(rep); err == nil {
						rep = r
					}
					fmt.Fprintf(errw, "\n%s\n", loc.T("cli.watching", "Dir", dir))
				})
				if werr != nil && ctx.Err() == nil {
					return werr
				}
			}
			if !watch && ctx.Err() != nil {
				// interrupted (ctrl-c, SIGTERM): the report says so; the shell convention for a
				// run stopped by a signal is 128+SIGINT, not one of the verdicts 0/1/2
				return exitError{exitInterrupted}
			}
			if code := rep.ExitCode(); code != 0 {
				return exitError{code}
			}
			return nil
		},
	}
	f := cmd.Flags()
	f.BoolVar(&asJSON, "json", false, "print the report as JSON (Exercism results.json v3 fields plus kata, seed, duration_ms)")
	f.Int64Var(&seed, "seed", 0, "repeat a run's random draws (the report prints its seed)")
	f.BoolVarP(&verbose, "verbose", "v", false, "show the learner process's stderr (server or client) for failed tests")
	f.BoolVarP(&watch, "watch", "w", false, "re-grade each time a workspace file is saved (ctrl+c to stop)")
	f.StringVar(&resultsFile, "results", "", "also write the JSON report to `FILE` (always written, even when the submission cannot be graded)")
	f.StringVar(&junitFile, "junit", "", "also write a JUnit XML report to `FILE`, for CI")
	f.StringVar(&gradescope, "gradescope", "", "also write the report as Gradescope's results.json to `FILE` (the autograder of kata export gradescope)")
	f.StringVar(&classroom, "classroom", "", "also append the report as a GitHub Classroom result (a line result=BASE64) to `FILE`, such as \"$GITHUB_OUTPUT\"")
	f.StringVar(&kata, "kata", "", "grade only a workspace of this `KATA`: another kata's workspace is an error report (an assignment's autograder)")
	return cmd
}

// writeAssignmentFiles writes the Gradescope and GitHub Classroom reports asked for, scored
// against the assignment's kata (--kata), else the report's own.
func writeAssignmentFiles(lib *katas.Library, kata string, rep *grader.Report, gradescope, classroom string) error {
	if kata == "" {
		kata = rep.Kata
	}
	p, ok := lib.Get(kata)
	if !ok {
		p = &katas.Packet{} // an unknown kata is worth nothing
	}
	if gradescope != "" {
		if err := writeFileWith(gradescope, func(w io.Writer) error { return autograder.WriteGradescope(w, p, rep) }); err != nil {
			return fmt.Errorf("writing the report: %w", err)
		}
	}
	if classroom != "" {
		f, err := os.OpenFile(classroom, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
		if err != nil {
			return fmt.Errorf("writing the report: %w", err)
		}
		if err := autograder.WriteClassroomOutput(f, p, rep); err != nil {
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
