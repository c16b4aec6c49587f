package task

import (
	"os"
	"os/exec"
	"path/filepath"

	tea "charm.land/bubbletea/v2"
)

// editorDoneMsg says the editor opened on dir has exited.
type editorDoneMsg struct {
	dir string
	err error
}

// editedFiles are the files a learner edits in a workspace of each template language, the
// server's first.
var editedFiles = map[string][]string{
	"python": {"server.py", "client.py"},
	"node":   {"server.mjs", "client.mjs"},
	"go":     {filepath.Join("cmd", "server", "main.go"), filepath.Join("cmd", "client", "main.go")},
}

// editorCommand returns the editor command line ed run on dir, in dir. With no editor set
// ($VISUAL and $EDITOR empty) it is vi on files, the workspace files to edit (vi cannot edit
// a folder), or on dir when there are none.
func editorCommand(ed []string, dir string, files []string) *exec.Cmd {
	args := []string{dir}
	if len(ed) == 0 {
		ed = []string{"vi"}
		if len(files) > 0 {
			args = files
		}
	}
	cmd := exec.Command(ed[0], append(ed[1:], args...)...)
	cmd.Dir = dir
	return cmd
}

// filesToEdit lists the files of lang's workspace in dir that exist, relative to it, the one
// the first failure is in (the client's, for a failing client test) first.
func filesToEdit(dir, lang string, clientFirst bool) []string {
	var out []string
	for _, f := range editedFiles[lang] {
		if st, err := os.Stat(filepath.Join(dir, f)); err == nil && st.Mode().IsRegular() {
			out = append(out, f)
		}
	}
	if clientFirst && len(out) == 2 {
		out[0], out[1] = out[1], out[0]
	}
	return out
}

// edit hands the terminal to the editor on the workspace and comes back when it exits. Which
// files vi opens is read from the disk in the command, not in Update.
func (m *Model) edit() tea.Cmd {
	dir, ed, lang, exec := m.dir, m.opts.Editor, m.language(), m.opts.Exec
	clientFirst := false
	if f := m.firstFailure(); f != nil {
		clientFirst = f.OutputOf == "client"
	}
	done := func(err error) tea.Msg { return editorDoneMsg{dir: dir, err: err} }
	if len(ed) > 0 {
		return exec(editorCommand(ed, dir, nil), done)
	}
	return func() tea.Msg {
		run := exec(editorCommand(ed, dir, filesToEdit(dir, lang, clientFirst)), done)
		if run == nil {
			return nil
		}
		return run()
	}
}
