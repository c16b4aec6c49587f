package ui

import "github.com/kata-mcp/kata/ui/common"

// Store is the progress store the interface writes to and reads from; *progress.Store
// implements it. Every call runs in a command, never in Update; a failing call shows a
// one-line warning and the screens go on with what they hold in memory.
type Store = common.Store
