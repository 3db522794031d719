"""A live (2025-11-25) URL-mode wait: the tool waits after "accept" until the page completes the
record, and no longer than the link lives; either way nothing is left listening on the bus."""

from __future__ import annotations

import asyncio
import time
from typing import Any

import pytest
from mcp import Client
from mcp.server.mcpserver import Context, MCPServer
from mcp_types import ElicitResult
from support.local_url_mode import local_url_mode

from elicitkit.server import Elicitation, LocalBus, UrlElicitationNotCompletedError, UrlMode
from elicitkit.server.store import ACTIVE

pytestmark = pytest.mark.timeout(60)


def build(ttl: float) -> tuple[MCPServer[Any], UrlMode, LocalBus]:
    server: MCPServer[Any] = MCPServer("live wait")
    url_mode, bus = local_url_mode(ttl=ttl)
    secret = Elicitation(server, url_mode=url_mode).secret("key", title="Key", message="Key?", wait="live")

    @server.tool()
    async def ask(ctx: Context) -> str:  # type: ignore[type-arg]
        started = time.monotonic()
        try:
            await secret.get(ctx)
        except UrlElicitationNotCompletedError as ended:
            return f"{ended.state} after {time.monotonic() - started:.2f}"
        return f"completed after {time.monotonic() - started:.2f}"

    return server, url_mode, bus


def client(server: MCPServer[Any], asked: asyncio.Queue[str]) -> Client:
    async def accept(context: object, params: Any) -> ElicitResult:
        asked.put_nowait(params.elicitation_id)
        return ElicitResult(action="accept")

    return Client(server, mode="legacy", elicitation_callback=accept, cache=None)


def outcome(result: Any) -> tuple[str, float]:
    state, _, took = result.content[0].text.partition(" after ")
    return state, float(took)


async def test_a_live_wait_ends_when_its_link_expires() -> None:
    server, _, bus = build(ttl=0.5)
    asked: asyncio.Queue[str] = asyncio.Queue()
    async with client(server, asked) as mcp:
        state, took = outcome(await mcp.call_tool("ask", {}))
    assert state == "expired" and 0.4 <= took < 5
    assert bus.waiting() == 0


async def test_a_live_wait_ends_as_soon_as_the_page_completes_the_record() -> None:
    server, url_mode, bus = build(ttl=600)
    asked: asyncio.Queue[str] = asyncio.Queue()
    async with client(server, asked) as mcp:
        call = asyncio.create_task(mcp.call_tool("ask", {}))
        elicitation_id = await asyncio.wait_for(asked.get(), 10)
        await asyncio.sleep(0.2)  # the tool is waiting now
        assert bus.waiting() == 1
        await url_mode.store.transition(elicitation_id, from_states=ACTIVE, to="completed")
        await url_mode.site.announce(elicitation_id)
        state, took = outcome(await asyncio.wait_for(call, 10))
    assert state == "completed" and took < 5
    assert bus.waiting() == 0
