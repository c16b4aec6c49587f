package cli

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"slices"
	"strings"
	"syscall"

	"github.com/spf13/cobra"

	"github.com/kata-mcp/kata/grader/references"
	"github.com/kata-mcp/kata/internal/i18n"
	"github.com/kata-mcp/kata/katas"
	"github.com/kata-mcp/kata/packets"
)

func newValidateCmd() *cobra.Command {
	var seeds, refs string
	var minItems int
	var strict bool
	cmd := &cobra.Command{
		Use:   "validate [DIR...]",
		Short: "Check packets and report every problem as file:line (exit 0 none, 1 problems, 2 cannot run)",
		Long: "validate checks the packets in each DIR (a folder of packets, or one packet folder) — with no\n" +
			"DIR, the embedded ones — and prints every problem it finds as file:line: message: a missing\n" +
			"layer, an item with no key or too many, a missing rationale, a rationale naming an option by\n" +
			"letter, an unknown scenario or contract category, a fixture without an expectation, a\n" +
			"coverage row pointing at nothing. docs/packets.md describes the format.\n\n" +
			"It also warns about item-writing cues (a key much longer than its distractors, the longest\n" +
			"option as key too often, \"all/none of these\", a key echoing the stem, a title sharing the\n" +
			"key's words, a near-duplicate stem in another packet); --strict counts them as problems.\n\n" +
			"--seeds DIR also checks that every line coverage.md cites exists in its seed.\n" +
			"--references DIR also grades, for every graded kata and language, the untouched template\n" +
			"(it must fail) and DIR/<kata>/<lang>/correct laid over it (it must pass).",
		RunE: func(cmd *cobra.Command, args []string) error {
			out := cmd.OutOrStdout()
			if minItems < 1 {
				return fmt.Errorf("--min-items %d: the smallest item bank is at least 1 item (default %d)", minItems, katas.MinItems)
			}
			opts := katas.ValidateOptions{SeedsDir: seeds, MinItems: minItems, Shims: katas.ShimsOf(packets.FS)}
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
			others := mockExamPackets(cmd)
			katas.CheckNearDuplicates(all, others)
			katas.CheckGroups(all, others)
			var problems, warnings katas.Problems
			for i, v := range all {
				if strict {
					all[i].Problems = append(all[i].Problems, v.Warnings...)
					all[i].Warnings = nil
				}
				problems = append(problems, all[i].Problems...)
				warnings = append(warnings, all[i].Warnings...)
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
			for _, w := range warnings {
				fmt.Fprintf(out, "warning: %s\n", w)
			}
			writeValidateSummary(out, i18n.New(userLocale(cmd)), all, refCounts, problems, warnings, seeds != "")
			if len(problems) > 0 {
				return exitError{1}
			}
			return nil
		},
	}
	cmd.Flags().BoolVar(&strict, "strict", false, "count item-writing warnings as problems (exit 1)")
	cmd.Flags().IntVar(&minItems, "min-items", katas.MinItems, "smallest item bank a packet may have (lower it for a small workshop packet)")
	cmd.Flags().StringVar(&seeds, "seeds", "", "folder of the seed documents coverage.md cites: check every cited `DIR`/<seed> line exists")
	cmd.Flags().StringVar(&refs, "references", "", "folder of reference solutions (`DIR`/<kata>/<lang>/correct): templates must fail, references pass")
	return cmd
}

// mockExamPackets are the packets a mock exam can draw beside the validated ones: the embedded
// packets, then $KATA_PATH and --packets as loadLibrary reads them. A folder that does not load
// is left out without a word (its own validation, or any other command, reports it).
func mockExamPackets(cmd *cobra.Command) []*katas.Packet {
	lib, _ := katas.Discover(packets.FS, "embedded")
	for _, d := range slices.Backward(filepath.SplitList(os.Getenv("KATA_PATH"))) {
		if d != "" {
			lib.AddDir(d)
		}
	}
	dirs, _ := cmd.Flags().GetStringArray(packetsFlag)
	for _, d := range dirs {
		lib.AddDir(d)
	}
	return lib.Packets()
}

// writeValidateSummary prints one line per packet and a total; refCounts adds each packet's
// problems found by --references (by packet id) to its own; loc words it.
func writeValidateSummary(w io.Writer, loc *i18n.Localizer, all []katas.Validation, refCounts map[string]int, problems, warnings katas.Problems, seeds bool) {
	if len(problems)+len(warnings) > 0 {
		fmt.Fprintln(w)
	}
	for _, v := range all {
		p := v.Packet
		n := len(v.Problems)
		if p != nil {
			n += refCounts[p.ID]
		}
		status := loc.T("validate.ok")
		if n > 0 {
			status = loc.N("validate.problems", n)
		}
		if p == nil {
			fmt.Fprintf(w, "%-24s %s\n", v.Dir, status)
			continue
		}
		fmt.Fprintf(w, "%-24s %s · %s · %s · %s (%s) · %s · %s\n",
			p.ID, status, p.Source, loc.N("count.item", len(p.Items)), loc.N("count.table", len(p.Traps)), loc.N("count.trap", p.TrapCount()),
			loc.N("count.step", len(p.Task.Steps)), loc.N("count.fixture", p.FixtureCount())+warnNote(loc, len(v.Warnings)))
		for _, s := range v.Seeds {
			line := fmt.Sprintf("%-24s ", "") + loc.T("out.seed_facts", "Seed", seedName(s), "Facts", loc.N("out.facts", s.Facts), "Lines", loc.N("out.lines", len(s.Lines)))
			if seeds && s.TextLines > 0 {
				line += " " + loc.T("out.seed_uncited", "Total", s.TextLines, "Uncited", intList(s.Uncited))
			}
			fmt.Fprintln(w, line)
		}
	}
	total := loc.N("validate.packets", len(all)) + ", " + loc.N("validate.problems", len(problems))
	if len(problems) == 0 {
		total = loc.N("validate.packets", len(all)) + ", " + loc.T("validate.no_problem")
	}
	if len(warnings) > 0 {
		total += ", " + loc.N("validate.warnings_strict", len(warnings))
	}
	fmt.Fprintln(w, total)
}

// warnNote is " · N item-writing warning(s)" for a summary line, "" for none.
func warnNote(loc *i18n.Localizer, n int) string {
	if n == 0 {
		return ""
	}
	return " · " + loc.N("validate.warnings", n)
}

// seedName names a seed for the summary: its title and file, or its file when coverage.md gives
// it no title.
func seedName(s katas.SeedCoverage) string {
	if s.Title == "" {
		return s.Seed
	}
	return fmt.Sprintf("“%s” (%s)", s.Title, s.Seed)
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

// checkReferences grades the references of the validated packets (references.Check) with the
// library the grader reads: the embedded packets overridden by the validated folders.
func checkReferences(ctx context.Context, w io.Writer, dirs []string, all []katas.Validation, refs string) (katas.Problems, map[string]int, error) {
	lib, err := katas.Discover(packets.FS, "embedded")
	if err != nil && len(dirs) == 0 {
		return nil, nil, fmt.Errorf("loading the embedded packets: %w", err)
	}
	for _, d := range dirs {
		lib.AddDir(d) // problems are reported by validation; good packets load
	}
	return references.Check(ctx, w, lib, all, refs)
}
