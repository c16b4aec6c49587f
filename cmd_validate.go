package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"sort"
	"strings"
	"syscall"

	"github.com/spf13/cobra"

	"github.com/kata-mcp/kata/grader"
	"github.com/kata-mcp/kata/grader/reference"
	"github.com/kata-mcp/kata/katas"
	"github.com/kata-mcp/kata/packets"
)

// referenceSeed is the fixtures' seed for `kata validate --references`, so a run repeats.
const referenceSeed = 1

func newValidateCmd() *cobra.Command {
	var seeds, refs string
	var minItems int
	cmd := &cobra.Command{
		Use:   "validate [DIR...]",
		Short: "Check packets and report every problem as file:line (exit 0 none, 1 problems, 2 cannot run)",
		Long: "validate checks the packets in each DIR (a folder of packets, or one packet folder) — with no\n" +
			"DIR, the embedded ones — and prints every problem it finds as file:line: message: a missing\n" +
			"layer, an item with no key or too many, a missing rationale, a rationale naming an option by\n" +
			"letter, an unknown scenario or contract category, a fixture without an expectation, a\n" +
			"coverage row pointing at nothing. docs/packets.md describes the format.\n\n" +
			"--seeds DIR also checks that every line coverage.md cites exists in its seed.\n" +
			"--references DIR also grades, for every graded kata and language, the untouched template\n" +
			"(it must fail) and DIR/<kata>/<lang>/correct laid over it (it must pass).",
		RunE: func(cmd *cobra.Command, args []string) error {
			out := cmd.OutOrStdout()
			opts := katas.ValidateOptions{SeedsDir: seeds, MinItems: minItems}
			var all []katas.Validation
			if len(args) == 0 {
				vs, err := katas.Validate(packets.FS, "embedded", opts)
				if err != nil {
					return err
				}
				all = vs
			}
			for _, dir := range args {
				vs, err := katas.ValidateDir(dir, opts)
				if err != nil {
					return err
				}
				all = append(all, vs...)
			}
			var problems katas.Problems
			for _, v := range all {
				problems = append(problems, v.Problems...)
			}
			var refCounts map[string]int
			if refs != "" {
				ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
				defer stop()
				ps, counts, err := checkReferences(ctx, out, args, all, refs)
				if err != nil {
					return err
				}
				problems = append(problems, ps...)
				refCounts = counts
			}
			for _, p := range problems {
				fmt.Fprintln(out, p)
			}
			writeValidateSummary(out, all, refCounts, problems, seeds != "")
			if len(problems) > 0 {
				return exitError{1}
			}
			return nil
		},
	}
	cmd.Flags().IntVar(&minItems, "min-items", katas.MinItems, "smallest item bank a packet may have (lower it for a small workshop packet)")
	cmd.Flags().StringVar(&seeds, "seeds", "", "folder of the seed documents coverage.md cites: check every cited `DIR`/<seed> line exists")
	cmd.Flags().StringVar(&refs, "references", "", "folder of reference solutions (`DIR`/<kata>/<lang>/correct): templates must fail, references pass")
	return cmd
}

// writeValidateSummary prints one line per packet and a total; refCounts adds each packet's
// problems found by --references (by packet id) to its own.
func writeValidateSummary(w io.Writer, all []katas.Validation, refCounts map[string]int, problems katas.Problems, seeds bool) {
	if len(problems) > 0 {
		fmt.Fprintln(w)
	}
	for _, v := range all {
		p := v.Packet
		n := len(v.Problems)
		if p != nil {
			n += refCounts[p.ID]
		}
		status := "ok"
		if n > 0 {
			status = fmt.Sprintf("%d problem(s)", n)
		}
		if p == nil {
			fmt.Fprintf(w, "%-24s %s\n", v.Dir, status)
			continue
		}
		fmt.Fprintf(w, "%-24s %s · %s · %s · %s (%s) · %s · %s\n",
			p.ID, status, p.Source, plural(len(p.Items), "item"), plural(len(p.Traps), "trap table"), plural(p.TrapCount(), "trap"),
			plural(len(p.Task.Steps), "task step"), plural(p.FixtureCount(), "fixture"))
		for _, s := range v.Seeds {
			line := fmt.Sprintf("%-24s coverage of %s: %d facts on %d seed lines", "", s.Seed, s.Facts, len(s.Lines))
			if seeds && s.TextLines > 0 {
				line += fmt.Sprintf(" (of %d non-blank; not cited: %s)", s.TextLines, intList(s.Uncited))
			}
			fmt.Fprintln(w, line)
		}
	}
	if len(problems) == 0 {
		fmt.Fprintf(w, "%d packet(s), no problem\n", len(all))
		return
	}
	fmt.Fprintf(w, "%d packet(s), %d problem(s)\n", len(all), len(problems))
}

func intList(ns []int) string {
	if len(ns) == 0 {
		return "none"
	}
	s := make([]string, len(ns))
	for i, n := range ns {
		s[i] = fmt.Sprint(n)
	}
	return strings.Join(s, ", ")
}

// checkReferences grades, for every problem-free graded packet of all and each of its
// languages, the untouched template (it must fail: exit 1) and the reference solution
// refs/<kata>/<lang>/correct laid over the template (it must pass: exit 0). Each miss is a
// problem naming the template or reference folder; counts gives their number per packet id.
// Progress lines go to w, and so does a line for each graded packet skipped for its problems.
func checkReferences(ctx context.Context, w io.Writer, dirs []string, all []katas.Validation, refs string) (ps katas.Problems, counts map[string]int, err error) {
	if st, err := os.Stat(refs); err != nil || !st.IsDir() {
		return nil, nil, fmt.Errorf("--references %s: not a folder", refs)
	}
	// The library the grader reads: the embedded packets overridden by the validated folders.
	lib, err := katas.Discover(packets.FS, "embedded")
	if err != nil && len(dirs) == 0 {
		return nil, nil, fmt.Errorf("loading the embedded packets: %w", err)
	}
	for _, d := range dirs {
		lib.AddDir(d) // problems are reported by validation; good packets load
	}
	counts = map[string]int{}
	for _, v := range all {
		p := v.Packet
		if p == nil || len(p.Graded) == 0 {
			continue
		}
		if len(v.Problems) > 0 {
			fmt.Fprintf(w, "references: %-32s not graded: the packet has %d problem(s); fix them first\n", p.ID, len(v.Problems))
			continue
		}
		before := len(ps)
		if q, ok := lib.Get(p.ID); !ok || q.Source != p.Source {
			continue
		}
		for _, lang := range p.Languages {
			if err := ctx.Err(); err != nil {
				return ps, counts, err
			}
			where := p.ID + "/" + lang
			tmpl := filepath.Join(p.Source, p.ID, "templates", lang)
			if p.Source == "embedded" {
				tmpl = filepath.Join("packets", p.ID, "templates", lang)
			}
			rep, err := gradeWorkspace(ctx, lib, p, lang, "")
			switch {
			case err != nil:
				ps = append(ps, &katas.ParseError{File: tmpl, Msg: err.Error()})
			case rep.ExitCode() != 1:
				ps = append(ps, &katas.ParseError{File: tmpl, Msg: fmt.Sprintf("the untouched template must fail grading (exit 1); it gave exit %d%s", rep.ExitCode(), reportNote(rep))})
			default:
				pass, _, _ := rep.Counts()
				fmt.Fprintf(w, "references: %-32s template fails (%d/%d tests pass)\n", where, pass, len(rep.Tests))
			}
			ref := filepath.Join(refs, p.ID, lang, "correct")
			if st, err := os.Stat(ref); err != nil || !st.IsDir() {
				ps = append(ps, &katas.ParseError{File: ref, Msg: "no reference solution: every graded kata and language has one (a workspace that passes, laid over the template)"})
				continue
			}
			rep, err = gradeWorkspace(ctx, lib, p, lang, ref)
			switch {
			case err != nil:
				ps = append(ps, &katas.ParseError{File: ref, Msg: err.Error()})
			case rep.ExitCode() != 0:
				ps = append(ps, &katas.ParseError{File: ref, Msg: fmt.Sprintf("the reference solution must pass grading (exit 0); it gave exit %d%s", rep.ExitCode(), reportNote(rep))})
			default:
				pass, _, _ := rep.Counts()
				fmt.Fprintf(w, "references: %-32s correct passes (%d/%d tests pass)\n", where, pass, len(rep.Tests))
			}
		}
		counts[p.ID] += len(ps) - before
	}
	return ps, counts, nil
}

// gradeWorkspace writes p's template for lang into a temporary folder, lays the reference ref
// over it (reference.Lay; none when ref is empty), grades it with the reference seed, and
// removes the folder.
func gradeWorkspace(ctx context.Context, lib *katas.Library, p *katas.Packet, lang, ref string) (*grader.Report, error) {
	tmp, err := os.MkdirTemp("", "kata-validate-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(tmp)
	dir := filepath.Join(tmp, "ws")
	if err := reference.Lay(p, lang, ref, dir); err != nil {
		return nil, err
	}
	return grader.Grade(ctx, lib, dir, grader.Options{Seed: referenceSeed, SeedSet: true}), nil
}

// reportNote sums up why a report did not have the wanted exit code: its message, or the tests
// that did not pass.
func reportNote(rep *grader.Report) string {
	if rep.Message != "" {
		return ": " + rep.Message
	}
	var ids []string
	for _, t := range rep.Tests {
		if t.Status != grader.StatusPass {
			ids = append(ids, t.ID)
		}
	}
	sort.Strings(ids)
	if len(ids) == 0 {
		return ""
	}
	return "; not passing: " + strings.Join(ids, ", ")
}
