"""Flows per second through the store, over the same three operations written by hand.

One flow is what a URL-mode elicitation does to its record: create it, open it (pending ->
opened, when the person lands on the page), complete it (opened -> completed, bound to the
user). Each is measured two ways in the same run, on the same database:

- through elicitkit: `SQLiteStore` / `RedisStore` `create`, `transition`, `transition`;
- by hand: the same three writes straight against aiosqlite (INSERT, then two conditional
  UPDATEs, each committed, same WAL settings) or redis-py (HSET of the record, then two HSETs of
  the state; no conditions, no index, no expiry: the least a hand-written version could do).

The figure is a ratio of throughputs (elicitkit over by hand; 1.0 is no overhead). Flows run
one after another for a fixed time; each round measures both sides back to back (alternating
which goes first), and the figure is the median of the rounds' ratios, so that the noise of a
shared machine hits both sides alike. Redis is a real redis-server started for the run with the documented
persistence settings (appendonly yes, appendfsync always), from tests/support/redis_server.py.

Run: `.venv/bin/python benchmarks/store_flow.py` (about 20 s). `run()` returns the figures.
"""

from __future__ import annotations

import asyncio
import json
import statistics
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from pathlib import Path

import aiosqlite

sys.path.insert(0, str(Path(__file__).parents[1] / "tests"))

from support.redis_server import RedisServer

from elicitkit.server.backends import redis_client
from elicitkit.server.store import ACTIVE, Record, Store
from elicitkit.server.store._redis import RedisStore
from elicitkit.server.store._sqlite import SQLiteStore
from elicitkit.server.user import User

ALICE = User("https://as.example", "alice")

Flow = Callable[[Record], Awaitable[None]]


def new_record() -> Record:
    return Record.new(ALICE, "client-1", "weather-key", "Your weather API key", ttl=900)


def through_store(store: Store) -> Flow:
    async def flow(record: Record) -> None:
        await store.create(record)
        assert await store.transition(record.id, from_states={"pending"}, to="opened", user=ALICE)
        assert await store.transition(record.id, from_states=ACTIVE, to="completed", user=ALICE)

    return flow


def by_hand_sqlite(db: aiosqlite.Connection) -> Flow:
    async def flow(record: Record) -> None:
        await db.execute(
            "INSERT INTO records (id, issuer, subject, client_id, flow, message, state, created_at, "
            "updated_at, expires_at, details) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (record.id, ALICE.issuer, ALICE.subject, record.client_id, record.flow, record.message,
             "pending", record.created_at, record.updated_at, record.expires_at, "{}"),
        )  # fmt: skip
        await db.commit()
        await db.execute(
            "UPDATE records SET state = 'opened' WHERE id = ? AND state = 'pending'", (record.id,)
        )
        await db.commit()
        await db.execute(
            "UPDATE records SET state = 'completed' WHERE id = ? AND state IN ('pending', 'opened')",
            (record.id,),
        )
        await db.commit()

    return flow


def by_hand_redis(client: object) -> Flow:
    from redis.asyncio import Redis

    assert isinstance(client, Redis)

    async def flow(record: Record) -> None:
        key = f"byhand:record:{record.id}"
        await client.hset(
            key,
            mapping={
                "issuer": ALICE.issuer, "subject": ALICE.subject, "client_id": record.client_id,
                "flow": record.flow, "message": record.message, "state": "pending",
                "created_at": record.created_at, "updated_at": record.updated_at,
                "expires_at": record.expires_at, "details": json.dumps(record.details),
            },
        )  # fmt: skip
        await client.hset(key, "state", "opened")
        await client.hset(key, "state", "completed")

    return flow


async def _rate(flow: Flow, seconds: float) -> float:
    done, started = 0, time.perf_counter()
    while (elapsed := time.perf_counter() - started) < seconds:
        await flow(new_record())
        done += 1
    return done / elapsed


async def _ratio(ours: Flow, by_hand: Flow, rounds: int, seconds: float) -> tuple[float, float, float]:
    for flow in (ours, by_hand):  # warm up: connections, script cache, page cache
        for _ in range(20):
            await flow(new_record())
    ours_rates, hand_rates, ratios = [], [], []
    for i in range(rounds):  # adjacent pairs, alternating who goes first: both see the same noise
        first, second = (ours, by_hand) if i % 2 == 0 else (by_hand, ours)
        a, b = await _rate(first, seconds), await _rate(second, seconds)
        ours_rate, hand_rate = (a, b) if i % 2 == 0 else (b, a)
        ours_rates.append(ours_rate)
        hand_rates.append(hand_rate)
        ratios.append(ours_rate / hand_rate)
    return statistics.median(ratios), statistics.median(ours_rates), statistics.median(hand_rates)


async def _measure(folder: Path, redis_url: str, rounds: int, seconds: float) -> dict[str, float]:
    store = SQLiteStore(folder / "bench.sqlite3")
    await store.get("none")  # opens the connection, with the store's file and settings ...
    db = store._db  # ... which the by-hand flow shares: a second connection would only contend
    assert db is not None
    sqlite = await _ratio(through_store(store), by_hand_sqlite(db), rounds, seconds)
    await store.close()

    redis_store = RedisStore(redis_client(redis_url), prefix="bench:")
    raw = redis_client(redis_url)
    redis = await _ratio(through_store(redis_store), by_hand_redis(raw), rounds, seconds)
    await redis_store.close()
    await raw.aclose()
    return {
        "sqlite_flow_ratio": sqlite[0],
        "sqlite_flows_per_s": sqlite[1],
        "sqlite_by_hand_flows_per_s": sqlite[2],
        "redis_flow_ratio": redis[0],
        "redis_flows_per_s": redis[1],
        "redis_by_hand_flows_per_s": redis[2],
    }


def run(rounds: int = 16, seconds: float = 0.25) -> dict[str, float]:
    """Throughput ratios (elicitkit over by hand) for SQLite and Redis, plus the raw rates."""
    with tempfile.TemporaryDirectory(prefix="elicitkit-bench-") as tmp:
        folder = Path(tmp)
        with RedisServer(folder / "redis") as server:
            return asyncio.run(_measure(folder, server.url, rounds, seconds))


def main() -> None:
    figures = run()
    for name, value in figures.items():
        print(f"{name:28} {value:10.2f}")


if __name__ == "__main__":
    main()
