"""A HOSTILE reference for mcp-structured-errors: a server that dies before the handshake."""

import sys

sys.stderr.write("cannot start: missing module\n")
sys.stderr.flush()
sys.exit(3)
