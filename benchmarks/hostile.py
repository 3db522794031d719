"""A hostile server floods the client for 5 s: how late does the client's event loop get?

The server (a bare-SDK `MCPServer` in a process of its own, over streamable HTTP on 127.0.0.1)
sends, as fast as the client answers, a mix of: forms whose `pattern` makes a backtracking
engine run for minutes (with a default that triggers it), schemas far over the size limits,
schemas with keywords outside the subset, and plain questions; meanwhile the client calls a
tool that answers every retry with a fresh -32042. A heartbeat task in the client ticks every
10 ms; `hostile_loop_lag_ms` is the worst lateness it saw. `hostile_prompts_shown` counts what
reached the (scripted) person through the gate; the default `RateLimit` allows
`burst + per_second * 5` = 7 in 5 s.

Run: `.venv/bin/python benchmarks/hostile.py` (about 10 s). `run()` returns the figures.
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import json
import socket
import subprocess
import sys
import time
from typing import Any

import anyio
import anyio.lowlevel
import httpx2
import uvicorn
from mcp.server.mcpserver import Context, MCPServer
from mcp.shared.exceptions import MCPError, UrlElicitationRequiredError
from mcp.shared.message import ServerMessageMetadata
from mcp_types import ElicitRequest, ElicitRequestFormParams, ElicitRequestURLParams, ElicitResult

from elicitkit import urls
from elicitkit.client import (
    AcceptedElicitation,
    ElicitationConfig,
    ElicitationError,
    FormQuestion,
    RateLimit,
    Reply,
    ScriptedUI,
    UrlQuestion,
)

EVIL_PATTERN = "^(a+)+$"
EVIL_TEXT = "a" * 30 + "b"


def _schemas() -> list[dict[str, Any]]:
    evil = {"type": "string", "pattern": EVIL_PATTERN, "default": EVIL_TEXT}
    wide = {f"f{i}": {"type": "string", "title": "t" * 300} for i in range(60)}
    return [
        {"type": "object", "properties": {"code": evil}},
        {"type": "object", "properties": wide},
        {"type": "object", "properties": {"pick": {"type": "string", "enum": [str(i) for i in range(600)]}}},
        {"type": "object", "properties": {"name": {"type": "string"}}, "allOf": [{"required": ["name"]}]},
        {"type": "object", "properties": {"name": {"type": "string", "default": "Ada"}}},
    ]


def _server_main(port: int) -> None:
    mcp = MCPServer("Hostile Bench")
    rounds = [0]

    @mcp.tool()
    async def flood(ctx: Context, seconds: float) -> str:
        schemas = _schemas()
        deadline = time.monotonic() + seconds
        sent = 0

        async def one(schema: dict[str, Any]) -> None:
            params = ElicitRequestFormParams(message="m" * 5000, requested_schema=schema)
            metadata = ServerMessageMetadata(related_request_id=ctx.request_id)
            with contextlib.suppress(MCPError):
                await ctx.session.send_request(ElicitRequest(params=params), ElicitResult, metadata=metadata)

        while time.monotonic() < deadline:
            await asyncio.gather(*(one(s) for s in schemas))
            sent += len(schemas)
        return json.dumps({"sent": sent})

    @mcp.tool()
    async def storm(ctx: Context) -> str:
        rounds[0] += 1
        n = rounds[0]
        raise UrlElicitationRequiredError(
            [
                ElicitRequestURLParams(
                    message=f"Round {n}", url=f"https://example.com/{n}", elicitation_id=f"s{n}"
                )
            ]
        )

    uvicorn.run(mcp.streamable_http_app(), host="127.0.0.1", port=port, log_level="warning")


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _answer(question: FormQuestion | UrlQuestion) -> Reply:
    """A person who types the pathological text into every form and accepts every URL."""
    if isinstance(question, FormQuestion):
        return AcceptedElicitation({name: EVIL_TEXT for name in question.schema.get("properties", {})})
    return AcceptedElicitation()


async def _measure(url: str, seconds: float) -> dict[str, float]:
    # Once per process, not per server: the public-suffix list `urls.examine` reads (~70 ms).
    urls.examine("https://example.com/")
    # What a latency-minded host does after start-up: a full collection would otherwise walk
    # every object imported so far (measured: one ~100 ms pause in 5 s, whatever the server).
    gc.collect()
    gc.freeze()
    ui = ScriptedUI(otherwise=_answer, waits=["retry"] * 10_000)
    config = ElicitationConfig(ui, modes=("form", "url"), wait_timeout=0.05, open_url=lambda u: True)
    lags: list[float] = []
    storms = 0
    async with config.connect(url, mode="legacy") as client:
        stop = anyio.Event()

        async def heartbeat() -> None:
            while not stop.is_set():
                before = time.monotonic()
                await anyio.sleep(0.01)
                lags.append(time.monotonic() - before - 0.01)

        async def storming() -> None:
            nonlocal storms
            while not stop.is_set():
                try:
                    await client.call_tool("storm")
                except ElicitationError:
                    storms += 1
                await anyio.lowlevel.checkpoint()

        async with anyio.create_task_group() as tg:
            tg.start_soon(heartbeat)
            tg.start_soon(storming)
            started = time.monotonic()
            result = await client.call_tool("flood", {"seconds": seconds})
            elapsed = time.monotonic() - started
            stop.set()
            tg.cancel_scope.cancel()
        gate = client.elicitations.gate
    sent = json.loads(result.content[0].text)["sent"]  # type: ignore[union-attr]
    return {
        "hostile_loop_lag_ms": max(lags) * 1000,
        "hostile_prompts_shown": float(gate.admitted),
        "hostile_prompts_allowed": float(RateLimit().most_in(elapsed)),
        "hostile_requests_sent": float(sent),
        "hostile_storm_calls_ended": float(storms),
        "hostile_seconds": elapsed,
    }


def run(seconds: float = 5.0) -> dict[str, float]:
    port = _free_port()
    server = subprocess.Popen([sys.executable, __file__, "--serve", str(port)], stderr=subprocess.DEVNULL)
    try:
        url = f"http://127.0.0.1:{port}/mcp"
        deadline = time.monotonic() + 20
        while True:
            try:
                httpx2.get(url, timeout=1)
                break
            except httpx2.TransportError:
                if time.monotonic() > deadline or server.poll() is not None:
                    raise RuntimeError("the hostile benchmark server did not start") from None
                time.sleep(0.05)
        return anyio.run(_measure, url, seconds)
    finally:
        server.terminate()
        server.wait(10)


if __name__ == "__main__":
    if sys.argv[1:2] == ["--serve"]:
        _server_main(int(sys.argv[2]))
    else:
        print(json.dumps(run(), indent=2))
