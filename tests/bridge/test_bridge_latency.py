"""What the bridge adds to a call a person waits for: a few milliseconds, never a stall.

A host calls a tool one call at a time through the real `elicitkit bridge` over stdio (the
command a desktop host spawns) in front of stock FastMCP on plain uvicorn (h11), and calls the
same server directly, in alternating rounds. The median a bridged call gains over a direct one
stays far below the 40 ms a stall (a timer, a delayed acknowledgement) adds to every call.
benchmarks/bridge.py measures every path, HTTP hosts too, with its processes' CPU; a busy
machine moves those figures more than a test should depend on.
"""

from __future__ import annotations

import statistics
import time
from collections.abc import Iterator
from typing import Any

import pytest
from bridge_harness import HERE, PY, bridge_stdio, http_process
from mcp import Client

pytestmark = pytest.mark.timeout(300)

ROUNDS = 4
CALLS = 10
BOUND_MS = 20.0
"""Half a stall: a bridge that stalls every call adds 40 ms or more."""


@pytest.fixture(scope="module")
def upstream(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    log = tmp_path_factory.mktemp("h11") / "upstream.log"
    with http_process([PY, str(HERE / "upstream_h11.py"), "PORT"], log) as url:
        yield url


async def timed(client: Client, latencies: list[float]) -> None:
    for i in range(CALLS):
        start = time.perf_counter()
        result = await client.call_tool("add", {"a": i, "b": 1})
        latencies.append(time.perf_counter() - start)
        assert result.structured_content == {"result": i + 1}


async def added_ms(direct: Any, bridged: Any) -> float:
    """The median latency of a bridged call over that of a direct one, in milliseconds."""
    latencies: dict[str, list[float]] = {"direct": [], "bridged": []}
    async with Client(direct, mode="legacy") as straight, Client(bridged, mode="legacy") as through:
        clients = {"direct": straight, "bridged": through}
        for client in clients.values():
            await client.call_tool("add", {"a": 0, "b": 0})  # sessions open, code warm
        for n in range(ROUNDS):
            for name in ("direct", "bridged") if n % 2 == 0 else ("bridged", "direct"):
                await timed(clients[name], latencies[name])
    return (statistics.median(latencies["bridged"]) - statistics.median(latencies["direct"])) * 1000


async def test_a_stdio_hosts_call_gains_milliseconds_not_a_stall(upstream: str) -> None:
    added = await added_ms(upstream, bridge_stdio([upstream]))
    assert added < BOUND_MS, f"a call through the bridge over stdio took {added:.1f} ms longer"
