"""Servers that mean harm, written with the bare SDK: what the client must survive (issue 12).

Each tool misbehaves in one way: a pattern that backtracks forever, a schema the client could
only half check, a -32042 storm, -32042 data that breaks the protocol, oversized text, notices
of the wrong type. None of them uses elicitkit's server code.
"""

from __future__ import annotations

import json
from typing import Any

import anyio
from client_servers import NAME_SCHEMA, send
from mcp.server.mcpserver import Context, MCPServer
from mcp.shared.exceptions import MCPError, UrlElicitationRequiredError
from mcp_types import URL_ELICITATION_REQUIRED, ElicitRequestFormParams, ElicitRequestURLParams

from elicitkit._sdk import connection_of

EVIL_PATTERN = "^(a+)+$"
EVIL_TEXT = "a" * 26 + "b"  # Python's `re` needs seconds per try on this; RE2 microseconds


def _url(i: int | str) -> dict[str, Any]:
    return {
        "mode": "url",
        "message": f"Open {i}",
        "url": f"https://example.com/{i}",
        "elicitationId": f"e-{i}",
    }


BROKEN_32042: dict[str, Any] = {
    "no data": None,
    "data not an object": "please open https://example.com",
    "elicitations not a list": {"elicitations": {"url": "https://example.com"}},
    "a form-mode entry": {"elicitations": [{"mode": "form", "message": "x", "requestedSchema": {}}]},
    "an entry without id": {"elicitations": [{"mode": "url", "message": "x", "url": "https://example.com"}]},
    "an entry of the wrong type": {"elicitations": ["https://example.com"]},
    "a url of the wrong type": {"elicitations": [{**_url(1), "url": 42}]},
    "duplicate ids": {"elicitations": [_url(1), _url(1)]},
    "thousands of entries": {"elicitations": [_url(i) for i in range(5000)]},
}


def hostile_server() -> MCPServer:
    mcp = MCPServer("Hostile Server")
    rounds = {"storm": 0}

    @mcp.tool()
    async def ask(ctx: Context, schema: str, message: str = "Fill this in") -> str:
        """One form request with whatever schema (and message) the test hands over."""
        return await send(ctx, ElicitRequestFormParams(message=message, requested_schema=json.loads(schema)))

    @mcp.tool()
    async def ask_url(ctx: Context, url: str, message: str = "Open this") -> str:
        return await send(ctx, ElicitRequestURLParams(message=message, url=url, elicitation_id="u-1"))

    @mcp.tool()
    async def ask_aside(ctx: Context, delay: float = 0.0) -> str:
        """While this call is open, ask on the standalone GET stream: no request named."""
        await anyio.sleep(delay)
        params = ElicitRequestFormParams(message="Unrelated", requested_schema=NAME_SCHEMA)
        return await send(ctx, params, related=False)

    @mcp.tool()
    async def pause(seconds: float) -> str:
        """A call that stays open for a while and asks nothing."""
        await anyio.sleep(seconds)
        return "rested"

    @mcp.tool()
    async def storm(ctx: Context) -> str:
        """Answer every call, forever, with a fresh -32042 listing a new URL."""
        rounds["storm"] += 1
        n = rounds["storm"]
        raise UrlElicitationRequiredError(
            [
                ElicitRequestURLParams(
                    message=f"Round {n}", url=f"https://example.com/{n}", elicitation_id=f"s-{n}"
                )
            ]
        )

    @mcp.tool()
    async def broken_32042(ctx: Context, kind: str) -> str:
        """A -32042 whose data breaks the protocol in the way `kind` names."""
        raise MCPError(URL_ELICITATION_REQUIRED, "URL elicitation required", BROKEN_32042[kind])

    @mcp.tool()
    async def bad_notices(ctx: Context) -> str:
        """Completion notices whose elicitationId is of the wrong type, then a form request."""
        connection = connection_of(ctx.session)  # its standalone channel: a notice tied to no request
        assert connection is not None
        outbound = connection.outbound
        for wrong in (42, None, ["e-1"], {"id": "e-1"}, "x" * 100_000):
            await outbound.notify("notifications/elicitation/complete", {"elicitationId": wrong})
        await outbound.notify("notifications/elicitation/complete", None)
        return "sent"

    return mcp


def old_server() -> Any:
    """Raw JSON-RPC over HTTP that only speaks 2025-11-25: HTTP 400 for any other version header."""
    from starlette.applications import Starlette
    from starlette.requests import Request
    from starlette.responses import JSONResponse, Response
    from starlette.routing import Route

    def reply(request_id: Any, result: dict[str, Any]) -> JSONResponse:
        return JSONResponse({"jsonrpc": "2.0", "id": request_id, "result": result})

    async def mcp(request: Request) -> Response:
        if request.method != "POST":
            return Response(status_code=405)
        version = request.headers.get("mcp-protocol-version")
        if version not in (None, "2025-11-25"):
            error = {"code": -32600, "message": f"Bad Request: Unsupported protocol version: {version}"}
            return JSONResponse({"jsonrpc": "2.0", "id": "server-error", "error": error}, status_code=400)
        message = json.loads(await request.body())
        if "id" not in message:
            return Response(status_code=202)
        method, request_id = message.get("method"), message["id"]
        if method == "initialize":
            info = {"name": "Old Server", "version": "1"}
            return reply(
                request_id,
                {"protocolVersion": "2025-11-25", "capabilities": {"tools": {}}, "serverInfo": info},
            )
        if method == "tools/list":
            return reply(request_id, {"tools": [{"name": "hello", "inputSchema": {"type": "object"}}]})
        if method == "tools/call" and message["params"]["name"] == "malformed":
            return reply(request_id, {"content": 5, "resultType": "input_required"})
        if method == "tools/call":
            return reply(request_id, {"content": [{"type": "text", "text": "hello from 2025-11-25"}]})
        error = {"code": -32601, "message": "Method not found"}
        return JSONResponse({"jsonrpc": "2.0", "id": request_id, "error": error})

    return Starlette(routes=[Route("/mcp", mcp, methods=["GET", "POST", "DELETE"])])
