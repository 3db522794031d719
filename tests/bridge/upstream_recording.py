"""A server on the SDK's own `MCPServer` that writes down every HTTP request it gets, so a test
sees what reached it through a bridge (and what did not).

    python upstream_recording.py PORT LOG

Each request is one JSON line in LOG: the HTTP method, the JSON-RPC method of its body (or
null) and the `Authorization` header it carried (a static token the bridge was given).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import uvicorn
from mcp.server.mcpserver import MCPServer
from starlette.types import ASGIApp, Message, Receive, Scope, Send

mcp = MCPServer("Recording Upstream")


@mcp.tool()
async def act(what: str) -> str:
    """Something done upstream in the person's name."""
    return f"done: {what}"


class Recorder:
    """ASGI middleware: one line in `log` per HTTP request, before the server sees it."""

    def __init__(self, app: ASGIApp, log: Path) -> None:
        self.app, self.log = app, log

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        chunks: list[bytes] = []
        while True:
            message = await receive()
            chunks.append(message.get("body", b""))
            if not message.get("more_body", False):
                break
        body = b"".join(chunks)
        headers = dict(scope["headers"])
        try:
            parsed: Any = json.loads(body) if body else None
        except ValueError:
            parsed = None
        line = {
            "http": scope["method"],
            "method": parsed.get("method") if isinstance(parsed, dict) else None,
            "authorization": headers.get(b"authorization", b"").decode("latin-1") or None,
        }
        with self.log.open("a", encoding="utf-8") as sink:
            sink.write(json.dumps(line) + "\n")
        given = False

        async def replay() -> Message:
            nonlocal given
            if not given:
                given = True
                return {"type": "http.request", "body": body, "more_body": False}
            return await receive()

        await self.app(scope, replay, send)


if __name__ == "__main__":
    app = Recorder(mcp.streamable_http_app(), Path(sys.argv[2]))
    uvicorn.run(app, host="127.0.0.1", port=int(sys.argv[1]), log_level="warning")
