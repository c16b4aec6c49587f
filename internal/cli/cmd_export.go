package cli

import (
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strings"

	"github.com/spf13/cobra"

	"github.com/kata-mcp/kata/assistant"
	"github.com/kata-mcp/kata/grader/autograder"
	"github.com/kata-mcp/kata/internal/i18n"
)

// newExportCmd is the group of commands that write a kata in another tool's format.
func newExportCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "export",
		Short: "Export a kata for another tool (skill: Claude Code; gradescope: a Gradescope autograder; classroom: a GitHub Classroom starter)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return cmd.Help()
		},
	}
	cmd.AddCommand(newExportSkillCmd(), newExportGradescopeCmd(), newExportClassroomCmd())
	return cmd
}

// kataModule is the module `go install` installs kata from.
const kataModule = "github.com/kata-mcp/kata"

func newExportGradescopeCmd() *cobra.Command {
	var out, binary string
	var langs []string
	var seed int64
	cmd := &cobra.Command{
		Use:   "gradescope KATA -o autograder.zip",
		Short: "Write a Gradescope autograder for a kata: setup.sh, run_autograder and this kata binary, in a zip",
		Long: "kata export gradescope KATA -o autograder.zip writes the zip to upload as a Gradescope programming\n" +
			"assignment's autograder (Ubuntu 24.04 base image): setup.sh installs the language runtimes and kata,\n" +
			"run_autograder grades /autograder/submission and writes /autograder/results/results.json, one test per\n" +
			"graded test with its points and its task step as a tag. The kata binary shipped is this one (it must be\n" +
			"a Linux amd64 build) or --binary's.",
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			lib, err := loadLibraryNamed(cmd, args[:1])
			if err != nil {
				return err
			}
			p, _ := lib.Get(args[0])
			if out == "" {
				return fmt.Errorf("name the zip to write with -o, such as -o autograder.zip")
			}
			var names []string
			err = writeFileWith(out, func(w io.Writer) error {
				var err error
				names, err = autograder.ExportGradescope(w, p, autograder.GradescopeOptions{Binary: binary, Languages: langs, Seed: assignmentSeed(cmd, seed)})
				return err
			})
			if err != nil {
				os.Remove(out)
				return err
			}
			fmt.Fprintln(cmd.OutOrStdout(), i18n.New(userLocale(cmd)).T("out.wrote_files", "Path", out, "Names", strings.Join(names, ", ")))
			return nil
		},
	}
	cmd.Flags().StringVarP(&out, "output", "o", "", "the zip to write (`FILE`)")
	cmd.Flags().StringVar(&binary, "binary", "", "ship this kata `FILE` (a Linux amd64 build) instead of the running one")
	cmd.Flags().StringSliceVar(&langs, "lang", nil, "install only these languages' runtimes (default: every language of the kata)")
	cmd.Flags().Int64Var(&seed, "seed", 0, "grade every submission with this seed (default: one drawn now)")
	return cmd
}

// assignmentSeed is the --seed given, or a new one, for every submission of an assignment.
func assignmentSeed(cmd *cobra.Command, seed int64) int64 {
	if cmd.Flags().Changed("seed") {
		return seed
	}
	return rand.Int64N(1_000_000_000)
}

func newExportClassroomCmd() *cobra.Command {
	var lang, version string
	var seed int64
	cmd := &cobra.Command{
		Use:   "classroom KATA DIR --lang L",
		Short: "Write a GitHub Classroom starter repository for a kata: the workspace and an autograding workflow",
		Long: "kata export classroom KATA DIR --lang L writes into DIR the starter workspace of `kata init` and\n" +
			".github/workflows/classroom.yml, which on every push installs kata, runs `kata grade` and hands the points\n" +
			"to GitHub Classroom's autograding reporter. Push DIR as the assignment's template repository.",
		Args: cobra.ExactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			lib, err := loadLibraryNamed(cmd, args[:1])
			if err != nil {
				return err
			}
			p, _ := lib.Get(args[0])
			if p.Source != "embedded" {
				return fmt.Errorf("kata %s comes from %s, not from kata itself: the workflow installs kata with go install, which has only the built-in katas", p.ID, p.Source)
			}
			if version == "" {
				version = "latest"
				if bi, ok := debug.ReadBuildInfo(); ok && strings.HasPrefix(bi.Main.Version, "v") {
					version = bi.Main.Version
				} else {
					note(cmd.ErrOrStderr(), i18n.New(userLocale(cmd)), i18n.M("out.no_release", "Module", kataModule))
				}
			}
			goVersion := strings.TrimPrefix(runtime.Version(), "go")
			if parts := strings.SplitN(goVersion, ".", 3); len(parts) >= 2 {
				goVersion = parts[0] + "." + parts[1]
			}
			paths, err := autograder.ExportClassroom(p, lang, args[1], autograder.ClassroomOptions{Module: kataModule, Version: version, Go: goVersion, Seed: assignmentSeed(cmd, seed)})
			if err != nil {
				return err
			}
			out, loc := cmd.OutOrStdout(), i18n.New(userLocale(cmd))
			fmt.Fprintln(out, loc.T("out.wrote_starter", "Language", lang, "Kata", p.ID, "Dir", args[1]))
			for _, path := range paths {
				fmt.Fprintln(out, loc.T("out.wrote", "Path", path))
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&lang, "lang", "python", "the workspace's language")
	cmd.Flags().StringVar(&version, "kata-version", "", "the kata `VERSION` the workflow installs (default: this kata's, or latest)")
	cmd.Flags().Int64Var(&seed, "seed", 0, "grade every learner with this seed (default: one drawn now)")
	return cmd
}

func newExportSkillCmd() *cobra.Command {
	var force, allowGrade bool
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
			paths, err := assistant.ExportSkill(lib, args[0], args[1], assistant.SkillOptions{Force: force, AllowGrade: allowGrade})
			if err != nil {
				return err
			}
			out, loc := cmd.OutOrStdout(), i18n.New(userLocale(cmd))
			for _, p := range paths {
				fmt.Fprintln(out, loc.T("out.wrote", "Path", p))
			}
			if filepath.Base(filepath.Clean(args[1])) != ".claude" {
				note(cmd.ErrOrStderr(), loc, i18n.M("out.not_claude_dir", "Dir", args[1]))
			}
			return nil
		},
	}
	cmd.Flags().BoolVar(&force, "force", false, "overwrite files that exist with other content")
	cmd.Flags().BoolVar(&allowGrade, "allow-grade", false, "let Claude grade without asking while the skill is active (allowed-tools: kata grade and grade_workspace, which run the workspace's code)")
	return cmd
}
