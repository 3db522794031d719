"""On a FastMCP server the URL-mode sweep runs in the background too, started and stopped with
FastMCP's lifespan: an overdue record is expired with no elicitation starting, and no sweep runs
once the server has stopped. Observed from outside: the SQLite file's rows."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import pytest
from fastmcp import FastMCP
from support.sweeping import states, until

from elicitkit.asgi import EmbeddedServer
from elicitkit.fastmcp import Elicitation
from elicitkit.server import KeyRing, UrlMode
from elicitkit.server._user import McpUsers, User
from elicitkit.server.store import Record, SQLiteStore

pytestmark = pytest.mark.timeout(60)

ALICE = User("https://issuer.example", "alice")


class Clock:
    """The wall clock the store reads, moved by the test instead of sleeping."""

    def __init__(self) -> None:
        self.now = 1_900_000_000.0

    def __call__(self) -> float:
        return self.now


def serve(store: SQLiteStore, **options: Any) -> FastMCP[Any]:
    server: FastMCP[Any] = FastMCP("sweep test")
    url_mode = UrlMode(
        keys=KeyRing.from_string(KeyRing.generate()),
        store=store,
        users=McpUsers.single_user_local(),
        **options,
    )
    Elicitation(server, url_mode=url_mode).secret("key", title="Key", message="Key?")
    return server


@asynccontextmanager
async def over_http(server: FastMCP[Any]) -> AsyncIterator[str]:
    """FastMCP's own HTTP app on 127.0.0.1, its lifespan run as uvicorn runs it."""
    app = server.http_app()
    async with EmbeddedServer(lambda url: app, lifespan="on") as running:
        yield running.url


async def test_an_overdue_record_is_swept_with_no_elicitation_starting(tmp_path: Path) -> None:
    clock = Clock()
    store = SQLiteStore(tmp_path / "store.sqlite3", clock=clock)
    overdue = Record.new(ALICE, "c", "key", "Key?", ttl=60, now=clock.now - 120)
    await store.create(overdue)
    # The default interval (a minute): the first sweep runs as the server starts, nothing asks.
    async with over_http(serve(store)):
        await until(lambda: states(store.path) == {overdue.id: "expired"})
    await store.close()


async def test_the_sweep_repeats_and_stops_with_the_server(tmp_path: Path) -> None:
    clock = Clock()
    store = SQLiteStore(tmp_path / "store.sqlite3", clock=clock)
    server = serve(store, sweep_every=0.05)
    before = set(asyncio.all_tasks())
    async with over_http(server):
        later = Record.new(ALICE, "c", "key", "Key?", ttl=60, now=clock.now)
        await store.create(later)
        clock.now += 3600  # overdue now, and no flow runs
        await until(lambda: states(store.path) == {later.id: "expired"})
    await asyncio.sleep(0.1)
    assert set(asyncio.all_tasks()) <= before | {asyncio.current_task()}  # nothing left running
    gone = Record.new(ALICE, "c", "key", "Key?", ttl=60, now=clock.now)
    await store.create(gone)
    clock.now += 3600
    await asyncio.sleep(0.3)  # six intervals: no sweep runs once the server has stopped
    assert states(store.path) == {later.id: "expired", gone.id: "pending"}
    await store.close()
