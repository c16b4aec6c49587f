package cli

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/adrg/xdg"
	"github.com/spf13/cobra"

	"github.com/kata-mcp/kata/grader/class"
	"github.com/kata-mcp/kata/grader/sandbox"
	"github.com/kata-mcp/kata/internal/i18n"
	"github.com/kata-mcp/kata/katas"
)

// newClassCmd is the group of commands for instructor-led workshops.
func newClassCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "class",
		Short: "A class at once: grade every workspace (grade), and drive the live workshop kata serve runs (open, quiz, reveal, end-quiz, close)",
		Args:  cobra.NoArgs,
		RunE:  func(cmd *cobra.Command, args []string) error { return cmd.Help() },
	}
	cmd.AddCommand(newClassGradeCmd(), newClassExportCmd())
	return cmd
}

// classFlags are the flags of `kata class grade`.
type classFlags struct {
	seed                   int64
	jobs                   int
	regrade, anonymize     bool
	noIsolation, learnerFs bool
	noInstall              bool
	out, html, csv, json   string
	kata, roster           string
	timeout                time.Duration
}

func newClassGradeCmd() *cobra.Command {
	var f classFlags
	cmd := &cobra.Command{
		Use:   "grade DIR...",
		Short: "Grade every learner of a class with one seed, in parallel, resumably; report the rules the class fails most",
		Long: "kata class grade DIR... grades a folder of learner workspaces (one subfolder per learner, such as a GitHub\n" +
			"Classroom clone folder) or several workspace folders, every learner with the same seed, --jobs at a time.\n" +
			"Each result is saved in OUT/results.db as soon as it is ready: run the same command again after a crash\n" +
			"or ctrl-c and only the learners without a result, or whose folder changed, are graded (--regrade: all).\n" +
			"It prints a summary (each learner's tests and points, the rules the class fails most, who cannot be\n" +
			"graded) and writes OUT/report.html, a self-contained page with a learners × steps heatmap.\n" +
			"Exit 0 when every learner has a result (whatever the verdicts), 2 when kata cannot run, 130 when interrupted.",
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error { return runClassGrade(cmd, args, f) },
	}
	fl := cmd.Flags()
	fl.StringVar(&f.kata, "kata", "", "the class's kata: a learner whose workspace is for another one is a cannot-grade row (default: the kata most learners' kata.json name)")
	fl.Int64Var(&f.seed, "seed", 0, "grade every learner with this seed (default: the class's from its results store, or a new one)")
	fl.IntVar(&f.jobs, "jobs", class.DefaultJobs(), "learners graded at once")
	fl.BoolVar(&f.regrade, "regrade", false, "grade every learner again, even those whose folder did not change since their result")
	fl.StringVar(&f.out, "out", "kata-class", "`DIR` for the class results store (results.db) and the HTML report")
	fl.StringVar(&f.html, "html", "", "write the HTML report to `FILE` (default OUT/report.html)")
	fl.StringVar(&f.csv, "csv", "", "also write the class as CSV to `FILE` (one row per learner, a column per task step; - for stdout)")
	fl.StringVar(&f.json, "json", "", "also write the class report as JSON to `FILE` (- for stdout)")
	fl.BoolVar(&f.learnerFs, "learner-files", false, "also write each learner's results.json and JUnit XML into OUT/learners/")
	fl.BoolVar(&f.anonymize, "anonymize", false, "replace learner names by stable pseudonyms, and folder paths and names in learner output by them, in every report and on stderr; the results store is then kept in kata's state folder, not in OUT")
	fl.StringVar(&f.roster, "roster", "", "a CSV `FILE` mapping learners (folder,student_id,email) to the school's student ids: the CSV gets student_id and email columns")
	fl.BoolVar(&f.noInstall, "no-install", false, "do not install SDK learners' dependencies (npm ci --ignore-scripts, go mod download from their lock files) before grading them")
	fl.BoolVar(&f.noIsolation, "no-isolation", false, "grade although the grader cannot isolate learner code (only code you would run yourself)")
	fl.DurationVar(&f.timeout, "timeout", class.DefaultTimeout, "stop one learner's grade after this long (beyond the grader's own deadlines)")
	return cmd
}

func runClassGrade(cmd *cobra.Command, args []string, f classFlags) error {
	lib, err := loadLibrary(cmd)
	if err != nil {
		return err
	}
	if f.anonymize && f.roster != "" {
		return i18n.Err("class.cli.anonymize_roster")
	}
	var roster *class.Roster
	if f.roster != "" {
		if roster, err = class.ReadRoster(f.roster); err != nil {
			return err
		}
	}
	learners, err := class.Discover(args, f.out)
	if err != nil {
		return err
	}
	if f.kata != "" {
		if _, ok := lib.Get(f.kata); !ok {
			return fmt.Errorf("--kata %s: unknown kata (known: %s)", f.kata, strings.Join(lib.IDs(), ", "))
		}
	}
	kata, naming := class.Assignment(learners, f.kata)
	storePath, err := classStorePath(f.out, f.anonymize)
	if err != nil {
		return err
	}
	store, err := class.OpenStore(storePath)
	if err != nil {
		return err
	}
	defer store.Close()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	errw := cmd.ErrOrStderr()
	loc := i18n.New(userLocale(cmd))
	// the assignment first: what the class is graded for, and how it was chosen
	switch {
	case kata == "":
	case f.kata != "":
		note(errw, loc, i18n.M("class.cli.assignment_given", "Kata", kata, "N", naming, "Total", len(learners)))
	default:
		note(errw, loc, i18n.M("class.cli.assignment_most", "Kata", kata, "N", naming, "Total", len(learners)))
	}
	// the isolation line: what the sandbox does not bound here (Run refuses on its own, with
	// its reason, when there is no isolation and --no-isolation was not given)
	if iso := sandbox.DetectIsolation(); iso.Isolated() || f.noIsolation {
		if n := iso.NoticeIn(loc); n != "" {
			note(errw, loc, i18n.Raw(n))
		}
	}
	ticker := class.NewTicker(errw, isTerminal(errw), loc)
	var key []byte
	if f.anonymize {
		if key, err = store.PseudonymKey(); err != nil {
			return err
		}
		ticker.Anonymize(key)
	}
	opts := class.Options{Kata: kata, Seed: f.seed, SeedSet: cmd.Flags().Changed("seed"), Jobs: f.jobs, Regrade: f.regrade,
		NoIsolation: f.noIsolation, Timeout: f.timeout, OnEvent: ticker.Event}
	if !f.noInstall {
		// one download cache for the whole class, beside its results
		cache, err := filepath.Abs(filepath.Join(f.out, "deps-cache"))
		if err != nil {
			return err
		}
		opts.Deps = &class.Deps{Cache: cache}
	}
	batch, runErr := class.Run(ctx, lib, store, learners, opts)
	ticker.Done()
	if batch == nil {
		return runErr
	}
	bo := class.BuildOptions{Generated: time.Now(), PseudonymKey: key, Roster: roster}
	if roster != nil {
		var missing []string
		for _, l := range learners {
			if _, ok := roster.Lookup(l.Name); !ok {
				missing = append(missing, l.Name)
			}
		}
		if len(missing) > 0 {
			warning(errw, loc, i18n.M("class.cli.roster_missing", "Roster", f.roster, "N", len(missing), "Names", strings.Join(missing, ", ")))
		}
	}
	rep := class.BuildReport(lib, batch, bo)
	if err := writeClassReports(cmd, lib, rep, f, loc); err != nil {
		return err
	}
	if errors.Is(runErr, context.Canceled) {
		fmt.Fprintln(errw, loc.T("class.cli.interrupted", "Done", len(batch.Results), "Total", len(learners)))
		return exitError{exitInterrupted}
	}
	return runErr
}

// writeClassReports writes the summary (unless --csv or --json takes stdout) and the HTML
// report in loc's language, and the files asked for, naming each file written on stderr.
func writeClassReports(cmd *cobra.Command, lib *katas.Library, rep *class.Report, f classFlags, loc *i18n.Localizer) error {
	out, errw := cmd.OutOrStdout(), cmd.ErrOrStderr()
	// the summary and the HTML report in the reader's words; CSV and JSON in English
	shown := class.Localize(rep, loc, localized(cmd, lib))
	if f.csv != "-" && f.json != "-" {
		class.WriteText(out, shown, loc)
	}
	writeHTML := func(w io.Writer, _ *class.Report) error { return class.WriteHTML(w, shown, loc) }
	html := f.html
	if html == "" {
		html = filepath.Join(f.out, "report.html")
	}
	files := []struct {
		path  string
		write func(io.Writer, *class.Report) error
	}{{html, writeHTML}, {f.csv, class.WriteCSV}, {f.json, class.WriteJSON}}
	for _, file := range files {
		switch file.path {
		case "":
			continue
		case "-":
			if err := file.write(out, rep); err != nil {
				return err
			}
			continue
		}
		if err := writeFileWith(file.path, func(w io.Writer) error { return file.write(w, rep) }); err != nil {
			return err
		}
		fmt.Fprintln(errw, loc.T("class.cli.wrote", "Path", file.path))
	}
	if f.learnerFs {
		paths, err := class.WriteLearnerFiles(filepath.Join(f.out, "learners"), rep)
		if err != nil {
			return err
		}
		fmt.Fprintln(errw, loc.T("class.cli.wrote_learner_files", "N", len(paths), "Dir", filepath.Join(f.out, "learners")))
	}
	return nil
}

// writeFileWith creates path (and its folder) and writes it through fn. Class output holds
// every learner's results: like kata's own state, the folder is created 0700 and the file 0600.
func writeFileWith(path string, fn func(io.Writer) error) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return err
	}
	w, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o600)
	if err != nil {
		return err
	}
	if err := fn(w); err != nil {
		w.Close()
		return fmt.Errorf("writing %s: %w", path, err)
	}
	return w.Close()
}

// classStorePath is where a class's results store lives: OUT/results.db, or, for an anonymized
// run, kata's own state ($XDG_STATE_HOME/kata/classes/ID/results.db, ID from OUT's absolute
// path, folders 0700), so that the folder an instructor shares holds neither the learners'
// names and folders nor the pseudonym key. A store that a named run left in OUT is moved
// there first, with its WAL files, so the class still resumes and no named file stays beside
// the pseudonymous ones.
func classStorePath(out string, anonymize bool) (string, error) {
	named := filepath.Join(out, class.StoreFile)
	if !anonymize {
		return named, nil
	}
	abs, err := filepath.Abs(out)
	if err != nil {
		return "", err
	}
	stateHome := os.Getenv("XDG_STATE_HOME")
	if stateHome == "" {
		stateHome = xdg.StateHome
	}
	if stateHome == "" {
		return "", fmt.Errorf("--anonymize keeps the class's results store in kata's state folder: set XDG_STATE_HOME")
	}
	sum := sha256.Sum256([]byte(abs))
	dir := filepath.Join(stateHome, "kata", "classes", hex.EncodeToString(sum[:8]))
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", err
	}
	if err := os.Chmod(dir, 0o700); err != nil {
		return "", err
	}
	path := filepath.Join(dir, class.StoreFile)
	_, haveStore := os.Stat(path)
	for _, suffix := range []string{"", "-wal", "-shm"} {
		from := named + suffix
		if _, err := os.Lstat(from); err != nil {
			continue
		}
		if haveStore == nil {
			// the state already holds this class's store: the named copy only goes
			if err := os.Remove(from); err != nil {
				return "", err
			}
			continue
		}
		if err := moveFile(from, path+suffix); err != nil {
			return "", fmt.Errorf("moving the named results store out of %s: %w", out, err)
		}
	}
	return path, nil
}

// moveFile renames from to to, or copies it (mode 0600) and removes it where a rename cannot
// cross file systems.
func moveFile(from, to string) error {
	if err := os.Rename(from, to); err == nil {
		return nil
	}
	b, err := os.ReadFile(from)
	if err != nil {
		return err
	}
	if err := os.WriteFile(to, b, 0o600); err != nil {
		return err
	}
	return os.Remove(from)
}
