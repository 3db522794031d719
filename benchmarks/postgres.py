"""The PostgreSQL backend: flows per second over the same three operations written by hand, and
how long the completion notice takes across two replicas sharing one PostgreSQL.

- `postgres_flow_ratio`: one flow (create, open, complete; see store_flow.py) through
  `PostgresStore`, over the same three writes straight against asyncpg on the same pool and
  database: an INSERT of the record, then two UPDATEs of its state, each its own implicit
  transaction (no user check, no expiry check, no NOTIFY, no retry token: the least a
  hand-written version could do). Median of the rounds' ratios, as in store_flow.py.
- `completion_p99_ms_postgres`: completion.py's replica flow (session on A, finish on B) with
  both replicas on one PostgreSQL: the store's conditional UPDATE notifies in the same
  statement, and A's bus hears it over LISTEN. Alongside, `postgres_notify_p99_ms` is the bare
  round trip this rests on: `pg_notify` on one connection, heard by LISTEN on another.

PostgreSQL is a real server started for the run from Debian's binaries (tests/support/postgres_server.py),
fsync and synchronous_commit on.

Run: `.venv/bin/python benchmarks/postgres.py` (about 40 s). `run()` returns the figures.
"""

from __future__ import annotations

import asyncio
import sys
import tempfile
import time
from contextlib import ExitStack
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

from _harness import bench_server, p99, server_env
from completion import _flows
from store_flow import ALICE, Flow, _ratio, through_store
from support.postgres_server import PostgresServer

from elicitkit.server.store import Record
from elicitkit.server.store._postgres import PostgresStore


def by_hand_postgres(pool: Any) -> Flow:
    async def flow(record: Record) -> None:
        await pool.execute(
            "INSERT INTO byhand_records VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11::jsonb)",
            record.id, ALICE.issuer, ALICE.subject, record.client_id, record.flow, record.message,
            "pending", record.created_at, record.updated_at, record.expires_at, "{}",
        )  # fmt: skip
        await pool.execute("UPDATE byhand_records SET state = 'opened' WHERE id = $1", record.id)
        await pool.execute("UPDATE byhand_records SET state = 'completed' WHERE id = $1", record.id)

    return flow


async def _flow_ratio(url: str, rounds: int, seconds: float) -> tuple[float, float, float]:
    store = PostgresStore(url, prefix="bench_")
    pool = await store.pool()  # the by-hand flow shares the store's pool, so neither has more connections
    await pool.execute(
        "CREATE TABLE IF NOT EXISTS byhand_records (id text PRIMARY KEY, issuer text, subject text, "
        "client_id text, flow text, message text, state text, created_at double precision, "
        "updated_at double precision, expires_at double precision, details jsonb)"
    )
    try:
        ratio, ours, by_hand = await _ratio(through_store(store), by_hand_postgres(pool), rounds, seconds)
        return ratio, ours.rate(), by_hand.rate()
    finally:
        await store.close()


async def _notify_round_trips(url: str, count: int) -> list[float]:
    import asyncpg

    sender, listener = await asyncpg.connect(url), await asyncpg.connect(url)
    heard: asyncio.Queue[str] = asyncio.Queue()
    await listener.add_listener("bench_notify", lambda *args: heard.put_nowait(args[3]))
    samples = []
    try:
        for i in range(count):
            started = time.monotonic()
            await sender.execute("SELECT pg_notify('bench_notify', $1)", str(i))
            while await asyncio.wait_for(heard.get(), 5) != str(i):
                pass
            samples.append(time.monotonic() - started)
    finally:
        await sender.close()
        await listener.close()
    return samples


def run(rounds: int = 16, seconds: float = 0.25, flows: int = 300, warmup: int = 20) -> dict[str, float]:
    """The flow ratio (elicitkit over by hand) and the completion latency across two replicas."""
    env = server_env()
    with tempfile.TemporaryDirectory(prefix="elicitkit-bench-") as tmp, ExitStack() as stack:
        folder = Path(tmp)
        server = stack.enter_context(PostgresServer())
        ratio, ours, by_hand = asyncio.run(_flow_ratio(server.url, rounds, seconds))
        a = stack.enter_context(bench_server(server.url, env, folder / "replica-a.log"))
        b = stack.enter_context(bench_server(server.url, env, folder / "replica-b.log"))
        across = asyncio.run(_flows(a, b, flows, warmup, None))
        notify = asyncio.run(_notify_round_trips(server.url, 3 * flows))
    return {
        "postgres_flow_ratio": ratio,
        "postgres_flows_per_s": ours,
        "postgres_by_hand_flows_per_s": by_hand,
        "completion_p99_ms_postgres": p99(across["from_finish"]) * 1000,
        "completion_claim_p99_ms_postgres": p99(across["claim"]) * 1000,
        "completion_reach_p99_ms_postgres": p99(across["reach"]) * 1000,
        "postgres_notify_p99_ms": p99(notify) * 1000,
    }


def main() -> None:
    for name, value in run().items():
        print(f"{name:36} {value:10.3f}")


if __name__ == "__main__":
    main()
