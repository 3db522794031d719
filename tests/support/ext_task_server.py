"""An elicitkit server whose tools run as 2026-07-28 tasks (the tasks extension): `build(url, store)`
for a test's own event loop, or its own process for a client in another venv:
`python -m support.ext_task_server PORT` from tests/ (tasks in a `MemoryStore`; `--store` and
`--lease` make it one of several replicas on one store).

Its users and pages are support.task_server's (bearer tokens "alice" and "bob", the app's sign-in
in `X-Person`); its tools, both task required:
- `approve(payee)` asks a form question, the amount and whether to pay it;
- `pay(amount)` needs the user's payment key, a URL-mode `Secret` (support.task_server.finish_page
  is the person on its page).
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

import uvicorn
from mcp.server.auth.settings import AuthSettings
from mcp.server.mcpserver import Context, MCPServer
from pydantic import BaseModel, Field

from elicitkit.results import AcceptedElicitation
from elicitkit.server import (
    Elicitation,
    HookIdentity,
    KeyRing,
    McpUsers,
    MemoryStore,
    Store,
    UrlMode,
    open_store,
)
from elicitkit.server._tasks import Tasks, TasksExtension
from support.task_server import ISSUER, StaticTokens, fingerprint, signed_in


class Approval(BaseModel):
    approve: bool
    amount: int = Field(ge=1, le=1000)


def build(
    public_url: str, store: Store | None = None, *, keys: KeyRing | None = None, lease: float = 15.0
) -> MCPServer[Any]:
    keys = keys if keys is not None else KeyRing.from_string(KeyRing.generate())
    tasks = Tasks({"approve": "required", "pay": "required"}, poll_interval=0.2, lease=lease)
    server: MCPServer[Any] = MCPServer(
        "ext-tasks",
        token_verifier=StaticTokens(),
        auth=AuthSettings(issuer_url=ISSUER, resource_server_url=None, required_scopes=["mcp"]),  # type: ignore[arg-type]
        extensions=[TasksExtension(tasks)],
    )
    url_mode = UrlMode(
        browser=HookIdentity(signed_in),
        public_url=public_url,
        keys=keys,
        store=store if store is not None else MemoryStore(),
        users=McpUsers(issuer=ISSUER),
    )
    elicit = Elicitation(server, url_mode=url_mode, tasks=tasks)
    pay_key = elicit.secret("pay-key", title="Payment key", message="Paying needs your payment key.")

    @server.tool()
    async def approve(payee: str, ctx: Context) -> str:  # type: ignore[type-arg]
        answer = await elicit.form(ctx, f"Pay {payee}?", Approval)
        if not isinstance(answer, AcceptedElicitation):
            return f"payment to {payee}: {answer.action}"
        verdict = "approved" if answer.data.approve else "refused"
        return f"payment to {payee}: {verdict}, {answer.data.amount}"

    @server.tool()
    async def pay(amount: int, ctx: Context) -> str:  # type: ignore[type-arg]
        key = await pay_key.get(ctx)
        return f"Paid {amount} with key {fingerprint(key)}"

    return server


def main(argv: list[str]) -> None:
    """`PORT` on a `MemoryStore`, or `PORT --store URL --lease SECONDS` (a replica: the vault keys
    from the environment, shared by every replica)."""
    parser = argparse.ArgumentParser()
    parser.add_argument("port", type=int)
    parser.add_argument("--store", help="sqlite:///path, redis://..., postgresql://...")
    parser.add_argument("--lease", type=float, default=15.0)
    args = parser.parse_args(argv)
    public_url = f"http://127.0.0.1:{args.port}"
    if args.store is None:
        server = build(public_url)
    else:
        server = build(public_url, open_store(args.store), keys=KeyRing.from_env(), lease=args.lease)
    uvicorn.run(server.streamable_http_app(), host="127.0.0.1", port=args.port, log_level="warning")


if __name__ == "__main__":
    main(sys.argv[1:])
