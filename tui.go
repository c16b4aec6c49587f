package main

import (
	"errors"
	"io"

	"github.com/kata-mcp/kata/katas"
)

// runTUI opens the terminal UI. (wired to ui.Run once the ui package lands)
func runTUI(lib *katas.Library) error { return errors.New("the TUI is not wired yet") }

// showRendered prints Markdown rendered for a terminal.
func showRendered(w io.Writer, md string) error {
	_, err := io.WriteString(w, md+"\n")
	return err
}
