"""Nothing an elicitation leaves behind outlives it, and one user cannot open without bound.

A flood of URL-mode elicitations, every one abandoned (the -32042 path never completed, live
calls whose session ended mid-wait, 2026-07-28 rounds the client gave up on), must leave the
bus's listeners, UrlMode's held listeners, the tasks and the Python heap at their baseline
once the links expire and a sweep runs. The figures go to docs/performance.md; run with -s to
see them. Past `max_pending_per_user` a tool gets `PendingLimitError`'s sentence instead.
"""

from __future__ import annotations

import asyncio
import gc
import time
import tracemalloc
from pathlib import Path
from typing import Any

import pytest
from mcp import Client
from mcp.server.mcpserver import Context, MCPServer
from mcp.shared.exceptions import MCPError
from mcp_types import ElicitResult
from support.local_url_mode import local_url_mode

from elicitkit.server import Elicitation, LocalBus, McpUsers, PendingLimitError, UrlMode

pytestmark = pytest.mark.timeout(180)

TTL = 3.0
ROUNDS = 3
PER_KIND = 60
COUNTERS_OUTLIVE = 61.0  # a -32042 link's rounds counter lives 60 s past the link (url_mode.py)


def rss_kib() -> int:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    raise AssertionError("no VmRSS")


def build(*, cap: int | None) -> tuple[MCPServer[Any], UrlMode, LocalBus]:
    server: MCPServer[Any] = MCPServer("flood")
    url_mode, bus = local_url_mode(ttl=TTL, max_pending_per_user=cap)
    elicit = Elicitation(server, url_mode=url_mode)
    held = elicit.secret("held", title="Held", message="Asked with -32042.", wait="error")
    live = elicit.secret("live", title="Live", message="Asked live.", wait="live")

    @server.tool()
    async def ask_held(ctx: Context) -> str:  # type: ignore[type-arg]
        return await held.get(ctx)

    @server.tool()
    async def ask_live(ctx: Context) -> str:  # type: ignore[type-arg]
        return await live.get(ctx)

    return server, url_mode, bus


async def accept(context: object, params: object) -> ElicitResult:
    return ElicitResult(action="accept")  # consent to open the link, which no one then opens


def figures(url_mode: UrlMode, bus: LocalBus) -> dict[str, int]:
    gc.collect()
    return {
        "bus listeners": bus.waiting(),
        "held -32042 listeners": url_mode.held,
        "tasks": len(asyncio.all_tasks()),
        "python heap KiB": tracemalloc.get_traced_memory()[0] // 1024,
        "RSS KiB": rss_kib(),
    }


async def flood(server: MCPServer[Any]) -> None:
    """PER_KIND of each kind, all abandoned."""
    async with Client(server, mode="legacy", elicitation_callback=accept, cache=None) as client:
        for _ in range(PER_KIND):  # -32042: the client is told to come back, and never does
            with pytest.raises(MCPError):
                await client.call_tool("ask_held", {})
        live = [asyncio.create_task(client.call_tool("ask_live", {})) for _ in range(PER_KIND)]
        await asyncio.sleep(1.0)  # every live call is now waiting on its link
        assert not any(task.done() for task in live)
    # the session ended with the live calls still waiting
    for task in live:
        task.cancel()
    await asyncio.gather(*live, return_exceptions=True)
    async with Client(server, mode="2026-07-28", elicitation_callback=accept, cache=None) as client:
        rounds = [asyncio.create_task(client.call_tool("ask_held", {})) for _ in range(PER_KIND)]
        await asyncio.sleep(1.0)
        for task in rounds:  # the client gives up on its rounds
            task.cancel()
        await asyncio.gather(*rounds, return_exceptions=True)


async def test_flood_and_abandon_returns_to_baseline() -> None:
    tracemalloc.start()
    try:
        server, url_mode, bus = build(cap=None)
        for _ in range(2):  # warm-up: imports, caches, pools and weak sets reach their steady size
            await flood(server)
            await asyncio.sleep(TTL + 0.5)
            await url_mode.sweep()
            # Finished records are kept a day by default, and a link's rounds counter a minute past
            # its expiry (time-bounded, not leaked): here both go at this sweep.
            await url_mode.store.sweep(now=time.time() + COUNTERS_OUTLIVE, keep_for=0)
        baseline = figures(url_mode, bus)
        table = [("baseline", baseline)]
        for n in range(ROUNDS):
            await flood(server)
            during = figures(url_mode, bus)
            # the sessions ended: nothing waits to notify them, long before the links expire
            assert during["held -32042 listeners"] == 0 and during["bus listeners"] == 0
            await asyncio.sleep(TTL + 0.5)  # every link has expired
            await url_mode.sweep()
            assert await url_mode.store.count_active(McpUsers.single_user_local().local_user) == 0
            await url_mode.store.sweep(now=time.time() + COUNTERS_OUTLIVE, keep_for=0)
            after = figures(url_mode, bus)
            table += [(f"flood {n + 1}: during", during), (f"flood {n + 1}: after sweep", after)]
            assert after["bus listeners"] == 0 and after["held -32042 listeners"] == 0
            assert after["tasks"] <= baseline["tasks"]
            assert after["python heap KiB"] <= baseline["python heap KiB"] + 96, table  # allocator noise
        assert table[-1][1]["RSS KiB"] <= baseline["RSS KiB"] + 16 * 1024, table  # generous: allocator noise
        print()
        for label, numbers in table:
            print(f"{label:24} " + "  ".join(f"{k}={v}" for k, v in numbers.items()))
    finally:
        tracemalloc.stop()


async def test_per_user_cap_says_what_to_do() -> None:
    server, url_mode, _ = build(cap=3)
    async with Client(server, mode="legacy", elicitation_callback=accept, cache=None) as client:
        asked = []
        for _ in range(3):
            with pytest.raises(MCPError) as raised:
                await client.call_tool("ask_held", {})
            assert raised.value.code == -32042
            asked += [e["elicitationId"] for e in raised.value.error.data["elicitations"]]
        refused = await client.call_tool("ask_held", {})
        assert refused.is_error
        text = refused.content[0].text  # type: ignore[union-attr]
        assert "already have 3 open requests" in text and "Finish or decline one" in text
        assert url_mode.held == 3  # the refused call registered nothing
        # declining one frees its place
        elicitation_id = asked[0]
        user = McpUsers.single_user_local().local_user
        await url_mode.store.transition(elicitation_id, from_states={"pending"}, to="declined", user=user)
        with pytest.raises(MCPError):
            await client.call_tool("ask_held", {})
    assert str(PendingLimitError(3, 900)).endswith("(at most 15 minutes), then try again.")
