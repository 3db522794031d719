// The TypeScript SDK v1 client (@modelcontextprotocol/sdk), which speaks up to 2025-11-25:
// the same job as url_client.mjs, for the live URL-mode elicitation/create of that revision.
//
//   node url_client_v1.mjs <mcp url> <bearer token> <tool> <accept|decline|cancel>
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { ElicitRequestSchema } from "@modelcontextprotocol/sdk/types.js";

const [mcpUrl, token, tool, action] = process.argv.slice(2);
const say = (message) => process.stdout.write(JSON.stringify(message) + "\n");

const client = new Client(
  { name: "ts-sdk-v1-peer", version: "1.0.0" },
  { capabilities: { elicitation: { url: {} } } },
);
client.setRequestHandler(ElicitRequestSchema, async (request) => {
  say({ url: request.params.url, mode: request.params.mode });
  return { action };
});
const transport = new StreamableHTTPClientTransport(new URL(mcpUrl), {
  requestInit: { headers: { Authorization: `Bearer ${token}` } },
});
try {
  await client.connect(transport);
  say({ era: transport.protocolVersion ?? null });
  const result = await client.callTool({ name: tool, arguments: {} }, undefined, { timeout: 120000 });
  say({ result });
} catch (error) {
  say({ error: String(error?.message ?? error), code: error?.code ?? null });
} finally {
  await client.close();
}
