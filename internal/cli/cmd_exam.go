package cli

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/kata-mcp/kata/internal/i18n"
	"github.com/kata-mcp/kata/katas"
	"github.com/kata-mcp/kata/katas/exam"
	"github.com/kata-mcp/kata/ui"
)

// loadLibraryFor loads the packets (its warnings for the terminal UI to show, see
// warningLines) and checks that every id names one of them; an unknown id is an error naming it
// and the known ones.
func loadLibraryFor(cmd *cobra.Command, ids []string) (*katas.Library, []string, error) {
	var warnings strings.Builder
	lib, err := loadLibraryTo(cmd, &warnings)
	if err != nil {
		return nil, nil, err
	}
	for _, id := range ids {
		if _, ok := lib.Get(id); !ok {
			return nil, nil, unknownKata(id, lib)
		}
	}
	return lib, warningLines(warnings.String(), i18n.New(userLocale(cmd))), nil
}

// loadLibraryNamed is loadLibraryFor for a command without a full-screen UI: the warnings go to
// stderr at once, one a line, as loadLibrary prints them.
func loadLibraryNamed(cmd *cobra.Command, ids []string) (*katas.Library, error) {
	lib, warnings, err := loadLibraryFor(cmd, ids)
	for _, w := range warnings {
		warning(cmd.ErrOrStderr(), i18n.New(userLocale(cmd)), i18n.Raw(w))
	}
	return lib, err
}

func newExamCmd() *cobra.Command {
	var (
		items int
		limit time.Duration
		seed  int64
		pass  int
		theme string
	)
	cmd := &cobra.Command{
		Use:   "exam [KATA...]",
		Short: "Take a timed mock exam drawn across katas (default: every kata, 10 items, 2 minutes an item)",
		Long: "Take a timed mock exam: items drawn evenly across the katas named (default: all), options\n" +
			"shuffled, a countdown, flags for review, no feedback until you submit. The score is shown on a\n" +
			"100–1000 scale (100 + 900 × points/max, pass at 720): our approximation, not the official scaling.\n" +
			"Every answer is saved as you give it; an unfinished exam is offered for resuming.\n\n" +
			"A full-length mock: kata exam --items 60 --time 120m",
		Args: cobra.ArbitraryArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			lib, skipped, err := loadLibraryFor(cmd, args)
			if err != nil {
				return err
			}
			lib = localized(cmd, lib)
			if items < 1 {
				return fmt.Errorf("--items %d: want at least 1", items)
			}
			scale := exam.DefaultScale
			scale.Pass = pass
			if err := scale.Validate(); err != nil {
				return fmt.Errorf("--pass: %w", err)
			}
			t := limit
			switch {
			case !cmd.Flags().Changed("time"):
				t = 0 // the default: 2 minutes an item
			case limit == 0:
				t = -1 // --time 0: untimed
			case limit < 0:
				return fmt.Errorf("--time %s: want a positive duration, or 0 for untimed", limit)
			}
			opts := ui.Options{Start: ui.StartExam, Seed: seed, Exam: ui.ExamOptions{Katas: args, Items: items, Time: t, Scale: scale}, Skipped: skipped, Locale: userLocale(cmd)}
			return runTUIWith(lib, opts, theme)
		},
	}
	f := cmd.Flags()
	f.IntVar(&items, "items", ui.DefaultExamItems, "number of items (more than there are takes them all)")
	f.DurationVar(&limit, "time", 0, "time limit, e.g. 20m or 120m (default 2m an item; 0 = untimed)")
	f.Int64Var(&seed, "seed", 0, "repeat a draw: the same seed gives the same items and option orders")
	f.IntVar(&pass, "pass", exam.DefaultScale.Pass, "passing mark on the 100–1000 scale")
	f.StringVar(&theme, "theme", "", "dark, light or auto (also $KATA_THEME; auto reads $COLORFGBG)")
	return cmd
}

// unknownKata is the error for a kata id no packet has, listing the ids there are, worded in
// the reader's language when main prints it (i18n.Error).
func unknownKata(id string, lib *katas.Library) error {
	if s := suggest(id, lib.IDs()); s != "" {
		return i18n.Err("out.unknown_kata_suggest", "ID", strconv.Quote(id), "Suggest", s, "Known", strings.Join(lib.IDs(), ", "))
	}
	return i18n.Err("out.unknown_kata", "ID", strconv.Quote(id), "Known", strings.Join(lib.IDs(), ", "))
}

// suggest is the known id closest to a mistyped one: within a third of its length in edits
// (at least two), or the one id that contains it or starts it; "" when none is close.
func suggest(id string, known []string) string {
	best, bestD := "", max(len(id)/3, 2)+1
	var holds []string
	for _, k := range known {
		if d := editDistance(strings.ToLower(id), k); d < bestD {
			best, bestD = k, d
		}
		if len(id) >= 3 && strings.Contains(k, strings.ToLower(id)) {
			holds = append(holds, k)
		}
	}
	if best == "" && len(holds) == 1 {
		best = holds[0]
	}
	return best
}

// editDistance is the Levenshtein distance between a and b, by bytes.
func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}
