package assistant

import "encoding/json"

// ServerEntry is one server of an .mcp.json file as Claude Code reads it: a stdio server's
// command and arguments.
type ServerEntry struct {
	Type    string   `json:"type"`
	Command string   `json:"command"`
	Args    []string `json:"args"`
}

// ProjectConfig returns the .mcp.json document for Claude Code's project scope (the file at
// the repository's root, committed and shared) that runs `command mcp` as the stdio server
// "kata", indented, with a final newline. command should be a name found on PATH, such as
// "kata": an absolute path is one machine's and does not belong in a shared file.
func ProjectConfig(command string) []byte {
	doc := map[string]map[string]ServerEntry{"mcpServers": {ServerName: {Type: "stdio", Command: command, Args: []string{"mcp"}}}}
	b, err := json.MarshalIndent(doc, "", "  ")
	if err != nil { // maps of strings always marshal
		panic(err)
	}
	return append(b, '\n')
}
