package cli

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/kata-mcp/kata/internal/i18n"
	"github.com/kata-mcp/kata/internal/locale"
	"github.com/spf13/cobra"
)

func newInitCmd() *cobra.Command {
	var lang string
	cmd := &cobra.Command{
		Use:   "init KATA [DIR]",
		Short: "Write a starter workspace for a kata (default DIR: ./KATA)",
		Args:  cobra.RangeArgs(1, 2),
		RunE: func(cmd *cobra.Command, args []string) error {
			lib, err := loadLibrary(cmd)
			if err != nil {
				return err
			}
			// TASK.md in the user's language; init's own --lang names the template's
			// programming language, so the user's comes from the environment alone.
			p, ok := lib.Localized(locale.Resolve("", os.Getenv)).Get(args[0])
			if !ok {
				return unknownKata(args[0], lib)
			}
			dir := args[0]
			if len(args) == 2 {
				dir = args[1]
			}
			if err := p.Init(dir, lang); err != nil {
				return err
			}
			out := cmd.OutOrStdout()
			loc := i18n.New(locale.Resolve("", os.Getenv))
			fmt.Fprintf(out, "%s\n\n", loc.T("init.wrote", "Lang", lang, "Kata", p.ID, "Dir", dir))
			fmt.Fprintf(out, "%s\n", loc.T("init.next", "Task", filepath.Join(dir, "TASK.md"), "Dir", dir))
			return nil
		},
	}
	cmd.Flags().StringVar(&lang, "lang", "python", "the starter workspace's programming language: python, node or go (here --lang is not the reading language: TASK.md is written in the one $KATA_LANG or $LANG names)")
	return cmd
}
