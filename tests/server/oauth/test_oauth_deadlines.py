"""A provider or sign-in issuer that sends its answers a byte at a time (so httpx's per-read
timeout never fires) is given up at one overall deadline: the connection's discovery with the
documented `OAuthProviderError`, the browser sign-in with a page, not a traceback. Against a
real HTTP server on 127.0.0.1."""

from __future__ import annotations

import time
from typing import Any

import anyio
import httpx
import pytest
from mcp.server.mcpserver import MCPServer
from starlette.applications import Starlette
from support.trickle_issuer import TrickleIssuer
from support.url_harness import serve

from elicitkit.server import Elicitation, KeyRing, MemoryStore, OAuthLogin, UrlMode
from elicitkit.server._oauth import OAuthProviderError
from elicitkit.server._oauth.metadata import discover
from elicitkit.server._user import User
from elicitkit.server.store import Record

pytestmark = pytest.mark.timeout(60)


async def test_a_trickling_discovery_ends_in_a_provider_error_within_its_deadline() -> None:
    async with TrickleIssuer(interval=0.5).running() as server:
        path = "/.well-known/oauth-authorization-server"
        server.documents[path] = {
            "issuer": server.url,
            "authorization_endpoint": f"{server.url}/authorize",
            "token_endpoint": f"{server.url}/token",
            "padding": "x" * 200,  # 100 s a byte at a time
        }
        server.slow = {path}
        start = time.monotonic()
        with anyio.fail_after(30), pytest.raises(OAuthProviderError) as raised:
            await discover(server.url)
        took = time.monotonic() - start
    assert 9 < took < 12, took
    assert "within 10 seconds" in str(raised.value)


async def test_a_trickling_sign_in_issuer_gives_the_person_a_page_within_the_deadline() -> None:
    keys = KeyRing.from_string(KeyRing.generate())
    store = MemoryStore()
    async with TrickleIssuer(interval=0.5).running() as issuer:
        path = "/.well-known/oauth-authorization-server"
        issuer.documents[path] = {"issuer": issuer.url, "padding": "x" * 200}
        issuer.slow = {path}

        def build(url: str) -> Starlette:
            login = OAuthLogin(issuer.url, client_id="pages")
            url_mode = UrlMode(browser=login, public_url=url, keys=keys, store=store)
            Elicitation(MCPServer("slow-issuer"), url_mode=url_mode).secret(
                "api-key", title="API key", message="The tool needs it."
            )
            return Starlette(routes=url_mode.site.routes())

        record = Record.new(User(issuer.url, "alice"), "client", "api-key", "Why", ttl=60)
        await store.create(record)
        async with serve(build) as url, httpx.AsyncClient(timeout=30) as http:
            start = time.monotonic()
            page = await http.get(f"{url}/elicit/{record.id}")
            took = time.monotonic() - start
    assert page.status_code == 502 and "Traceback" not in page.text
    assert "Sign-in failed" in page.text
    assert took < 12, took


async def test_a_trickling_token_endpoint_ends_exchange_and_refresh_within_the_deadline() -> None:
    from elicitkit.server._oauth._client import ProviderClient
    from elicitkit.server._oauth.metadata import ProviderMetadata

    async with TrickleIssuer(interval=0.5).running() as server:
        server.documents["/token"] = {"access_token": "a" * 200, "token_type": "Bearer"}
        server.slow = {"/token"}
        client = ProviderClient(
            metadata=ProviderMetadata(f"{server.url}/authorize", f"{server.url}/token"),
            service="Slow Provider",
            client_id="c",
            client_secret="s",
            scopes=(),
            redirect_uri="http://127.0.0.1:9/callback",
        )
        errors: list[str] = []

        async def expect_error(call: Any) -> None:
            with pytest.raises(OAuthProviderError) as raised:
                await call
            errors.append(str(raised.value))

        start = time.monotonic()
        with anyio.fail_after(30):
            async with anyio.create_task_group() as tasks:
                tasks.start_soon(expect_error, client.exchange("code", "verifier"))
                tasks.start_soon(expect_error, client.refresh("refresh-token"))
        took = time.monotonic() - start
    assert 9 < took < 12, took
    assert len(errors) == 2 and all("Slow Provider" in error for error in errors)
