"""An elicitkit server whose tool runs as a 2026-07-28 task (the tasks extension): `build(store)`
for a test's own event loop, or its own process for a client in another venv:
`python ext_task_server.py PORT` (tasks in a `MemoryStore`).

`approve(payee)` (task required) asks a form question, the amount and whether to pay it. Its
users are the bearers of the tokens "alice" and "bob".
"""

from __future__ import annotations

import sys
from typing import Any

import uvicorn
from mcp.server.auth.provider import AccessToken
from mcp.server.auth.settings import AuthSettings
from mcp.server.mcpserver import Context, MCPServer
from pydantic import BaseModel, Field

from elicitkit.results import AcceptedElicitation
from elicitkit.server import Elicitation, KeyRing, McpUsers, MemoryStore, Store
from elicitkit.server._tasks import Tasks, TasksExtension

ISSUER = "https://as.ext-tasks.example"


class Approval(BaseModel):
    approve: bool
    amount: int = Field(ge=1, le=1000)


class StaticTokens:
    """The bearer token is the user's name."""

    async def verify_token(self, token: str) -> AccessToken | None:
        if token not in ("alice", "bob"):
            return None
        return AccessToken(
            token=token, client_id="ext-tasks", scopes=["mcp"], subject=token, claims={"iss": ISSUER}
        )


def build(store: Store | None = None) -> MCPServer[Any]:
    tasks = Tasks(
        {"approve": "required"},
        store=store if store is not None else MemoryStore(),
        users=McpUsers(issuer=ISSUER),
        keys=KeyRing.from_string(KeyRing.generate()),
        poll_interval=0.2,
    )
    server: MCPServer[Any] = MCPServer(
        "ext-tasks",
        token_verifier=StaticTokens(),
        auth=AuthSettings(issuer_url=ISSUER, resource_server_url=None, required_scopes=["mcp"]),  # type: ignore[arg-type]
        extensions=[TasksExtension(tasks)],
    )
    elicit = Elicitation(server, tasks=tasks)

    @server.tool()
    async def approve(payee: str, ctx: Context) -> str:  # type: ignore[type-arg]
        answer = await elicit.form(ctx, f"Pay {payee}?", Approval)
        if not isinstance(answer, AcceptedElicitation):
            return f"payment to {payee}: {answer.action}"
        verdict = "approved" if answer.data.approve else "refused"
        return f"payment to {payee}: {verdict}, {answer.data.amount}"

    return server


if __name__ == "__main__":
    app = build().streamable_http_app()
    uvicorn.run(app, host="127.0.0.1", port=int(sys.argv[1]), log_level="warning")
