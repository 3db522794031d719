"""Limits a client cannot reset and replicas cannot race past: the per-user cap on open URL
elicitations is checked and written in one atomic step in the store, and the rounds of a
2026-07-28 URL elicitation are counted in the store, not in the state the client sends back.

Every backend that replicas share is real here: one SQLite file, one Redis (alone, Sentinel and
Cluster), one PostgreSQL, each opened twice as two replicas would.
"""

from __future__ import annotations

import asyncio
import secrets
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from mcp import Client
from mcp.server.mcpserver import Context, MCPServer
from mcp.shared.exceptions import MCPError
from mcp_types import ElicitResult, InputRequiredResult
from support.redis_server import RedisServer

from elicitkit.server import Elicitation
from elicitkit.server._backends import open_bus, open_store
from elicitkit.server._url_mode import UrlMode
from elicitkit.server._user import McpUsers, User
from elicitkit.server._vault import KeyRing
from elicitkit.server.store import Record, Store

pytestmark = pytest.mark.timeout(90)

CAP = 3
CALLS = 20
ALICE = User("https://as.example", "alice")


@pytest.fixture(params=["memory", "sqlite", "redis", "redis-sentinel", "redis-cluster", "postgres"])
async def replicas(request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator[list[Store]]:
    """The same backend opened twice, as two replicas open it (a memory store is one process's)."""
    param = request.param
    if param == "memory":
        url = "memory://"
    elif param == "sqlite":
        url = f"sqlite://{tmp_path / 'shared.sqlite3'}"
    elif param == "redis":
        url = request.getfixturevalue("redis_server").url
    elif param == "redis-sentinel":
        url = request.getfixturevalue("shared_sentinels").url
    elif param == "redis-cluster":
        url = request.getfixturevalue("redis_cluster").url
    else:
        url = request.getfixturevalue("shared_postgres").url
    prefix = f"t{secrets.token_hex(4)}_" if param == "postgres" else f"t{secrets.token_hex(4)}:"
    options: dict[str, Any] = {} if param in ("memory", "sqlite") else {"prefix": prefix}
    if param == "redis-sentinel":
        options["replicas_ack"] = 1
    first = open_store(url, **options)
    stores = [first, first] if param == "memory" else [first, open_store(url, **options)]
    yield stores
    for store in {id(s): s for s in stores}.values():
        await store.close()


def new_record(user: User = ALICE) -> Record:
    return Record.new(user, "client-1", "weather-key", "Your weather API key", ttl=60.0)


async def test_concurrent_creates_of_one_user_on_two_replicas_never_pass_the_cap(
    replicas: list[Store],
) -> None:
    results = await asyncio.gather(
        *(replicas[n % 2].create(new_record(), max_active=CAP) for n in range(CALLS))
    )
    assert sum(results) == CAP
    assert await replicas[0].count_active(ALICE) == CAP
    # another user is not held back by alice's cap
    assert await replicas[1].create(new_record(User("https://as.example", "bob")), max_active=CAP)


async def test_a_finished_record_frees_its_place_on_every_replica(replicas: list[Store]) -> None:
    made = [new_record() for _ in range(CAP)]
    for record in made:
        assert await replicas[0].create(record, max_active=CAP)
    assert not await replicas[1].create(new_record(), max_active=CAP)
    assert await replicas[1].transition(made[0].id, from_states={"pending"}, to="declined", user=ALICE)
    assert await replicas[1].create(new_record(), max_active=CAP)
    assert not await replicas[0].create(new_record(), max_active=CAP)


async def test_a_create_without_a_cap_is_not_limited(replicas: list[Store]) -> None:
    for _ in range(CAP + 2):
        assert await replicas[0].create(new_record()) in (True, None)
    assert await replicas[1].count_active(ALICE) == CAP + 2


async def test_a_counter_is_shared_and_atomic_across_replicas(replicas: list[Store]) -> None:
    counts = await asyncio.gather(*(replicas[n % 2].increment("rounds:x", ttl=60) for n in range(CALLS)))
    assert sorted(counts) == list(range(1, CALLS + 1))
    assert await replicas[0].increment("rounds:y", ttl=60) == 1  # each key its own


async def test_a_counter_left_alone_for_its_ttl_starts_again(replicas: list[Store]) -> None:
    for store in replicas:  # both connected first: the ttl is short
        await store.increment("warm-up", ttl=1)
    assert await replicas[0].increment("k", ttl=0.5) == 1
    assert await replicas[1].increment("k", ttl=0.5) == 2
    await asyncio.sleep(1.0)
    assert await replicas[1].increment("k", ttl=0.5) == 1


# -- through UrlMode: two servers (replicas) on one real Redis --------------------------------


def replica(url: str, prefix: str, *, wait: str = "error", **options: Any) -> tuple[MCPServer[Any], UrlMode]:
    server: MCPServer[Any] = MCPServer("limits")
    store = open_store(url, prefix=prefix)
    url_mode = UrlMode(
        public_url="http://127.0.0.1:1",
        keys=KeyRing.from_string(KeyRing.generate()),
        store=store,
        bus=open_bus(url, store=store),
        users=McpUsers.single_user_local(),
        hold=0.0,
        **options,
    )
    elicit = Elicitation(server, url_mode=url_mode)
    key = elicit.secret("key", title="Key", message="Your API key.", wait=wait)  # type: ignore[arg-type]

    @server.tool()
    async def ask(ctx: Context) -> str:  # type: ignore[type-arg]
        return await key.get(ctx)

    return server, url_mode


async def accept(context: object, params: object) -> ElicitResult:
    return ElicitResult(action="accept")


async def close(url_mode: UrlMode) -> None:
    closing = getattr(url_mode.bus, "close", None)  # a LocalBus has nothing to close
    if closing is not None:
        await closing()
    await url_mode.store.close()


@pytest.fixture(params=["redis", "postgres", "sqlite"])
def shared_url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """One backend two replicas share: a real Redis, a real PostgreSQL, or one SQLite file."""
    if request.param == "redis":
        return str(request.getfixturevalue("redis_server").url)
    if request.param == "postgres":
        return str(request.getfixturevalue("shared_postgres").url)
    return f"sqlite://{tmp_path / 'shared.sqlite3'}"


async def test_twenty_calls_of_one_user_on_two_replicas_open_at_most_the_cap(shared_url: str) -> None:
    prefix = f"t{secrets.token_hex(4)}:"
    a, b = (replica(shared_url, prefix, max_pending_per_user=CAP) for _ in range(2))
    try:
        async with (
            Client(a[0], mode="legacy", elicitation_callback=accept, cache=None) as on_a,
            Client(b[0], mode="legacy", elicitation_callback=accept, cache=None) as on_b,
        ):
            clients = [on_a, on_b]
            outcomes = await asyncio.gather(
                *(clients[n % 2].call_tool("ask", {}) for n in range(CALLS)), return_exceptions=True
            )
            links = [o for o in outcomes if isinstance(o, MCPError) and o.code == -32042]
            refused = [o for o in outcomes if not isinstance(o, BaseException) and o.is_error]
            assert len(links) == CAP, outcomes
            assert len(refused) == CALLS - CAP
            assert all("already have 3 open requests" in r.content[0].text for r in refused)  # type: ignore[union-attr]
            assert await a[1].store.count_active(McpUsers.single_user_local().local_user) == CAP  # type: ignore[arg-type]
    finally:
        await close(a[1])
        await close(b[1])


async def test_replaying_an_earlier_rounds_state_does_not_reset_the_rounds(redis_server: RedisServer) -> None:
    prefix = f"t{secrets.token_hex(4)}:"
    server, url_mode = replica(redis_server.url, prefix, max_rounds=3, wait="live")
    try:
        async with Client(server, mode="2026-07-28", elicitation_callback=accept, cache=None) as client:
            first = await client.session.call_tool("ask", {}, allow_input_required=True)
            assert isinstance(first, InputRequiredResult) and first.input_requests
            replayed = first.request_state
            for _ in range(3):  # the client sends round 1's state again and again
                waiting = await client.session.call_tool(
                    "ask", {}, request_state=replayed, allow_input_required=True
                )
                assert isinstance(waiting, InputRequiredResult) and not waiting.input_requests
            ended = await client.session.call_tool(
                "ask", {}, request_state=replayed, allow_input_required=True
            )
            assert not isinstance(ended, InputRequiredResult) and ended.is_error, ended
            assert "still not finished after 3 retries" in ended.content[0].text  # type: ignore[union-attr]
    finally:
        await close(url_mode)
