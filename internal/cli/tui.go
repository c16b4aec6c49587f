package cli

import (
	"fmt"
	"io"
	"os"
	"runtime"

	"github.com/charmbracelet/x/term"

	"github.com/kata-mcp/kata/internal/i18n"
	"github.com/kata-mcp/kata/internal/progress"
	"github.com/kata-mcp/kata/katas"
	"github.com/kata-mcp/kata/ui"
	"github.com/kata-mcp/kata/ui/markdown"
	"github.com/kata-mcp/kata/workshop/learner"
)

// runTUIWith opens the terminal UI with opts, the look decided by ui.Theme from theme (a --theme
// value, "" for automatic) and the environment, and the progress store at
// progress.DefaultPath() (KATA_STATE overrides it). A store that cannot be opened does not stop
// the UI: it runs without saving and says so on its warning line.
func runTUIWith(lib *katas.Library, opts ui.Options, theme string) error {
	style, err := ui.Theme(theme, os.Getenv)
	if err != nil {
		return err
	}
	if err := needTerminal(); err != nil {
		return err
	}
	opts.Style = style
	opts.Watch = true
	loc := i18n.New(opts.Locale)
	store, warning := openStore(loc)
	if store != nil {
		defer store.Close()
		opts.Store = store
		// The workshop joined, if any: its queue is sent and its pacing followed while the
		// app runs.
		agent := learner.New(store, learner.Options{})
		defer agent.Close()
		if err := agent.Start(); err != nil && warning == "" {
			warning = loc.T("tui.workshop_error", "Error", err.Error())
		}
		opts.Workshop = agent
	}
	opts.Warning = warning
	return ui.Run(lib, opts)
}

// needTerminal returns an error saying what to use instead when there is no terminal to draw
// on: stdin is not one and /dev/tty cannot be opened (cron, CI, a pipe without a controlling
// terminal). On Windows it leaves the check to the UI.
func needTerminal() error {
	if runtime.GOOS == "windows" || term.IsTerminal(os.Stdin.Fd()) {
		return nil
	}
	f, err := os.OpenFile("/dev/tty", os.O_RDWR, 0)
	if err != nil {
		return fmt.Errorf("the terminal UI needs a terminal (%v); without one use kata list, show, init, grade or stats", err)
	}
	return f.Close()
}

// openStore opens the progress store, or returns why it could not, in loc's language.
func openStore(loc *i18n.Localizer) (*progress.Store, string) {
	path, err := progress.DefaultPath()
	if err != nil {
		return nil, loc.T("tui.not_saved", "Error", err)
	}
	s, err := progress.Open(path)
	if err != nil {
		return nil, loc.T("tui.not_saved", "Error", err)
	}
	return s, ""
}

// showRendered prints Markdown rendered for a terminal of the current width (glamour, dark
// style; notty when NO_COLOR is set), prose at the reading width and code lines whole (never
// wrapped or cut, for copying). It never queries the terminal's colours.
func showRendered(w io.Writer, md string) error {
	width := 100
	if f, ok := w.(*os.File); ok {
		if cols, _, err := termSize(f); err == nil && cols > 0 {
			width = cols
		}
	}
	style, err := ui.Theme("", os.Getenv)
	if err != nil {
		style = markdown.StyleDark
	}
	d, err := markdown.RenderDoc(md, width, markdown.StyleFor(ui.NoColor(os.Getenv), style != markdown.StyleLight))
	if err != nil {
		return err
	}
	_, err = io.WriteString(w, d.String(0)+"\n") // code lines whole: the terminal shows them as it will
	return err
}
