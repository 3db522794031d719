"""How long the completion notice takes: from a URL flow finishing to the MCP client holding
`notifications/elicitation/complete`.

One flow: an `mcp.Client` (streamable HTTP, 2025-11-25) calls a tool that asks a live URL-mode
elicitation; the client's elicitation callback consents; then the flow is finished on a server
the way the page's submit does it (claim the record as completed in the store, then
`Site.announce`; a Redis store publishes the id in the claim's own script, so there the
announce adds nothing), and the client's message handler notes when the notice arrives. The
server answers the request to finish at once and finishes `AFTER` seconds later, when the
client is idle (as it is while a person is in the browser). The clock is `time.monotonic()`
(CLOCK_MONOTONIC, one clock for every process on the machine): the start is read in the server
just before the store claim, the end in the client.

Supporting figures split each flow: `claim` (the store transition, as the finishing server
sees it), `reach` (from the start until the session's server calls the listener: the claim,
the announcement and the hop between servers) and `send` (listener until the client holds the
notice); and they measure the SDK floor (`sdk_notice`: a tool sending the same notice straight
through `session.send_elicit_complete`, no store, no bus) on the session's server.

- local: one server process, SQLite store and the in-process bus; the client's session and
  the finish on the same server.
- replicas: two server processes sharing one redis-server (Redis store, Redis pub/sub bus);
  the client's session on A, the finish on B. Interleaved with the flows, the bare round trip
  this path rests on: redis-py `PUBLISH` on one connection, received by a `SUBSCRIBE` on
  another (three per flow), so both see the same noise.

Flows run one at a time after a warm-up; figures are nearest-rank p99 (and medians) in ms.
Target (issue 8): completion_p99_ms_replicas <= 3 x redis_pubsub_p99_ms + 5.

Run: `.venv/bin/python benchmarks/completion.py [--flows 300]`. `run()` returns the figures.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import tempfile
import time
import uuid
from contextlib import ExitStack
from pathlib import Path
from typing import Any

import httpx

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

from _harness import bench_server, p99, server_env
from support.redis_server import RedisServer

AFTER = 0.01
"""Seconds between asking a server to finish and its finishing: the client is idle by then."""


class _Notices:
    """What the client saw: the elicitation ids asked, and when each notice arrived."""

    def __init__(self) -> None:
        self.asked: asyncio.Queue[str] = asyncio.Queue()
        self.arrived: dict[str, float] = {}

    async def on_elicit(self, context: Any, params: Any) -> Any:
        from mcp_types import ElicitResult

        self.asked.put_nowait(params.elicitation_id)
        return ElicitResult(action="accept")

    async def on_message(self, message: Any) -> None:
        from mcp_types import ElicitCompleteNotification

        if isinstance(message, ElicitCompleteNotification):
            self.arrived[message.params.elicitation_id] = time.monotonic()


async def _pubsub_round_trip(publisher: Any, pubsub: Any, channel: str) -> float:
    payload = f"{time.monotonic_ns()}".encode()
    started = time.monotonic()
    await publisher.publish(channel, payload)
    while True:
        message = await pubsub.get_message(timeout=5.0)
        if message is None:
            raise RuntimeError("a bare pub/sub message did not arrive within 5 s")
        if message["type"] == "message" and message["data"] == payload:
            return time.monotonic() - started


async def _flows(
    session_url: str, finish_url: str, flows: int, warmup: int, redis_url: str | None
) -> dict[str, list[float]]:
    from mcp import Client

    notices = _Notices()
    samples: dict[str, list[float]] = {
        "from_finish": [],
        "claim": [],
        "reach": [],
        "send": [],
        "sdk": [],
        "pubsub": [],
    }
    publisher = pubsub = None
    if redis_url is not None:
        from redis.asyncio import Redis

        publisher, listener = Redis.from_url(redis_url), Redis.from_url(redis_url)
        pubsub = listener.pubsub()
        await pubsub.subscribe("bench:pubsub")
        await pubsub.get_message(timeout=5.0)  # the subscribe confirmation
    async with (
        httpx.AsyncClient(timeout=30) as http,
        Client(
            f"{session_url}/mcp",
            mode="legacy",
            elicitation_callback=notices.on_elicit,
            message_handler=notices.on_message,
        ) as client,
    ):
        for i in range(warmup + flows):
            call = asyncio.create_task(client.call_tool("wait_for_finish", {}))
            elicitation_id = await asyncio.wait_for(notices.asked.get(), 30)
            # The server answers at once and finishes AFTER s later, when this client is idle.
            finishing = await http.post(
                f"{finish_url}/bench/finish/{elicitation_id}", params={"after": AFTER}
            )
            finishing.raise_for_status()
            result = await asyncio.wait_for(call, 30)
            assert not result.is_error, result
            arrived = notices.arrived.pop(elicitation_id)
            times = (await http.get(f"{finish_url}/bench/times/{elicitation_id}")).json()
            delivered = (await http.get(f"{session_url}/bench/delivered/{elicitation_id}")).json()
            if i >= warmup:
                samples["from_finish"].append(arrived - times["started"])
                samples["claim"].append(times["claimed"] - times["started"])
                samples["reach"].append(delivered["delivered"] - times["started"])
                samples["send"].append(arrived - delivered["delivered"])
            token = uuid.uuid4().hex  # the SDK floor, on the session's own server
            call = asyncio.create_task(client.call_tool("sdk_wait", {"token": token}))
            notifying = await http.post(f"{session_url}/bench/sdk_notify/{token}", params={"after": AFTER})
            notifying.raise_for_status()
            result = await asyncio.wait_for(call, 30)
            assert not result.is_error, result
            arrived = notices.arrived.pop(token)
            started = (await http.get(f"{session_url}/bench/times/{token}")).json()["started"]
            if i >= warmup:
                samples["sdk"].append(arrived - started)
            if pubsub is not None:
                for _ in range(3):
                    rtt = await _pubsub_round_trip(publisher, pubsub, "bench:pubsub")
                    if i >= warmup:
                        samples["pubsub"].append(rtt)
    if pubsub is not None and publisher is not None:
        await pubsub.aclose()  # type: ignore[no-untyped-call]
        await listener.aclose()
        await publisher.aclose()
    return samples


def _ms(values: list[float]) -> tuple[float, float]:
    return p99(values) * 1000, statistics.median(values) * 1000


def run(flows: int = 300, warmup: int = 20) -> dict[str, float]:
    """p99 and median ms from a flow finishing to the notice, local and across two replicas,
    and the bare Redis pub/sub round trip measured alongside the replicas."""
    env = server_env()
    with tempfile.TemporaryDirectory(prefix="elicitkit-bench-") as tmp, ExitStack() as stack:
        folder = Path(tmp)
        local = stack.enter_context(
            bench_server(f"sqlite:///{folder / 'local.sqlite3'}", env, folder / "local.log")
        )
        here = asyncio.run(_flows(local, local, flows, warmup, None))
        stack.close()
        redis = stack.enter_context(RedisServer(folder / "redis"))
        a = stack.enter_context(bench_server(redis.url, env, folder / "replica-a.log"))
        b = stack.enter_context(bench_server(redis.url, env, folder / "replica-b.log"))
        across = asyncio.run(_flows(a, b, flows, warmup, redis.url))
    figures: dict[str, float] = {}
    figures["completion_p99_ms_local"], figures["completion_median_ms_local"] = _ms(here["from_finish"])
    figures["sdk_notice_p99_ms_local"], figures["sdk_notice_median_ms_local"] = _ms(here["sdk"])
    figures["sdk_notice_p99_ms_replicas"], figures["sdk_notice_median_ms_replicas"] = _ms(across["sdk"])
    figures["completion_p99_ms_replicas"], figures["completion_median_ms_replicas"] = _ms(
        across["from_finish"]
    )
    figures["redis_pubsub_p99_ms"], figures["redis_pubsub_median_ms"] = _ms(across["pubsub"])
    for where, found in (("local", here), ("replicas", across)):
        for part in ("claim", "reach", "send"):
            figures[f"completion_{part}_p99_ms_{where}"], figures[f"completion_{part}_median_ms_{where}"] = (
                _ms(found[part])
            )
    figures["completion_flows"] = float(len(across["from_finish"]))
    return figures


def main() -> None:
    parser = argparse.ArgumentParser(description="Completion notice latency, local and across replicas.")
    parser.add_argument("--flows", type=int, default=300)
    args = parser.parse_args()
    figures = run(flows=args.flows)
    for name, value in figures.items():
        print(f"{name:42} {value:10.3f}")
    target = 3 * figures["redis_pubsub_p99_ms"] + 5
    print(f"target: completion_p99_ms_replicas <= {target:.3f}")


if __name__ == "__main__":
    main()
