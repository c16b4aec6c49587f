package cli

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/spf13/cobra"

	"github.com/kata-mcp/kata/assistant"
	"github.com/kata-mcp/kata/internal/i18n"
	"github.com/kata-mcp/kata/internal/record"
	"github.com/kata-mcp/kata/internal/version"
)

func newMCPCmd() *cobra.Command {
	var printConfig, absolute bool
	cmd := &cobra.Command{
		Use:   "mcp",
		Short: "Serve the packets and the grader to an AI assistant over MCP (stdio)",
		Long: "kata mcp is an MCP server over stdio (protocol 2025-11-25) for an assistant such as Claude Code:\n" +
			"every packet layer and task step is a resource (kata://KATA/LAYER, kata://KATA/task/N), the ready\n" +
			"prompts are prompts, and the tools list_katas, grade_workspace, quiz_item and check_answer grade\n" +
			"workspaces and run exam items. Grades are saved to your progress like kata grade's. Clients on\n" +
			"protocol 2025-06-18, 2025-03-26 and 2024-11-05 connect too.\n\n" +
			"kata mcp --print-config prints the .mcp.json entry that starts it (project scope).",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if printConfig {
				return printMCPConfig(cmd.OutOrStdout(), cmd.ErrOrStderr(), absolute, i18n.New(userLocale(cmd)))
			}
			lib, err := loadLibrary(cmd)
			if err != nil {
				return err
			}
			ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			errw := cmd.ErrOrStderr()
			rec := record.New(errw, i18n.New(userLocale(cmd))) // safe for grades that finish concurrently
			defer rec.Close()
			return assistant.Serve(ctx, localized(cmd, lib), assistant.Options{
				Version: version.String(),
				Logger:  slog.New(slog.NewTextHandler(errw, &slog.HandlerOptions{Level: slog.LevelWarn})),
				OnGrade: rec.Record,
			})
		},
	}
	cmd.Flags().BoolVar(&printConfig, "print-config", false, "print the .mcp.json entry (Claude Code's project scope) that runs kata mcp, and exit")
	cmd.Flags().BoolVar(&absolute, "absolute", false, "with --print-config: name this binary by its absolute path instead of `kata` on PATH (for your own machine only)")
	return cmd
}

// printMCPConfig prints the project-scope .mcp.json entry. It names the command "kata", found
// on PATH, because a project's .mcp.json is committed and shared: an absolute path is one
// machine's (the kata mcp-engineering teaches exactly this). With absolute it names the running
// binary instead. A note on errw, in loc's language, says when `kata` on PATH is missing or is
// another binary.
func printMCPConfig(out, errw io.Writer, absolute bool, loc *i18n.Localizer) error {
	exe, err := os.Executable()
	if err == nil {
		exe, err = filepath.EvalSymlinks(exe)
	}
	if err != nil {
		return fmt.Errorf("finding this binary: %w", err)
	}
	command := "kata"
	if absolute {
		command = exe
		if strings.HasPrefix(exe, os.TempDir()) {
			note(errw, loc, i18n.M("out.temporary_binary", "Path", exe))
		}
	} else {
		onPath, err := exec.LookPath("kata")
		if err == nil {
			onPath, err = filepath.EvalSymlinks(onPath)
		}
		switch {
		case err != nil:
			note(errw, loc, i18n.M("out.not_on_path", "Path", exe))
		case !sameFile(onPath, exe):
			note(errw, loc, i18n.M("out.other_on_path", "OnPath", onPath, "Path", exe))
		}
	}
	_, err = out.Write(assistant.ProjectConfig(command))
	return err
}

// sameFile reports whether two paths name the same file.
func sameFile(a, b string) bool {
	sa, errA := os.Stat(a)
	sb, errB := os.Stat(b)
	return errA == nil && errB == nil && os.SameFile(sa, sb)
}
