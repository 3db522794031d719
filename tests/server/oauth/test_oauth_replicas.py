"""Two replicas of the agenda server share one store (one SQLite file, or one Redis) and the
vault keys: alice's expired third-party token, needed by both at once, is refreshed once.

The demo provider rotates refresh tokens and a reused one revokes the whole grant, so two
replicas refreshing side by side would lose alice's connection and ask her to connect again.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable
from contextlib import AsyncExitStack, asynccontextmanager
from pathlib import Path
from typing import Any

import httpx
import pytest
from starlette.middleware import Middleware
from starlette.types import ASGIApp, Receive, Scope, Send
from support.oauth_harness import (
    Agenda,
    auth,
    build_agenda,
    connected_alice,
    events,
    mcp_session,
    provider,
    serve,
    stored,
    token,
)
from support.redis_server import RedisServer, redis_server

from elicitkit.demo.auth_server import DemoAuthServer
from elicitkit.demo.provider import DemoProvider
from elicitkit.server._backends import open_store
from elicitkit.server._oauth import _refresh as refreshing
from elicitkit.server._vault import KeyRing
from elicitkit.server.store import Store
from elicitkit.server.store._sqlite import SQLiteStore

__all__ = ["auth", "provider", "redis_server"]
pytestmark = pytest.mark.timeout(90)


@asynccontextmanager
async def replicas(
    auth: DemoAuthServer, provider: DemoProvider, open_shared: Callable[[], Store]
) -> AsyncIterator[tuple[Agenda, Agenda]]:
    """Two agenda servers, each with its own connection to the shared store, the same keys."""
    keys = KeyRing.from_string(KeyRing.generate("k1"))
    built: list[Agenda] = []

    def build(url: str) -> Any:
        built.append(build_agenda(url, auth, provider, store=open_shared(), keys=keys))
        return built[-1].server.streamable_http_app()

    async with AsyncExitStack() as stack:
        try:
            await stack.enter_async_context(serve(build))
            await stack.enter_async_context(serve(build))
            # each build registered only its own redirect URI; alice may connect through either
            provider.set_redirect_uris([agenda.calendar.redirect_uri for agenda in built])
            yield built[0], built[1]
        finally:
            await stack.aclose()
            for agenda in built:
                await agenda.url_mode.store.close()


async def refresh_once_across_replicas(
    auth: DemoAuthServer, provider: DemoProvider, open_shared: Callable[[], Store]
) -> None:
    async with replicas(auth, provider, open_shared) as (a, b):
        mcp_token = await token(auth, "alice")
        async with (
            mcp_session(f"{a.base}/mcp", mcp_token) as alice_a,
            mcp_session(f"{b.base}/mcp", mcp_token) as alice_b,
        ):
            await connected_alice(a, auth, provider, alice_a)  # once, through replica A
            assert events(await alice_b.client.call_tool("agenda", {}))["owner"] == "alice"  # B has it too

            for _ in range(3):  # a few rounds: each one a fresh race between the replicas
                before = await stored(b, "alice", auth.issuer)
                assert before is not None
                provider.expire_access_tokens()
                seen = len(provider.authorization_headers)
                calls = [session.client.call_tool("agenda", {}) for session in (alice_a, alice_b) * 3]
                results = await asyncio.gather(*calls, return_exceptions=True)
                failed = [r for r in results if isinstance(r, BaseException) or r.is_error]
                assert not failed, failed  # a lost grant shows here: -32042, connect again
                assert all(events(result)["owner"] == "alice" for result in results)
                assert alice_a.urls.empty() and alice_b.urls.empty()

                # one refresh: the token endpoint is where the client sends its Basic credentials
                to_token = [h for h in provider.authorization_headers[seen:] if h.startswith("Basic ")]
                assert len(to_token) == 1, to_token
                after = await stored(a, "alice", auth.issuer)
                assert after is not None and after == await stored(b, "alice", auth.issuer)
                assert after["refresh_token"] != before["refresh_token"]  # rotated, once
                async with httpx.AsyncClient() as http:  # the grant survived: the kept token works
                    answer = await http.get(
                        provider.api_url, headers={"Authorization": f"Bearer {after['access_token']}"}
                    )
                assert answer.status_code == 200


async def test_replicas_on_one_sqlite_file_refresh_once(
    auth: DemoAuthServer, provider: DemoProvider, tmp_path: Path
) -> None:
    await refresh_once_across_replicas(auth, provider, lambda: SQLiteStore(tmp_path / "shared.sqlite3"))


async def test_replicas_on_one_redis_refresh_once(
    auth: DemoAuthServer, provider: DemoProvider, redis_server: RedisServer
) -> None:
    await refresh_once_across_replicas(auth, provider, lambda: open_store(redis_server.url))


async def test_a_refresh_held_elsewhere_is_waited_for_then_refused_not_repeated(
    auth: DemoAuthServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """While another replica is refreshing (its request to the provider not answered yet), a call
    waits, then fails with a sentence; it never refreshes alongside, so the grant survives."""
    monkeypatch.setattr(refreshing, "_REFRESH_WAIT", 0.5)  # 10 s, as long as the request's deadline
    async with (
        SlowTokens(client_id="agenda-server", client_secret="agenda-s3cret") as provider,
        replicas(auth, provider, lambda: SQLiteStore(tmp_path / "shared.sqlite3")) as (a, b),
    ):
        mcp_token = await token(auth, "alice")
        async with (
            mcp_session(f"{a.base}/mcp", mcp_token) as alice,
            mcp_session(f"{b.base}/mcp", mcp_token) as alice_b,
        ):
            await connected_alice(a, auth, provider, alice)
            provider.expire_access_tokens()
            provider.answer.clear()  # the provider takes its time
            elsewhere = asyncio.create_task(alice_b.client.call_tool("agenda", {}))  # replica B refreshes
            while b.calendar.refreshing == 0 or not provider.asked.is_set():
                await asyncio.sleep(0.01)
            seen = len(provider.authorization_headers)
            refused = await alice.client.call_tool("agenda", {})
            assert refused.is_error
            assert "Another server is refreshing the Demo Calendar access token" in str(refused.content)
            assert not [h for h in provider.authorization_headers[seen:] if h.startswith("Basic ")]

            provider.answer.set()  # B's refresh is done
            assert events(await elsewhere)["owner"] == "alice"
            assert events(await alice.client.call_tool("agenda", {}))["owner"] == "alice"
            assert alice.urls.empty()


class SlowTokens(DemoProvider):
    """The demo provider, whose token endpoint answers only once `answer` is set."""

    def __init__(self, **options: Any) -> None:
        super().__init__(**options)
        self.answer = asyncio.Event()
        self.answer.set()
        self.asked = asyncio.Event()

    def middleware(self) -> list[Middleware]:
        return [Middleware(_Slow, provider=self), *super().middleware()]


class _Slow:
    def __init__(self, app: ASGIApp, provider: SlowTokens) -> None:
        self.app, self.provider = app, provider

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http" and scope["path"] == "/token" and not self.provider.answer.is_set():
            self.provider.asked.set()
            await self.provider.answer.wait()
        await self.app(scope, receive, send)
