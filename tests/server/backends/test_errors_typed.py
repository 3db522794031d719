"""Every store and bus error a caller can meet is one of the documented types, within the
documented time: `StoreUnavailableError` / `BusUnavailableError`, never a driver's exception,
and never later than the call's `timeout`, whatever the driver's retries add up to. Each fault
is real: a primary refusing writes, a missing replica, a hung server, a locked SQLite file, a
PostgreSQL restart with many calls in flight."""

from __future__ import annotations

import asyncio
import secrets
import signal
import sqlite3
import subprocess
import time
from pathlib import Path

import pytest
from support.postgres_server import PostgresServer
from support.redis_server import RedisServer
from support.redis_topology import ADMIN_PASSWORD, REDIS_CLI, SentinelGroup

from elicitkit.server._backends import open_bus, open_store, redis_client
from elicitkit.server._errors import BusUnavailableError, StoreUnavailableError
from elicitkit.server._user import User
from elicitkit.server.bus import RedisBus
from elicitkit.server.store import ACTIVE, Record, Store

pytestmark = pytest.mark.timeout(120)

ALICE = User("https://as.example", "alice")


def new_record(ttl: float = 60.0) -> Record:
    return Record.new(ALICE, "client-1", "weather-key", "Your weather API key", ttl=ttl)


async def every_call(store: Store) -> list[BaseException | object]:
    """One of each kind of store call, each allowed to fail."""
    calls = [
        store.create(new_record()),
        store.get("some-id"),
        store.transition("some-id", from_states=ACTIVE, to="completed"),
        store.count_active(ALICE),
        store.increment("rounds:x", ttl=60),
        store.put_blob("b", b"x"),
        store.get_blob("b"),
        store.put_once("o", b"x", ttl=60),
        store.take_once("o"),
        store.claim("l", ttl=60),
        store.sweep(),
    ]
    return await asyncio.gather(*calls, return_exceptions=True)


async def test_a_primary_refusing_writes_for_want_of_replicas_is_a_typed_error(tmp_path: Path) -> None:
    """`min-replicas-to-write` with no replica: Redis answers NOREPLICAS to every write."""
    with RedisServer(tmp_path / "r", args=["--min-replicas-to-write", "1"]) as server:
        store = open_store(server.url)
        try:
            for call in (store.create(new_record()), store.put_blob("b", b"x"), store.increment("k", ttl=5)):
                with pytest.raises(StoreUnavailableError, match="NOREPLICAS") as raised:
                    await call
                assert "replicas" in str(raised.value) and "Retry" in str(raised.value)
        finally:
            await store.close()


async def test_a_key_of_the_wrong_type_is_a_typed_error(redis_server: RedisServer) -> None:
    """Something else wrote under the store's prefix: Redis answers WRONGTYPE."""
    store = open_store(redis_server.url, prefix="wrong:")
    try:
        await store.client.hset("wrong:blob:b", "x", "y")  # type: ignore[attr-defined]
        with pytest.raises(StoreUnavailableError, match="WRONGTYPE"):
            await store.get_blob("b")
    finally:
        await store.close()


async def test_a_hung_redis_fails_every_call_within_the_timeout(redis_server: RedisServer) -> None:
    store = open_store(redis_server.url, timeout=1.5)
    bus = RedisBus(redis_client(redis_server.url), timeout=1.5)  # publishes itself: no store given
    await store.put_blob("warm", b"up")
    redis_server.pause()
    try:
        started = time.monotonic()
        results = await every_call(store)
        elapsed = time.monotonic() - started
        assert all(isinstance(r, StoreUnavailableError) for r in results), results
        assert elapsed < 3.0, elapsed
        started = time.monotonic()
        with pytest.raises(BusUnavailableError):
            await bus.publish("some-id")
        assert time.monotonic() - started < 3.0
    finally:
        redis_server.resume()
        await bus.close()
    assert await store.get_blob("warm") == b"up"  # and it works again once Redis answers
    await store.close()


async def test_a_hung_sentinel_is_passed_over_within_the_deadline(sentinel_group: SentinelGroup) -> None:
    """The first Sentinel the URL names hangs (SIGSTOP: it accepts connections and never
    answers). Finding the primary asks the next one in time, so the calls succeed within their
    deadline instead of all failing at it for as long as that Sentinel hangs."""
    hung = sentinel_group.sentinels[0]
    hung.send_signal(signal.SIGSTOP)
    try:
        store = open_store(sentinel_group.url, timeout=4.0)
        try:
            started = time.monotonic()
            await store.put_blob("b", b"x")
            assert await store.get_blob("b") == b"x"
            assert time.monotonic() - started < 4.0
        finally:
            await store.close()
    finally:
        hung.send_signal(signal.SIGCONT)


async def test_a_missing_replica_with_replicas_ack_fails_within_the_ack_timeout(
    sentinel_group: SentinelGroup,
) -> None:
    """The socket outlasts the WAIT it carries, so the write is not retried whole (3 x 5 s)."""
    store = open_store(sentinel_group.url, replicas_ack=1)  # ack_timeout 5 s by default
    try:
        await store.put_blob("warm", b"up")
        replica = next(n for n in sentinel_group.nodes if n.port != sentinel_group.primary_port())
        replica.kill()
        started = time.monotonic()
        with pytest.raises(StoreUnavailableError, match="replica"):
            await store.put_blob("b", b"x")
        assert time.monotonic() - started < 7.0
        # the primary told to refuse writes without a replica answers NOREPLICAS: typed too
        primary = sentinel_group.primary_port()
        for setting in (("min-replicas-max-lag", "1"), ("min-replicas-to-write", "1")):
            subprocess.run(
                [
                    REDIS_CLI,
                    "-p",
                    str(primary),
                    "--no-auth-warning",
                    "-a",
                    ADMIN_PASSWORD,
                    "CONFIG",
                    "SET",
                    *setting,
                ],
                check=True,
                capture_output=True,
                timeout=10,
            )
        short = open_store(sentinel_group.url, replicas_ack=1, ack_timeout=0.5)
        try:
            with pytest.raises(StoreUnavailableError, match="NOREPLICAS"):
                await short.create(new_record())
        finally:
            await short.close()
    finally:
        await store.close()


async def test_a_locked_sqlite_file_is_a_typed_error_within_the_timeout(tmp_path: Path) -> None:
    path = tmp_path / "s.sqlite3"
    store = open_store(f"sqlite://{path}")
    await store.put_blob("warm", b"up")
    await store.close()
    from elicitkit.server.store import SQLiteStore

    store = SQLiteStore(path, timeout=0.3)
    other = sqlite3.connect(path, isolation_level=None)
    other.execute("BEGIN IMMEDIATE")  # another process's long write
    try:
        started = time.monotonic()
        with pytest.raises(StoreUnavailableError, match="locked"):
            await store.put_blob("b", b"x")
        with pytest.raises(StoreUnavailableError, match="locked"):
            await store.sweep()
        assert time.monotonic() - started < 3.0
    finally:
        other.execute("ROLLBACK")
        other.close()
    await store.put_blob("b", b"x")  # fine once the lock is free
    await store.close()


async def test_a_hung_postgres_fails_every_call_within_the_timeout(postgres_server: PostgresServer) -> None:
    store = open_store(postgres_server.url, prefix=f"t{secrets.token_hex(4)}_", timeout=1.5)
    bus = open_bus(postgres_server.url)  # publishes itself: no store given
    bus.timeout = 1.5  # type: ignore[attr-defined]
    await store.put_blob("warm", b"up")
    postgres_server.pause()
    try:
        started = time.monotonic()
        results = await every_call(store)
        assert all(isinstance(r, StoreUnavailableError) for r in results), results
        assert time.monotonic() - started < 3.0
        started = time.monotonic()
        with pytest.raises(BusUnavailableError):
            await bus.publish("some-id")
        assert time.monotonic() - started < 3.0
    finally:
        postgres_server.resume()
        await bus.close()  # type: ignore[attr-defined]
    assert await store.get_blob("warm") == b"up"
    await store.close()


async def test_calls_in_flight_across_a_postgres_restart_end_in_a_result_or_a_typed_error(
    postgres_server: PostgresServer,
) -> None:
    store = open_store(postgres_server.url, prefix=f"t{secrets.token_hex(4)}_", max_size=20, timeout=15)
    await store.put_blob("warm", b"up")
    outcomes: list[object] = []

    async def calls() -> None:
        while len(outcomes) < 1500:
            done = await asyncio.gather(*(every_call(store) for _ in range(10)), return_exceptions=True)
            outcomes.extend(r for batch in done for r in (batch if isinstance(batch, list) else [batch]))

    running = asyncio.create_task(calls())
    await asyncio.sleep(0.5)
    await asyncio.to_thread(postgres_server.restart, down_for=0.5, crash=False)
    await running
    errors = [o for o in outcomes if isinstance(o, BaseException)]
    assert all(isinstance(e, StoreUnavailableError) for e in errors), {type(e).__name__ for e in errors}
    assert await store.get_blob("warm") == b"up"
    await store.close()
