"""What goes wrong, said with a sentence: provider errors as friendly pages (never a stack trace),
configuration mistakes as typed errors, discovery checked, and no secret in the logs."""

from __future__ import annotations

import json
import logging
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import pytest
from mcp.shared.exceptions import MCPError
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route
from support.oauth_harness import (
    Browser,
    agenda_with,
    at_provider,
    auth,
    connect,
    consent,
    provider,
    query_of,
    serve,
    url_required,
)

from elicitkit.demo.auth_server import DemoAuthServer
from elicitkit.demo.provider import DemoProvider
from elicitkit.server._oauth import OAuthConfigError, OAuthConnection, OAuthProviderError
from elicitkit.server._oauth.metadata import discover, discovery_urls
from elicitkit.server._url_mode import UrlMode
from elicitkit.server._user import User
from elicitkit.server._vault import KeyRing
from elicitkit.server._web.login import OAuthLogin
from elicitkit.server.store import MemoryStore

__all__ = ["auth", "provider"]
pytestmark = pytest.mark.timeout(90)


def friendly(page: Any, status: int) -> str:
    assert page.status_code == status, page.text
    assert "Traceback" not in page.text and "Error:" not in page.text
    assert page.headers["content-type"].startswith("text/html")
    return str(page.text)


async def test_provider_error_answer_is_a_friendly_page(auth: DemoAuthServer, provider: DemoProvider) -> None:
    async with agenda_with(auth, provider) as (agenda, alice):
        with pytest.raises(MCPError) as raised:
            await alice.client.call_tool("agenda", {})
        url = url_required(raised.value)
        async with Browser(auth, "alice") as browser:
            authorize = await consent(browser, url)
            state = query_of(authorize)["state"]
            hostile = "<script>alert(1)</script>"
            page = await browser.http.get(
                f"{agenda.calendar.redirect_uri}?state={state}&error=server_error&error_description={hostile}"
            )
            text = friendly(page, 502)
            assert "server_error" in text and "<script>" not in text and "alert(1)" not in text
            record = await agenda.url_mode.store.get(url.rsplit("/", 1)[1])
            assert record is not None and record.state == "opened"  # alice may try again
            assert (await connect(browser, provider, url)).status_code == 200


async def test_provider_unreachable_at_the_exchange(auth: DemoAuthServer, provider: DemoProvider) -> None:
    async with agenda_with(auth, provider) as (agenda, alice):
        with pytest.raises(MCPError) as raised:
            await alice.client.call_tool("agenda", {})
        url = url_required(raised.value)
        async with Browser(auth, "alice") as browser:
            callback = await at_provider(browser, provider, await consent(browser, url))
            await provider.stop()
            text = friendly(await browser.http.get(callback), 502)
            assert "could not be reached" in text
        assert await agenda.url_mode.vault.get(User(auth.issuer, "alice"), "oauth:calendar:tokens") is None


async def test_no_secret_in_the_logs(
    auth: DemoAuthServer, provider: DemoProvider, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG, logger="elicitkit")
    async with agenda_with(auth, provider) as (agenda, alice):
        with pytest.raises(MCPError) as raised:
            await alice.client.call_tool("agenda", {})
        url = url_required(raised.value)
        async with Browser(auth, "alice") as browser:
            callback = await at_provider(browser, provider, await consent(browser, url))
            await browser.http.get(callback)
            await browser.http.get(callback)  # a refused replay logs too
        provider.expire_access_tokens()
        await alice.client.call_tool("agenda", {})
        raw = await agenda.url_mode.vault.get(User(auth.issuer, "alice"), "oauth:calendar:tokens")
        assert raw is not None
        tokens = json.loads(raw)
    logged = "\n".join(r.getMessage() for r in caplog.records if r.name.startswith("elicitkit"))
    assert "OAuth callback refused" in logged
    callback_query = query_of(callback)
    for secret in (
        tokens["access_token"],
        tokens["refresh_token"],
        provider.client_secret,
        callback_query["code"],
        callback_query["state"],
    ):
        assert secret not in logged


def url_mode_for(auth_issuer: str = "http://127.0.0.1:1") -> UrlMode:
    return UrlMode(
        browser=OAuthLogin(auth_issuer),
        public_url="http://127.0.0.1:2",
        keys=KeyRing.from_string(KeyRing.generate()),
        store=MemoryStore(),
    )


def test_configuration_mistakes_are_typed_errors() -> None:
    url_mode = url_mode_for()
    base = {"service": "X", "client_id": "c", "client_secret": "s"}
    with pytest.raises(OAuthConfigError, match="lowercase"):
        OAuthConnection(url_mode, "Has Spaces/", issuer="https://x.example", **base)
    with pytest.raises(OAuthConfigError, match="both"):
        OAuthConnection(url_mode, "half", authorization_endpoint="https://x.example/a", **base)
    with pytest.raises(OAuthConfigError, match="issuer"):
        OAuthConnection(url_mode, "nothing", **base)
    with pytest.raises(OAuthConfigError, match="not https"):
        OAuthConnection(
            url_mode,
            "plain",
            authorization_endpoint="http://x.example/a",
            token_endpoint="https://x.example/t",
            **base,
        )
    conn = OAuthConnection(
        url_mode,
        "fine",
        authorization_endpoint="https://x.example/a",
        token_endpoint="https://x.example/t",
        **base,
    )
    assert conn.redirect_uri == "http://127.0.0.1:2/elicit/callback/fine"
    url_mode.site.public_url = ""  # a stdio server whose loopback listener has not started
    with pytest.raises(OAuthConfigError, match="no public URL"):
        _ = conn.redirect_uri
    assert isinstance(OAuthConfigError("x"), Exception) and issubclass(OAuthProviderError, Exception)


def test_discovery_urls_follow_rfc_8414_then_openid() -> None:
    assert discovery_urls("https://id.example/tenant/1") == [
        "https://id.example/.well-known/oauth-authorization-server/tenant/1",
        "https://id.example/.well-known/openid-configuration/tenant/1",
        "https://id.example/tenant/1/.well-known/openid-configuration",
    ]
    assert discovery_urls("https://id.example") == [
        "https://id.example/.well-known/oauth-authorization-server",
        "https://id.example/.well-known/openid-configuration",
    ]


@asynccontextmanager
async def documents(build: Any) -> AsyncIterator[str]:
    """Serve `build(base_url) -> {path: document}` on 127.0.0.1."""
    served: dict[str, Any] = {}

    async def answer(request: Request) -> Response:
        path = request.url.path
        return JSONResponse(served[path]) if path in served else Response(status_code=404)

    def app(url: str) -> Starlette:
        served.update(build(url))
        return Starlette(routes=[Route("/{path:path}", answer)])

    async with serve(app) as url:
        yield url


def document(issuer: str, **extra: Any) -> dict[str, Any]:
    return {
        "issuer": issuer,
        "authorization_endpoint": f"{issuer}/authorize",
        "token_endpoint": f"{issuer}/token",
        "code_challenge_methods_supported": ["S256"],
        **extra,
    }


async def test_discovery_checks_the_document() -> None:
    async with documents(
        lambda url: {"/.well-known/openid-configuration/tenant": document(f"{url}/tenant")}
    ) as url:
        found = await discover(f"{url}/tenant")  # OpenID Connect fallback, path inserted
        assert found.token_endpoint == f"{url}/tenant/token" and found.revocation_endpoint is None
    async with documents(
        lambda url: {"/.well-known/oauth-authorization-server": document("https://evil.example")}
    ) as url:
        with pytest.raises(OAuthConfigError, match="must match exactly"):
            await discover(url)
    async with documents(
        lambda url: {
            "/.well-known/oauth-authorization-server": document(
                url, code_challenge_methods_supported=["plain"]
            )
        }
    ) as url:
        with pytest.raises(OAuthConfigError, match="S256"):
            await discover(url)
    async with documents(lambda url: {}) as url:
        with pytest.raises(OAuthConfigError, match="no OAuth discovery document"):
            await discover(url)
    with pytest.raises(OAuthConfigError, match="not https"):
        await discover("http://id.example")
    with pytest.raises(OAuthProviderError, match="Could not reach"):
        await discover("http://127.0.0.1:9")
