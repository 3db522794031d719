"""An elicitkit server whose tools run as tasks, for the task tests, in process or as its own
process (the restart and replica tests kill it): `python task_server.py --store URL --port N`.

Its users are bearers of the tokens "alice" and "bob" (a static verifier: who is who is all the
tests need); its tools:
- `book(city)` (task optional) asks a form question, the day, and books it;
- `pay(amount)` (task required) needs the user's payment key, a URL-mode `Secret`;
- `wait(seconds)` (task optional) only takes time, then notes that it finished; `fail()` (task
  optional) raises; `plain()` does not run as a task.
"""

from __future__ import annotations

import argparse
import hashlib
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from typing import Any

import anyio
from mcp.server.auth.provider import AccessToken
from mcp.server.auth.settings import AuthSettings
from mcp.server.mcpserver import Context, MCPServer
from pydantic import BaseModel
from starlette.requests import Request

from elicitkit.results import AcceptedElicitation
from elicitkit.server import (
    Elicitation,
    HookIdentity,
    KeyRing,
    McpUsers,
    MemoryStore,
    Secret,
    Store,
    UrlMode,
    User,
)
from elicitkit.server._tasks import Tasks
from elicitkit.server.bus import Bus

ISSUER = "https://as.tasks.example"
PAY_KEY = "pk-7c1e-SECRET-of-alice"


def fingerprint(value: str) -> str:
    return hashlib.sha256(value.encode()).hexdigest()[:12]


class Trip(BaseModel):
    day: str


class StaticTokens:
    """The bearer token is the user's name: enough for tests about who owns which task."""

    async def verify_token(self, token: str) -> AccessToken | None:
        if token not in ("alice", "bob"):
            return None
        return AccessToken(
            token=token, client_id="task-tests", scopes=["mcp"], subject=token, claims={"iss": ISSUER}
        )


async def signed_in(request: Request) -> User | None:
    """The app's own sign-in, as a test has it: the browser says who it is in `X-Person`."""
    person = request.headers.get("x-person")
    return User(ISSUER, person) if person in ("alice", "bob") else None


@dataclass
class TaskServer:
    server: MCPServer[Any]
    url_mode: UrlMode
    tasks: Tasks
    pay_key: Secret
    finished: list[str]
    """What the `wait` tool noted each time it ran to its end (a side effect a user would see)."""


def build_task_server(
    *,
    public_url: str,
    store: Store,
    keys: KeyRing,
    bus: Bus | None = None,
    lease: float = 15.0,
    ttl: float = 3600.0,
    max_per_user: int | None = 20,
    sweep_every: float = 60.0,
) -> TaskServer:
    server: MCPServer[Any] = MCPServer(
        "tasks",
        token_verifier=StaticTokens(),
        auth=AuthSettings(issuer_url=ISSUER, resource_server_url=None, required_scopes=["mcp"]),  # type: ignore[arg-type]
    )
    url_mode = UrlMode(
        browser=HookIdentity(signed_in),
        public_url=public_url,
        keys=keys,
        store=store,
        bus=bus,
        users=McpUsers(issuer=ISSUER),
        max_pending_per_user=max_per_user,
    )
    tasks = Tasks(
        {"book": "optional", "pay": "required", "wait": "optional", "fail": "optional"},
        lease=lease,
        ttl=ttl,
        poll_interval=0.2,
        max_per_user=max_per_user,
        sweep_every=sweep_every,
    )
    elicit = Elicitation(server, url_mode=url_mode, tasks=tasks)
    pay_key = elicit.secret("pay-key", title="Payment key", message="Paying needs your payment key.")

    @server.tool()
    async def book(city: str, ctx: Context) -> str:  # type: ignore[type-arg]
        match await elicit.form(ctx, f"Which day do you want to go to {city}?", Trip):
            case AcceptedElicitation(data=trip):
                return f"Booked {city} on {trip.day}"
            case _:
                return "Nothing booked"

    @server.tool()
    async def pay(amount: int, ctx: Context) -> str:  # type: ignore[type-arg]
        key = await pay_key.get(ctx)
        return f"Paid {amount} with key {fingerprint(key)}"

    finished: list[str] = []

    @server.tool()
    async def wait(seconds: float) -> str:
        await anyio.sleep(seconds)
        finished.append(f"waited {seconds}")
        return f"Waited {seconds} s"

    @server.tool()
    async def fail() -> str:
        raise ValueError("the card was refused")

    @server.tool()
    async def plain() -> str:
        return "plain"

    return TaskServer(server, url_mode, tasks, pay_key, finished)


@asynccontextmanager
async def serving(**options: Any) -> AsyncIterator[tuple[TaskServer, str]]:
    """The task server on 127.0.0.1 in this event loop, on a `MemoryStore` unless `options` (which
    go to `build_task_server`) name a store; yields it and its MCP endpoint."""
    from support.url_harness import serve

    holder: list[TaskServer] = []

    def build(url: str) -> Any:
        keys = options.pop("keys", None) or KeyRing.from_string(KeyRing.generate())
        store = options.pop("store", None) or MemoryStore()
        built = build_task_server(public_url=url, store=store, keys=keys, **options)
        holder.append(built)
        return built.server.streamable_http_app()

    async with serve(build) as url:
        yield holder[0], f"{url}/mcp"


async def finish_page(link: str, person: str, value: str) -> str:
    """A person at the page `link`, signed in to the app as `person`: opens it, enters `value`,
    submits; the text of the page they end on."""
    from support.url_harness import Browser

    async with Browser(None, person) as browser:
        browser.http.headers["X-Person"] = person
        page = await browser.open(link)
        for _ in range(3):
            if page.status_code != 200 or "<form" not in page.text:
                break
            page = await browser.submit(page, **({"secret": value} if 'name="secret"' in page.text else {}))
        return page.text


def main(argv: list[str] | None = None) -> None:
    import uvicorn

    from elicitkit.server import open_bus, open_store

    parser = argparse.ArgumentParser()
    parser.add_argument("--store", required=True, help="sqlite:///path, redis://..., postgresql://...")
    parser.add_argument("--prefix", default="")
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--lease", type=float, default=2.0)
    parser.add_argument("--public-url", help="the origin links name (replicas behind one balancer share it)")
    args = parser.parse_args(argv)
    options = {"prefix": args.prefix} if args.prefix else {}
    store = open_store(args.store, **options)
    bus = None if args.store.startswith("sqlite") else open_bus(args.store, store=store)
    built = build_task_server(
        public_url=args.public_url or f"http://127.0.0.1:{args.port}",
        store=store,
        keys=KeyRing.from_env(),
        bus=bus,
        lease=args.lease,
    )
    uvicorn.run(built.server.streamable_http_app(), host="127.0.0.1", port=args.port, log_level="warning")


if __name__ == "__main__":
    sys.exit(main())
