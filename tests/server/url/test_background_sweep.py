"""The URL-mode sweep runs in the background, started and stopped with the server: overdue
records are expired (and long-finished ones dropped) with no elicitation starting, the task
ends with the server, and a store that fails is logged and tried again, the server serving on.
Observed from outside: the SQLite file's rows, the store's answers, the log, a tool call."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import pytest
from mcp import Client
from mcp.server.mcpserver import MCPServer
from support.sweeping import states, until

from elicitkit.asgi import EmbeddedServer
from elicitkit.server import Elicitation
from elicitkit.server._errors import StoreUnavailableError
from elicitkit.server._url_mode import UrlMode
from elicitkit.server._user import McpUsers, User
from elicitkit.server._vault import KeyRing
from elicitkit.server.store import MemoryStore, Record, SQLiteStore

pytestmark = pytest.mark.timeout(60)

LOCAL = McpUsers.single_user_local()
ALICE = User("https://issuer.example", "alice")


class Clock:
    """The wall clock a store reads, moved by the test instead of sleeping."""

    def __init__(self) -> None:
        self.now = 1_900_000_000.0

    def __call__(self) -> float:
        return self.now


def serve(store: Any, **options: Any) -> MCPServer[Any]:
    server = MCPServer("sweep test")
    url_mode = UrlMode(keys=KeyRing.from_string(KeyRing.generate()), store=store, users=LOCAL, **options)
    Elicitation(server, url_mode=url_mode).secret("key", title="Key", message="Key?")

    @server.tool()
    async def ping() -> str:
        return "pong"

    return server


@asynccontextmanager
async def over_http(server: MCPServer[Any]) -> AsyncIterator[str]:
    """The server's own Streamable HTTP app on 127.0.0.1, its lifespan run as uvicorn runs it."""
    app = server.streamable_http_app()
    async with EmbeddedServer(lambda url: app, lifespan="on") as running:
        yield running.url


async def test_overdue_records_are_swept_with_no_elicitation_starting(tmp_path: Path) -> None:
    clock = Clock()
    store = SQLiteStore(tmp_path / "store.sqlite3", clock=clock)
    overdue = Record.new(ALICE, "c", "key", "Key?", ttl=60, now=clock.now - 120)
    await store.create(overdue)
    # The default interval (a minute): the first sweep runs as the server starts, nothing asks.
    async with over_http(serve(store)):
        await until(lambda: states(store.path) == {overdue.id: "expired"})


async def test_the_sweep_repeats_and_stops_with_the_server(tmp_path: Path) -> None:
    clock = Clock()
    store = SQLiteStore(tmp_path / "store.sqlite3", clock=clock)
    server = serve(store, sweep_every=0.05)
    before = set(asyncio.all_tasks())
    async with over_http(server):
        await asyncio.sleep(0.2)
        later = Record.new(ALICE, "c", "key", "Key?", ttl=60, now=clock.now)
        finished = Record.new(ALICE, "c", "key", "Key?", ttl=60, now=clock.now)
        await store.create(later)
        await store.create(finished)
        await store.transition(finished.id, from_states={"pending"}, to="completed")
        clock.now += 3600  # `later` is overdue now, and no flow runs
        await until(lambda: states(store.path) == {later.id: "expired", finished.id: "completed"})
        clock.now += 2 * 86400  # both long finished: dropped
        await until(lambda: states(store.path) == {})
    await asyncio.sleep(0.1)
    assert set(asyncio.all_tasks()) <= before | {asyncio.current_task()}  # nothing left running
    gone = Record.new(ALICE, "c", "key", "Key?", ttl=60, now=clock.now)
    await store.create(gone)
    clock.now += 3600
    await asyncio.sleep(0.3)  # six intervals: no sweep runs once the server has stopped
    assert states(store.path) == {gone.id: "pending"}
    await store.close()


class FailingStore(MemoryStore):
    """A real in-memory store whose sweep fails while `down` (as a store out of reach does)."""

    def __init__(self, clock: Clock) -> None:
        super().__init__(clock=clock)
        self.down = True
        self.sweeps = 0

    async def sweep(self, *, now: float | None = None, keep_for: float = 86400.0) -> int:
        self.sweeps += 1
        if self.down:
            raise StoreUnavailableError("The store did not answer:\nconnection refused.")
        return await super().sweep(now=now, keep_for=keep_for)


async def test_a_failing_sweep_is_logged_in_one_line_and_tried_again(
    caplog: pytest.LogCaptureFixture,
) -> None:
    clock = Clock()
    store = FailingStore(clock)
    finished = Record.new(ALICE, "c", "key", "Key?", ttl=60, now=clock.now)
    await store.create(finished)
    await store.transition(finished.id, from_states={"pending"}, to="cancelled")
    clock.now += 2 * 86400  # finished long enough ago for a sweep to drop it
    caplog.set_level(logging.WARNING, logger="elicitkit")
    server = serve(store, sweep_every=0.05)
    async with Client(server, mode="legacy", cache=None) as client:
        await until(lambda: store.sweeps >= 3)
        result = await client.call_tool("ping", {})  # the server serves on
        assert result.content[0].text == "pong"  # type: ignore[union-attr]
        failures = [r for r in caplog.records if "sweep" in r.getMessage()]
        assert len(failures) >= 2 and all(r.levelno == logging.WARNING for r in failures)
        assert all("\n" not in r.getMessage() and r.exc_info is None for r in failures)
        assert await store.get(finished.id) is not None
        store.down = False  # back: a later round drops the long-finished record
        for _ in range(500):
            if await store.get(finished.id) is None:
                break
            await asyncio.sleep(0.02)
        assert await store.get(finished.id) is None
