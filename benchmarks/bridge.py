"""What `elicitkit bridge` adds to one tool call, on every path a person's host takes.

    .venv/bin/python benchmarks/bridge.py [--rounds 16] [--calls 30]
    .venv/bin/python benchmarks/bridge.py --profile bridge.prof [--calls 400]   # where the bridge spends

Two stock FastMCP servers, each its own process on 127.0.0.1: one on plain uvicorn (h11 and
the asyncio loop, what `pip install fastmcp` gives: neither httptools nor uvloop) and one on
FastMCP's own runner (`mcp.run(transport="http")`, which picks httptools and uvloop where they
are installed). In front of each, the bridge on both host paths: over stdio (the host is the
SDK's `mcp.Client` spawning the `elicitkit bridge URL` command, as a desktop host does) and
over Streamable HTTP (`elicitkit bridge --listen`, its own process). Beside them, the same
`mcp.Client` calls each server directly: the baseline.

Every client calls the same `add` tool one call at a time (the latency a person feels), in
rounds: each round runs `calls` calls on every client, direct and bridged alternating, the
order turned every round, so drift and noisy neighbours hit every path alike. Figures, for each
path (`stdio_h11`, `http_h11`, `stdio_runner`, `http_runner`):

- `bridge_added_ms_<path>`: the p50 latency a call gains through the bridge, its p50 over
  the direct p50 of the same server in the same rounds (target <= 10 ms);
  `_round_q1`/`_round_q3`: the quartiles of the same difference taken round by round;
- `bridge_p50_ms_<path>`, and `direct_p50_ms_<server>` beside them;
- `bridge_cpu_ms_per_call_<path>`: the bridge process's CPU time per call (Linux), which a
  loaded machine moves far less than latency.
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
from contextlib import AsyncExitStack, ExitStack, contextmanager
from pathlib import Path

import anyio
import httpx
from mcp import Client
from mcp.client.stdio import StdioServerParameters

HERE = Path(__file__).resolve().parent
SERVERS = ("h11", "runner")
HOSTS = ("stdio", "http")


def serve_upstream(port: int, kind: str) -> None:
    """The stock FastMCP server (run in its own process): on plain uvicorn, or FastMCP's runner."""
    from fastmcp import FastMCP

    mcp = FastMCP("bench-upstream")

    @mcp.tool
    def add(a: int, b: int) -> int:
        return a + b

    if kind == "h11":
        import uvicorn

        app = mcp.http_app()
        uvicorn.run(app, host="127.0.0.1", port=port, http="h11", loop="asyncio", log_level="warning")
    else:
        mcp.run(transport="http", host="127.0.0.1", port=port, show_banner=False, log_level="warning")


def bridge_command() -> list[str]:
    """`elicitkit bridge` as a host's configuration names it: the console script, where installed."""
    script = Path(sys.executable).with_name("elicitkit")
    return [str(script), "bridge"] if script.exists() else [sys.executable, "-m", "elicitkit", "bridge"]


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


def children() -> set[int]:
    """This process's child processes (Linux `/proc`; empty elsewhere)."""
    found: set[int] = set()
    for task in Path("/proc/self/task").glob("*"):
        try:
            found.update(int(pid) for pid in (task / "children").read_text().split())
        except OSError:
            continue
    return found


def load_average() -> float:
    try:
        return float(Path("/proc/loadavg").read_text().split()[0])
    except OSError:
        return 0.0


@contextmanager
def process(argv: list[str], url: str, log: Path) -> Iterator[int]:
    """Run `argv`; yield its PID once `url` answers."""
    with log.open("ab") as sink:
        child = subprocess.Popen(argv, stdout=sink, stderr=subprocess.STDOUT, env=dict(os.environ))
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
        yield child.pid
    finally:
        child.terminate()
        try:
            child.wait(10)
        except subprocess.TimeoutExpired:
            child.kill()
            child.wait(10)


async def one_round(client: Client, calls: int, latencies: list[float]) -> None:
    """`calls` calls, one at a time, each one's seconds added to `latencies`."""
    for i in range(calls):
        start = time.perf_counter()
        result = await client.call_tool("add", {"a": i, "b": 1})
        latencies.append(time.perf_counter() - start)
        assert result.structured_content == {"result": i + 1}, result


def quartiles(values: list[float]) -> list[float]:
    return statistics.quantiles(values, n=4) if len(values) > 1 else [values[0]] * 3


async def measure(
    servers: dict[str, str], bridges: dict[str, tuple[str, int]], rounds: int, calls: int, warmup: int
) -> dict[str, float]:
    """`servers`: each server's URL; `bridges`: each server's `--listen` bridge (URL, PID)."""
    names = [f"direct_{s}" for s in SERVERS] + [f"{h}_{s}" for s in SERVERS for h in HOSTS]
    latencies: dict[str, list[list[float]]] = {name: [] for name in names}
    cpu: dict[str, float] = dict.fromkeys(names, 0.0)
    pids: dict[str, int] = {}
    async with AsyncExitStack() as stack:
        clients: dict[str, Client] = {}
        for server in SERVERS:
            url = servers[server]
            clients[f"direct_{server}"] = await stack.enter_async_context(Client(url, mode="legacy"))
            before = children()
            stdio = StdioServerParameters(
                command=bridge_command()[0], args=[*bridge_command()[1:], url], env=dict(os.environ)
            )
            clients[f"stdio_{server}"] = await stack.enter_async_context(Client(stdio, mode="legacy"))
            spawned = children() - before
            pids[f"stdio_{server}"] = spawned.pop() if len(spawned) == 1 else 0
            bridged, pids[f"http_{server}"] = bridges[server]
            clients[f"http_{server}"] = await stack.enter_async_context(Client(bridged, mode="legacy"))
        for client in clients.values():
            await one_round(client, warmup, [])
        for n in range(rounds):
            order = names[n % len(names) :] + names[: n % len(names)]
            if n % 2:
                order.reverse()
            for name in order:
                spent = cpu_seconds(pids[name]) if name in pids else 0.0
                latencies[name].append([])
                await one_round(clients[name], calls, latencies[name][-1])
                if name in pids:
                    cpu[name] += cpu_seconds(pids[name]) - spent
    figures: dict[str, float] = {}
    for server in SERVERS:
        direct = latencies[f"direct_{server}"]
        direct_p50 = statistics.median(x for r in direct for x in r) * 1000
        figures[f"direct_p50_ms_{server}"] = direct_p50
        for host in HOSTS:
            path = f"{host}_{server}"
            bridged = latencies[path]
            p50 = statistics.median(x for r in bridged for x in r) * 1000
            by_round = [
                (statistics.median(b) - statistics.median(d)) * 1000
                for b, d in zip(bridged, direct, strict=True)
            ]
            q1, _, q3 = quartiles(by_round)
            figures[f"bridge_added_ms_{path}"] = p50 - direct_p50
            figures[f"bridge_added_ms_{path}_round_q1"] = q1
            figures[f"bridge_added_ms_{path}_round_q3"] = q3
            figures[f"bridge_p50_ms_{path}"] = p50
            if pids.get(path):
                figures[f"bridge_cpu_ms_per_call_{path}"] = cpu[path] * 1000 / (rounds * calls)
    return figures


def run(rounds: int = 16, calls: int = 30, warmup: int = 10) -> dict[str, float]:
    with tempfile.TemporaryDirectory() as folder, ExitStack() as stack:
        log = Path(folder) / "bench.log"
        servers: dict[str, str] = {}
        bridges: dict[str, tuple[str, int]] = {}
        for server in SERVERS:
            port = free_port()
            argv = [sys.executable, str(Path(__file__).resolve()), "--serve", str(port), "--server", server]
            servers[server] = url = f"http://127.0.0.1:{port}/mcp"
            stack.enter_context(process(argv, url, log))
            port = free_port()
            bridged = f"http://127.0.0.1:{port}/mcp"
            # No credential (the host is a bare URL); the guard's Host and Origin checks still run.
            listen = ["--listen", f"127.0.0.1:{port}", "--no-credential"]
            pid = stack.enter_context(process([*bridge_command(), *listen, url], bridged, log))
            bridges[server] = (bridged, pid)
        load = load_average()
        figures = anyio.run(measure, servers, bridges, rounds, calls, warmup)
        return {**figures, "loadavg_1m_before": load, "loadavg_1m_after": load_average()}


def profile(out: str, calls: int = 400) -> dict[str, float]:
    """The bridge in this process under cProfile (CPU time), serving an HTTP host in another
    process in front of the plain-uvicorn server: its CPU per call, and its profile in `out`
    (read it with `pstats`)."""
    import cProfile

    from elicitkit.bridge import Bridge

    up, br = free_port(), free_port()
    host = (
        "import anyio, sys; from mcp import Client; sys.path.insert(0, sys.argv[1])\n"
        "from bridge import one_round\n"
        "async def go():\n"
        "    async with Client(sys.argv[2], mode='legacy') as c:\n"
        "        await one_round(c, 20, [])\n"
        "        print('ready', flush=True)\n"
        f"        await one_round(c, {calls}, [])\n"
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
        argv = [sys.executable, str(Path(__file__).resolve()), "--serve", str(up), "--server", "h11"]
        url = f"http://127.0.0.1:{up}/mcp"
        with process(argv, url, Path(folder) / "upstream.log"):
            spent = anyio.run(serve_and_measure, url)
    profiler.dump_stats(out)
    return {"bridge_cpu_ms_per_call_profiled": spent * 1000 / calls}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=16)
    parser.add_argument("--calls", type=int, default=30, help="calls per client per round")
    parser.add_argument("--serve", type=int, help=argparse.SUPPRESS)
    parser.add_argument("--server", choices=SERVERS, default="h11", help=argparse.SUPPRESS)
    parser.add_argument("--profile", metavar="FILE", help="profile the bridge per call into FILE instead")
    args = parser.parse_args()
    if args.serve:
        serve_upstream(args.serve, args.server)
        return
    if args.profile:
        print(json.dumps(profile(args.profile, max(args.calls, 400)), indent=2))
        return
    print(json.dumps(run(args.rounds, args.calls), indent=2))


if __name__ == "__main__":
    main()
