"""An elicitkit server (`Elicitation.form`), which speaks both revisions: on 2026-07-28 it asks
with input-required rounds, on 2025-11-25 live. `python upstream_elicitkit.py stdio`."""

from __future__ import annotations

from mcp.server.mcpserver import Context, MCPServer
from pydantic import BaseModel

from elicitkit.server import AcceptedElicitation, Elicitation

mcp = MCPServer("Rounds Server")
elicit = Elicitation(mcp)


class Room(BaseModel):
    guest: str
    nights: int = 1


@mcp.tool()
async def reserve(ctx: Context) -> str:  # type: ignore[type-arg]
    """Ask for the guest and nights, then say what was reserved and on which revision."""
    outcome = await elicit.form(ctx, "Who is staying, and for how long?", Room)
    era = ctx.request_context.session.protocol_version
    if isinstance(outcome, AcceptedElicitation):
        return f"{era}: reserved {outcome.data.nights} nights for {outcome.data.guest}"
    return f"{era}: {type(outcome).__name__}"


if __name__ == "__main__":
    mcp.run("stdio")
