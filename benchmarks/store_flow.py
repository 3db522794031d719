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

For Redis it also splits where a flow's time goes, as CPU time per flow summed over the rounds
(supporting figures, no target): redis-server's user CPU (the scripts and commands, `INFO cpu`)
and this process's CPU (elicitkit or the by-hand code, and redis-py), each side's. Wall time
magnifies a few microseconds of work several times over (the CPU idles through every fsync and
wakes cold), so these show what a change costs where the wall ratio's noise hides it.

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
from dataclasses import dataclass, field
from pathlib import Path

import aiosqlite
from redis.asyncio import Redis

sys.path.insert(0, str(Path(__file__).parents[1] / "tests"))

from support.redis_server import RedisServer

from elicitkit.server import User
from elicitkit.server._backends import redis_client
from elicitkit.server.store import ACTIVE, Record, Store
from elicitkit.server.store._redis import RedisStore
from elicitkit.server.store._sqlite import SQLiteStore

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


def by_hand_redis(client: Redis) -> Flow:
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


Clock = Callable[[], Awaitable[float]]


@dataclass
class Side:
    """One side's rounds: flows per second each round, and flows and CPU seconds in all."""

    rates: list[float] = field(default_factory=list)
    flows: int = 0
    server_cpu: float = 0.0
    client_cpu: float = 0.0

    def rate(self) -> float:
        """The median round's flows per second."""
        return statistics.median(self.rates)

    def cpu_us(self) -> tuple[float, float]:
        """Server and client CPU microseconds per flow."""
        return self.server_cpu / self.flows * 1e6, self.client_cpu / self.flows * 1e6


async def _no_server_clock() -> float:
    return 0.0


async def _rate(flow: Flow, seconds: float, side: Side, server_clock: Clock) -> float:
    server, client = await server_clock(), time.process_time()
    done, started = 0, time.perf_counter()
    while (elapsed := time.perf_counter() - started) < seconds:
        await flow(new_record())
        done += 1
    side.client_cpu += time.process_time() - client
    side.server_cpu += await server_clock() - server
    side.flows += done
    return done / elapsed


async def _ratio(
    ours: Flow, by_hand: Flow, rounds: int, seconds: float, server_clock: Clock = _no_server_clock
) -> tuple[float, Side, Side]:
    """The median of the rounds' throughput ratios, and each side's rounds."""
    for flow in (ours, by_hand):  # warm up: connections, script cache, page cache
        for _ in range(20):
            await flow(new_record())
    mine, hand, ratios = Side(), Side(), []
    for i in range(rounds):  # adjacent pairs, alternating who goes first: both see the same noise
        first, second = ((ours, mine), (by_hand, hand)) if i % 2 == 0 else ((by_hand, hand), (ours, mine))
        for flow, side in (first, second):
            side.rates.append(await _rate(flow, seconds, side, server_clock))
        ratios.append(mine.rates[-1] / hand.rates[-1])
    return statistics.median(ratios), mine, hand


def redis_user_cpu(client: Redis) -> Clock:
    """redis-server's user CPU seconds so far (INFO cpu)."""

    async def clock() -> float:
        return float((await client.info("cpu"))["used_cpu_user"])

    return clock


async def _measure(folder: Path, redis_url: str, rounds: int, seconds: float) -> dict[str, float]:
    store = SQLiteStore(folder / "bench.sqlite3")
    await store.get("none")  # creates the file, its tables and its WAL mode
    # By hand: a connection of its own to that file, as a program written on aiosqlite opens it.
    db = await aiosqlite.connect(folder / "bench.sqlite3", isolation_level=None)
    await db.execute("PRAGMA synchronous=NORMAL")
    sqlite, sqlite_ours, sqlite_hand = await _ratio(through_store(store), by_hand_sqlite(db), rounds, seconds)
    await db.close()
    await store.close()

    redis_store = RedisStore(redis_client(redis_url), prefix="bench:")
    raw = redis_client(redis_url)
    assert isinstance(raw, Redis)
    redis, redis_ours, redis_hand = await _ratio(
        through_store(redis_store), by_hand_redis(raw), rounds, seconds, redis_user_cpu(raw)
    )
    await redis_store.close()
    await raw.aclose()
    (server, client), (hand_server, hand_client) = redis_ours.cpu_us(), redis_hand.cpu_us()
    return {
        "sqlite_flow_ratio": sqlite,
        "sqlite_flows_per_s": sqlite_ours.rate(),
        "sqlite_by_hand_flows_per_s": sqlite_hand.rate(),
        "redis_flow_ratio": redis,
        "redis_flows_per_s": redis_ours.rate(),
        "redis_by_hand_flows_per_s": redis_hand.rate(),
        "redis_server_user_cpu_us_per_flow": server,
        "redis_by_hand_server_user_cpu_us_per_flow": hand_server,
        "redis_client_cpu_us_per_flow": client,
        "redis_by_hand_client_cpu_us_per_flow": hand_client,
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
        print(f"{name:42} {value:10.2f}")


if __name__ == "__main__":
    main()
