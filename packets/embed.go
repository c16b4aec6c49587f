// Package packets carries the kata packets (Markdown and JSON content) into the binary, so
// `go run .` works on a fresh machine with no files beside it.
package packets

import "embed"

// FS holds every shipped packet folder at its root (e.g. "mcp-structured-errors/packet.json"),
// and the protocol shims the packets' workspaces share under shims/ (katas.ShimsFolder). It
// embeds everything in this folder, so a new packet is one new folder and nothing else: the
// library finds a packet as a folder holding packet.json, and ignores the Go files beside them.
// The all: prefix keeps dot-files such as a template's .mcp.json.
//
//go:embed all:*
var FS embed.FS
