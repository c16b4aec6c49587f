// A HOSTILE reference for mcp-structured-errors: a server that dies before the handshake.

process.stderr.write("cannot start: missing module\n");
process.exit(3);
