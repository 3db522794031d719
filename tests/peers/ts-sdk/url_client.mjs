// A stock TypeScript SDK v2 client, as an application would write it: pinned to 2026-07-28,
// one elicitation handler. For each URL elicitation it prints {"url": ...} on stdout (the test
// opens it in a browser) and answers with the action given on the command line; then it prints
// the tool's result as {"result": ...}, or {"error": ...}.
//
//   node url_client.mjs <mcp url> <bearer token> <tool> <accept|decline|cancel>
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";

const [mcpUrl, token, tool, action] = process.argv.slice(2);
const say = (message) => process.stdout.write(JSON.stringify(message) + "\n");

const client = new Client(
  { name: "ts-sdk-peer", version: "1.0.0" },
  {
    capabilities: { elicitation: { url: {} } },
    versionNegotiation: { mode: { pin: "2026-07-28" } },
  },
);
client.setRequestHandler("elicitation/create", async (request) => {
  say({ url: request.params.url, mode: request.params.mode });
  return { action };
});
const transport = new StreamableHTTPClientTransport(new URL(mcpUrl), {
  requestInit: { headers: { Authorization: `Bearer ${token}` } },
});
try {
  await client.connect(transport);
  say({ era: client.getNegotiatedProtocolVersion?.() ?? null });
  const result = await client.callTool({ name: tool, arguments: {} }); // the SDK's default timeouts
  say({ result });
} catch (error) {
  say({ error: String(error?.message ?? error), code: error?.code ?? null });
} finally {
  await client.close();
}
