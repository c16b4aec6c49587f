package cli

import (
	"encoding/json"
	"io"
	"time"

	"github.com/spf13/cobra"

	"github.com/kata-mcp/kata/internal/i18n"
	"github.com/kata-mcp/kata/internal/progress"
)

func newStatsCmd() *cobra.Command {
	var asJSON, items bool
	cmd := &cobra.Command{
		Use:   "stats",
		Short: "Summarise your progress: layers read, answers, exam scores, grading runs, cards due",
		Long: "stats summarises the progress file ($KATA_STATE, or $XDG_STATE_HOME/kata/progress.db):\n" +
			"per kata the layers read, items answered and right, the best exam score, the last grade and\n" +
			"the cards due now; then the totals. Answers saved in an unfinished exam count as answered,\n" +
			"not yet as right or wrong.\n\n" +
			"--items lists instead, for every exam item you answered, its p-value (the share of your\n" +
			"answers that were right) and how often you chose each option.",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			lib, err := loadLibrary(cmd)
			if err != nil {
				return err
			}
			path, err := progress.DefaultPath()
			if err != nil {
				return err
			}
			// in a workshop, what waits in the queue goes to the board first
			sendQueued(cmd.ErrOrStderr(), i18n.New(userLocale(cmd)))
			out := cmd.OutOrStdout()
			if !asJSON {
				lib = localized(cmd, lib) // the text in the reader's language; JSON stays English
			}
			if items {
				rep, err := progress.ReadItemReport(lib, path)
				if err != nil {
					return err
				}
				if asJSON {
					return writeJSON(out, rep)
				}
				rep.WriteTextIn(out, i18n.New(userLocale(cmd)))
				return nil
			}
			rep, err := progress.BuildReport(lib, path, time.Now())
			if err != nil {
				return err
			}
			if asJSON {
				return writeJSON(out, rep)
			}
			rep.WriteTextIn(out, i18n.New(userLocale(cmd)))
			return nil
		},
	}
	cmd.Flags().BoolVar(&items, "items", false, "item analysis of your answers: each item's p-value and how often each option was chosen (with --json: items[] with p_value and options[].chosen)")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON (snake_case fields: totals, open_attempt, and katas[] with layers_read, answered, correct, best_scaled, last_grade, due)")
	return cmd
}

// writeJSON writes v as indented JSON.
func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}
