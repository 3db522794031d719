// The reference "everything" server's own streamable HTTP transport, bound to 127.0.0.1 only
// (its `streamableHttp` entry listens on every interface, on $PORT, default 3001).
//
//   PORT=8123 node serve_http.mjs       # http://127.0.0.1:8123/mcp
//   node node_modules/@modelcontextprotocol/server-everything/dist/index.js stdio   # stdio
import http from "node:http";

const listen = http.Server.prototype.listen;
http.Server.prototype.listen = function (port, ...rest) {
  const done = rest.find((argument) => typeof argument === "function");
  return listen.call(this, port, "127.0.0.1", done);
};
await import("@modelcontextprotocol/server-everything/dist/transports/streamableHttp.js");
