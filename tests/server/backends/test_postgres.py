"""What the PostgreSQL store does beyond the Store contract, against a real PostgreSQL: schema
created once by replicas starting together, a newer schema refused, a sweep that skips the rows
a completion holds, and an outage met as a typed error, then reconnected."""

from __future__ import annotations

import asyncio
import secrets
import time

import asyncpg
import pytest
from support.clock import Clock
from support.postgres_server import PostgresServer

from elicitkit.server._backends import open_store
from elicitkit.server._errors import StoreUnavailableError
from elicitkit.server._user import User
from elicitkit.server.store import ACTIVE, Record
from elicitkit.server.store._postgres import SCHEMA_VERSION, PostgresStore

ALICE = User("https://as.example", "alice")

pytestmark = pytest.mark.timeout(60)


def new_record(ttl: float = 600.0) -> Record:
    return Record.new(ALICE, "client-1", "weather-key", "Your weather API key", ttl=ttl)


def fresh_prefix() -> str:
    return f"t{secrets.token_hex(6)}_"


async def test_replicas_starting_together_create_the_schema_once(shared_postgres: PostgresServer) -> None:
    prefix = fresh_prefix()
    stores = [PostgresStore(shared_postgres.url, prefix=prefix) for _ in range(6)]
    try:
        record = new_record()
        await asyncio.gather(*(store.get("warm-up") for store in stores))  # all first uses at once
        await stores[0].create(record)
        assert all(got == record for got in await asyncio.gather(*(s.get(record.id) for s in stores)))
        conn = await asyncpg.connect(shared_postgres.url)
        versions = await conn.fetch(f"SELECT version FROM {prefix}schema")
        await conn.close()
        assert sorted(row["version"] for row in versions) == list(range(1, SCHEMA_VERSION + 1))
    finally:
        for store in stores:
            await store.close()


async def test_a_schema_newer_than_this_elicitkit_is_refused(shared_postgres: PostgresServer) -> None:
    prefix = fresh_prefix()
    conn = await asyncpg.connect(shared_postgres.url)
    await conn.execute(f"CREATE TABLE {prefix}schema (version integer NOT NULL)")
    await conn.execute(f"INSERT INTO {prefix}schema VALUES (99)")
    await conn.close()
    store = open_store(shared_postgres.url, prefix=prefix)
    try:
        with pytest.raises(StoreUnavailableError, match="upgrade elicitkit on every replica"):
            await store.get("x")
    finally:
        await store.close()


async def test_the_sweep_skips_a_row_a_completion_holds_instead_of_waiting(
    shared_postgres: PostgresServer,
) -> None:
    prefix = fresh_prefix()
    clock = Clock()
    store = PostgresStore(shared_postgres.url, prefix=prefix, clock=clock)
    held, free = new_record(ttl=0.01), new_record(ttl=0.01)
    await store.create(held)
    await store.create(free)
    clock.advance(0.05)
    other = await asyncpg.connect(shared_postgres.url)
    try:
        async with other.transaction():  # a replica in the middle of changing `held`
            await other.execute(f"SELECT 1 FROM {prefix}records WHERE id = $1 FOR UPDATE", held.id)
            started = time.monotonic()
            assert await store.sweep() == 1  # only `free`; `held` is left for the next sweep
            assert time.monotonic() - started < 2  # it did not wait for the lock
        assert await store.sweep() == 1  # now `held`
        got = await store.get(held.id)
        assert got is not None and got.state == "expired"
    finally:
        await other.close()
        await store.close()


async def test_outage_raises_a_typed_error_then_the_store_reconnects(postgres_server: PostgresServer) -> None:
    store = open_store(postgres_server.url)
    try:
        record = new_record()
        await store.create(record)
        await asyncio.to_thread(postgres_server.kill)
        started = time.monotonic()
        with pytest.raises(StoreUnavailableError) as raised:
            await store.get(record.id)
        assert time.monotonic() - started < 10  # retried with backoff, then a clear error, not a hang
        assert "is unavailable" in str(raised.value) and "Retry when PostgreSQL is back" in str(raised.value)
        assert "elicitkit-pw" not in str(raised.value)
        with pytest.raises(StoreUnavailableError):
            await store.transition(record.id, from_states=ACTIVE, to="completed")
        await asyncio.to_thread(postgres_server.start)
        done = await store.transition(record.id, from_states=ACTIVE, to="completed", user=ALICE)
        assert done is not None and done.state == "completed"  # the same store object reconnected
    finally:
        await store.close()


async def test_wrong_credentials_say_so(shared_postgres: PostgresServer) -> None:
    store = open_store(shared_postgres.url.replace("elicitkit-pw", "wrong"))
    try:
        with pytest.raises(StoreUnavailableError, match="refused the credentials"):
            await store.get("x")
    finally:
        await store.close()
