// A HOSTILE reference for mcp-structured-errors: a server that never answers.
//
// It reads stdin forever and never writes a byte, not even to the initialize request; after its
// stdin closes it keeps sleeping until it is killed.
package main

import (
	"io"
	"os"
	"time"
)

func main() {
	io.Copy(io.Discard, os.Stdin)
	for {
		time.Sleep(time.Hour)
	}
}
