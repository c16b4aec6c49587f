// An MCP client that no one in this project wrote: the official TypeScript SDK's Client over
// StdioClientTransport, driving `kata mcp`. cmd_mcp_test.go runs it as
//   node client.mjs KATA_BINARY WORKSPACE
// and checks its output. Every line it prints is one fact the test reads; any failure throws,
// which exits non-zero with the error on stderr.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { LATEST_PROTOCOL_VERSION } from "@modelcontextprotocol/sdk/types.js";

const [kata, workspace] = process.argv.slice(2);
if (!kata || !workspace) {
  throw new Error("usage: node client.mjs KATA_BINARY WORKSPACE");
}

const transport = new StdioClientTransport({ command: kata, args: ["mcp"], env: process.env, stderr: "inherit" });
const client = new Client({ name: "kata-acceptance-ts", version: "1.0.0" });
await client.connect(transport);
const server = client.getServerVersion();
console.log(`connected: ${server.name} ${server.version}, client protocol ${LATEST_PROTOCOL_VERSION}`);

const { resources } = await client.listResources();
const withBody = resources.filter((r) => "text" in r || "blob" in r).length;
console.log(`resources/list: ${resources.length} resources, ${withBody} with a body`);
const layer = resources.find((r) => r.uri === "kata://mcp-structured-errors/knowledge");
if (!layer) throw new Error("no kata://mcp-structured-errors/knowledge resource");
console.log(`listed ${layer.uri}: "${layer.title}", ${layer.size} bytes, ${layer.mimeType}`);

const read = await client.readResource({ uri: layer.uri });
const text = read.contents[0].text;
console.log(`resources/read ${layer.uri}: ${read.contents.length} content, ${Buffer.byteLength(text)} bytes, starts "${text.split("\n")[0]}"`);

const { prompts } = await client.listPrompts();
const name = "mcp-structured-errors.review-my-error-contract";
const listed = prompts.find((p) => p.name === name);
if (!listed) throw new Error(`no prompt ${name}`);
console.log(`prompts/list: ${prompts.length} prompts; ${name} takes ${listed.arguments.map((a) => a.name).join(", ")}`);
const prompt = await client.getPrompt({ name, arguments: { server_source: "def lookup_order(order_id): ..." } });
const ptext = prompt.messages[0].content.text;
console.log(`prompts/get ${name}: ${prompt.messages.length} ${prompt.messages[0].role} message, source filled in: ${ptext.includes("def lookup_order(order_id): ...")}`);

// tools/list first: the SDK caches each tool's outputSchema and validates structuredContent
// against it in callTool.
const { tools } = await client.listTools();
console.log(`tools/list: ${tools.map((t) => t.name).sort().join(", ")}`);
const graded = await client.callTool({ name: "grade_workspace", arguments: { workspace, seed: 1 } });
const report = graded.structuredContent;
const passed = report.tests.filter((t) => t.status === "pass").length;
console.log(`tools/call grade_workspace: isError ${graded.isError ?? false}, status ${report.status}, ${passed}/${report.tests.length} tests pass, kata ${report.kata}, seed ${report.seed}`);

// Failures are tool results with isError and the typed payload; the SDK checks them against
// the output schema too (typescript-sdk#1943), which is why each tool's schema admits them.
const missing = await client.callTool({ name: "grade_workspace", arguments: { workspace: `${workspace}/does-not-exist` } });
console.log(`tools/call grade_workspace (missing folder): isError ${missing.isError}, errorCategory ${missing.structuredContent.errorCategory}, isRetryable ${missing.structuredContent.isRetryable}`);
const failed = await client.callTool({ name: "quiz_item", arguments: { kata: "no-such-kata" } });
console.log(`tools/call quiz_item (unknown kata): isError ${failed.isError}, ${JSON.stringify(failed.structuredContent)}`);

await client.close();
console.log("closed");
