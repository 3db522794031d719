"""A -32042 link's completion listener holds the MCP session it would notify; it is let go as
soon as nothing can use it: when its session closes, and when the link expires, with no sweep
and no new elicitation to trigger one. Observed from outside: the session object is collected,
and the bus and `UrlMode.held` count nothing waiting."""

from __future__ import annotations

import asyncio
import gc
import weakref
from typing import Any

import pytest
from mcp import Client
from mcp.server.mcpserver import Context, MCPServer
from mcp.shared.exceptions import MCPError
from mcp_types import ElicitResult
from support.local_url_mode import local_url_mode

from elicitkit.server import Elicitation, LocalBus, UrlMode

pytestmark = pytest.mark.timeout(60)

LINKS = 30


def build(ttl: float) -> tuple[MCPServer[Any], UrlMode, LocalBus, list[weakref.ref[Any]]]:
    server: MCPServer[Any] = MCPServer("held")
    url_mode, bus = local_url_mode(ttl=ttl, max_pending_per_user=None)
    secret = Elicitation(server, url_mode=url_mode).secret("key", title="Key", message="Key?", wait="error")
    sessions: list[weakref.ref[Any]] = []

    @server.tool()
    async def ask(ctx: Context) -> str:  # type: ignore[type-arg]
        sessions.append(weakref.ref(ctx.session))
        return await secret.get(ctx)

    return server, url_mode, bus, sessions


async def accept(context: object, params: object) -> ElicitResult:
    return ElicitResult(action="accept")


async def open_links(server: MCPServer[Any], client: Client) -> None:
    for _ in range(LINKS):
        with pytest.raises(MCPError) as raised:
            await client.call_tool("ask", {})
        assert raised.value.code == -32042


async def test_listeners_of_a_closed_session_are_let_go_at_once() -> None:
    server, url_mode, bus, sessions = build(ttl=600.0)  # the links outlive the test by far
    async with Client(server, mode="legacy", elicitation_callback=accept, cache=None) as client:
        await open_links(server, client)
        assert bus.waiting() == LINKS and url_mode.held == LINKS
    await asyncio.sleep(0.1)
    gc.collect()
    assert bus.waiting() == 0 and url_mode.held == 0
    assert [ref() for ref in sessions] == [None] * LINKS  # no session object kept alive


async def test_listeners_of_expired_links_are_let_go_at_expiry_without_a_sweep() -> None:
    server, url_mode, bus, _ = build(ttl=1.0)
    async with Client(server, mode="legacy", elicitation_callback=accept, cache=None) as client:
        await open_links(server, client)
        assert bus.waiting() == LINKS
        await asyncio.sleep(1.5)  # past every link's expiry; nothing starts a new elicitation
        assert bus.waiting() == 0 and url_mode.held == 0
