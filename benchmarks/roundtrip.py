"""What elicitkit costs on one form elicitation round trip, against the bare SDK.

    .venv/bin/python benchmarks/roundtrip.py [--rounds 300] [--budget 30]

One MCPServer on a free 127.0.0.1 port (streamable HTTP, uvicorn), two tools asking the same
question of the same trivial client callback: one through `Elicitation.form`, one through the
SDK's `ctx.elicit`. Each tool times its own question, from sending `elicitation/create` to
holding the checked answer, so HTTP set-up and the tool call around it are left out. The two
alternate within one run (so drift and noisy neighbours hit both alike), on 2025-11-25 where
both ask live. `run()` returns the medians and their ratio; the target is a ratio <= 1.10.
"""

from __future__ import annotations

import argparse
import logging
import socket
import statistics
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import anyio
import uvicorn
from mcp import Client
from mcp.server.mcpserver import Context, MCPServer
from mcp_types import ElicitResult, TextContent
from pydantic import BaseModel

from elicitkit.server import AcceptedElicitation, Elicitation


class Booking(BaseModel):
    name: str
    nights: int = 1
    breakfast: bool = True


ANSWER = ElicitResult(action="accept", content={"name": "Ada", "nights": 2, "breakfast": False})


def make_server() -> MCPServer:
    server = MCPServer("roundtrip-bench", log_level="WARNING")
    elicit = Elicitation(server)

    @server.tool()
    async def via_elicitkit(ctx: Context) -> str:
        start = time.perf_counter()
        outcome = await elicit.form(ctx, "Book a room?", Booking)
        elapsed = time.perf_counter() - start
        assert isinstance(outcome, AcceptedElicitation) and outcome.data.nights == 2
        return repr(elapsed)

    @server.tool()
    async def via_sdk(ctx: Context) -> str:
        start = time.perf_counter()
        outcome = await ctx.elicit("Book a room?", Booking)
        elapsed = time.perf_counter() - start
        assert outcome.action == "accept" and outcome.data.nights == 2
        return repr(elapsed)

    return server


@contextmanager
def serve(app: Any) -> Iterator[str]:
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    server = uvicorn.Server(uvicorn.Config(app, log_level="error", lifespan="on"))
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    deadline = time.monotonic() + 10
    while not server.started:
        if not thread.is_alive() or time.monotonic() > deadline:
            raise RuntimeError("benchmark server did not start")
        time.sleep(0.01)
    try:
        yield f"http://127.0.0.1:{port}/mcp"
    finally:
        server.should_exit = True
        thread.join(10)
        sock.close()


async def _answer(context: Any, params: Any) -> ElicitResult:
    return ANSWER


async def _measure(url: str, rounds: int, warmup: int, budget: float) -> dict[str, list[float]]:
    times: dict[str, list[float]] = {"via_elicitkit": [], "via_sdk": []}
    deadline = time.monotonic() + budget
    async with Client(url, mode="legacy", elicitation_callback=_answer) as client:
        for i in range(warmup + rounds):
            order = ("via_elicitkit", "via_sdk") if i % 2 == 0 else ("via_sdk", "via_elicitkit")
            for tool in order:
                result = await client.call_tool(tool, {})
                block = result.content[0]
                assert not result.is_error and isinstance(block, TextContent), block
                if i >= warmup:
                    times[tool].append(float(block.text))
            if i >= warmup and time.monotonic() > deadline:
                break
    return times


def run(rounds: int = 300, warmup: int = 30, budget: float = 30.0) -> dict[str, float]:
    """Median seconds per form round trip through elicitkit and the bare SDK, and their ratio."""
    with serve(make_server().streamable_http_app()) as url:
        times = anyio.run(_measure, url, rounds, warmup, budget)
    ours = statistics.median(times["via_elicitkit"])
    sdk = statistics.median(times["via_sdk"])
    return {
        "form_roundtrip_ratio": ours / sdk,
        "form_roundtrip_elicitkit_ms": ours * 1000,
        "form_roundtrip_sdk_ms": sdk * 1000,
        "form_roundtrip_samples": float(len(times["via_sdk"])),
    }


def main() -> None:
    logging.basicConfig(level=logging.WARNING)
    logging.getLogger("httpx2").setLevel(logging.WARNING)
    parser = argparse.ArgumentParser(description="Form round trip: elicitkit against the bare SDK.")
    parser.add_argument("--rounds", type=int, default=300, help="measured round trips per side")
    parser.add_argument("--budget", type=float, default=30.0, help="stop measuring after this many seconds")
    args = parser.parse_args()
    result = run(rounds=args.rounds, budget=args.budget)
    print(f"samples per side:        {result['form_roundtrip_samples']:.0f}")
    print(f"elicitkit median:        {result['form_roundtrip_elicitkit_ms']:.3f} ms")
    print(f"bare SDK median:         {result['form_roundtrip_sdk_ms']:.3f} ms")
    print(f"ratio elicitkit/SDK:     {result['form_roundtrip_ratio']:.3f}  (target <= 1.10)")


if __name__ == "__main__":
    main()
