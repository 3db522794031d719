"""A stock FastMCP server that polls (SSE polling, SEP-1699): it closes a call's event stream
before answering, and the client resumes it with a GET carrying `Last-Event-ID`.

    python upstream_polling.py PORT

FastMCP's own event store keeps what the server says while no stream is open, and the
`retry` it announces tells the client when to come back. `resumes` counts the GETs that came
back with a `Last-Event-ID`, so a test sees how often a client resumed (`refuse_resumes` makes
them fail with 503); a call of `vanish` gets a stream that ends with nothing to resume from.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass
from typing import Any

import anyio
import uvicorn
from fastmcp import Context, FastMCP
from fastmcp.server.event_store import EventStore

RETRY_MS = 200
"""What the server announces in its priming events: come back after this many milliseconds."""
SETTLE = 0.5
"""Seconds a tool waits before closing its stream, so its priming event (the id a client resumes
from) has reached the client."""

SSE = b"text/event-stream"

mcp = FastMCP("Polling FastMCP")
resumed = [0]
refusing = [False]


@dataclass
class Name:
    name: str


@mcp.tool
async def poll(ctx: Context, label: str, ask: bool = True) -> str:
    """Close the call's stream, ask a question (or not) while it is closed, close it again after
    the answer, then answer the call while the client is away."""
    await anyio.sleep(SETTLE)
    await ctx.close_sse_stream()
    said = "nothing asked"
    if ask:
        result = await ctx.elicit("Your name?", response_type=Name)
        said = f"{result.action} {result.data.name}" if result.action == "accept" else result.action
    await ctx.info(f"{label} is nearly done")
    await anyio.sleep(SETTLE)
    await ctx.close_sse_stream()
    return f"{label}: {said}"


@mcp.tool
async def keep_closing(ctx: Context, seconds: float = 60.0) -> str:
    """A long job that says nothing: close the call's stream whenever a client has resumed it,
    for `seconds`, then answer."""
    await anyio.sleep(SETTLE)
    with anyio.move_on_after(seconds):
        while True:
            await anyio.sleep(0.1)
            await ctx.close_sse_stream()
    return f"done after {seconds:g} s"


@mcp.tool
def refuse_resumes(on: bool) -> bool:
    """From now on, answer every GET that resumes a stream with 503 (`on`), or serve them again."""
    refusing[0] = on
    return on


@mcp.tool
def resumes() -> int:
    """How many GETs so far carried a `Last-Event-ID`."""
    return resumed[0]


def serving(app: Any) -> Any:
    """`app`, counting the GETs that resume a stream; a call of the tool `vanish` (no such tool)
    gets an event stream that ends with no event id, so nothing to resume from."""

    async def served(scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            return await app(scope, receive, send)
        if scope["method"] == "GET" and any(name == b"last-event-id" for name, _ in scope["headers"]):
            resumed[0] += 1
            if refusing[0]:
                await send({"type": "http.response.start", "status": 503, "headers": []})
                await send({"type": "http.response.body", "body": b""})
                return None
        body, more = b"", scope["method"] == "POST"
        while more:
            message = await receive()
            body, more = body + message.get("body", b""), message.get("more_body", False)
        if b'"vanish"' in body:
            await send({"type": "http.response.start", "status": 200, "headers": [(b"content-type", SSE)]})
            await send({"type": "http.response.body", "body": b": gone\n\n"})
            return None
        read = [{"type": "http.request", "body": body, "more_body": False}] if body else []

        async def again() -> Any:
            return read.pop() if read else await receive()

        return await app(scope, again, send)

    return served


if __name__ == "__main__":
    app = mcp.http_app(event_store=EventStore(), retry_interval=RETRY_MS)
    uvicorn.run(serving(app), host="127.0.0.1", port=int(sys.argv[1]), log_level="warning", lifespan="on")
