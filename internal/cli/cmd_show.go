package cli

import (
	"fmt"
	"io"
	"strconv"
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
		Use:   "show KATA [RULE]",
		Short: "Print one layer of a kata (rendered on a terminal, plain Markdown otherwise), or its graded rules",
		Args:  cobra.RangeArgs(1, 2),
		RunE: func(cmd *cobra.Command, args []string) error {
			lib, err := loadLibrary(cmd)
			if err != nil {
				return err
			}
			p, ok := localized(cmd, lib).Get(args[0])
			if !ok {
				return unknownKata(args[0], lib)
			}
			if len(args) == 2 && !rules {
				return i18n.Err("out.show_two_args", "Arg", strconv.Quote(args[1]))
			}
			if rules {
				if len(args) == 2 { // kata show KATA --rules RULE: that rule alone
					return writeRule(cmd.OutOrStdout(), p, args[1], i18n.New(userLocale(cmd)))
				}
				grader.WriteRulesIn(cmd.OutOrStdout(), p, i18n.New(userLocale(cmd)))
				return nil
			}
			// The app numbers the layers 1–5 in the packet's order: --layer 3 is the third.
			if n, err := strconv.Atoi(layer); err == nil && n >= 1 && n <= len(p.Layers) {
				layer = p.Layers[n-1]
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
	cmd.Flags().StringVar(&layer, "layer", "knowledge", "layer to show: "+strings.Join(katas.LayerNames, ", ")+", or its number 1–5 as the app shows it")
	cmd.Flags().BoolVar(&rules, "rules", false, "list the rules the kata grades, by id; kata show KATA --rules RULE explains one")
	return cmd
}

// writeRule explains one rule of p (kata show KATA --rules RULE): its id and part, its
// statement in loc's language and, for the category rule, the kata's table of categories; an
// id the kata does not grade is an error listing the ones it does.
func writeRule(w io.Writer, p *katas.Packet, id string, loc *i18n.Localizer) error {
	var ids []string
	for _, r := range grader.RulesFor(p) {
		ids = append(ids, string(r.ID))
		if string(r.ID) != id {
			continue
		}
		fmt.Fprintf(w, "%s (%s)\n  %s\n", r.ID, r.Part, r.StatementIn(loc, p))
		if r.ID == grader.RuleCategory && p.Fixtures["server"] != nil {
			for _, f := range p.Fixtures["server"].Fixtures {
				if f.Expect.Category != "" {
					name := f.Name
					if words, ok := p.TestText(f.ID); ok {
						name = words.Name
					}
					fmt.Fprintf(w, "    %s → %s\n", name, f.Expect.Category)
				}
			}
		}
		fmt.Fprintln(w, loc.T("out.rule_more", "Kata", p.ID))
		return nil
	}
	return i18n.Err("out.unknown_rule", "Rule", strconv.Quote(id), "Kata", p.ID, "Known", strings.Join(ids, ", "))
}
