// A stock TypeScript SDK v1 server (@modelcontextprotocol/sdk), as an application would write
// it: streamable HTTP with sessions, and tools that ask with `server.server.elicitInput(...)`,
// the SDK's common idiom. It names no related request, so the SDK sends the question on the
// standalone GET stream while the tool call is open.
//
//   node elicit_server.mjs        # prints {"url": "http://127.0.0.1:<port>/mcp"} once it listens
//
// Tools: `order` asks a form (size and sugar) and returns what came back; `connect` asks to
// open a URL (URL mode), sends the completion notice when the person agreed, and returns the
// action. It stops on SIGTERM or when stdin closes.
import http from "node:http";
import { randomUUID } from "node:crypto";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { isInitializeRequest } from "@modelcontextprotocol/sdk/types.js";

function coffeeServer() {
  const server = new McpServer({ name: "ts-coffee", title: "TypeScript Coffee", version: "1.0.0" });
  server.registerTool("order", { description: "Order a coffee; asks how you like it." }, async () => {
    const result = await server.server.elicitInput({
      message: "How do you like your coffee?",
      requestedSchema: {
        type: "object",
        properties: {
          size: { type: "string", title: "Size", enum: ["small", "large"], default: "small" },
          sugar: { type: "integer", title: "Sugar", minimum: 0, maximum: 3 },
        },
        required: ["size", "sugar"],
      },
    });
    return { content: [{ type: "text", text: JSON.stringify(result) }] };
  });
  server.registerTool("connect", { description: "Connect a bank account in the browser." }, async () => {
    const elicitationId = randomUUID();
    const result = await server.server.elicitInput({
      mode: "url",
      message: "Connect your bank account on its own page.",
      url: `https://bank.example/connect?session=${elicitationId}`,
      elicitationId,
    });
    if (result.action === "accept") {
      await server.server.createElicitationCompletionNotifier(elicitationId)();
    }
    return { content: [{ type: "text", text: JSON.stringify({ action: result.action }) }] };
  });
  return server;
}

const transports = new Map();

async function body(request) {
  const chunks = [];
  for await (const chunk of request) chunks.push(chunk);
  const text = Buffer.concat(chunks).toString();
  return text ? JSON.parse(text) : undefined;
}

const httpServer = http.createServer(async (request, response) => {
  if (new URL(request.url, "http://127.0.0.1").pathname !== "/mcp") {
    response.writeHead(404).end();
    return;
  }
  const parsed = request.method === "POST" ? await body(request) : undefined;
  const sessionId = request.headers["mcp-session-id"];
  let transport = sessionId ? transports.get(sessionId) : undefined;
  if (transport === undefined) {
    if (!isInitializeRequest(parsed)) {
      response.writeHead(400, { "content-type": "application/json" });
      response.end(JSON.stringify({ jsonrpc: "2.0", id: null, error: { code: -32000, message: "No session" } }));
      return;
    }
    transport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      onsessioninitialized: (id) => transports.set(id, transport),
    });
    transport.onclose = () => transports.delete(transport.sessionId);
    await coffeeServer().connect(transport);
  }
  await transport.handleRequest(request, response, parsed);
});

httpServer.listen(0, "127.0.0.1", () => {
  const { port } = httpServer.address();
  process.stdout.write(`${JSON.stringify({ url: `http://127.0.0.1:${port}/mcp` })}\n`);
});

const stop = () => {
  httpServer.closeAllConnections();
  httpServer.close(() => process.exit(0));
};
process.on("SIGTERM", stop);
process.stdin.on("end", stop);
process.stdin.resume();
