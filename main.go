// Command kata is a terminal app for practising MCP engineering through short, graded katas:
// it shows kata packets a layer at a time, runs exam items and trap tables, and grades the
// learner's own MCP server by launching it and speaking MCP to it. The commands live in
// internal/cli.
package main

import (
	"os"

	"github.com/kata-mcp/kata/internal/cli"
)

func main() { os.Exit(cli.Main()) }
