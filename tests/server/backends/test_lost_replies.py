"""A change whose reply is lost is applied once and answered as applied, or reported as of unknown
outcome; never applied twice, never reported as not done when it was (issue 42).

Real servers behind a proxy that lets the request through and drops the answer, closing the
connection under it (`TcpProxy.lose_next_reply`, tests/support/tcp_proxy.py): the server applied
the change, the client never heard. The store retries on a new connection; that retry must
recognise its own earlier try. When the server stays out of reach after the reply was lost, the caller hears
`StoreOutcomeUnknownError`, and a read of the change shows it applied. On Redis, a create its
caller was told failed is voided where every replica sees it. SQLite has no reply to lose."""

from __future__ import annotations

import secrets
import sqlite3
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from pathlib import Path

import asyncpg
import pytest
from support.postgres_server import PostgresServer
from support.redis_server import RedisServer
from support.redis_topology import ClusterNodes
from support.tcp_proxy import TcpProxy

from elicitkit.server._backends import open_store, redis_client
from elicitkit.server._errors import StoreOutcomeUnknownError, StoreUnavailableError
from elicitkit.server._user import User
from elicitkit.server.store import ACTIVE, Record, Store
from elicitkit.server.store._postgres import PostgresStore
from elicitkit.server.store._redis import RedisStore
from elicitkit.server.store._sqlite import SQLiteStore

pytestmark = pytest.mark.timeout(90)

ALICE = User("https://as.example", "alice")


def new_record() -> Record:
    return Record.new(ALICE, "client-1", "weather-key", "Your weather API key", ttl=600)


@pytest.fixture
def pg_proxy(shared_postgres: PostgresServer) -> Iterator[TcpProxy]:
    proxy = TcpProxy(shared_postgres.port).start()
    yield proxy
    proxy.close()


@pytest.fixture
async def pg(shared_postgres: PostgresServer, pg_proxy: TcpProxy) -> AsyncIterator[PostgresStore]:
    """A PostgreSQL store behind the proxy, one pooled connection, its own tables."""
    store = PostgresStore(
        pg_proxy.url(shared_postgres.url, shared_postgres.port),
        prefix=f"t{secrets.token_hex(6)}_",
        min_size=1,
        max_size=1,
        timeout=8.0,
    )
    yield store
    await store.close()


async def _increment(store: Store) -> object:
    return await store.increment("rounds", ttl=60)


async def _take(store: Store) -> object:
    return await store.take_once("state")


async def _replace(store: Store) -> object:
    return await store.replace_blob("sealed", b"old", b"new")


async def _prepare(store: Store) -> None:
    """Each change once on keys of its own, so the connection has its statements prepared and
    the reply that is lost is the change's own."""
    await store.increment("warm", ttl=60)
    await store.take_once("warm")
    await store.replace_blob("warm", b"x", b"y")
    await store.put_once("state", b"sealed-state", ttl=60)
    await store.put_blob("sealed", b"old")


# name: (the change, its answer, then a call that shows it applied once, and what that call answers)
CHANGES: dict[
    str, tuple[Callable[[Store], Awaitable[object]], object, Callable[[Store], Awaitable[object]], object]
] = {
    "increment": (_increment, 1, _increment, 2),  # the next one is the second, not the third
    "take_once": (_take, b"sealed-state", _take, None),  # taken once: gone
    "replace_blob": (_replace, True, lambda s: s.get_blob("sealed"), b"new"),
}


@pytest.mark.parametrize("name", list(CHANGES))
async def test_postgres_a_change_whose_reply_is_lost_is_applied_once_and_answered(
    pg: PostgresStore, pg_proxy: TcpProxy, name: str
) -> None:
    change, answer, then, after = CHANGES[name]
    await _prepare(pg)
    pg_proxy.lose_next_reply()
    assert await change(pg) == answer
    assert pg_proxy.lost == 1  # the reply really was lost, and the retry answered
    assert await then(pg) == after


async def test_postgres_records_whose_reply_is_lost_are_created_and_moved_once(
    pg: PostgresStore, pg_proxy: TcpProxy
) -> None:
    await pg.create(new_record(), max_active=5)
    await pg.transition(new_record().id, from_states=ACTIVE, to="completed")  # statements prepared
    record = new_record()
    pg_proxy.lose_next_reply()
    assert await pg.create(record, max_active=5)
    pg_proxy.lose_next_reply()
    moved = await pg.transition(record.id, from_states=ACTIVE, to="completed", user=ALICE)
    assert moved is not None and moved.state == "completed"
    assert pg_proxy.lost == 2
    assert await pg.count_active(ALICE) == 1  # the warm-up's, not this one's


async def test_postgres_a_change_whose_reply_never_comes_is_of_unknown_outcome(
    shared_postgres: PostgresServer, pg: PostgresStore, pg_proxy: TcpProxy
) -> None:
    """The reply is lost and the server stays out of reach for every retry: the caller is told the
    outcome is unknown (it was applied), not that nothing was written."""
    await pg.increment("warm", ttl=60)
    pg_proxy.lose_next_reply()
    pg_proxy.refuse()
    with pytest.raises(StoreOutcomeUnknownError, match="whether it was applied is unknown"):
        await pg.increment("rounds", ttl=60)
    with pytest.raises(StoreUnavailableError) as read:  # a read changes nothing: plainly unavailable
        await pg.get("anything")
    assert not isinstance(read.value, StoreOutcomeUnknownError)
    pg_proxy.accept()
    conn = await asyncpg.connect(shared_postgres.url)
    try:
        applied = await conn.fetchval(f"SELECT n FROM {pg.prefix}counters WHERE key = 'rounds'")
    finally:
        await conn.close()
    assert applied == 1  # it was written, once


async def test_postgres_a_change_that_never_left_is_plainly_unavailable(
    pg: PostgresStore, pg_proxy: TcpProxy
) -> None:
    await pg.increment("warm", ttl=60)
    await pg.close()  # no connection left: the next one must be opened, and is refused
    pg_proxy.refuse()
    with pytest.raises(StoreUnavailableError) as raised:
        await pg.increment("rounds", ttl=60)
    assert not isinstance(raised.value, StoreOutcomeUnknownError)


# -- Redis -------------------------------------------------------------------------------------


@pytest.fixture
def redis_proxy(redis_server: RedisServer) -> Iterator[TcpProxy]:
    proxy = TcpProxy(redis_server.port).start()
    yield proxy
    proxy.close()


def behind(proxy: TcpProxy, server: RedisServer, *, retries: int = 2) -> RedisStore:
    """A Redis store whose connections go through `proxy` (redis-py resends a command whose
    connection died `retries` times, as `open_store` sets it up)."""
    client = redis_client(proxy.url(server.url, server.port), retries=retries, health_check_interval=0)
    return RedisStore(client, timeout=3.0)


@pytest.mark.parametrize("name", list(CHANGES))
async def test_redis_a_change_whose_reply_is_lost_is_applied_once_and_answered(
    redis_server: RedisServer, redis_proxy: TcpProxy, name: str
) -> None:
    change, answer, then, after = CHANGES[name]
    store = behind(redis_proxy, redis_server)
    try:
        await _prepare(store)
        redis_proxy.lose_next_reply()
        assert await change(store) == answer
        assert redis_proxy.lost == 1  # the reply really was lost, and redis-py's resend answered
        assert await then(store) == after
    finally:
        await store.close()


async def test_redis_records_whose_reply_is_lost_are_created_and_moved_once(
    redis_server: RedisServer, redis_proxy: TcpProxy
) -> None:
    store = behind(redis_proxy, redis_server)
    try:
        await store.create(new_record(), max_active=5)
        await store.transition(new_record().id, from_states=ACTIVE, to="completed")  # scripts loaded
        record = new_record()
        redis_proxy.lose_next_reply()
        assert await store.create(record, max_active=5)
        redis_proxy.lose_next_reply()
        moved = await store.transition(record.id, from_states=ACTIVE, to="completed", user=ALICE)
        assert moved is not None and moved.state == "completed"
        assert redis_proxy.lost == 2
        assert await store.count_active(ALICE) == 1  # the warm-up's, not this one's
    finally:
        await store.close()


async def test_redis_a_create_told_failed_frees_its_place_on_every_replica_at_once(
    redis_server: RedisServer, redis_proxy: TcpProxy
) -> None:
    """Replica A's create lands and its reply is lost (no resend): A's caller is told it failed.
    Replica B, another process's store, must see the user's one place free at once, not when
    A's next create of that user voids it, nor when the record expires."""
    a = behind(redis_proxy, redis_server, retries=0)
    b = open_store(redis_server.url)
    try:
        await a.create(new_record(), max_active=5)
        await a.transition(new_record().id, from_states=ACTIVE, to="cancelled")
        await a.transition(new_record().id, from_states=ACTIVE, to="cancelled")  # scripts loaded
        assert await b.count_active(ALICE) == 1
        lost = new_record()
        redis_proxy.lose_next_reply()
        with pytest.raises(StoreUnavailableError):
            await a.create(lost, max_active=2)
        assert redis_proxy.lost == 1
        assert await b.count_active(ALICE) == 1  # the lost create holds no place
        assert await b.create(new_record(), max_active=2)
        gone = await b.get(lost.id)
        assert gone is None or gone.state == "cancelled"
    finally:
        await a.close()
        await b.close()


async def test_redis_a_void_that_could_not_be_written_then_is_written_when_redis_is_back(
    redis_server: RedisServer, redis_proxy: TcpProxy
) -> None:
    """A's create lands, its reply is lost and Redis stays out of A's reach, so A cannot void it
    then. Once A reaches Redis again, its first call of any kind writes the void, and every
    replica sees the place free."""
    a = behind(redis_proxy, redis_server, retries=0)
    b = open_store(redis_server.url)
    try:
        await a.create(new_record(), max_active=5)  # scripts loaded
        lost = new_record()
        redis_proxy.lose_next_reply()
        redis_proxy.refuse()
        with pytest.raises(StoreUnavailableError):
            await a.create(lost, max_active=2)
        assert await b.count_active(ALICE) == 2  # written, and A cannot say otherwise yet
        redis_proxy.accept()
        assert await a.get_blob("anything") is None  # any call, not a create of this user
        assert await b.count_active(ALICE) == 1
        assert await b.create(new_record(), max_active=2)
    finally:
        await a.close()
        await b.close()


async def test_redis_a_change_whose_reply_never_comes_is_of_unknown_outcome(
    redis_server: RedisServer, redis_proxy: TcpProxy
) -> None:
    store = behind(redis_proxy, redis_server)
    direct = open_store(redis_server.url)
    try:
        await store.increment("warm", ttl=60)
        redis_proxy.lose_next_reply()
        redis_proxy.refuse()
        with pytest.raises(StoreOutcomeUnknownError, match="whether it was applied is unknown"):
            await store.increment("rounds", ttl=60)
        with pytest.raises(StoreUnavailableError) as read:
            await store.get("anything")
        assert not isinstance(read.value, StoreOutcomeUnknownError)
        assert await direct.increment("rounds", ttl=60) == 2  # it was applied, once
    finally:
        await store.close()
        await direct.close()


# -- SQLite --------------------------------------------------------------------------------------


async def test_sqlite_a_write_that_raises_wrote_nothing(tmp_path: Path) -> None:
    """SQLite has no reply to lose: a statement runs in this process and commits as it returns,
    or raises having rolled back. Another process holds the write lock past the store's timeout:
    the create and the increment raise, and neither is there once the lock is free."""
    path = tmp_path / "elicitkit.sqlite3"
    store = SQLiteStore(path, timeout=0.3)
    other = sqlite3.connect(path, isolation_level=None)
    try:
        await store.increment("rounds", ttl=60)
        record = new_record()
        other.execute("BEGIN IMMEDIATE")
        with pytest.raises(StoreUnavailableError, match="locked") as raised:
            await store.create(record, max_active=5)
        assert not isinstance(raised.value, StoreOutcomeUnknownError)
        with pytest.raises(StoreUnavailableError, match="locked"):
            await store.increment("rounds", ttl=60)
        other.execute("ROLLBACK")
        assert await store.get(record.id) is None
        assert await store.count_active(ALICE) == 0
        assert await store.increment("rounds", ttl=60) == 2  # the refused one did not count
    finally:
        other.close()
        await store.close()


async def test_redis_cluster_a_create_cut_off_at_its_deadline_frees_its_place_once_redis_is_back(
    redis_cluster: ClusterNodes,
) -> None:
    """On a Cluster the user's place is a reservation in a slot of its own, taken before the
    record is written. Every node stops answering while A creates: A's call ends at its deadline,
    the commands it sent wait in the nodes' buffers and run when they resume. A's next call
    writes the void; replica B then sees the place free."""
    prefix = f"t{secrets.token_hex(6)}:"
    a = open_store(redis_cluster.url, prefix=prefix, timeout=1.5)
    b = open_store(redis_cluster.url, prefix=prefix)
    try:
        assert await a.create(new_record(), max_active=5)  # the slot map and scripts loaded
        for node in redis_cluster.nodes:
            node.pause()
        try:
            with pytest.raises(StoreUnavailableError):
                await a.create(new_record(), max_active=2)
        finally:
            for node in redis_cluster.nodes:
                node.resume()
        assert await a.get_blob("anything") is None  # any call, once the Cluster answers again
        assert await b.count_active(ALICE) == 1
        assert await b.create(new_record(), max_active=2)
    finally:
        await a.close()
        await b.close()
