"""A stock FastMCP server, as its documentation writes one: a tool asks with FastMCP's own
`ctx.elicit` (no elicitkit). Run as a process: `python stock_fastmcp_server.py PORT`."""

from __future__ import annotations

import sys
from dataclasses import dataclass

from fastmcp import Context, FastMCP

mcp = FastMCP("Stock Coffee")


@dataclass
class Order:
    size: str
    sugar: int


@mcp.tool
async def order(ctx: Context) -> str:
    """Order a coffee; asks how you like it."""
    result = await ctx.elicit("How do you like your coffee?", response_type=Order)
    if result.action == "accept":
        return f"One {result.data.size} coffee, {result.data.sugar} sugar."
    return f"No coffee: {result.action}."


@mcp.tool
async def out_of_milk() -> str:
    """Fails as a tool may, for a reason that has nothing to do with asking."""
    raise ValueError("Out of milk since 2026-07-28; try again tomorrow.")


if __name__ == "__main__":
    mcp.run(transport="http", host="127.0.0.1", port=int(sys.argv[1]), show_banner=False)
