"""How elicitkit's cost grows with its work: pending records, open sessions, replicas, the sweep.

The other benchmarks measure one operation against a baseline; this one measures the same
operations at growing sizes, so an operator can read how a deployment's cost grows. Each size is
filled quickly (many creates in flight at once, not timed), then measured one operation at a time.

- store: 1k, 10k, 100k (and, with `--big`, 1M) pending records of 10k users on SQLite, Redis and
  PostgreSQL, each a real server started for the run. At each size: bytes per record by the
  store's own accounting (SQLite's page count, Redis's `INFO memory`, PostgreSQL's relation
  sizes), and the p50/p99 of create, open (pending -> opened), complete (-> completed) and the
  per-user count that the pending cap reads.
- sessions: 100 and 1,000 (and with `--big` 10,000) concurrent MCP sessions on one server
  process (benchmarks/_harness.py: SQLite store, in-process bus), each with a live URL
  elicitation waiting: the server's resident memory per session, and the p99 of a completion
  reaching its session.
- replicas: 1, 2, 4 and 8 server processes on one Redis (and one PostgreSQL): the p99 of a
  completion reaching a session on another replica, and the store's commands per flow (Redis).
- sweep: 100k overdue records expired by `Store.sweep` while live flows (create, open, complete)
  run on the same store: how long it takes, the store's commands, and the live flows' p99 while
  it runs over their p99 without it.

Figures: `scale_record_bytes_growth_<backend>` (bytes per record at the largest standard size
over the smallest), `scale_op_p99_growth_<backend>` (the p99 of create+open+complete, likewise),
`scale_session_kib` (at 1,000 sessions), `scale_replica_p99_growth` (8 replicas over 2, Redis),
`scale_sweep_serving_p99_ratio` (the worst backend); every point of every curve is a supporting
figure named `scale_<what>_<backend>_<size>`, which `plot()` draws.

Run: `.venv/bin/python benchmarks/scale.py [--big] [--plots DIR] [--parts store sessions ...]`
(about 20 minutes; `--big` adds the 1M store size and 10,000 sessions, about 30 minutes more).
`run()` returns the figures; progress goes to stderr as each part ends. `--trace-sessions N`
instead shows where a session's memory goes (tracemalloc on the server, between N and 2N sessions).
"""

from __future__ import annotations

import argparse
import asyncio
import math
import os
import random
import resource
import sqlite3
import statistics
import sys
import tempfile
import time
import uuid
from collections.abc import AsyncIterator, Awaitable, Callable, Iterable, Iterator
from contextlib import AsyncExitStack, ExitStack, asynccontextmanager, contextmanager
from pathlib import Path
from typing import Any

import anyio
import httpx

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

from _harness import bench_server, p99, server_env
from support.postgres_server import PostgresServer
from support.redis_server import RedisServer

from elicitkit.server import User, open_store
from elicitkit.server.store import ACTIVE, Record, Store

BACKENDS = ("sqlite", "redis", "postgres")
STORE_SIZES = (1_000, 10_000, 100_000)
BIG_STORE_SIZE = 1_000_000
SESSIONS = (100, 1_000)
BIG_SESSIONS = 10_000
REPLICAS = (1, 2, 4, 8)
PARTS = ("store", "sessions", "replicas", "sweep")
USERS = 10_000
FILL_IN_FLIGHT = 32
"""Creates in flight at once while filling: enough to keep a backend busy, within its client's pool
(a Redis store's 50 connections), so no create waits out the pool's timeout on a loaded machine."""


def _user(i: int) -> User:
    return User("https://issuer.bench", f"user-{i % USERS}")


def _record(user: User, ttl: float = 86_400.0) -> Record:
    return Record.new(user, "bench-client", "bench-api-key", "The benchmark needs your API key.", ttl=ttl)


def _ms(samples: list[float]) -> tuple[float, float]:
    return statistics.median(samples) * 1000, p99(samples) * 1000


async def _bounded(jobs: Iterable[Callable[[], Awaitable[Any]]], in_flight: int) -> None:
    """Run the jobs with at most `in_flight` of them at once."""
    limit = asyncio.Semaphore(in_flight)

    async def one(job: Callable[[], Awaitable[Any]]) -> None:
        async with limit:
            await job()

    await asyncio.gather(*(one(job) for job in jobs))


async def _fill(store: Store, start: int, stop: int, ttl: float = 86_400.0) -> None:
    async def create(i: int) -> None:
        await store.create(_record(_user(i), ttl))

    for batch in range(start, stop, 10_000):
        await _bounded(
            [lambda i=i: create(i) for i in range(batch, min(stop, batch + 10_000))], FILL_IN_FLIGHT
        )


# --- the store's own accounting of its size -------------------------------------------------------


class _Size:
    """Bytes one part's records take, by the backend's own accounting."""

    def __init__(self, backend: str, base: str, part: str) -> None:
        self.backend, self.url, self.part = backend, _url(base, part), part

    async def bytes(self) -> int:
        if self.backend == "sqlite":
            path = self.url.removeprefix("sqlite:///")
            with sqlite3.connect(f"file:{path}?mode=ro", uri=True) as db:
                pages = db.execute("PRAGMA page_count").fetchone()[0]
                page_size = db.execute("PRAGMA page_size").fetchone()[0]
            return int(pages * page_size)
        if self.backend == "redis":
            from redis.asyncio import Redis

            client = Redis.from_url(self.url)
            try:
                info = await client.info("memory")
            finally:
                await client.aclose()
            return int(info["used_memory"])
        import asyncpg

        conn = await asyncpg.connect(self.url)
        try:
            size = await conn.fetchval(
                "SELECT coalesce(sum(pg_total_relation_size(oid)), 0) FROM pg_class "
                "WHERE relkind = 'r' AND relname = $1",
                f"{self.part}_records",
            )
        finally:
            await conn.close()
        return int(size)


async def _redis_calls(url: str) -> int:
    """Every command redis-server has run so far (`INFO commandstats`)."""
    from redis.asyncio import Redis

    client = Redis.from_url(url)
    try:
        stats = await client.info("commandstats")
    finally:
        await client.aclose()
    return sum(int(value["calls"]) for value in stats.values())


@contextmanager
def _servers(folder: Path) -> Iterator[dict[str, str]]:
    """A fresh server of each backend for the whole run: their store URLs (SQLite: a folder).

    Each part of the run uses its own tables or keys (`_store`'s prefix), so one server serves all."""
    with RedisServer(folder / "redis") as redis, PostgresServer() as postgres:
        yield {"sqlite": f"sqlite:///{folder}", "redis": redis.url, "postgres": postgres.url}


def _url(base: str, part: str) -> str:
    """The store URL of one part of the run on the server at `base`: SQLite gets a file of its own."""
    return f"{base}/{part}.sqlite3" if base.startswith("sqlite") else base


@asynccontextmanager
async def _store(base: str, part: str) -> AsyncIterator[Store]:
    """The part's own store: its own SQLite file, or its own key or table prefix."""
    url = _url(base, part)
    store = open_store(url) if url.startswith("sqlite") else open_store(url, prefix=f"{part}:")
    try:
        yield store
    finally:
        await store.close()


# --- part 1: the store at growing sizes -----------------------------------------------------------


async def _measure_ops(store: Store, samples: int, seed: int) -> dict[str, list[float]]:
    """`samples` flows one at a time, each op timed: create, open, complete; and the count."""
    timing: dict[str, list[float]] = {"create": [], "open": [], "complete": [], "count": [], "flow": []}
    rng = random.Random(seed)
    for _ in range(samples):
        user = _user(rng.randrange(USERS))
        record = _record(user)
        t0 = time.perf_counter()
        await store.create(record)
        t1 = time.perf_counter()
        assert await store.transition(record.id, from_states={"pending"}, to="opened", user=user)
        t2 = time.perf_counter()
        assert await store.transition(record.id, from_states=ACTIVE, to="completed", user=user)
        t3 = time.perf_counter()
        await store.count_active(user)
        t4 = time.perf_counter()
        timing["create"].append(t1 - t0)
        timing["open"].append(t2 - t1)
        timing["complete"].append(t3 - t2)
        timing["count"].append(t4 - t3)
        timing["flow"].append(t3 - t0)
    return timing


async def _store_curve(backend: str, base: str, sizes: list[int], samples: int) -> dict[str, float]:
    figures: dict[str, float] = {}
    size = _Size(backend, base, "records")
    started, shown = time.monotonic(), 0  # each size's figures on stderr: a 1M fill takes many minutes
    async with _store(base, "records") as store:
        await _measure_ops(store, 20, seed=0)  # warm-up: connections, schema, scripts
        empty = await size.bytes()
        filled = 0
        for n in sizes:
            await _fill(store, filled, n)
            filled = n
            figures[f"scale_bytes_per_record_{backend}_{n}"] = (await size.bytes() - empty) / n
            timing = await _measure_ops(store, samples, seed=n)
            for op, values in timing.items():
                p50, p99_ms = _ms(values)
                figures[f"scale_{op}_p50_ms_{backend}_{n}"] = p50
                figures[f"scale_{op}_p99_ms_{backend}_{n}"] = p99_ms
            shown = _progress(f"store on {backend} at {n:,} records", started, figures, shown)
    return figures


# --- part 2: many sessions on one server ----------------------------------------------------------


async def _rss_kib(http: httpx.AsyncClient, base: str) -> float:
    return float((await http.get(f"{base}/bench/rss")).json()["rss"]) / 1024


class _Session:
    """One MCP client session with a live URL elicitation waiting on it."""

    def __init__(self) -> None:
        self.asked: asyncio.Future[str] = asyncio.get_running_loop().create_future()
        self.arrived: asyncio.Future[float] = asyncio.get_running_loop().create_future()

    async def on_elicit(self, context: Any, params: Any) -> Any:
        from mcp_types import ElicitResult

        if not self.asked.done():
            self.asked.set_result(params.elicitation_id)
        return ElicitResult(action="accept")

    async def on_message(self, message: Any) -> None:
        from mcp_types import ElicitCompleteNotification

        if isinstance(message, ElicitCompleteNotification) and not self.arrived.done():
            self.arrived.set_result(time.monotonic())


async def _open_waiting(stack: AsyncExitStack, base: str, session: _Session) -> asyncio.Task[Any]:
    """One session held open in `stack`, its call waiting on a live URL elicitation."""
    from mcp import Client

    client = await stack.enter_async_context(
        Client(
            f"{base}/mcp",
            mode="legacy",
            elicitation_callback=session.on_elicit,
            message_handler=session.on_message,
        )
    )
    call = asyncio.create_task(client.call_tool("wait_for_finish", {}))
    await asyncio.wait_for(asyncio.shield(session.asked), 120)
    return call


async def _sessions_at(base: str, n: int, timed: int) -> tuple[float, list[float]]:
    """Open `n` sessions each waiting on a live URL elicitation; the server's KiB per session and
    the latencies of `timed` completions reaching their sessions."""

    limits = httpx.Limits(max_connections=None, max_keepalive_connections=None)
    async with httpx.AsyncClient(timeout=120, limits=limits) as http, AsyncExitStack() as stack:
        before = await _rss_kib(http, base)
        sessions = [_Session() for _ in range(n)]
        calls: list[asyncio.Task[Any]] = []

        async def open_one(session: _Session) -> None:
            calls.append(await _open_waiting(stack, base, session))

        # AsyncExitStack is entered from one task at a time; opening is batched, not timed.
        for start in range(0, n, 50):
            for session in sessions[start : start + 50]:
                await open_one(session)
        after = await _rss_kib(http, base)
        latencies: list[float] = []
        for session in sessions[:timed]:
            elicitation_id = session.asked.result()
            (
                await http.post(f"{base}/bench/finish/{elicitation_id}", params={"after": 0.01})
            ).raise_for_status()
            arrived = await asyncio.wait_for(asyncio.shield(session.arrived), 60)
            started = (await http.get(f"{base}/bench/times/{elicitation_id}")).json()["started"]
            latencies.append(arrived - started)
        rest = [s.asked.result() for s in sessions[timed:]]
        await _bounded(
            [lambda i=i: http.post(f"{base}/bench/finish/{i}", params={"after": 0}) for i in rest], 64
        )
        await asyncio.wait_for(asyncio.gather(*calls), 300)
    return (after - before) / n, latencies


async def _sdk_sessions_at(base: str, n: int) -> float:
    """The floor: `n` sessions each with an SDK tool call waiting (no store, no bus, no
    elicitation); the server's KiB per session."""
    from mcp import Client

    limits = httpx.Limits(max_connections=None, max_keepalive_connections=None)
    async with httpx.AsyncClient(timeout=120, limits=limits) as http, AsyncExitStack() as stack:
        before = await _rss_kib(http, base)
        tokens = [uuid.uuid4().hex for _ in range(n)]
        calls = []
        for token in tokens:
            client = await stack.enter_async_context(Client(f"{base}/mcp", mode="legacy"))
            calls.append(asyncio.create_task(client.call_tool("sdk_wait", {"token": token})))
        with anyio.fail_after(120):
            while (await http.get(f"{base}/bench/sdk_waiting")).json()["waiting"] < n:  # noqa: ASYNC110 - another process
                await asyncio.sleep(0.1)
        after = await _rss_kib(http, base)
        await _bounded([lambda t=t: http.post(f"{base}/bench/sdk_notify/{t}") for t in tokens], 64)
        await asyncio.wait_for(asyncio.gather(*calls), 300)
    return (after - before) / n


async def _warm(base: str) -> None:
    await _sessions_at(base, 5, 0)
    await _sdk_sessions_at(base, 5)


def _sessions_curve(folder: Path, sizes: list[int], timed: int) -> dict[str, float]:
    figures: dict[str, float] = {}
    env = server_env()
    for n in sizes:
        # A fresh server per size, so one size's freed memory does not hide the next one's growth.
        with bench_server(
            f"sqlite:///{folder / f'sessions-{n}.sqlite3'}", env, folder / f"sessions-{n}.log"
        ) as base:
            asyncio.run(_warm(base))
            kib, latencies = asyncio.run(_sessions_at(base, n, min(timed, n)))
        with bench_server(
            f"sqlite:///{folder / f'sdk-sessions-{n}.sqlite3'}", env, folder / f"sdk-sessions-{n}.log"
        ) as base:
            asyncio.run(_warm(base))
            floor = asyncio.run(_sdk_sessions_at(base, n))
        figures[f"scale_session_kib_sqlite_{n}"] = kib
        figures[f"scale_session_sdk_floor_kib_sqlite_{n}"] = floor
        figures[f"scale_session_own_kib_sqlite_{n}"] = kib - floor
        (
            figures[f"scale_session_completion_p50_ms_sqlite_{n}"],
            figures[f"scale_session_completion_p99_ms_sqlite_{n}"],
        ) = _ms(latencies)
    return figures


# --- where a session's memory goes (`--trace-sessions N`, not part of `run`) ---------------------

TRACE_OWNERS = (
    ("/elicitkit/", "elicitkit"),
    ("/_harness.py", "harness"),
    ("/mcp/", "mcp"),
    ("/mcp_types/", "mcp"),
    ("/sse_starlette/", "sse_starlette"),
    ("/starlette/", "starlette"),
    ("/uvicorn/", "uvicorn"),
    ("/h11/", "h11"),
)
"""Who asked for an allocation: the innermost frame of its traceback in one of these (anyio,
asyncio, pydantic and the like are counted to whichever of these called them)."""


def _serve_traced(port: int, store_url: str) -> None:
    """The benchmark server with one more route: `GET /trace?to=PATH` writes a tracemalloc
    snapshot to PATH after a garbage collection. Tracing starts once the app is built (tracing
    the imports would take minutes), with the frames `ELICITKIT_TRACE_DEPTH` says."""
    import gc
    import tracemalloc
    from urllib.parse import parse_qs

    import uvicorn
    from _harness import build_app

    app = build_app(f"http://127.0.0.1:{port}", store_url)
    tracemalloc.start(int(os.environ.get("ELICITKIT_TRACE_DEPTH", "25")))

    async def traced(scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] == "http" and scope["path"] == "/trace":
            gc.collect()
            tracemalloc.take_snapshot().dump(parse_qs(scope["query_string"].decode())["to"][0])
            await send({"type": "http.response.start", "status": 204, "headers": []})
            await send({"type": "http.response.body", "body": b""})
            return
        await app(scope, receive, send)

    uvicorn.run(traced, host="127.0.0.1", port=port, log_level="warning", access_log=False)


async def _open_traced(base: str, n: int, folder: Path) -> tuple[Path, Path]:
    """5 sessions, then `n`, a snapshot, `n` more, a snapshot; each with a live URL elicitation."""

    limits = httpx.Limits(max_connections=None, max_keepalive_connections=None)
    snapshots: list[Path] = []
    async with httpx.AsyncClient(timeout=600, limits=limits) as http, AsyncExitStack() as stack:
        sessions: list[_Session] = []
        calls: list[asyncio.Task[Any]] = []
        for count, snapshot in ((5, None), (n, folder / "trace-1.pickle"), (n, folder / "trace-2.pickle")):
            for _ in range(count):
                session = _Session()
                sessions.append(session)
                calls.append(await _open_waiting(stack, base, session))
            if snapshot is not None:
                await asyncio.sleep(6)  # steady state: uvicorn closes idle keep-alive connections after 5 s
                (await http.get(f"{base}/trace", params={"to": str(snapshot)})).raise_for_status()
                snapshots.append(snapshot)
        ids = [session.asked.result() for session in sessions]
        await _bounded(
            [lambda i=i: http.post(f"{base}/bench/finish/{i}", params={"after": 0}) for i in ids], 64
        )
        await asyncio.wait_for(asyncio.gather(*calls), 300)
    return snapshots[0], snapshots[1]


def trace_sessions(n: int, depth: int = 25, top: int = 25) -> tuple[dict[str, float], list[str]]:
    """Where a session's memory goes: the server's Python allocations (tracemalloc, `depth` frames)
    between `n` and `2n` open sessions, per session, by who asked for them and by source line."""
    import subprocess
    import tracemalloc

    from support.server_process import free_port, stop, wait_until_serving

    with tempfile.TemporaryDirectory(prefix="elicitkit-trace-") as name:
        folder = Path(name)
        port = free_port()
        log = folder / "server.log"
        env = {**server_env(), "ELICITKIT_TRACE_DEPTH": str(depth)}
        command = [
            sys.executable,
            __file__,
            "--serve-traced",
            str(port),
            f"sqlite:///{folder / 'trace.sqlite3'}",
        ]
        with log.open("wb") as out:
            process = subprocess.Popen(command, env=env, stdout=out, stderr=subprocess.STDOUT)
            try:
                base = f"http://127.0.0.1:{port}"
                wait_until_serving(process, f"{base}/bench/bare", log, within=120)
                first, second = asyncio.run(_open_traced(base, n, folder))
            finally:
                stop(process)
        diff = tracemalloc.Snapshot.load(str(second)).compare_to(
            tracemalloc.Snapshot.load(str(first)), "traceback"
        )
    owners: dict[str, float] = {}
    lines: dict[str, list[float]] = {}
    for stat in diff:
        frames = list(stat.traceback)[::-1]  # innermost first
        owner, where = "other", frames[0]
        for frame in frames:
            found = next((who for part, who in TRACE_OWNERS if part in frame.filename), None)
            if found is not None:
                owner, where = found, frame
                break
        owners[owner] = owners.get(owner, 0.0) + stat.size_diff / n
        source = where.filename.rpartition("site-packages/")[2].rpartition("src/")[2]
        place = f"{owner:13} {source}:{where.lineno}"
        entry = lines.setdefault(place, [0.0, 0.0])
        entry[0] += stat.size_diff / n
        entry[1] += stat.count_diff / n
    figures = {f"scale_session_trace_bytes_{owner}": value for owner, value in owners.items()}
    figures["scale_session_trace_bytes_total"] = sum(owners.values())
    ranked = sorted(lines.items(), key=lambda item: -item[1][0])[:top]
    report = [f"{size:8.0f} B {count:5.1f} blocks  {place}" for place, (size, count) in ranked]
    return figures, report


# --- part 3: replicas on one shared store ---------------------------------------------------------


async def _replica_flows(bases: list[str], flows: int, warmup: int) -> list[float]:
    """Flows with the session on the first replica and each finish on another, in turn."""
    from mcp import Client

    others = bases[1:] or bases
    latencies: list[float] = []
    async with httpx.AsyncClient(timeout=60) as http:
        for i in range(warmup + flows):
            session = _Session()
            async with Client(
                f"{bases[0]}/mcp",
                mode="legacy",
                elicitation_callback=session.on_elicit,
                message_handler=session.on_message,
            ) as client:
                call = asyncio.create_task(client.call_tool("wait_for_finish", {}))
                elicitation_id = await asyncio.wait_for(asyncio.shield(session.asked), 30)
                finisher = others[i % len(others)]
                (
                    await http.post(f"{finisher}/bench/finish/{elicitation_id}", params={"after": 0.01})
                ).raise_for_status()
                arrived = await asyncio.wait_for(asyncio.shield(session.arrived), 30)
                started = (await http.get(f"{finisher}/bench/times/{elicitation_id}")).json()["started"]
                await asyncio.wait_for(call, 30)
                if i >= warmup:
                    latencies.append(arrived - started)
    return latencies


def _replicas_curve(
    folder: Path, backend: str, url: str, counts: list[int], flows: int, warmup: int
) -> dict[str, float]:
    figures: dict[str, float] = {}
    env = server_env()
    for k in counts:
        # Fresh replicas per count: an idle replica still hears every completion on the bus.
        with ExitStack() as stack:
            bases = [
                stack.enter_context(bench_server(url, env, folder / f"replica-{backend}-{k}-{j}.log"))
                for j in range(k)
            ]
            calls_before = asyncio.run(_redis_calls(url)) if backend == "redis" else 0
            latencies = asyncio.run(_replica_flows(bases, flows, warmup))
            if backend == "redis":
                calls = asyncio.run(_redis_calls(url)) - calls_before
                figures[f"scale_replica_commands_per_flow_{backend}_{k}"] = calls / (flows + warmup)
        figures[f"scale_replica_p50_ms_{backend}_{k}"], figures[f"scale_replica_p99_ms_{backend}_{k}"] = _ms(
            latencies
        )
    return figures


# --- part 4: the sweep while serving --------------------------------------------------------------


async def _live_flows(store: Store, until: Callable[[], bool], at_least: int) -> list[float]:
    latencies: list[float] = []
    rng = random.Random(7)
    while not until() or len(latencies) < at_least:
        user = _user(rng.randrange(USERS))
        record = _record(user)
        started = time.perf_counter()
        await store.create(record)
        await store.transition(record.id, from_states={"pending"}, to="opened", user=user)
        await store.transition(record.id, from_states=ACTIVE, to="completed", user=user)
        latencies.append(time.perf_counter() - started)
    return latencies


async def _sweep_at(backend: str, base: str, n: int, baseline_flows: int) -> dict[str, float]:
    url = _url(base, "sweep")
    async with _store(base, "sweep") as store:
        await _measure_ops(store, 20, seed=1)
        await _fill(store, 0, n, ttl=3600)
        without = await _live_flows(store, lambda: True, baseline_flows)
        calls_before = await _redis_calls(url) if backend == "redis" else 0
        done = asyncio.Event()

        async def sweep() -> tuple[int, float]:
            started = time.perf_counter()
            try:
                return await store.sweep(now=time.time() + 7200), time.perf_counter() - started
            finally:
                done.set()

        sweeping = asyncio.create_task(sweep())
        during = await _live_flows(store, done.is_set, 20)
        changed, seconds = await sweeping
    figures = {
        f"scale_sweep_seconds_{backend}_{n}": seconds,
        f"scale_sweep_changed_{backend}_{n}": float(changed),
        f"scale_sweep_live_p99_ms_{backend}_{n}": p99(during) * 1000,
        f"scale_sweep_idle_p99_ms_{backend}_{n}": p99(without) * 1000,
        f"scale_sweep_serving_p99_ratio_{backend}": p99(during) / p99(without),
    }
    if backend == "redis":
        figures[f"scale_sweep_commands_{backend}_{n}"] = float(await _redis_calls(url) - calls_before)
    return figures


# --- the whole run --------------------------------------------------------------------------------


def _raise_open_files() -> None:
    """Each session holds two connections at both ends: lift the soft limit to the hard one."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft < hard:
        resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))


def _growth(figures: dict[str, float], name: str, backend: str, sizes: list[int]) -> float:
    return figures[f"{name}_{backend}_{sizes[-1]}"] / figures[f"{name}_{backend}_{sizes[0]}"]


def _progress(label: str, started: float, figures: dict[str, float], since: int) -> int:
    """Say on stderr that a part is done, with its figures: a full run takes minutes."""
    print(f"scale: {label} done at {time.monotonic() - started:.0f} s", file=sys.stderr, flush=True)
    for name, value in list(figures.items())[since:]:
        print(f"  {name:54} {value:12.3f}", file=sys.stderr, flush=True)
    return len(figures)


def run(
    store_sizes: list[int] | None = None,
    sessions: list[int] | None = None,
    replicas: list[int] | None = None,
    sweep: int = 100_000,
    samples: int = 300,
    timed: int = 100,
    flows: int = 100,
    warmup: int = 10,
    big: bool = False,
    parts: Iterable[str] = PARTS,
    backends: Iterable[str] = BACKENDS,
) -> dict[str, float]:
    """Every curve's points and the five headline figures (see the module docstring), of the
    `parts` asked for (all four by default)."""
    parts = set(parts)
    backends = [backend for backend in BACKENDS if backend in set(backends)]
    store_sizes = list(store_sizes or STORE_SIZES)
    sessions = list(sessions or SESSIONS)
    replicas = list(replicas or REPLICAS)
    measured_sizes = [*store_sizes, BIG_STORE_SIZE] if big else store_sizes
    session_sizes = [*sessions, BIG_SESSIONS] if big else sessions
    _raise_open_files()
    figures: dict[str, float] = {}
    started, shown = time.monotonic(), 0
    with ExitStack() as stack:
        folder = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="elicitkit-scale-")))
        servers = stack.enter_context(_servers(folder))
        for backend in backends if "store" in parts else ():
            figures.update(asyncio.run(_store_curve(backend, servers[backend], measured_sizes, samples)))
            figures[f"scale_record_bytes_growth_{backend}"] = _growth(
                figures, "scale_bytes_per_record", backend, store_sizes
            )
            figures[f"scale_op_p99_growth_{backend}"] = _growth(
                figures, "scale_flow_p99_ms", backend, store_sizes
            )
            shown = _progress(f"store on {backend}", started, figures, shown)
        if "sessions" in parts:
            figures.update(_sessions_curve(folder, session_sizes, timed))
            nearest = min(session_sizes, key=lambda n: abs(n - 1_000))
            figures["scale_session_kib"] = figures[f"scale_session_kib_sqlite_{nearest}"]
            figures["scale_session_own_kib"] = figures[f"scale_session_own_kib_sqlite_{nearest}"]
            shown = _progress("sessions", started, figures, shown)
        if "replicas" in parts:
            for backend in ("redis", "postgres"):
                figures.update(_replicas_curve(folder, backend, servers[backend], replicas, flows, warmup))
                shown = _progress(f"replicas on {backend}", started, figures, shown)
            two = 2 if 2 in replicas else replicas[0]
            figures["scale_replica_p99_growth"] = (
                figures[f"scale_replica_p99_ms_redis_{replicas[-1]}"]
                / figures[f"scale_replica_p99_ms_redis_{two}"]
            )
        if "sweep" in parts:
            for backend in backends:
                figures.update(
                    asyncio.run(_sweep_at(backend, servers[backend], sweep, max(50, samples // 3)))
                )
                shown = _progress(f"sweep on {backend}", started, figures, shown)
            figures["scale_sweep_serving_p99_ratio"] = max(
                figures[f"scale_sweep_serving_p99_ratio_{backend}"] for backend in backends
            )
    return figures


# --- pictures -------------------------------------------------------------------------------------

CURVES: dict[str, tuple[str, str]] = {
    # file stem: (figure prefix, y label)
    "store_bytes_per_record": ("scale_bytes_per_record", "bytes per record"),
    "store_create_p99": ("scale_create_p99_ms", "create p99 (ms)"),
    "store_open_p99": ("scale_open_p99_ms", "open p99 (ms)"),
    "store_complete_p99": ("scale_complete_p99_ms", "complete p99 (ms)"),
    "store_count_p99": ("scale_count_p99_ms", "per-user count p99 (ms)"),
    "store_flow_p99": ("scale_flow_p99_ms", "create+open+complete p99 (ms)"),
    "store_flow_p50": ("scale_flow_p50_ms", "create+open+complete p50 (ms)"),
    "sessions_kib": ("scale_session_kib", "server KiB per session (live URL elicitation)"),
    "sessions_sdk_floor_kib": ("scale_session_sdk_floor_kib", "server KiB per session (an SDK call alone)"),
    "sessions_completion_p99": ("scale_session_completion_p99_ms", "completion p99 (ms)"),
    "replicas_completion_p99": ("scale_replica_p99_ms", "completion p99 across replicas (ms)"),
    "replicas_commands_per_flow": ("scale_replica_commands_per_flow", "Redis commands per flow"),
}
X_LABELS = {
    "store": "pending records",
    "sessions": "concurrent sessions",
    "replicas": "server processes",
}


def curves(figures: dict[str, float], prefix: str) -> dict[str, list[tuple[int, float]]]:
    """The points of one curve per backend: `{backend: [(size, value), ...]}`, sizes ascending."""
    found: dict[str, list[tuple[int, float]]] = {}
    for name, value in figures.items():
        head, _, size = name.rpartition("_")
        if not size.isdigit():
            continue
        stem, _, backend = head.rpartition("_")
        if stem == prefix and backend in BACKENDS:
            found.setdefault(backend, []).append((int(size), value))
    return {backend: sorted(points) for backend, points in sorted(found.items())}


def plot(figures: dict[str, float], folder: Path) -> list[Path]:
    """Draw each curve as a PNG in `folder` (size on a log axis, one line per backend)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    folder.mkdir(parents=True, exist_ok=True)
    written = []
    for stem, (prefix, label) in CURVES.items():
        lines = curves(figures, prefix)
        if not lines:
            continue
        fig, ax = plt.subplots(figsize=(6, 4), dpi=100)
        for backend, points in lines.items():
            ax.plot([x for x, _ in points], [y for _, y in points], marker="o", label=backend)
        ax.set_xscale("log", base=2 if stem.startswith("replicas") else 10)
        ax.set_xlabel(X_LABELS[stem.split("_", 1)[0]])
        ax.set_ylabel(label)
        ax.set_ylim(bottom=0)
        ax.grid(True, alpha=0.3)
        ax.legend()
        fig.tight_layout()
        path = folder / f"{stem}.png"
        fig.savefig(path)
        plt.close(fig)
        written.append(path)
    return written


def main() -> None:
    parser = argparse.ArgumentParser(description="How elicitkit's cost grows with its work.")
    parser.add_argument("--big", action="store_true", help="add 1M records and 10,000 sessions")
    parser.add_argument("--plots", type=Path, help="draw the curves as PNG files in this folder")
    parser.add_argument("--parts", nargs="+", choices=PARTS, default=PARTS, help="measure only these parts")
    parser.add_argument("--samples", type=int, default=300, help="operations timed at each store size")
    parser.add_argument(
        "--backends", nargs="+", choices=BACKENDS, default=BACKENDS, help="store and sweep parts: only these"
    )
    parser.add_argument(
        "--trace-sessions",
        type=int,
        metavar="N",
        help="instead: where a session's memory goes, by tracemalloc between N and 2N sessions",
    )
    parser.add_argument("--serve-traced", nargs=2, metavar=("PORT", "STORE"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.serve_traced:
        _serve_traced(int(args.serve_traced[0]), args.serve_traced[1])
        return
    if args.trace_sessions:
        traced, report = trace_sessions(args.trace_sessions)
        for name, value in sorted(traced.items(), key=lambda item: -item[1]):
            print(f"{name:52} {value:12.0f}")
        print("\n".join(["", "bytes per session by source line (who asked):", *report]))
        return
    figures = run(big=args.big, parts=args.parts, samples=args.samples, backends=args.backends)
    for name, value in figures.items():
        print(f"{name:52} {value:12.3f}" if math.isfinite(value) else f"{name:52} {value}")
    if args.plots:
        for path in plot(figures, args.plots):
            print(f"wrote {path}")


if __name__ == "__main__":
    os.environ.setdefault("PYTHONHASHSEED", "0")
    main()
