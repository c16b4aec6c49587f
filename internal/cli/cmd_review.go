package cli

import (
	"github.com/spf13/cobra"

	"github.com/kata-mcp/kata/ui"
)

func newReviewCmd() *cobra.Command {
	var theme string
	cmd := &cobra.Command{
		Use:   "review [KATA...]",
		Short: "Review the cards due today (exam items and trap rows), plus up to 10 new ones",
		Long: "Review the spaced-repetition cards due now — exam items and trap-table rows of the katas named\n" +
			"(default: all), most overdue first — then up to 10 cards never seen. Each answer rates its\n" +
			"card (FSRS): wrong → again, right → good, right within 15 s → easy.",
		Args: cobra.ArbitraryArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			lib, skipped, err := loadLibraryFor(cmd, args)
			if err != nil {
				return err
			}
			return runTUIWith(localized(cmd, lib), ui.Options{Start: ui.StartReview, Exam: ui.ExamOptions{Katas: args}, Skipped: skipped, Locale: userLocale(cmd)}, theme)
		},
	}
	cmd.Flags().StringVar(&theme, "theme", "", "dark, light or auto (also $KATA_THEME; auto reads $COLORFGBG)")
	return cmd
}
