package main

import (
	"io"
	"os"

	"github.com/kata-mcp/kata/katas"
	"github.com/kata-mcp/kata/ui"
	"github.com/kata-mcp/kata/ui/markdown"
)

// runTUI opens the terminal UI on the library.
func runTUI(lib *katas.Library) error {
	return ui.Run(lib, ui.Options{Watch: true})
}

// showRendered prints Markdown rendered for a terminal of the current width (glamour, dark
// style; notty when NO_COLOR is set). It never queries the terminal's colours.
func showRendered(w io.Writer, md string) error {
	width := 100
	if f, ok := w.(*os.File); ok {
		if cols, _, err := termSize(f); err == nil && cols > 0 {
			width = cols
		}
	}
	out, err := markdown.Render(md, width, markdown.StyleFor(os.Getenv("NO_COLOR") != "", true))
	if err != nil {
		return err
	}
	_, err = io.WriteString(w, out)
	return err
}
