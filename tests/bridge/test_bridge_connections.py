"""One upstream session keeps its TCP connections: calls through the bridge do not open new ones.

The upstream is the stock FastMCP server, served on 127.0.0.1 behind a count of the client
ports its requests come from (one port is one TCP connection).
"""

from __future__ import annotations

from typing import Any

import pytest
from mcp import Client
from starlette.types import ASGIApp, Receive, Scope, Send
from support.url_harness import serve
from upstream_fastmcp import mcp as fastmcp_server

from elicitkit.bridge import Bridge

pytestmark = pytest.mark.timeout(120)


class Connections:
    """An ASGI wrapper noting the client port of every HTTP request."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app
        self.ports: set[int] = set()

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http" and scope.get("client"):
            self.ports.add(scope["client"][1])
        await self.app(scope, receive, send)


async def test_calls_through_the_bridge_reuse_the_upstream_connections() -> None:
    upstream = Connections(fastmcp_server.http_app())

    def app(url: str) -> Any:
        return upstream

    async with serve(app) as base:
        bridge = Bridge(f"{base}/mcp", answer="host")
        async with bridge.running(learn=False), Client(bridge.server, mode="legacy") as host:
            await host.call_tool("add", {"a": 1, "b": 1})
            opened = len(upstream.ports)
            for i in range(30):
                result = await host.call_tool("add", {"a": i, "b": 1})
                assert result.structured_content == {"result": i + 1}
    assert len(upstream.ports) - opened <= 2, f"30 calls opened {len(upstream.ports) - opened} connections"
