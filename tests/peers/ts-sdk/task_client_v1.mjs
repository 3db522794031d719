// The TypeScript SDK v1 client (@modelcontextprotocol/sdk) calling a tool as a 2025-11-25 task
// through its own task API (client.experimental.tasks.callToolStream): it polls tasks/get, and on
// input_required opens tasks/result, where the server's elicitation/create reaches its ordinary
// elicitation handler. Prints one JSON line per thing it sees.
//
//   node task_client_v1.mjs <mcp url> <bearer token> <tool> <arguments json> <answer json>
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { CallToolResultSchema, ElicitRequestSchema } from "@modelcontextprotocol/sdk/types.js";

const [mcpUrl, token, tool, args, answer] = process.argv.slice(2);
const say = (message) => process.stdout.write(JSON.stringify(message) + "\n");

const client = new Client(
  { name: "ts-sdk-v1-task-peer", version: "1.0.0" },
  { capabilities: { elicitation: { form: {}, url: {} } } },
);
client.setRequestHandler(ElicitRequestSchema, async (request) => {
  say({ elicit: request.params });
  return JSON.parse(answer);
});
const transport = new StreamableHTTPClientTransport(new URL(mcpUrl), {
  requestInit: { headers: { Authorization: `Bearer ${token}` } },
});
try {
  await client.connect(transport);
  say({ era: transport.protocolVersion ?? null, tasks: client.getServerCapabilities()?.tasks ?? null });
  await client.listTools(); // the SDK learns each tool's execution.taskSupport here
  say({ isTask: client.isToolTask(tool), required: client.isToolTaskRequired(tool) });
  const stream = client.experimental.tasks.callToolStream(
    { name: tool, arguments: JSON.parse(args) },
    CallToolResultSchema,
    { timeout: 120000 },
  );
  for await (const message of stream) {
    if (message.type === "taskCreated") say({ created: message.task });
    else if (message.type === "taskStatus") say({ status: message.task.status });
    else if (message.type === "result") say({ result: message.result });
    else say({ error: String(message.error?.message ?? message.error), code: message.error?.code ?? null });
  }
  const listed = await client.experimental.tasks.listTasks();
  say({ listed: listed.tasks.map((t) => [t.taskId, t.status]) });
} catch (error) {
  say({ error: String(error?.message ?? error), code: error?.code ?? null });
} finally {
  await client.close();
}
