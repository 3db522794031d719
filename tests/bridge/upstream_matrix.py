"""An elicitkit server with a form tool and a URL-mode tool, over HTTP on 127.0.0.1, speaking
whichever revision its client asks for (`python upstream_matrix.py PORT`).

`reserve` asks a form (`Elicitation.form`); `connect` asks for a `Secret` in URL mode, completed
on this server's own page, then forgets it, so every call asks again. Each says its revision and
what it got, or that it did not ask because the client did not declare the mode.
"""

from __future__ import annotations

import hashlib
import sys

import uvicorn
from mcp.server.mcpserver import Context, MCPServer
from pydantic import BaseModel

from elicitkit.server import (
    AcceptedElicitation,
    Elicitation,
    McpUsers,
    MemoryStore,
    ModeNotDeclaredError,
    UrlElicitationNotCompletedError,
)
from elicitkit.server._url_mode import UrlMode

PORT = int(sys.argv[1])
mcp = MCPServer("Every combination")
url_mode = UrlMode(
    public_url=f"http://127.0.0.1:{PORT}",
    store=MemoryStore(),
    users=McpUsers.single_user_local(),  # no MCP authorization: one person, on this machine
    max_pending_per_user=None,
)
elicit = Elicitation(mcp, url_mode=url_mode)
api_key = elicit.secret("api-key", title="API key", message="The connect tool needs your API key.")


class Room(BaseModel):
    guest: str
    nights: int = 1


def revision(ctx: Context) -> str:  # type: ignore[type-arg]
    return str(ctx.request_context.session.protocol_version)


@mcp.tool()
async def reserve(ctx: Context) -> str:  # type: ignore[type-arg]
    """One form question; says what came back."""
    try:
        outcome = await elicit.form(ctx, "Who is staying, and for how long?", Room)
    except ModeNotDeclaredError:
        return f"{revision(ctx)}: not asked, form mode not declared"
    if isinstance(outcome, AcceptedElicitation):
        return f"{revision(ctx)}: reserved {outcome.data.nights} nights for {outcome.data.guest}"
    return f"{revision(ctx)}: {type(outcome).__name__}"


@mcp.tool()
async def connect(ctx: Context) -> str:  # type: ignore[type-arg]
    """One URL-mode question (a secret typed on this server's page); says what came back."""
    try:
        key = await api_key.get(ctx)
    except ModeNotDeclaredError:
        return f"{revision(ctx)}: not asked, url mode not declared"
    except UrlElicitationNotCompletedError as ended:
        return f"{revision(ctx)}: url {ended.state}"
    await api_key.forget(ctx)
    return f"{revision(ctx)}: url completed, key {hashlib.sha256(key.encode()).hexdigest()[:12]}"


if __name__ == "__main__":
    uvicorn.run(mcp.streamable_http_app(), host="127.0.0.1", port=PORT, log_level="warning")
