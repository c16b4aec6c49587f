// Package packets carries the kata packets (Markdown and JSON content) into the binary, so
// `go run .` works on a fresh machine with no files beside it.
package packets

import "embed"

// FS holds every shipped packet folder at its root (e.g. "mcp-structured-errors/packet.json"),
// and the protocol shims the packets' workspaces share under shims/ (katas.ShimsFolder). The
// all: prefix keeps dot-files such as a template's .mcp.json.
//
//go:embed all:mcp-structured-errors all:mcp-error-responses all:mcp-engineering all:shims index.json
var FS embed.FS
