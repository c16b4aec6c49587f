package task

import (
	"errors"
	"fmt"
	"io/fs"
	"os"

	tea "charm.land/bubbletea/v2"

	"github.com/kata-mcp/kata/grader"
	"github.com/kata-mcp/kata/katas"
)

// workspaceMsg reports whether a kata's workspace folder exists, or the result of creating it.
type workspaceMsg struct {
	packet   string
	dir      string
	exists   bool
	language string // the workspace's language, from its kata.json ("" when unreadable)
	created  bool   // the message answers an init
	err      error  // stat or init failure
}

// statWorkspace reports whether dir exists, and its language.
func statWorkspace(packet, dir string) tea.Cmd {
	return func() tea.Msg {
		ok, err := dirExists(dir)
		return workspaceMsg{packet: packet, dir: dir, exists: ok, language: workspaceLanguage(dir, ok), err: err}
	}
}

// workspaceLanguage is the language an existing workspace's kata.json names ("" when it cannot
// be read: grading says why).
func workspaceLanguage(dir string, exists bool) string {
	if !exists {
		return ""
	}
	kc, err := grader.LoadKataConfig(dir)
	if err != nil {
		return ""
	}
	return kc.Language
}

// initWorkspace creates the workspace from the packet's template for lang.
func initWorkspace(p *katas.Packet, dir, lang string) tea.Cmd {
	return func() tea.Msg {
		if err := p.Init(dir, lang); err != nil {
			ok, _ := dirExists(dir)
			return workspaceMsg{packet: p.ID, dir: dir, exists: ok, created: true, err: err}
		}
		return workspaceMsg{packet: p.ID, dir: dir, exists: true, language: workspaceLanguage(dir, true), created: true}
	}
}

// dirExists reports whether dir is an existing folder; only commands call it.
func dirExists(dir string) (bool, error) {
	fi, err := os.Stat(dir)
	switch {
	case err == nil && fi.IsDir():
		return true, nil
	case err == nil:
		return false, fmt.Errorf("%s is a file, not a folder", dir)
	case errors.Is(err, fs.ErrNotExist):
		return false, nil
	default:
		return false, err
	}
}
