"""An elicitkit server asking forms of three shapes, for the host profile tests.

    python upstream_profiles.py stdio

It speaks both revisions (on 2026-07-28 it asks in input-required rounds) and checks every
answer against its schema (S-13). Each tool asks one form and returns what came back as JSON
with the revision, so a test sees what reached the server: a name (strings only), a count (an
integer with no bounds: one a string with a pattern carries exactly) and an order (a bounded
integer, a number and a multi-select: only a host that renders them can answer it).
"""

from __future__ import annotations

import json
import sys
from typing import Any

from mcp.server.mcpserver import Context, MCPServer

from elicitkit.server import AcceptedElicitation, Elicitation

mcp = MCPServer("Profiles Upstream")
elicit = Elicitation(mcp)

NAME = {"type": "object", "properties": {"name": {"type": "string", "title": "Name"}}, "required": ["name"]}
COUNT = {
    "type": "object",
    "properties": {
        "count": {"type": "integer", "title": "Count", "default": 3},
        "note": {"type": "string", "title": "Note"},
    },
    "required": ["count"],
}
ORDER = {
    "type": "object",
    "properties": {
        "guests": {"type": "integer", "title": "Guests", "minimum": 1, "maximum": 10},
        "budget": {"type": "number", "title": "Budget", "default": 12.5},
        "toppings": {
            "type": "array",
            "title": "Toppings",
            "items": {"type": "string", "enum": ["cheese", "olives", "basil"]},
            "default": ["basil"],
        },
    },
    "required": ["guests"],
}


async def send(ctx: Context, message: str, schema: dict[str, Any]) -> str:  # type: ignore[type-arg]
    outcome = await elicit.form(ctx, message, schema)
    era = ctx.request_context.session.protocol_version
    if isinstance(outcome, AcceptedElicitation):
        return json.dumps({"revision": era, "action": "accept", "content": outcome.data})
    return json.dumps({"revision": era, "action": type(outcome).__name__})


@mcp.tool()
async def ask_name(ctx: Context) -> str:  # type: ignore[type-arg]
    return await send(ctx, "Your name?", NAME)


@mcp.tool()
async def ask_count(ctx: Context) -> str:  # type: ignore[type-arg]
    return await send(ctx, "How many?", COUNT)


@mcp.tool()
async def ask_order(ctx: Context) -> str:  # type: ignore[type-arg]
    return await send(ctx, "Your order?", ORDER)


if __name__ == "__main__":
    assert sys.argv[1] == "stdio"
    mcp.run("stdio")
