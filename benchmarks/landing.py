"""Landing page requests per second, over a bare Starlette endpoint on the same server.

One benchmark server process (`_harness.py`: `MCPServer` with `UrlMode` mounted on its own
app, the default SQLite store, the real `Secret` flow) serves both:

- landing: `GET /elicit/<id>` of a pending record by the browser of the right user, that is
  with a valid sealed session cookie naming the record's user. The page looks the record up,
  opens the cookie, checks the person, moves the record pending -> opened and renders the
  flow's form. Each request is the first visit of its own pending record (no repeats), which
  is the costlier case: the pending -> opened write happens every time.
- bare: `GET /bench/bare`, a Starlette endpoint returning a small fixed HTML page, mounted on
  the same app.

The same `httpx.AsyncClient` (a keep-alive pool of `concurrency` connections, that many
requests in flight) runs rounds of `per_round` requests of each kind, alternating which goes
first; `landing_rps_ratio` is the median of the rounds' ratios (landing over bare). The
request count is bounded: rounds x per_round of each kind. Target: >= 0.5 (issue 8), >= 0.8 (issue 21).
Rounds are short (24 of 100 requests, about a tenth of a second each): this machine's speed
drifts by a factor of two within seconds (a shared host), and the shorter a round, the closer
in time the two sides of each ratio are measured. Six rounds of 400 gave medians from 0.75 to
0.97 in one hour; 24 of 100, 0.80 to 0.81 (docs/performance-history.md, "Issue 21, fifth pass").

`concurrency` is 1 by default, so the figure stays comparable with the earlier ones (the
SQLite error several requests in flight once caused is fixed; docs/performance-history.md).

Run: `.venv/bin/python benchmarks/landing.py`. `run()` returns the figures.
"""

from __future__ import annotations

import asyncio
import statistics
import sys
import tempfile
import time
from pathlib import Path

import httpx

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _harness import bench_server, server_env


async def _rate(http: httpx.AsyncClient, paths: list[str], concurrency: int, expect: str) -> float:
    queue = iter(paths)

    async def worker() -> None:
        for path in queue:
            response = await http.get(path)
            if response.status_code != 200 or expect not in response.text:
                raise RuntimeError(f"GET {path} answered {response.status_code}: {response.text[:300]}")

    started = time.perf_counter()
    await asyncio.gather(*(worker() for _ in range(concurrency)))
    return len(paths) / (time.perf_counter() - started)


async def _measure(url: str, rounds: int, per_round: int, concurrency: int) -> dict[str, float]:
    limits = httpx.Limits(max_connections=concurrency, max_keepalive_connections=concurrency)
    async with httpx.AsyncClient(base_url=url, limits=limits, timeout=30) as http:
        warmup = 50
        made = await http.post("/bench/pending", params={"n": warmup + rounds * per_round}, timeout=120)
        ids: list[str] = made.json()
        cookie = (await http.get("/bench/cookie")).json()
        http.headers["Cookie"] = f"{cookie['name']}={cookie['value']}"
        bare = ["/bench/bare"] * per_round
        await _rate(http, bare[:warmup], concurrency, "Bare page")
        await _rate(http, [f"/elicit/{i}" for i in ids[:warmup]], concurrency, "Benchmark API key")
        ids = ids[warmup:]
        landing_rates, bare_rates, ratios = [], [], []
        for i in range(rounds):
            landing = [f"/elicit/{eid}" for eid in ids[i * per_round : (i + 1) * per_round]]
            if i % 2 == 0:
                ours = await _rate(http, landing, concurrency, "Benchmark API key")
                base = await _rate(http, bare, concurrency, "Bare page")
            else:
                base = await _rate(http, bare, concurrency, "Bare page")
                ours = await _rate(http, landing, concurrency, "Benchmark API key")
            landing_rates.append(ours)
            bare_rates.append(base)
            ratios.append(ours / base)
    return {
        "landing_rps_ratio": statistics.median(ratios),
        "landing_rps": statistics.median(landing_rates),
        "landing_bare_rps": statistics.median(bare_rates),
        "landing_requests": float(rounds * per_round),
    }


def run(rounds: int = 24, per_round: int = 100, concurrency: int = 1) -> dict[str, float]:
    """Landing requests per second over the bare endpoint's (median of alternating rounds)."""
    with tempfile.TemporaryDirectory(prefix="elicitkit-bench-") as tmp:
        folder = Path(tmp)
        store = f"sqlite:///{folder / 'landing.sqlite3'}"
        with bench_server(store, server_env(), folder / "landing.log") as url:
            return asyncio.run(_measure(url, rounds, per_round, concurrency))


def main() -> None:
    for name, value in run().items():
        print(f"{name:24} {value:10.3f}")


if __name__ == "__main__":
    main()
