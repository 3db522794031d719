"""A server that speaks 2026-07-28 alone and holds its clients to it on every request.

`ModernOnly(app)` is ASGI middleware in front of any MCP server's app (the SDK's `MCPServer`
here, its OAuth metadata routes included): a request without `MCP-Protocol-Version` gets 400
with -32020 ("Missing MCP-Protocol-Version header"), one with another version 400 with -32022,
as 2026-07-28 has a server answer; so a 2025-11-25 `initialize`, which carries no header, is
refused. It keeps what came: each request's method, path and version.

    python upstream_modern_only.py PORT

serves an `MCPServer` with an `echo` tool that way, printing a line for each request it refuses
(with the JSON-RPC method of a POST).
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from dataclasses import dataclass, field

import uvicorn
from mcp.server.mcpserver import MCPServer
from mcp_types import HEADER_MISMATCH, UNSUPPORTED_PROTOCOL_VERSION
from starlette.responses import JSONResponse
from starlette.types import ASGIApp, Receive, Scope, Send

REVISION = "2026-07-28"


@dataclass
class Seen:
    method: str
    path: str
    version: str | None
    called: str | None = None
    """The JSON-RPC method of a POST refused."""


@dataclass
class ModernOnly:
    app: ASGIApp
    on_refused: Callable[[Seen], None] | None = None
    seen: list[Seen] = field(default_factory=list)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        raw = dict(scope["headers"]).get(b"mcp-protocol-version")
        version = raw.decode("latin-1") if raw is not None else None
        seen = Seen(scope["method"], scope["path"], version)
        self.seen.append(seen)
        if version == REVISION:
            await self.app(scope, receive, send)
            return
        seen.called = await _called(receive) if scope["method"] == "POST" else None
        if version is None:
            error = {"code": HEADER_MISMATCH, "message": "Missing MCP-Protocol-Version header"}
        else:
            data = {"supported": [REVISION], "requested": version}
            error = {
                "code": UNSUPPORTED_PROTOCOL_VERSION,
                "message": "Unsupported protocol version",
                "data": data,
            }
        if self.on_refused is not None:
            self.on_refused(seen)
        await JSONResponse({"jsonrpc": "2.0", "id": None, "error": error}, 400)(scope, receive, send)

    @property
    def refused(self) -> list[Seen]:
        return [seen for seen in self.seen if seen.version != REVISION]


async def _called(receive: Receive) -> str | None:
    body = b""
    while True:
        message = await receive()
        body += message.get("body", b"")
        if not message.get("more_body"):
            break
    try:
        called = json.loads(body).get("method")
    except (ValueError, AttributeError):
        return None
    return called if isinstance(called, str) else None


def echoing() -> MCPServer:
    server = MCPServer("Modern only")

    @server.tool()
    async def echo(text: str) -> str:
        return text

    return server


def _print(refused: Seen) -> None:
    print(f"refused {refused.method} {refused.path} {refused.version} {refused.called}", flush=True)


if __name__ == "__main__":
    app = ModernOnly(echoing().streamable_http_app(), on_refused=_print)
    uvicorn.run(app, host="127.0.0.1", port=int(sys.argv[1]), log_level="warning")
