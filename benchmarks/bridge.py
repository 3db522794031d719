"""What `elicitkit bridge` costs on a plain tool call, against calling the server directly.

    .venv/bin/python benchmarks/bridge.py [--rounds 16] [--calls 100] [--concurrency 4]
    .venv/bin/python benchmarks/bridge.py --profile bridge.prof [--calls 100]   # where the bridge spends

One stock FastMCP server (its own process, streamable HTTP on 127.0.0.1) and one bridge in
front of it (`elicitkit bridge --listen`, its own process, 2025-11-25 both sides). One SDK
client per path calls the same `add` tool; rounds alternate direct and bridged (the order
flips each round), so drift and noisy neighbours hit both alike. `concurrency` calls are in
flight at once, as a host's agent has them. Figures: `bridge_call_ratio`, calls per second
through the bridge over direct (target >= 0.7), the median over round pairs (a direct round and
a bridged one back to back; `_q1`/`_q3` show their spread), `bridge_added_ms`, the added p50 latency
of one call, and `bridge_cpu_ms_per_call`, the bridge process's CPU time per call (Linux),
which a loaded machine changes far less than the first two.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import anyio
import httpx
from mcp import Client

HERE = Path(__file__).resolve().parent


def serve_upstream(port: int) -> None:
    """The stock FastMCP server (run in its own process)."""
    from fastmcp import FastMCP

    mcp = FastMCP("bench-upstream")

    @mcp.tool
    def add(a: int, b: int) -> int:
        return a + b

    mcp.run(transport="http", host="127.0.0.1", port=port, show_banner=False, log_level="warning")


def free_port() -> int:
    import socket

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def cpu_seconds(pid: int) -> float:
    """CPU time (user + system) process `pid` has spent so far (Linux `/proc`; 0 elsewhere)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


@contextmanager
def process(argv: list[str], url: str, log: Path, pids: list[int] | None = None) -> Iterator[str]:
    with log.open("ab") as sink:
        child = subprocess.Popen(argv, stdout=sink, stderr=subprocess.STDOUT, env=dict(os.environ))
    if pids is not None:
        pids.append(child.pid)
    try:
        deadline = time.monotonic() + 120
        while True:
            if child.poll() is not None:
                raise RuntimeError(f"{argv[1:4]} exited: {log.read_text()[-2000:]}")
            try:
                httpx.get(url, timeout=1)
                break
            except httpx.TransportError:
                if time.monotonic() > deadline:
                    raise RuntimeError(f"{url} did not answer in time") from None
                time.sleep(0.1)
        yield url
    finally:
        child.terminate()
        try:
            child.wait(10)
        except subprocess.TimeoutExpired:
            child.kill()
            child.wait(10)


async def one_round(client: Client, calls: int, concurrency: int, latencies: list[float]) -> float:
    """`calls` calls, `concurrency` at a time; the seconds they took."""
    todo = iter(range(calls))

    async def worker() -> None:
        for i in todo:
            start = time.perf_counter()
            result = await client.call_tool("add", {"a": i, "b": 1})
            latencies.append(time.perf_counter() - start)
            assert result.structured_content == {"result": i + 1}, result

    start = time.perf_counter()
    async with anyio.create_task_group() as tasks:
        for _ in range(concurrency):
            tasks.start_soon(worker)
    return time.perf_counter() - start


async def measure(
    direct: str, bridged: str, rounds: int, calls: int, concurrency: int, warmup: int, bridge_pid: int = 0
) -> dict[str, Any]:
    spent: dict[str, list[float]] = {"direct": [], "bridge": []}
    bridge_cpu = 0.0
    latencies: dict[str, list[float]] = {"direct": [], "bridge": []}
    async with Client(direct, mode="legacy") as d, Client(bridged, mode="legacy") as b:
        clients = {"direct": d, "bridge": b}
        for client in clients.values():
            await one_round(client, warmup, concurrency, [])
        for n in range(rounds):
            order = ["direct", "bridge"] if n % 2 == 0 else ["bridge", "direct"]
            for name in order:
                cpu = cpu_seconds(bridge_pid) if name == "bridge" else 0.0
                spent[name].append(await one_round(clients[name], calls, concurrency, latencies[name]))
                if name == "bridge":
                    bridge_cpu += cpu_seconds(bridge_pid) - cpu
    # Each round pair (one direct, one bridged, back to back) gives a ratio; the median of them
    # is what a burst of a noisy neighbour during a few rounds cannot move.
    ratios = sorted(
        t_direct / t_bridge for t_direct, t_bridge in zip(spent["direct"], spent["bridge"], strict=True)
    )
    quartiles = statistics.quantiles(ratios, n=4) if len(ratios) > 1 else [ratios[0]] * 3
    rate = {name: rounds * calls / sum(seconds) for name, seconds in spent.items()}
    p50 = {name: statistics.median(values) * 1000 for name, values in latencies.items()}
    return {
        "bridge_call_ratio": statistics.median(ratios),
        "bridge_call_ratio_q1": quartiles[0],
        "bridge_call_ratio_q3": quartiles[2],
        "bridge_added_ms": p50["bridge"] - p50["direct"],
        "bridge_calls_per_s": rate["bridge"],
        "bridge_direct_calls_per_s": rate["direct"],
        "bridge_p50_ms": p50["bridge"],
        "bridge_direct_p50_ms": p50["direct"],
        "bridge_cpu_ms_per_call": bridge_cpu * 1000 / (rounds * calls),
    }


def run(rounds: int = 16, calls: int = 100, concurrency: int = 4, warmup: int = 20) -> dict[str, float]:
    up, br = free_port(), free_port()
    with tempfile.TemporaryDirectory() as folder:
        log = Path(folder) / "bench.log"
        upstream = [sys.executable, str(Path(__file__).resolve()), "--serve", str(up)]
        # No credential (the host is a bare URL); the guard's Host and Origin checks still run.
        bridge = [
            sys.executable,
            "-m",
            "elicitkit",
            "bridge",
            "--listen",
            f"127.0.0.1:{br}",
            "--no-credential",
        ]
        pids: list[int] = []
        with (
            process(upstream, f"http://127.0.0.1:{up}/mcp", log) as direct,
            process([*bridge, direct], f"http://127.0.0.1:{br}/mcp", log, pids) as bridged,
        ):
            return anyio.run(measure, direct, bridged, rounds, calls, concurrency, warmup, pids[0])


def profile(out: str, calls: int = 400, concurrency: int = 4) -> dict[str, float]:
    """The bridge in this process under cProfile (CPU time), the host client in another process:
    the bridge's CPU per call, and its profile written to `out` (read it with `pstats`)."""
    import cProfile

    from elicitkit.bridge import Bridge

    up, br = free_port(), free_port()
    host = (
        "import anyio, sys; from mcp import Client; sys.path.insert(0, sys.argv[1])\n"
        "from bridge import one_round\n"
        "async def go():\n"
        "    async with Client(sys.argv[2], mode='legacy') as c:\n"
        f"        await one_round(c, 20, {concurrency}, [])\n"
        "        print('ready', flush=True)\n"
        f"        await one_round(c, {calls}, {concurrency}, [])\n"
        "anyio.run(go)\n"
    )
    profiler = cProfile.Profile(time.process_time)

    async def serve_and_measure(upstream: str) -> float:
        import uvicorn

        app = Bridge(upstream).asgi_app(credential=None)  # the host is a bare URL on 127.0.0.1
        server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=br, log_level="warning"))
        async with anyio.create_task_group() as tasks:
            tasks.start_soon(server.serve)
            while not server.started:  # noqa: ASYNC110 (uvicorn offers a flag, no event)
                await anyio.sleep(0.05)
            url = f"http://127.0.0.1:{br}/mcp"
            client = await anyio.open_process([sys.executable, "-c", host, str(HERE), url])
            assert client.stdout is not None
            said = b""
            while b"ready" not in said:
                said += await client.stdout.receive()
            cpu = time.process_time()
            profiler.enable()
            await client.wait()
            profiler.disable()
            spent = time.process_time() - cpu
            server.should_exit = True
        return spent

    with tempfile.TemporaryDirectory() as folder:
        argv = [sys.executable, str(Path(__file__).resolve()), "--serve", str(up)]
        with process(argv, f"http://127.0.0.1:{up}/mcp", Path(folder) / "upstream.log") as direct:
            spent = anyio.run(serve_and_measure, direct)
    profiler.dump_stats(out)
    return {"bridge_cpu_ms_per_call_profiled": spent * 1000 / calls}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=16)
    parser.add_argument("--calls", type=int, default=100)
    parser.add_argument("--concurrency", type=int, default=4)
    parser.add_argument("--serve", type=int, help=argparse.SUPPRESS)
    parser.add_argument("--profile", metavar="FILE", help="profile the bridge per call into FILE instead")
    args = parser.parse_args()
    if args.serve:
        serve_upstream(args.serve)
        return
    if args.profile:
        print(json.dumps(profile(args.profile, args.calls * 4, args.concurrency), indent=2))
        return
    figures = run(args.rounds, args.calls, args.concurrency)
    print(json.dumps(figures, indent=2))


if __name__ == "__main__":
    main()
