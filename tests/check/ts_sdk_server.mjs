// A check target on the stock TypeScript SDK v1 (@modelcontextprotocol/sdk, from tests/peers/ts-sdk),
// written the two ways its users ask: `book` asks inside the tool with `extra.sendRequest` (tied
// to the tool call), `order` with `server.server.elicitInput` (tied to nothing, so over streamable
// HTTP the question goes out on the standalone GET stream while the call is open).
//
//   node ts_sdk_server.mjs PORT      # streamable HTTP at http://127.0.0.1:PORT/mcp, with sessions
import http from "node:http";
import { randomUUID } from "node:crypto";
import { McpServer } from "../peers/ts-sdk/node_modules/@modelcontextprotocol/sdk/dist/esm/server/mcp.js";
import { StreamableHTTPServerTransport } from "../peers/ts-sdk/node_modules/@modelcontextprotocol/sdk/dist/esm/server/streamableHttp.js";
import { ElicitResultSchema, isInitializeRequest } from "../peers/ts-sdk/node_modules/@modelcontextprotocol/sdk/dist/esm/types.js";

const TRIP = {
  type: "object",
  properties: {
    city: { type: "string", title: "City", maxLength: 40 },
    nights: { type: "integer", title: "Nights", minimum: 1, maximum: 14, default: 2 },
  },
  required: ["city"],
};

function tripServer() {
  const server = new McpServer({ name: "ts-trips", version: "1.0.0" });
  server.registerTool("book", { description: "Book a trip; asks where and how long." }, async (extra) => {
    const result = await extra.sendRequest(
      { method: "elicitation/create", params: { message: "Where to, and for how long?", requestedSchema: TRIP } },
      ElicitResultSchema,
    );
    return { content: [{ type: "text", text: JSON.stringify(result) }] };
  });
  server.registerTool("order", { description: "Order a trip the common way." }, async () => {
    const result = await server.server.elicitInput({ message: "Where to, and for how long?", requestedSchema: TRIP });
    return { content: [{ type: "text", text: JSON.stringify(result) }] };
  });
  return server;
}

const sessions = new Map();

async function read(request) {
  const chunks = [];
  for await (const chunk of request) chunks.push(chunk);
  const text = Buffer.concat(chunks).toString();
  return text ? JSON.parse(text) : undefined;
}

http
  .createServer(async (request, response) => {
    if (new URL(request.url, "http://127.0.0.1").pathname !== "/mcp") {
      response.writeHead(404).end();
      return;
    }
    const body = request.method === "POST" ? await read(request) : undefined;
    const id = request.headers["mcp-session-id"];
    let transport = id ? sessions.get(id) : undefined;
    if (transport === undefined) {
      if (!isInitializeRequest(body)) {
        response.writeHead(400).end();
        return;
      }
      transport = new StreamableHTTPServerTransport({
        sessionIdGenerator: () => randomUUID(),
        onsessioninitialized: (sid) => sessions.set(sid, transport),
      });
      transport.onclose = () => sessions.delete(transport.sessionId);
      await tripServer().connect(transport);
    }
    await transport.handleRequest(request, response, body);
  })
  .listen(Number(process.argv[2]), "127.0.0.1");
