// The TypeScript SDK v2 client (@modelcontextprotocol/client) as an application writes it,
// driven through the host audit (elicitkit check --host): it declares form mode, answers every
// question with the audit's fixed policy (host_policy.mjs), lets the SDK negotiate the revision
// (or pins 2026-07-28 with --2026, for its input-required rounds) and calls each tool named.
//
//   node host_audit_v2.mjs [--2026] <mcp url> <tool> [<tool> ...]
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { answer } from "./host_policy.mjs";

const args = process.argv.slice(2);
const pinned = args[0] === "--2026" ? args.shift() : null;
const [mcpUrl, ...tools] = args;
const say = (message) => process.stdout.write(JSON.stringify(message) + "\n");

const client = new Client(
  { name: "ts-sdk-v2-host", version: "2.4.0" },
  {
    capabilities: { elicitation: { form: {} } },
    ...(pinned ? { versionNegotiation: { mode: { pin: "2026-07-28" } } } : {}),
  },
);
client.setRequestHandler("elicitation/create", async (request) => answer(request.params));
await client.connect(new StreamableHTTPClientTransport(new URL(mcpUrl)));
for (const tool of tools) {
  try {
    const result = await client.callTool({ name: tool, arguments: {} });
    say({ tool, text: result.content?.[0]?.text ?? null });
  } catch (error) {
    say({ tool, error: String(error?.message ?? error) });
  }
}
await client.close();
