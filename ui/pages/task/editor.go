package task

import (
	"os/exec"

	tea "charm.land/bubbletea/v2"
)

// editorDoneMsg says the editor opened on dir has exited.
type editorDoneMsg struct {
	dir string
	err error
}

// editorCommand returns the editor command line ed run on dir (vi when ed is empty), in dir.
func editorCommand(ed []string, dir string) *exec.Cmd {
	if len(ed) == 0 {
		ed = []string{"vi"}
	}
	cmd := exec.Command(ed[0], append(ed[1:], dir)...)
	cmd.Dir = dir
	return cmd
}

// edit hands the terminal to the editor on the workspace and comes back when it exits.
func (m *Model) edit() tea.Cmd {
	dir := m.dir
	return m.opts.Exec(editorCommand(m.opts.Editor, dir), func(err error) tea.Msg { return editorDoneMsg{dir: dir, err: err} })
}
