"""Server memory per pending URL elicitation, with 10,000 pending.

A fresh child process builds a `UrlMode` as a one-process server would (the default SQLite
store in a temporary folder, the in-process bus, a `Secret` flow), warms up (the store's
connection, its schema, every code path, 200 elicitations created and finished), then
creates N pending elicitations through `UrlMode` itself, each as `UrlMode.ask` leaves it
while the person has not finished: the record created through the store (`_new_record`) and
the completion subscription on the bus (`_notify_on_finish`). Nothing is finished or dropped
until the measurement is taken.

Two measures, each in its own fresh child:
- RSS: the growth of the process's resident set (/proc/self/statm) across the N creations,
  after `gc.collect()`; it counts everything, SQLite's page cache and C allocations included.
- tracemalloc: the growth of Python allocations still held, which names where they go.

`pending_10k_bytes_each` is the larger of the two, divided by N. A live (2025-11-25) wait also
keeps the tool call's task parked; `pending_with_waiter_bytes_each` adds, per elicitation, the
`anyio.Event` its listener sets and a task parked on it as `UrlMode.ask` parks it (under
`anyio.move_on_after`, the link's expiry), though the
SDK's own state for an open request (its streams and request context) is not counted.

Run: `.venv/bin/python benchmarks/pending_memory.py [--n 10000]`. Target: <= 4096 bytes each.
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import json
import os
import subprocess
import sys
import tempfile
import tracemalloc
from pathlib import Path
from typing import Any

_PAGE = os.sysconf("SC_PAGE_SIZE")
WARMUP = 200


def _rss() -> int:
    with open("/proc/self/statm") as statm:
        return int(statm.read().split()[1]) * _PAGE


async def _child(n: int, measure: str, waiters: bool, folder: Path) -> dict[str, Any]:
    import anyio

    from elicitkit.server import KeyRing, McpUsers, Secret, UrlMode
    from elicitkit.server.bus import LocalBus
    from elicitkit.server.store._sqlite import SQLiteStore

    users = McpUsers.single_user_local()
    url_mode = UrlMode(
        public_url="http://127.0.0.1:8000",
        keys=KeyRing.from_string(KeyRing.generate("bench")),
        store=SQLiteStore(folder / "pending.sqlite3"),
        bus=LocalBus(),
        users=users,
        max_pending_per_user=None,  # one benchmark user holds all N; the limit keeps no memory
    )
    flow = Secret(url_mode, "bench-api-key", title="Benchmark API key", message="The tool needs a key.")
    caller = users.caller()
    session: Any = object()  # the MCP session a notice would go to; never used before the finish
    details = {"description": "Any value will do."}
    parked: list[asyncio.Task[None]] = []

    async def park(finished: anyio.Event) -> None:
        with anyio.move_on_after(3600):  # as `UrlMode.ask` waits
            await finished.wait()

    async def pending(count: int, keep: list[str] | None = None) -> None:
        for _ in range(count):
            record = await url_mode._new_record(caller, flow, flow.message, details)
            # What `ask` keeps: the subscription (its unsubscribe is held only by a live wait), and
            # for a live wait the event the listener sets.
            finished = anyio.Event() if waiters else None
            url_mode._notify_on_finish(record.id, session, related_request_id=None, finished=finished)
            if finished is not None:
                parked.append(asyncio.get_running_loop().create_task(park(finished)))
            if keep is not None:
                keep.append(record.id)
        await asyncio.sleep(0)  # let the parked tasks reach their wait

    warm: list[str] = []
    await pending(WARMUP, warm)  # warm up, then finish them all
    for elicitation_id in warm:
        await url_mode.bus.publish(elicitation_id)
    await asyncio.gather(*parked)
    parked.clear()
    del warm
    gc.collect()
    if measure == "tracemalloc":
        tracemalloc.start(1)
        before = tracemalloc.take_snapshot()
    rss_before = _rss()
    await pending(n)
    gc.collect()
    result: dict[str, Any] = {"n": n}
    if measure == "tracemalloc":
        after = tracemalloc.take_snapshot()
        tracemalloc.stop()
        stats = after.compare_to(before, "lineno")
        result["bytes"] = sum(stat.size_diff for stat in stats)
        result["top"] = [(str(stat.traceback[0]), stat.size_diff) for stat in stats[:8] if stat.size_diff > 0]
    else:
        result["bytes"] = _rss() - rss_before
    assert len(url_mode.bus._listeners) == n  # type: ignore[attr-defined]
    for task in parked:
        task.cancel()
    await asyncio.gather(*parked, return_exceptions=True)
    await url_mode.store.close()
    return result


def _command(n: int, measure: str, waiters: bool) -> list[str]:
    return [sys.executable, __file__, "--child", measure, "--n", str(n)] + (["--waiters"] if waiters else [])


def _in_children(n: int, jobs: list[tuple[str, bool]]) -> list[dict[str, Any]]:
    """Run the children side by side (memory does not mind sharing the CPU); their results."""
    children = [
        subprocess.Popen(
            _command(n, measure, waiters), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
        )
        for measure, waiters in jobs
    ]
    results = []
    for child in children:
        out, err = child.communicate(timeout=240)
        if child.returncode != 0:
            raise RuntimeError(f"pending_memory child failed:\n{err[-3000:]}")
        results.append(dict(json.loads(out.strip().splitlines()[-1])))
    return results


def run(n: int = 10_000) -> dict[str, float]:
    """Bytes per pending URL elicitation (RSS and tracemalloc), with and without a parked waiter."""
    jobs = [(measure, waiters) for waiters in (False, True) for measure in ("rss", "tracemalloc")]
    found = dict(zip(jobs, _in_children(n, jobs), strict=True))
    figures: dict[str, float] = {}
    for waiters in (False, True):
        rss = found["rss", waiters]["bytes"] / n
        traced = found["tracemalloc", waiters]["bytes"] / n
        name = "pending_with_waiter" if waiters else "pending"
        figures[f"{name}_rss_bytes_each"] = rss
        figures[f"{name}_tracemalloc_bytes_each"] = traced
        figures[f"{name}_bytes_each"] = max(rss, traced)
    figures["pending_10k_bytes_each"] = figures.pop("pending_bytes_each")
    figures["pending_count"] = float(n)
    return figures


def main() -> None:
    parser = argparse.ArgumentParser(description="Server memory per pending URL elicitation.")
    parser.add_argument("--n", type=int, default=10_000)
    parser.add_argument("--child", choices=["rss", "tracemalloc"])
    parser.add_argument("--waiters", action="store_true")
    parser.add_argument("--top", action="store_true", help="print where tracemalloc saw the bytes go")
    args = parser.parse_args()
    if args.child:
        with tempfile.TemporaryDirectory(prefix="elicitkit-bench-") as tmp:
            print(json.dumps(asyncio.run(_child(args.n, args.child, args.waiters, Path(tmp)))))
        return
    if args.top:
        for waiters in (False, True):
            (found,) = _in_children(args.n, [("tracemalloc", waiters)])
            print(f"waiters={waiters}: {found['bytes'] / args.n:.0f} bytes each")
            for where, size in found["top"]:
                print(f"  {size / args.n:8.0f}  {where}")
        return
    for name, value in run(args.n).items():
        print(f"{name:40} {value:10.0f}")


if __name__ == "__main__":
    main()
