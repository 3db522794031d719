"""Several replicas of one MCP server sharing one Redis (or one PostgreSQL), each its own process,
over real HTTP on 127.0.0.1: the demo authorization server, plain `mcp.Client` sessions, a
scripted browser.

A load balancer would send alice's MCP session to one replica and her browser to whichever
replica; here the test plays the load balancer by pointing the browser at another replica's
address. The completion crosses replicas through the Redis bus, the record and the sealed secret
through the Redis store, and the keys through configuration (`ELICITKIT_VAULT_KEYS`).

Run as a script this module is one replica:
`python tests/e2e/test_replicas.py --port N --issuer URL --introspection JSON --store redis://...`.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import secrets
import signal
import subprocess
import sys
from collections.abc import AsyncIterator
from contextlib import AsyncExitStack, asynccontextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urljoin

import pytest
from mcp.server.auth.settings import AuthSettings
from mcp.server.mcpserver import Context, MCPServer
from mcp.server.request_state import RequestStateSecurity
from support.postgres_server import PostgresServer, postgres_server
from support.redis_server import RedisServer, redis_server
from support.server_process import free_port, stop, wait_until_serving
from support.url_harness import (  # type: ignore[import-not-found]
    SECRET,
    Browser,
    fingerprint,
    mcp_session,
    read_form,
    validate_weather_key,
)

from elicitkit.server._backends import open_bus, open_store
from elicitkit.server._elicitation import Elicitation
from elicitkit.server._url_mode import UrlMode
from elicitkit.server._vault import KEYS_ENV, KeyRing
from elicitkit.server._web.login import OAuthLogin

__all__ = ["postgres_server", "redis_server"]  # the fixtures, re-exported for pytest

REQUEST_STATE_KEY_ENV = "ELICITKIT_REQUEST_STATE_KEY"
"""Where a replica reads the shared requestState key (any name works: it is the author's config)."""

pytestmark = pytest.mark.timeout(120)


# -- one replica (the script) ----------------------------------------------------------------


def build_replica(*, public_url: str, issuer: str, verifier: Any, store_url: str, wait: str = "live") -> Any:
    """The weather MCP server of the URL-mode tests, with its store and bus in Redis."""
    store = open_store(store_url)
    shared_state_key = os.environ.get(REQUEST_STATE_KEY_ENV)
    server: MCPServer[Any] = MCPServer(
        "weather",
        # 2026-07-28: a retry may reach another replica, so requestState is sealed with a key
        # from configuration; without one the SDK seals with a key of this process only.
        request_state_security=RequestStateSecurity(keys=[shared_state_key]) if shared_state_key else None,
        token_verifier=verifier,
        auth=AuthSettings(issuer_url=issuer, resource_server_url=None, required_scopes=["mcp"]),
    )
    url_mode = UrlMode(
        browser=OAuthLogin(issuer, scopes=["openid"]),
        public_url=public_url,
        keys=KeyRing.from_env(),  # the same ring on every replica, from configuration
        store=store,
        bus=open_bus(store_url, store=store),
        wait=wait,  # type: ignore[arg-type]
    )
    elicit = Elicitation(server, url_mode=url_mode)
    api_key = elicit.secret(
        "weather-api-key",
        title="Weather API key",
        message="The forecast tool needs your weather.example API key.",
        description="Find it under Account > API keys at weather.example.",
        validator=validate_weather_key,
    )

    @server.tool()
    async def forecast(city: str, ctx: Context) -> str:
        key = await api_key.get(ctx)
        return f"Sunny in {city} (key {fingerprint(key)})"

    return server


def main(argv: list[str] | None = None) -> None:
    import uvicorn

    from elicitkit.demo.auth_server import IntrospectionTokenVerifier

    parser = argparse.ArgumentParser()
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--issuer", required=True)
    parser.add_argument("--introspection", required=True, help="JSON: endpoint, client_id, client_secret")
    parser.add_argument("--store", required=True)
    parser.add_argument("--wait", default="live")
    args = parser.parse_args(argv)
    spec = json.loads(args.introspection)
    verifier = IntrospectionTokenVerifier(
        spec["endpoint"], client_id=spec["client_id"], client_secret=spec["client_secret"], issuer=args.issuer
    )
    server = build_replica(
        public_url=f"http://127.0.0.1:{args.port}",
        issuer=args.issuer,
        verifier=verifier,
        store_url=args.store,
        wait=args.wait,
    )
    uvicorn.run(server.streamable_http_app(), host="127.0.0.1", port=args.port, log_level="warning")


# -- the tests -------------------------------------------------------------------------------


@dataclass
class Replica:
    name: str
    url: str
    process: subprocess.Popen[bytes]

    def kill(self) -> None:
        """SIGKILL: the replica dies mid-flow, with no chance to clean up."""
        self.process.send_signal(signal.SIGKILL)
        self.process.wait(10)


@pytest.fixture
async def auth() -> AsyncIterator[Any]:
    from elicitkit.demo.auth_server import DemoAuthServer

    async with DemoAuthServer() as server:
        yield server


@asynccontextmanager
async def replicas(
    auth: Any,
    redis: RedisServer | PostgresServer,
    logs: Path,
    *names: str,
    wait: str = "live",
    unshared_state: tuple[str, ...] = (),
) -> AsyncIterator[list[Replica]]:
    """Start one replica process per name, all on the same Redis and the same vault keys, and
    the same requestState key except the replicas named in `unshared_state`."""
    client = auth.register_client(client_name="token introspection")
    introspection = json.dumps(
        {
            "endpoint": f"{auth.url}/introspect",
            "client_id": client.client_id,
            "client_secret": client.client_secret,
        }
    )
    env = {
        **os.environ,
        "PYTHONPATH": str(Path(__file__).parents[1]),  # this file runs as a replica and imports `support`
        KEYS_ENV: KeyRing.generate("k1"),
        REQUEST_STATE_KEY_ENV: secrets.token_hex(32),
    }
    started: list[Replica] = []
    async with AsyncExitStack() as stack:
        for name in names:
            port = free_port()
            log = stack.enter_context((logs / f"replica-{name}.log").open("wb"))
            own = {
                k: v for k, v in env.items() if not (name in unshared_state and k == REQUEST_STATE_KEY_ENV)
            }
            process = subprocess.Popen(
                [sys.executable, __file__, "--port", str(port), "--issuer", auth.issuer,
                 "--introspection", introspection, "--store", redis.url, "--wait", wait],
                env=own, stdout=log, stderr=subprocess.STDOUT,
            )  # fmt: skip
            started.append(Replica(name, f"http://127.0.0.1:{port}", process))
            stack.callback(stop, process)
        for replica in started:
            log = logs / f"replica-{replica.name}.log"
            await asyncio.to_thread(wait_until_serving, replica.process, f"{replica.url}/mcp", log)
        yield started


@pytest.fixture(params=["redis", "postgres"])
def shared_backend(request: pytest.FixtureRequest) -> RedisServer | PostgresServer:
    """The store and bus the replicas share: a Redis, or a PostgreSQL (LISTEN/NOTIFY bus)."""
    return request.getfixturevalue(f"{request.param}_server")  # type: ignore[no-any-return]


async def token(auth: Any, person: str) -> str:
    return str((await auth.token_for(person)).access_token)


async def test_session_on_a_browser_on_b_notice_through_a(
    auth: Any, shared_backend: RedisServer | PostgresServer, tmp_path: Path
) -> None:
    """Issue 8, must show 1 (and issue 20 on PostgreSQL): alice's MCP session is on replica A, her
    browser flow is served by replica B; the completion notice reaches her through A (and no one
    else), the tool completes."""
    async with replicas(auth, shared_backend, tmp_path, "A", "B") as (a, b):
        alice_token, bob_token = await token(auth, "alice"), await token(auth, "bob")
        async with (
            mcp_session(f"{a.url}/mcp", alice_token) as alice,
            mcp_session(f"{b.url}/mcp", alice_token) as alice_on_b,
            mcp_session(f"{b.url}/mcp", bob_token) as bob_on_b,
        ):
            for session in (alice_on_b, bob_on_b):
                await session.client.list_tools()
            call = asyncio.create_task(alice.client.call_tool("forecast", {"city": "Paris"}))
            asked = await asyncio.wait_for(alice.urls.get(), 30)
            assert asked.url == f"{a.url}/elicit/{asked.elicitation_id}"
            async with Browser(auth, "alice") as browser:
                page = await browser.open(asked.url.replace(a.url, b.url))  # the balancer picks B
                assert page.status_code == 200, page.text
                assert "Weather API key" in page.text
                done = await browser.submit(page, secret=SECRET, action="save")
                assert done.status_code == 200 and "Saved" in done.text, done.text
                assert all(not url.startswith(a.url) for url in browser.history)  # A never saw it
            result = await asyncio.wait_for(call, 30)
            assert not result.is_error, result
            assert fingerprint(SECRET) in result.content[0].text
            assert alice.notices == [asked.elicitation_id]
            await asyncio.sleep(0.5)  # a stray notice on B would have arrived by now
            assert alice_on_b.notices == [] and bob_on_b.notices == []
            assert SECRET.encode() not in alice.wire.everything()
    store = open_store(shared_backend.url)
    record = await store.get(asked.elicitation_id or "")
    await store.close()
    assert record is not None and record.state == "completed"


async def test_browser_replica_killed_mid_flow(auth: Any, redis_server: RedisServer, tmp_path: Path) -> None:
    """B serves the page, then dies; the person's submit lands on A, which finishes the flow from
    what Redis holds (the record) and what the browser holds (its sealed session cookie)."""
    async with (
        replicas(auth, redis_server, tmp_path, "A", "B") as (a, b),
        mcp_session(f"{a.url}/mcp", await token(auth, "alice")) as alice,
    ):
        call = asyncio.create_task(alice.client.call_tool("forecast", {"city": "Oslo"}))
        asked = await asyncio.wait_for(alice.urls.get(), 30)
        async with Browser(auth, "alice") as browser:
            page = await browser.open(asked.url.replace(a.url, b.url))
            assert page.status_code == 200 and "Weather API key" in page.text, page.text
            b.kill()
            action, hidden = read_form(page.text)
            target = urljoin(str(page.url).replace(b.url, a.url), action)
            done = await browser.http.post(target, data={**hidden, "secret": SECRET, "action": "save"})
            assert done.status_code == 200 and "Saved" in done.text, done.text
        result = await asyncio.wait_for(call, 30)
        assert not result.is_error and fingerprint(SECRET) in result.content[0].text
        assert alice.notices == [asked.elicitation_id]


async def test_session_replica_killed_mid_flow(auth: Any, redis_server: RedisServer, tmp_path: Path) -> None:
    """A holds alice's session and dies after listing the elicitation (-32042); the browser
    finishes on B; alice reconnects (to B) and her retry finds the secret stored for her."""
    from mcp.shared.exceptions import MCPError

    async with replicas(auth, redis_server, tmp_path, "A", "B", wait="error") as (a, b):
        alice_token = await token(auth, "alice")
        async with mcp_session(f"{a.url}/mcp", alice_token) as alice:
            with pytest.raises(MCPError) as raised:
                await alice.client.call_tool("forecast", {"city": "Lima"})
            assert raised.value.code == -32042
            ((listed),) = raised.value.data["elicitations"]
            a.kill()
            async with Browser(auth, "alice") as browser:
                page = await browser.open(listed["url"].replace(a.url, b.url))
                assert page.status_code == 200, page.text
                done = await browser.submit(page, secret=SECRET, action="save")
                assert done.status_code == 200 and "Saved" in done.text, done.text
        async with mcp_session(f"{b.url}/mcp", alice_token) as again:
            result = await again.client.call_tool("forecast", {"city": "Lima"})
            assert not result.is_error and fingerprint(SECRET) in result.content[0].text


async def test_2026_retry_reaches_another_replica(
    auth: Any, redis_server: RedisServer, tmp_path: Path
) -> None:
    """2026-07-28: the first call on A returns the input request, the browser finishes on B, the
    retry lands on B and completes, because requestState is sealed with a configured key; a
    replica with only its own process key (C) refuses the same state."""
    from mcp.shared.exceptions import MCPError
    from mcp_types import ElicitResult, InputRequiredResult

    async with replicas(auth, redis_server, tmp_path, "A", "B", "C", unshared_state=("C",)) as (a, b, c):
        alice_token = await token(auth, "alice")
        async with (
            mcp_session(f"{a.url}/mcp", alice_token, mode="2026-07-28") as on_a,
            mcp_session(f"{b.url}/mcp", alice_token, mode="2026-07-28") as on_b,
            mcp_session(f"{c.url}/mcp", alice_token, mode="2026-07-28") as on_c,
        ):
            first = await on_a.client.session.call_tool(
                "forecast", {"city": "Rome"}, allow_input_required=True
            )
            assert isinstance(first, InputRequiredResult) and first.request_state and first.input_requests
            ((key, request),) = first.input_requests.items()
            url = request.params.url  # type: ignore[union-attr]
            assert url.startswith(f"{a.url}/elicit/")
            async with Browser(auth, "alice") as browser:
                page = await browser.open(url.replace(a.url, b.url))
                assert page.status_code == 200, page.text
                done = await browser.submit(page, secret=SECRET, action="save")
                assert done.status_code == 200 and "Saved" in done.text, done.text
            accepted = {key: ElicitResult(action="accept")}
            with pytest.raises(MCPError) as refused:
                await on_c.client.session.call_tool(
                    "forecast", {"city": "Rome"}, input_responses=accepted, request_state=first.request_state
                )
            assert refused.value.code == -32602
            result = await on_b.client.session.call_tool(
                "forecast",
                {"city": "Rome"},
                input_responses=accepted,
                request_state=first.request_state,
                allow_input_required=True,
            )
            assert not isinstance(result, InputRequiredResult), result
            assert not result.is_error and fingerprint(SECRET) in result.content[0].text


async def test_redis_down_is_a_tool_error_then_the_replica_recovers(
    auth: Any, redis_server: RedisServer, tmp_path: Path
) -> None:
    """During the outage the tool call ends as a tool error that says what happened; when Redis
    is back the same replica process works again, with no restart."""
    from mcp.shared.exceptions import MCPError

    async with (
        replicas(auth, redis_server, tmp_path, "A", wait="error") as (a,),
        mcp_session(f"{a.url}/mcp", await token(auth, "alice")) as alice,
    ):
        await alice.client.list_tools()
        await asyncio.to_thread(redis_server.kill)
        down = await alice.client.call_tool("forecast", {"city": "Bern"})
        assert down.is_error and "is unavailable" in down.content[0].text, down
        assert "Retry when Redis is back" in down.content[0].text
        await asyncio.to_thread(redis_server.start)
        with pytest.raises(MCPError) as raised:  # back to normal: the elicitation is listed
            await alice.client.call_tool("forecast", {"city": "Bern"})
        assert raised.value.code == -32042


if __name__ == "__main__":
    main()
