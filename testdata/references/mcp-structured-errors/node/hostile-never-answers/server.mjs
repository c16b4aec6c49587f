// A HOSTILE reference for mcp-structured-errors: a server that never answers.
//
// It reads stdin forever and never writes a byte, not even to the initialize request; after its
// stdin closes it keeps sleeping until it is killed.

process.stdin.on("data", () => {});
process.stdin.on("end", () => {
  setInterval(() => {}, 3600 * 1000);
});
