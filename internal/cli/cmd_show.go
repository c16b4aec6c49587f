package cli

import (
	"io"
	"strings"

	"github.com/kata-mcp/kata/grader"
	"github.com/kata-mcp/kata/internal/i18n"
	"github.com/kata-mcp/kata/katas"
	"github.com/spf13/cobra"
)

func newShowCmd() *cobra.Command {
	var layer string
	var rules bool
	cmd := &cobra.Command{
		Use:   "show KATA",
		Short: "Print one layer of a kata (rendered on a terminal, plain Markdown otherwise), or its graded rules",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			lib, err := loadLibrary(cmd)
			if err != nil {
				return err
			}
			if rules {
				p, ok := localized(cmd, lib).Get(args[0])
				if !ok {
					return unknownKata(args[0], lib)
				}
				grader.WriteRulesIn(cmd.OutOrStdout(), p, i18n.New(userLocale(cmd)))
				return nil
			}
			l, err := localized(cmd, lib).LoadLayer(args[0], layer)
			if err != nil {
				return err
			}
			out := cmd.OutOrStdout()
			if !isTerminal(out) {
				_, err := io.WriteString(out, l.Markdown()+"\n")
				return err
			}
			return showRendered(out, l.Markdown())
		},
	}
	cmd.Flags().StringVar(&layer, "layer", "knowledge", "layer to show: "+strings.Join(katas.LayerNames, ", "))
	cmd.Flags().BoolVar(&rules, "rules", false, "list the rules the kata grades, by id (explained in docs/grading.md#rules)")
	return cmd
}
