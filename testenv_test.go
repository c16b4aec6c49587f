package main

import "github.com/kata-mcp/kata/internal/testenv"

// Go references built by these tests (kata validate --references, the end-to-end runs) use the
// test's own Go build cache (testenv.UseGoBuildCache).
func init() { testenv.UseGoBuildCache() }
