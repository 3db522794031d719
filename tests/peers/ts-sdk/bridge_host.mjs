// A stock TypeScript SDK client as an MCP host in front of `elicitkit bridge`: v1
// (@modelcontextprotocol/sdk) or v2 (@modelcontextprotocol/client), over stdio (it runs the
// bridge's command) or streamable HTTP. It declares the elicitation modes it is given, prints
// each question it gets as {"asked": {...}}, answers with the action (and content) given, and
// prints the tool's result as {"result": ...}, or {"error": ...}.
//
// v2-2026 is the v2 client pinned to 2026-07-28 (its questions come as input-required rounds).
//
//   node bridge_host.mjs <v1|v2|v2-2026> <stdio|http> <url | JSON command array> <tool> <none|form|url|form,url> <action> [content JSON]
const [version, how, target, tool, modes, action, content] = process.argv.slice(2);
const say = (message) => process.stdout.write(JSON.stringify(message) + "\n");

const elicitation = {};
for (const mode of modes === "none" ? [] : modes.split(",")) elicitation[mode] = {};
const capabilities = modes === "none" ? {} : { elicitation };

async function answer(request) {
  say({ asked: request.params });
  const reply = { action };
  if (action === "accept" && request.params.mode !== "url") reply.content = JSON.parse(content ?? "{}");
  return reply;
}

let client;
let transport;
if (version === "v1") {
  const { Client } = await import("@modelcontextprotocol/sdk/client/index.js");
  const { ElicitRequestSchema } = await import("@modelcontextprotocol/sdk/types.js");
  client = new Client({ name: "ts-sdk-v1-host", version: "1.0.0" }, { capabilities });
  if (modes !== "none") client.setRequestHandler(ElicitRequestSchema, answer);
  if (how === "stdio") {
    const { StdioClientTransport } = await import("@modelcontextprotocol/sdk/client/stdio.js");
    const [command, ...args] = JSON.parse(target);
    transport = new StdioClientTransport({ command, args, env: process.env, stderr: "inherit" });
  } else {
    const { StreamableHTTPClientTransport } = await import("@modelcontextprotocol/sdk/client/streamableHttp.js");
    transport = new StreamableHTTPClientTransport(new URL(target));
  }
} else {
  const { Client, StreamableHTTPClientTransport } = await import("@modelcontextprotocol/client");
  const options = { capabilities };
  if (version === "v2-2026") options.versionNegotiation = { mode: { pin: "2026-07-28" } };
  client = new Client({ name: "ts-sdk-v2-host", version: "1.0.0" }, options);
  if (modes !== "none") client.setRequestHandler("elicitation/create", answer);
  if (how === "stdio") {
    const { StdioClientTransport } = await import("@modelcontextprotocol/client/stdio");
    const [command, ...args] = JSON.parse(target);
    transport = new StdioClientTransport({ command, args, env: process.env, stderr: "inherit" });
  } else {
    transport = new StreamableHTTPClientTransport(new URL(target));
  }
}
try {
  await client.connect(transport);
  if (version === "v2-2026") say({ protocol: client.getNegotiatedProtocolVersion() });
  const result = await client.callTool({ name: tool, arguments: {} }, undefined, { timeout: 120000 });
  say({ result });
} catch (error) {
  say({ error: String(error?.message ?? error), code: error?.code ?? null });
} finally {
  await client.close();
}
