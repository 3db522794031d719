"""A create its caller was told failed holds none of the user's places.

With `replicas_ack`, a create whose replicas did not confirm it raises `StoreUnavailableError`,
yet the primary has the record (tests/server/backends/test_lost_replies.py: the same for a create
whose reply was lost, seen from another replica). Nobody knows its id (the URL was never sent), so if it still
counted toward `max_pending_per_user`, a person retrying through a failover would be refused
until those records expired (issue 33: after a Sentinel failover, flows of users with three
such creates still waited two minutes later). Real primary and replica; the replica frozen
(SIGSTOP) is one that does not confirm.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager
from pathlib import Path

import pytest
from support.redis_server import RedisServer
from support.tcp_proxy import TcpProxy

from elicitkit.server._backends import open_store, redis_client
from elicitkit.server._errors import RecordExistsError, StoreUnavailableError
from elicitkit.server._user import User
from elicitkit.server.store import Record

pytestmark = pytest.mark.timeout(120)

ALICE = User("https://as.example", "alice")


def new_record() -> Record:
    return Record.new(ALICE, "client-1", "weather-key", "Your weather API key", ttl=600)


@pytest.fixture
def replicated(tmp_path: Path) -> Iterator[tuple[RedisServer, RedisServer]]:
    """A primary and a replica in sync with it."""
    with RedisServer(tmp_path / "primary") as primary:
        replica_args = ["--replicaof", "127.0.0.1", str(primary.port)]
        with RedisServer(tmp_path / "replica", args=replica_args) as replica:
            replica.wait_in_sync(primary)
            yield primary, replica


@asynccontextmanager
async def replica_paused(
    primary: RedisServer, replica: RedisServer, proxy: TcpProxy | None = None
) -> AsyncIterator[None]:
    """The replica confirms nothing inside; on the way out it resumes (and the proxy's network
    comes back), and after a block that ended well it is in sync again before the test goes on."""
    replica.pause()
    try:
        yield
    finally:
        replica.resume()
        if proxy is not None:
            proxy.restore()
    await asyncio.to_thread(replica.wait_in_sync, primary)


async def test_a_create_the_replicas_did_not_confirm_frees_its_place_at_once(
    replicated: tuple[RedisServer, RedisServer],
) -> None:
    primary, replica = replicated
    store = open_store(primary.url, replicas_ack=1, ack_timeout=1.0, timeout=3.0)
    try:
        async with replica_paused(primary, replica):
            started = time.monotonic()
            with pytest.raises(StoreUnavailableError, match="confirmed"):
                await store.create(new_record(), max_active=1)
            assert time.monotonic() - started < 3.0  # within the call's deadline, void included
            assert await store.count_active(ALICE) == 0  # the caller was told it failed: not open
        assert await store.create(new_record(), max_active=1)  # the one place is free
        assert await store.count_active(ALICE) == 1
    finally:
        await store.close()


async def test_a_create_whose_confirmation_was_cut_off_is_voided_by_the_next_create(
    replicated: tuple[RedisServer, RedisServer],
) -> None:
    """The network to the primary goes silent between the write and its WAIT's answer: the call
    ends at its deadline, the record stands on the primary, and this store cannot void it then.
    Its next call, once the network is back, writes the void before anything else."""
    primary, replica = replicated
    proxy = TcpProxy(primary.port).start()
    store = open_store(
        primary.url.replace(f":{primary.port}", f":{proxy.port}", 1), replicas_ack=1, timeout=2.0
    )
    admin = redis_client(primary.url)
    lost = new_record()
    try:
        async with replica_paused(primary, replica, proxy):  # the WAIT waits ...
            creating = asyncio.create_task(store.create(lost, max_active=1))
            while not await admin.exists(f"{store.prefix}record:{lost.id}"):  # type: ignore[attr-defined]
                await asyncio.sleep(0.01)
            proxy.cut()  # ... and its answer never comes
            with pytest.raises(StoreUnavailableError):
                await creating
        assert await store.create(new_record(), max_active=1)
        assert await admin.hget(f"{store.prefix}record:{lost.id}", "state") == b"cancelled"  # type: ignore[attr-defined]
        assert await store.count_active(ALICE) == 1
    finally:
        await store.close()
        await admin.aclose()  # type: ignore[attr-defined]
        proxy.close()


async def test_a_caller_retrying_the_very_record_it_was_told_failed_gets_it(
    replicated: tuple[RedisServer, RedisServer],
) -> None:
    """`RecordExistsError` lets a caller retry a create with the same record: a voided record is
    as if never written, so the retry creates it anew (under the cap) instead of finding it."""
    primary, replica = replicated
    store = open_store(primary.url, replicas_ack=1, ack_timeout=1.0, timeout=3.0)
    record = new_record()
    try:
        async with replica_paused(primary, replica):
            with pytest.raises(StoreUnavailableError):
                await store.create(record, max_active=1)
        assert await store.create(record, max_active=1)
        again = await store.get(record.id)
        assert again is not None and again.state == "pending"
        assert await store.count_active(ALICE) == 1
    finally:
        await store.close()


async def test_a_record_another_replica_retried_is_never_voided(
    replicated: tuple[RedisServer, RedisServer],
) -> None:
    """Replica A is told its create failed (cut off between the write and its confirmation);
    the caller retries the same record on replica B, which finds it landed (`RecordExistsError`).
    The record is the caller's now: A's next create for the user must not void it."""
    primary, replica = replicated
    proxy = TcpProxy(primary.port).start()
    a = open_store(primary.url.replace(f":{primary.port}", f":{proxy.port}", 1), replicas_ack=1, timeout=2.0)
    b = open_store(primary.url, replicas_ack=1, timeout=5.0)
    record = new_record()
    try:
        async with replica_paused(primary, replica, proxy):
            creating = asyncio.create_task(a.create(record, max_active=2))
            while await b.get(record.id) is None:
                await asyncio.sleep(0.01)
            proxy.cut()
            with pytest.raises(StoreUnavailableError):
                await creating
        with pytest.raises(RecordExistsError):
            await b.create(record, max_active=2)  # the retry: it landed
        assert await a.create(new_record(), max_active=2)
        kept = await b.get(record.id)
        assert kept is not None and kept.state == "pending"
        assert await b.count_active(ALICE) == 2
    finally:
        await a.close()
        await b.close()
        proxy.close()
