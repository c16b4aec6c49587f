package grader

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/kata-mcp/kata/internal/i18n"
	"github.com/kata-mcp/kata/katas"
)

// KataConfig is a workspace's kata.json (docs/grading.md#kata-json).
type KataConfig struct {
	Kata     string   `json:"kata"`
	Language string   `json:"language"`
	Client   *Command `json:"client,omitempty"`
	Build    *Command `json:"build,omitempty"`
	// raw is the file's bytes, for line numbers.
	raw []byte
}

// Command is a program and its arguments, run with the workspace as working directory.
type Command struct {
	Command string   `json:"command"`
	Args    []string `json:"args"`
}

// ServerEntry is one entry of .mcp.json's mcpServers, in Claude Code's format (stdio servers
// use command/args/env; remote ones url/headers).
type ServerEntry struct {
	Type    string            `json:"type,omitempty"`
	Command string            `json:"command,omitempty"`
	Args    []string          `json:"args,omitempty"`
	Env     map[string]string `json:"env,omitempty"`
	URL     string            `json:"url,omitempty"`
	Headers map[string]string `json:"headers,omitempty"`
	// Cwd is the server's working directory, relative to the workspace or absolute; it must be
	// a folder inside the workspace (docs/grading.md#mcp-json). Empty means the workspace.
	Cwd string `json:"cwd,omitempty"`
}

// MCPConfig is a workspace's .mcp.json: its servers and the raw bytes, for line numbers.
type MCPConfig struct {
	Servers map[string]ServerEntry `json:"mcpServers"`
	raw     []byte
}

// SubmissionError is a problem that makes a submission ungradeable (exit 2, status error):
// a missing or invalid config file, a missing graded part, an undefined variable, a failed
// build, or a server that never completes the handshake. File and Line locate it when known.
type SubmissionError struct {
	File string
	Line int
	// Msg is the problem in English.
	Msg string
	// Why is Msg as a catalog message (internal/i18n/harness.*.toml), so the report can say it
	// in the reader's language; zero when Msg is not one.
	Why i18n.Msg
}

// Error formats the problem as "file:line: message".
func (e *SubmissionError) Error() string {
	switch {
	case e.File != "" && e.Line > 0:
		return fmt.Sprintf("%s:%d: %s", e.File, e.Line, e.Msg)
	case e.File != "":
		return fmt.Sprintf("%s: %s", e.File, e.Msg)
	}
	return e.Msg
}

// Unwrap is the whole error, "file:line: " and all, as an *i18n.Error when Why is set (so
// errorReport and i18n.Localizer.Error find its catalog message); nil otherwise.
func (e *SubmissionError) Unwrap() error {
	if e.Why.IsZero() {
		return nil
	}
	m := e.Why
	switch {
	case e.File != "" && e.Line > 0:
		m = i18n.M("harness.at_line", "File", e.File, "Line", e.Line, "Text", e.Why)
	case e.File != "":
		m = i18n.M("harness.at_file", "File", e.File, "Text", e.Why)
	}
	return &i18n.Error{Msg: m}
}

// submissionErr is a SubmissionError whose text is not a catalog message (an operating
// system's or a decoder's error, the same in every language).
func submissionErr(file string, line int, format string, args ...any) *SubmissionError {
	return &SubmissionError{File: file, Line: line, Msg: fmt.Sprintf(format, args...)}
}

// sayErr is a SubmissionError of file (and line, when > 0) whose text is m, a catalog message.
func sayErr(file string, line int, m i18n.Msg) *SubmissionError {
	return &SubmissionError{File: file, Line: line, Msg: m.English(), Why: m}
}

// errText is err's text as a message (i18n.ErrMsg).
func errText(err error) i18n.Msg { return i18n.ErrMsg(err) }

// readJSON decodes a workspace JSON file strictly enough to catch typos of our own keys,
// giving file:line for syntax and type errors.
func readJSON(dir, name string, v any) ([]byte, error) {
	path := filepath.Join(dir, name)
	if !insideWorkspace(dir, path) {
		return nil, sayErr(name, 0, i18n.M("harness.config_file.outside", "File", name))
	}
	src, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, sayErr(name, 0, i18n.M("harness.config_file.missing", "File", name))
	}
	if err != nil {
		return nil, submissionErr(name, 0, "%v", err)
	}
	if line, msg := katas.JSONTextProblem(src); line > 0 {
		return nil, submissionErr(name, line, "%s", msg)
	}
	dec := json.NewDecoder(bytes.NewReader(src))
	if err := dec.Decode(v); err != nil {
		var syn *json.SyntaxError
		var typ *json.UnmarshalTypeError
		switch {
		case errors.As(err, &syn):
			return nil, sayErr(name, lineAt(src, int(syn.Offset)), i18n.M("harness.config_file.invalid_json", "Error", syn.Error()))
		case errors.As(err, &typ):
			return nil, sayErr(name, lineAt(src, int(typ.Offset)), i18n.M("harness.config_file.wrong_type", "Field", strconv.Quote(typ.Field), "Want", jsonWordMsg(typ.Type.String()), "Got", typ.Value))
		}
		return nil, sayErr(name, 0, i18n.M("harness.config_file.invalid_json", "Error", learnerJSONError(err.Error())))
	}
	return src, nil
}

// insideWorkspace reports whether path, once symbolic links are resolved, is in the workspace
// dir; a path that does not exist (yet) counts as inside. A workspace's configuration that is
// a link out of it is never read: it would be a file of the host, not of the submission.
func insideWorkspace(dir, path string) bool {
	fi, err := os.Lstat(path)
	if err != nil || fi.Mode()&os.ModeSymlink == 0 {
		return true
	}
	real, err := filepath.EvalSymlinks(path)
	if err != nil {
		return false // a dangling link: where it points is not the workspace's business
	}
	ws, err := filepath.EvalSymlinks(dir)
	if err != nil {
		ws = dir
	}
	return strings.HasPrefix(real, ws+string(filepath.Separator))
}

func lineAt(src []byte, off int) int {
	if off > len(src) {
		off = len(src)
	}
	return bytes.Count(src[:off], []byte("\n")) + 1
}

// keyLine finds the line of the first occurrence of the JSON key "name" in src, or 0.
func keyLine(src []byte, name string) int {
	needle := []byte(fmt.Sprintf("%q", name))
	for i := 0; ; {
		j := bytes.Index(src[i:], needle)
		if j < 0 {
			return 0
		}
		k := i + j + len(needle)
		if rest := bytes.TrimLeft(src[k:], " \t\r\n"); len(rest) > 0 && rest[0] == ':' {
			return lineAt(src, i+j)
		}
		i = k
	}
}

// valueLine finds the line where the JSON string value s first appears, or 0.
func valueLine(src []byte, s string) int {
	b, _ := json.Marshal(s)
	b = bytes.Trim(b, `"`)
	if i := bytes.Index(src, b); i >= 0 {
		return lineAt(src, i)
	}
	return 0
}

// LoadKataConfig reads and checks dir/kata.json.
func LoadKataConfig(dir string) (*KataConfig, error) {
	var kc KataConfig
	src, err := readJSON(dir, "kata.json", &kc)
	if err != nil {
		return nil, err
	}
	// kata.json is ours alone, so a key we do not know is a typo ("clinet") that would
	// otherwise silently drop the client from grading
	strict := json.NewDecoder(bytes.NewReader(src))
	strict.DisallowUnknownFields()
	if err := strict.Decode(&KataConfig{}); err != nil {
		if _, field, ok := strings.Cut(err.Error(), "unknown field "); ok {
			name := strings.Trim(field, `"`)
			return nil, sayErr("kata.json", keyLine(src, name), i18n.M("harness.kata_json.unknown_key", "Key", strconv.Quote(name)))
		}
	}
	if strings.TrimSpace(kc.Kata) == "" {
		return nil, sayErr("kata.json", keyLine(src, "kata"), i18n.M("harness.kata_json.no_kata"))
	}
	for _, c := range []struct {
		name string
		cmd  *Command
	}{{"client", kc.Client}, {"build", kc.Build}} {
		if c.cmd != nil && strings.TrimSpace(c.cmd.Command) == "" {
			return nil, sayErr("kata.json", keyLine(src, c.name), i18n.M("harness.kata_json.no_command", "Key", strconv.Quote(c.name)))
		}
	}
	kc.raw = src
	return &kc, nil
}

// LoadMCPConfig reads dir/.mcp.json.
func LoadMCPConfig(dir string) (*MCPConfig, error) {
	var mc MCPConfig
	src, err := readJSON(dir, ".mcp.json", &mc)
	if err != nil {
		return nil, err
	}
	mc.raw = src
	if len(mc.Servers) == 0 {
		return nil, sayErr(".mcp.json", keyLine(src, "mcpServers"), i18n.M("harness.mcp_json.no_servers"))
	}
	return &mc, nil
}

// ServerNames lists the configured server names, sorted.
func (m *MCPConfig) ServerNames() []string {
	var names []string
	for n := range m.Servers {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// serverCwd resolves the working directory of the server entry e against the workspace ws:
// ws itself when e has no cwd, else the folder cwd names, which must exist and lie inside ws
// once symbolic links are resolved (docs/grading.md#mcp-json).
func (m *MCPConfig) serverCwd(ws string, e ServerEntry) (string, error) {
	if e.Cwd == "" {
		return "", nil
	}
	line := keyLine(m.raw, "cwd")
	p := e.Cwd
	if !filepath.IsAbs(p) {
		p = filepath.Join(ws, p)
	}
	real, err := filepath.EvalSymlinks(p)
	if err != nil {
		return "", sayErr(".mcp.json", line, i18n.M("harness.mcp_json.cwd_unreadable", "Cwd", strconv.Quote(e.Cwd), "Error", fmt.Sprint(unwrapPath(err))))
	}
	realWS, err := filepath.EvalSymlinks(ws)
	if err != nil {
		realWS = ws
	}
	if real != realWS && !strings.HasPrefix(real, realWS+string(filepath.Separator)) {
		return "", sayErr(".mcp.json", line, i18n.M("harness.mcp_json.cwd_outside", "Cwd", strconv.Quote(e.Cwd)))
	}
	if st, err := os.Stat(real); err != nil || !st.IsDir() {
		return "", sayErr(".mcp.json", line, i18n.M("harness.mcp_json.cwd_not_folder", "Cwd", strconv.Quote(e.Cwd)))
	}
	// the same folder, named through the workspace path the sandbox shows
	rel, _ := filepath.Rel(realWS, real)
	return filepath.Join(ws, rel), nil
}

// unwrapPath drops an *fs.PathError's operation and path, which the message names already.
func unwrapPath(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}
