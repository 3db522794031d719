// The TypeScript SDK v1 client (@modelcontextprotocol/sdk) as an application writes it, driven
// through the host audit (elicitkit check --host): it declares elicitation as most apps do
// (`{}`, form only), answers every question with the audit's fixed policy (host_policy.mjs) and
// calls each tool named on the command line in order. It prints one JSON line per tool.
//
//   node host_audit_v1.mjs <mcp url> <tool> [<tool> ...]
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { ElicitRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import { answer } from "./host_policy.mjs";

const [mcpUrl, ...tools] = process.argv.slice(2);
const say = (message) => process.stdout.write(JSON.stringify(message) + "\n");

const client = new Client({ name: "ts-sdk-v1-host", version: "1.32.2" }, { capabilities: { elicitation: {} } });
client.setRequestHandler(ElicitRequestSchema, async (request) => answer(request.params));
await client.connect(new StreamableHTTPClientTransport(new URL(mcpUrl)));
for (const tool of tools) {
  try {
    const result = await client.callTool({ name: tool, arguments: {} }, undefined, { timeout: 60000 });
    say({ tool, text: result.content?.[0]?.text ?? null });
  } catch (error) {
    say({ tool, error: String(error?.message ?? error) });
  }
}
await client.close();
