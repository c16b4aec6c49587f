package main

import (
	"fmt"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/kata-mcp/kata/ui/assistant"
)

// newExportCmd is the group of commands that write a kata in another tool's format.
func newExportCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "export",
		Short: "Export a kata for another tool (skill: a Claude Code skill and subagent)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return cmd.Help()
		},
	}
	cmd.AddCommand(newExportSkillCmd())
	return cmd
}

func newExportSkillCmd() *cobra.Command {
	var force bool
	cmd := &cobra.Command{
		Use:   "skill KATA DIR",
		Short: "Write a kata as a Claude Code skill and its reviewer as a subagent, under DIR (a .claude folder)",
		Long: "kata export skill KATA DIR writes DIR/skills/KATA/ (SKILL.md and one file per layer, read only when\n" +
			"needed) and DIR/agents/NAME.md (the agents layer as subagent definitions). DIR is a .claude folder:\n" +
			"the project's .claude (shared through the repository) or ~/.claude (all your projects).",
		Args: cobra.ExactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			lib, err := loadLibrary(cmd)
			if err != nil {
				return err
			}
			paths, err := assistant.ExportSkill(lib, args[0], args[1], force)
			if err != nil {
				return err
			}
			out := cmd.OutOrStdout()
			for _, p := range paths {
				fmt.Fprintf(out, "wrote %s\n", p)
			}
			if filepath.Base(filepath.Clean(args[1])) != ".claude" {
				fmt.Fprintf(cmd.ErrOrStderr(), "kata: note: Claude Code reads skills from .claude/skills/ and subagents from .claude/agents/ "+
					"(in the project, or in ~/.claude for all your projects); %s is not a .claude folder\n", args[1])
			}
			return nil
		},
	}
	cmd.Flags().BoolVar(&force, "force", false, "overwrite files that exist with other content")
	return cmd
}
