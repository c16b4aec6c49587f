// The official TypeScript SDK's Client, pinned to protocol revision 2025-03-26 (as a client on
// an older SDK sends it), connected to `kata mcp`, writing malformed lines into the same stdin
// between its own requests. cmd_mcp_test.go runs it as
//   node robust.mjs KATA_BINARY
// Every line it prints is one fact the test reads; any failure throws, which exits non-zero.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";

const [kata] = process.argv.slice(2);
if (!kata) {
  throw new Error("usage: node robust.mjs KATA_BINARY");
}

const transport = new StdioClientTransport({ command: kata, args: ["mcp"], env: process.env, stderr: "inherit" });
const send = transport.send.bind(transport);
transport.send = (message, options) => {
  if (message.method === "initialize") {
    message = { ...message, params: { ...message.params, protocolVersion: "2025-03-26" } };
  }
  return send(message, options);
};
let negotiated = "none";
transport.setProtocolVersion = (version) => {
  negotiated = version;
};
// The SDK drops a reply whose id is null (no request of its own matches it), so the script
// reads the server's stdout beside it.
const replies = [];
let waiting = null;
let pending = "";
const client = new Client({ name: "kata-robustness-ts", version: "1.0.0" });
await client.connect(transport);
console.log(`connected at ${negotiated}: ${client.getServerVersion().name} ${client.getServerVersion().version}`);
transport._process.stdout.on("data", (chunk) => {
  pending += chunk.toString("utf8");
  let nl;
  while ((nl = pending.indexOf("\n")) >= 0) {
    const line = pending.slice(0, nl);
    pending = pending.slice(nl + 1);
    const msg = JSON.parse(line);
    if (msg.error && !msg.method) {
      replies.push(msg);
      if (waiting) waiting();
    }
  }
});
transport.onerror = () => {}; // the SDK's complaint about a reply with id null

async function nextError() {
  const deadline = Date.now() + 60_000;
  while (replies.length === 0) {
    if (Date.now() > deadline) throw new Error("no error reply within a minute");
    await new Promise((resolve) => {
      waiting = resolve;
      setTimeout(resolve, 1000);
    });
  }
  return replies.shift();
}

const cases = [
  ["malformed JSON", '{"jsonrpc":"2.0","id":1,"method":"ping"'],
  ["empty batch", "[]"],
  ["batch", '[{"jsonrpc":"2.0","id":1,"method":"ping"}]'],
  ["jsonrpc 1.0", '{"jsonrpc":"1.0","id":77,"method":"ping"}'],
  ["object id", '{"jsonrpc":"2.0","id":{"a":1},"method":"ping"}'],
  ["40 MB line", '{"jsonrpc":"2.0","id":78,"method":"ping","params":{"x":"' + "a".repeat(40 << 20) + '"}}'],
];
for (const [name, line] of cases) {
  transport._process.stdin.write(line + "\n");
  const reply = await nextError();
  // The session goes on: the SDK's own request after it is answered.
  const { tools } = await client.listTools();
  console.log(`${name}: error ${reply.error.code} id ${JSON.stringify(reply.id)}, then tools/list ${tools.length} tools`);
}

const first = await client.callTool({ name: "quiz_item", arguments: { kata: "mcp-structured-errors" } });
const seed = first.structuredContent.seed;
const again = await client.callTool({ name: "quiz_item", arguments: { kata: "mcp-structured-errors", seed } });
const same = again.structuredContent.item === first.structuredContent.item &&
  JSON.stringify(again.structuredContent.options) === JSON.stringify(first.structuredContent.options);
console.log(`quiz_item seed ${Number.isSafeInteger(seed) ? "safe" : "unsafe"}, passed back: same item ${same}`);

await client.close();
console.log("closed");
