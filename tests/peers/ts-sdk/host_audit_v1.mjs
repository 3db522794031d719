// The TypeScript SDK v1 client (@modelcontextprotocol/sdk) as an application writes it, driven
// through the host audit (elicitkit check --host): it declares elicitation as most apps do
// (`{}`, form only), answers every question with the audit's fixed policy (host_policy.mjs) and
// calls each tool named on the command line in order. It lists the tools first, as a host does, so
// the SDK knows each one's execution.taskSupport; a tool that requires a task is called through the
// SDK's task API (client.experimental.tasks.callToolStream), as the SDK tells an application to.
// It prints one JSON line per tool.
//
//   node host_audit_v1.mjs <mcp url> <tool> [<tool> ...]
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { CallToolResultSchema, ElicitRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import { answer } from "./host_policy.mjs";

const [mcpUrl, ...tools] = process.argv.slice(2);
const say = (message) => process.stdout.write(JSON.stringify(message) + "\n");

const client = new Client({ name: "ts-sdk-v1-host", version: "1.32.2" }, { capabilities: { elicitation: {} } });
client.setRequestHandler(ElicitRequestSchema, async (request) => answer(request.params));
await client.connect(new StreamableHTTPClientTransport(new URL(mcpUrl)));
await client.listTools();

async function asTask(tool) {
  const stream = client.experimental.tasks.callToolStream({ name: tool, arguments: {} }, CallToolResultSchema, {
    timeout: 60000,
  });
  for await (const message of stream) {
    if (message.type === "result") return message.result;
    if (message.type === "error") throw message.error;
  }
  return {};
}

for (const tool of tools) {
  try {
    const result = client.isToolTaskRequired(tool)
      ? await asTask(tool)
      : await client.callTool({ name: tool, arguments: {} }, undefined, { timeout: 60000 });
    say({ tool, text: result.content?.[0]?.text ?? null });
  } catch (error) {
    say({ tool, error: String(error?.message ?? error) });
  }
}
await client.close();
