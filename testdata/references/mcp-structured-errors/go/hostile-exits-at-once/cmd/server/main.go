// A HOSTILE reference for mcp-structured-errors: a server that dies before the handshake.
package main

import (
	"fmt"
	"os"
)

func main() {
	fmt.Fprintln(os.Stderr, "cannot start: missing module")
	os.Exit(3)
}
