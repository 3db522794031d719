"""Shared pieces of the URL-mode benchmarks: one benchmark MCP server, run as its own process.

The server is an `MCPServer` with `UrlMode` mounted on its own app (the real pages, the real
`Secret` flow), a store and bus chosen by URL (`sqlite:///...` with the in-process bus, or
`redis://...` with the Redis bus), and a few routes under `/bench/` that only benchmarks use:

- `POST /bench/finish/<id>?after=S`: answer at once, then (S seconds later, so that the client
  is idle, as it is while a person is in the browser) finish the flow the way the page's
  submit does: claim the record as completed in the store, then `Site.announce` (the same
  calls the submit makes; a Redis store has published the id in the claim's own script);
- `POST /bench/sdk_notify/<token>?after=S`: the SDK floor, likewise: the `sdk_wait` tool call
  waiting on this token sends the same notice on its own stream, with no store and no bus;
- `GET /bench/times/<id>`: the `time.monotonic()` readings of that finish (start, claimed);
- `GET /bench/delivered/<id>`: when this server's bus called the listener of `<id>` (its
  `Bus` is wrapped to note the time, nothing else changes);
- `POST /bench/pending?n=N`: create N pending records for the user (as `UrlMode` does);
- `GET /bench/cookie`: a browser session cookie for that user, sealed by the site itself;
- `GET /bench/sdk_waiting`: how many `sdk_wait` calls are waiting for their notice;
- `GET /bench/rss`: this process's resident memory in bytes, after a garbage collection;
- `GET /bench/bare`: a bare Starlette endpoint with a small HTML page (the landing baseline).

The MCP user is the single local user (`McpUsers.single_user_local()`: no MCP authorization,
so no token introspection on each request); the browser person is known from the sealed
session cookie, as `OAuthLogin` knows them after a sign-in (its issuer is never contacted,
because every benchmark browser carries a valid cookie).

Run as a script it is the server: `python benchmarks/_harness.py --port N --store URL`, with
the vault keys in `ELICITKIT_VAULT_KEYS` (the same on every replica).
"""

from __future__ import annotations

import argparse
import gc
import math
import os
import subprocess
import sys
import time
from collections.abc import Awaitable, Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import anyio
from mcp.server.mcpserver import Context, MCPServer
from starlette.background import BackgroundTask
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, Response

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

from support.server_process import free_port, stop, wait_until_serving

from elicitkit.server import (
    KEYS_ENV,
    Elicitation,
    KeyRing,
    McpUsers,
    OAuthLogin,
    UrlMode,
    open_bus,
    open_store,
)
from elicitkit.server._web.site import COOKIE
from elicitkit.server.bus import Bus, Listener, Unsubscribe
from elicitkit.server.store import ACTIVE, Record

ROOT = Path(__file__).resolve().parents[1]

FLOW_MESSAGE = "The benchmark tool needs your benchmark API key."


def p99(samples: list[float]) -> float:
    """The nearest-rank 99th percentile."""
    ordered = sorted(samples)
    return ordered[max(0, math.ceil(0.99 * len(ordered)) - 1)]


class TimedBus:
    """The server's bus, unchanged, noting when each listener is called (the bus hop's end)."""

    def __init__(self, inner: Bus) -> None:
        self.inner = inner
        self.delivered: dict[str, float] = {}

    async def publish(self, elicitation_id: str) -> None:
        await self.inner.publish(elicitation_id)

    def subscribe(self, elicitation_id: str, listener: Listener) -> Unsubscribe:
        async def timed(delivered_id: str) -> None:
            self.delivered[delivered_id] = time.monotonic()
            await listener(delivered_id)

        return self.inner.subscribe(elicitation_id, timed)


def build_app(public_url: str, store_url: str) -> Any:
    """The benchmark server's ASGI app (an `MCPServer` with URL mode and the `/bench/` routes)."""
    store = open_store(store_url)
    users = McpUsers.single_user_local()
    user = users.local_user
    assert user is not None
    server: MCPServer[Any] = MCPServer("bench", log_level="WARNING")
    bus = TimedBus(open_bus(store_url, store=store))
    url_mode = UrlMode(
        browser=OAuthLogin("http://127.0.0.1:9", scopes=["openid"]),  # never reached: cookies are valid
        public_url=public_url,
        keys=KeyRing.from_env(),
        store=store,
        bus=bus,
        users=users,
        wait="live",
        max_pending_per_user=None,  # every benchmark session is the one local user (scale.py opens thousands)
    )
    elicit = Elicitation(server, url_mode=url_mode)
    api_key = elicit.secret(
        "bench-api-key",
        title="Benchmark API key",
        message=FLOW_MESSAGE,
        description="Any value will do.",
    )

    @server.tool()
    async def wait_for_finish(ctx: Context) -> str:
        """A live URL-mode elicitation that waits until its record finishes; returns its id."""
        record = await url_mode.ask(ctx, api_key, FLOW_MESSAGE, {"description": "Any value will do."})
        return record.id

    waiting: dict[str, Callable[[], Awaitable[None]]] = {}

    @server.tool()
    async def sdk_wait(token: str, ctx: Context) -> str:
        """The SDK alone: wait, then send the same notice on this call's stream (no store, no bus)."""
        sent = anyio.Event()

        async def notify() -> None:
            await ctx.session.send_elicit_complete(token, related_request_id=ctx.request_id)
            sent.set()

        waiting[token] = notify
        with anyio.fail_after(600):  # scale.py holds a thousand of these open at once
            await sent.wait()
        return token

    times: dict[str, dict[str, float]] = {}

    @server.custom_route("/bench/sdk_notify/{token}", methods=["POST"])
    async def sdk_notify(request: Request) -> Response:
        token = request.path_params["token"]

        async def later() -> None:
            with anyio.fail_after(10):
                while token not in waiting:  # noqa: ASYNC110 - the tool call may not have started yet
                    await anyio.sleep(0.002)
            notify = waiting.pop(token)
            await anyio.sleep(float(request.query_params.get("after", "0")))
            started = time.monotonic()
            await notify()
            times[token] = {"started": started}

        return JSONResponse({}, status_code=202, background=BackgroundTask(later))

    @server.custom_route("/bench/finish/{elicitation_id}", methods=["POST"])
    async def finish(request: Request) -> Response:
        elicitation_id = request.path_params["elicitation_id"]

        async def later() -> None:
            await anyio.sleep(float(request.query_params.get("after", "0")))
            # What the page's submit does once the form checked out: claim, then announce.
            started = time.monotonic()
            record = await store.transition(elicitation_id, from_states=ACTIVE, to="completed", user=user)
            assert record is not None, "the benchmark finished a record that was not active"
            claimed = time.monotonic()
            # Noted before announcing: a store that notifies at commit (PostgreSQL) may have
            # delivered the notice, and the client may ask for these, before announce returns.
            times[elicitation_id] = {"started": started, "claimed": claimed}
            await url_mode.site.announce(elicitation_id)

        return JSONResponse({}, status_code=202, background=BackgroundTask(later))

    @server.custom_route("/bench/times/{key}", methods=["GET"])
    async def finish_times(request: Request) -> Response:
        # The notice can reach the client before the finishing task notes its times (a store
        # that notifies at commit, a loaded machine): wait for them a little.
        key = request.path_params["key"]
        for _ in range(500):
            if key in times:
                break
            await anyio.sleep(0.01)
        return JSONResponse(times.pop(key))

    @server.custom_route("/bench/delivered/{elicitation_id}", methods=["GET"])
    async def delivered(request: Request) -> Response:
        return JSONResponse({"delivered": bus.delivered.pop(request.path_params["elicitation_id"], None)})

    @server.custom_route("/bench/pending", methods=["POST"])
    async def pending(request: Request) -> Response:
        ids = []
        for _ in range(int(request.query_params.get("n", "1"))):
            record = Record.new(user, "local", api_key.name, FLOW_MESSAGE, ttl=3600)
            await store.create(record)
            ids.append(record.id)
        return JSONResponse(ids)

    @server.custom_route("/bench/cookie", methods=["GET"])
    async def cookie(request: Request) -> Response:
        minted = Response()
        url_mode.site.save_session(minted, url_mode.site.new_session(user))
        value = minted.headers["set-cookie"].split(";", 1)[0].removeprefix(f"{COOKIE}=")
        return JSONResponse({"name": COOKIE, "value": value})

    @server.custom_route("/bench/sdk_waiting", methods=["GET"])
    async def sdk_waiting(request: Request) -> Response:
        return JSONResponse({"waiting": len(waiting)})

    @server.custom_route("/bench/rss", methods=["GET"])
    async def rss(request: Request) -> Response:
        gc.collect()
        pages = int(Path("/proc/self/statm").read_text().split()[1])  # noqa: ASYNC240 - procfs, in memory
        return JSONResponse({"rss": pages * os.sysconf("SC_PAGE_SIZE")})

    @server.custom_route("/bench/bare", methods=["GET"])
    async def bare(request: Request) -> Response:
        return HTMLResponse(BARE_PAGE)

    return server.streamable_http_app()


BARE_PAGE = (
    "<!doctype html><html><head><meta charset='utf-8'><title>Bare</title></head>"
    "<body><h1>Bare page</h1><p>A small HTML page for the landing baseline.</p></body></html>"
)


@contextmanager
def bench_server(store_url: str, env: dict[str, str], log: Path) -> Iterator[str]:
    """Run the benchmark server in its own process; yields its base URL."""
    port = free_port()
    with log.open("wb") as out:
        process = subprocess.Popen(
            [sys.executable, __file__, "--port", str(port), "--store", store_url],
            env=env,
            stdout=out,
            stderr=subprocess.STDOUT,
        )
        url = f"http://127.0.0.1:{port}"
        try:
            wait_until_serving(process, f"{url}/bench/bare", log)
            yield url
        finally:
            stop(process)


def server_env() -> dict[str, str]:
    """The environment of the benchmark servers: fresh vault keys, shared by every replica."""
    return {**os.environ, KEYS_ENV: KeyRing.generate("bench")}


def main() -> None:
    import uvicorn

    parser = argparse.ArgumentParser(description="The benchmark MCP server (one process).")
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--store", required=True)
    args = parser.parse_args()
    app = build_app(f"http://127.0.0.1:{args.port}", args.store)
    uvicorn.run(app, host="127.0.0.1", port=args.port, log_level="warning", access_log=False)


if __name__ == "__main__":
    main()
