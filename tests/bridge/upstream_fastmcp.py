"""A stock FastMCP server (nobody here wrote FastMCP) for the bridge tests and the benchmark.

    python upstream_fastmcp.py stdio
    python upstream_fastmcp.py http PORT

Its tools ask with FastMCP's own `ctx.elicit`, report progress and log; it has a resource,
a resource template, a prompt and paginated nothing special: what a host expects to pass through.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass

import anyio
from fastmcp import Context, FastMCP

mcp = FastMCP("Stock FastMCP", instructions="A stock FastMCP server behind the bridge.")


@dataclass
class Trip:
    city: str
    nights: int


@mcp.tool
async def book(ctx: Context) -> str:
    """Ask where to go and for how long."""
    result = await ctx.elicit("Where to, and for how many nights?", response_type=Trip)
    if result.action == "accept":
        return f"booked {result.data.nights} nights in {result.data.city}"
    return f"not booked: {result.action}"


@mcp.tool
def add(a: int, b: int) -> int:
    """Add two numbers (no question: the plain pass-through)."""
    return a + b


@mcp.tool
async def count(ctx: Context, steps: int = 3) -> str:
    """Report progress and log each step."""
    for step in range(1, steps + 1):
        await ctx.report_progress(step, steps, f"step {step}")
        await ctx.info(f"counted {step}")
    return f"counted to {steps}"


@mcp.tool
async def sleepy(seconds: float = 30.0) -> str:
    """Sleep, for the cancellation test."""
    await anyio.sleep(seconds)
    return "woke"


@mcp.tool
def broken() -> str:
    """Fail, for the error pass-through."""
    raise ValueError("broken on purpose")


@mcp.resource("memo://hello")
def hello() -> str:
    return "hello from upstream"


@mcp.resource("memo://notes/{name}")
def note(name: str) -> str:
    return f"note {name}"


@mcp.prompt
def haiku(topic: str) -> str:
    """Write a haiku."""
    return f"Write a haiku about {topic}."


if __name__ == "__main__":
    if sys.argv[1] == "stdio":
        mcp.run(transport="stdio", show_banner=False)
    else:
        mcp.run(
            transport="http", host="127.0.0.1", port=int(sys.argv[2]), show_banner=False, log_level="warning"
        )
