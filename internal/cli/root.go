// Package cli is kata's command line: the cobra commands, their flags and help (localized
// through the cli catalog), and the wiring from flags to the packages that do the work — the
// packet library, the grader, the class batch, the workshop, the assistant and the terminal UI.
// Each command lives in a cmd_*.go file named after it; Main is the process's entry point.
package cli

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/charmbracelet/x/term"
	"github.com/spf13/cobra"

	"github.com/kata-mcp/kata/internal/i18n"
	"github.com/kata-mcp/kata/internal/locale"
	"github.com/kata-mcp/kata/katas"
	"github.com/kata-mcp/kata/packets"
	"github.com/kata-mcp/kata/ui"
)

// exitError carries a process exit code out of a command.
type exitError struct{ code int }

// exitInterrupted is kata grade's exit status when ctrl-c or SIGTERM stopped the run (128 + SIGINT).
const exitInterrupted = 130

// Error is "exit N"; main turns an exitError into the process's exit status.
func (e exitError) Error() string { return fmt.Sprintf("exit %d", e.code) }

// Main runs kata with the process's arguments and returns its exit status: 0 on success, the
// status a command chose (kata grade: 1 fail, 2 cannot grade, 130 interrupted), or 2 for any
// other error, which it prints on stderr in the user's language.
func Main() int {
	err := newRootCmd(os.Stdout, os.Stderr).Execute()
	var ee exitError
	switch {
	case errors.As(err, &ee):
		return ee.code
	case err != nil:
		fmt.Fprintln(os.Stderr, "kata:", errorText(err, i18n.New(locale.Resolve(argsLang(os.Args[1:]), os.Getenv))))
		return 2
	}
	return 0
}

// packetsFlag is the root's persistent flag naming extra folders of packets.
const packetsFlag = "packets"

// langFlag names the persistent flag that picks the language (internal/locale).
const langFlag = "lang"

// userLocale is the language the command's user reads: --lang, then the environment
// (locale.Resolve).
func userLocale(cmd *cobra.Command) string {
	flag, _ := cmd.Flags().GetString(langFlag)
	return locale.Resolve(flag, os.Getenv)
}

// localized is lib as the command's user reads it (userLocale): each packet file from its locale
// twin, English where it has none (katas.Library.Localized); lib itself in English.
func localized(cmd *cobra.Command, lib *katas.Library) *katas.Library {
	return lib.Localized(userLocale(cmd))
}

// loadLibrary loads the embedded packets, then the folders listed in $KATA_PATH (separated by
// os.PathListSeparator; as in PATH, an earlier folder wins over a later one), then each
// --packets folder in the order given. A packet overrides an embedded or earlier one with the
// same id; each keeps its folder as its Source. A packet with problems is skipped with a
// warning on stderr naming every problem's file:line, and the others still load. A --packets
// folder that does not exist is an error; a $KATA_PATH one is only a warning.
func loadLibrary(cmd *cobra.Command) (*katas.Library, error) {
	return loadLibraryTo(cmd, cmd.ErrOrStderr())
}

// loadLibraryTo is loadLibrary writing its warnings to warn: the terminal UI takes them onto
// its own screen, where stderr would be hidden behind it.
func loadLibraryTo(cmd *cobra.Command, warn io.Writer) (*katas.Library, error) {
	loc := i18n.New(userLocale(cmd))
	lib := katas.NewLibrary()
	if err := lib.AddCached(packets.FS, "embedded", katas.DefaultIndexCache()); err != nil {
		warnSkipped(warn, loc, "embedded", err)
	}
	kataPath := filepath.SplitList(os.Getenv("KATA_PATH"))
	for i := len(kataPath) - 1; i >= 0; i-- {
		if kataPath[i] == "" {
			continue
		}
		err := lib.AddDir(kataPath[i])
		var ps katas.Problems
		switch {
		case errors.As(err, &ps):
			warnSkipped(warn, loc, kataPath[i], err)
		case err != nil:
			warning(warn, loc, i18n.M("out.ignoring_kata_path", "Error", err))
		}
	}
	dirs, _ := cmd.Flags().GetStringArray(packetsFlag)
	for _, d := range dirs {
		err := lib.AddDir(d)
		var ps katas.Problems
		switch {
		case errors.As(err, &ps):
			warnSkipped(warn, loc, d, err)
		case err != nil:
			return nil, err
		}
	}
	return lib, nil
}

// warningLines turns loadLibrary's warnings into the lines the terminal UI shows: each warning
// and problem on its own, without the "kata: warning: " prefix (in loc's language).
func warningLines(s string, loc *i18n.Localizer) []string {
	prefix := loc.T("out.warning", "Text", "")
	var out []string
	for _, l := range strings.Split(strings.TrimSpace(s), "\n") {
		if l = strings.TrimSpace(strings.TrimPrefix(l, prefix)); l != "" {
			out = append(out, l)
		}
	}
	return out
}

// warnSkipped tells that packets from where were skipped, and why, in loc's language (the
// problems themselves stay as validate words them).
func warnSkipped(w io.Writer, loc *i18n.Localizer, where string, err error) {
	var ps katas.Problems
	if !errors.As(err, &ps) {
		warning(w, loc, i18n.Raw(fmt.Sprintf("%s: %v", where, err)))
		return
	}
	warning(w, loc, i18n.M("out.skipped_packets", "Where", where))
	for _, p := range ps {
		fmt.Fprintf(w, "  %s\n", p)
	}
}

func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(f.Fd())
}

func newRootCmd(stdout, stderr io.Writer) *cobra.Command {
	root := &cobra.Command{
		Use:   "kata",
		Short: "Practise MCP engineering through short, graded katas",
		Long: "kata shows kata packets one layer at a time, runs exam items and trap drills, and\n" +
			"grades your own MCP server against hidden fixtures.\n\nRun without a command to open the terminal UI.",
		SilenceUsage:  true,
		SilenceErrors: true,
		Args:          cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			var warnings strings.Builder
			lib, err := loadLibraryTo(cmd, &warnings)
			if err != nil {
				return err
			}
			theme, _ := cmd.Flags().GetString("theme")
			return runTUIWith(localized(cmd, lib), ui.Options{Skipped: warningLines(warnings.String(), i18n.New(userLocale(cmd))), Locale: userLocale(cmd)}, theme)
		},
	}
	root.Flags().String("theme", "", "dark, light or auto (also $KATA_THEME; auto reads $COLORFGBG; NO_COLOR turns colour off)")
	root.SetOut(stdout)
	root.SetErr(stderr)
	root.PersistentFlags().String(langFlag, "", "the language to read kata in: en, es or ru (also $KATA_LANG, then $LC_ALL, $LC_MESSAGES, $LANG; English when none names one). kata init and kata export take --lang as a workspace's programming language instead: there $KATA_LANG picks the reading language")
	root.PersistentFlags().StringArray(packetsFlag, nil, "also load the packets in `DIR` (a folder of packets, or one packet); repeatable, later folders override earlier ones and the embedded packets (see also $KATA_PATH)")
	root.SetHelpCommand(newHelpCmd(root))
	localizeHelpWhenShown(root)
	root.AddCommand(newListCmd(), newShowCmd(), newInitCmd(), newGradeCmd(), newValidateCmd(), newStatsCmd(), newExamCmd(), newReviewCmd())
	// kata class: the class graded at once (grade) and the live workshop kata serve runs (open,
	// quiz, reveal, end-quiz, close); kata join and leave are the learner's side.
	class := newClassCmd()
	addLiveClassCmds(class)
	root.AddCommand(newMCPCmd(), newExportCmd(), class, newServeCmd(), newJoinCmd(), newLeaveCmd())
	root.AddCommand(newDocsCmd())
	return root
}

// packetSummary is one row of `kata list --json`.
type packetSummary struct {
	ID      string   `json:"id"`
	Title   string   `json:"title"`
	Version string   `json:"version"`
	Summary string   `json:"summary"`
	Source  string   `json:"source"`
	Layers  []string `json:"layers"`
	Items   int      `json:"items"`
	// Traps counts trap rows over all tables; TrapTables the tables.
	Traps      int      `json:"traps"`
	TrapTables int      `json:"trap_tables"`
	TaskSteps  int      `json:"task_steps"`
	Fixtures   int      `json:"fixtures"`
	Graded     []string `json:"graded"`
	Languages  []string `json:"languages"`
}

// termSize returns the terminal's columns and rows.
func termSize(f *os.File) (int, int, error) { return term.GetSize(f.Fd()) }
