"""The browser sign-in finds its issuer's endpoints the way third-party connections and token
verifiers do (RFC 8414 with the path inserted after the host, then OpenID Connect), and
refuses a discovery document that names another issuer: the person is never sent to
endpoints someone else published. Against a real HTTP issuer on 127.0.0.1."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import httpx
import pytest
from mcp.server.mcpserver import MCPServer
from starlette.applications import Starlette
from support.trickle_issuer import TrickleIssuer
from support.url_harness import serve

from elicitkit.server import Elicitation, KeyRing, MemoryStore, OAuthLogin, UrlMode
from elicitkit.server._oauth import OAuthConfigError
from elicitkit.server._oauth.metadata import discover
from elicitkit.server._user import User
from elicitkit.server.store import Record

pytestmark = pytest.mark.timeout(60)


def document(issuer: str, endpoints: str | None = None) -> dict[str, Any]:
    at = endpoints or issuer
    return {
        "issuer": issuer,
        "authorization_endpoint": f"{at}/authorize",
        "token_endpoint": f"{at}/token",
        "code_challenge_methods_supported": ["S256"],
    }


@asynccontextmanager
async def sign_in_page(issuer: str) -> AsyncIterator[httpx.Response]:
    """The answer a person gets opening a URL-mode page whose sign-in is at `issuer`."""
    keys, store = KeyRing.from_string(KeyRing.generate()), MemoryStore()

    def build(url: str) -> Starlette:
        url_mode = UrlMode(
            browser=OAuthLogin(issuer, client_id="pages"), public_url=url, keys=keys, store=store
        )
        Elicitation(MCPServer("discovery"), url_mode=url_mode).secret(
            "api-key", title="API key", message="Why"
        )
        return Starlette(routes=url_mode.site.routes())

    record = Record.new(User(issuer, "alice"), "client", "api-key", "Why", ttl=60)
    await store.create(record)
    async with serve(build) as url, httpx.AsyncClient(timeout=30) as http:
        yield await http.get(f"{url}/elicit/{record.id}")


async def test_sign_in_at_an_issuer_with_a_path_finds_its_endpoints() -> None:
    async with TrickleIssuer(interval=0.01).running() as server:
        tenant = f"{server.url}/tenant"
        server.documents["/.well-known/oauth-authorization-server/tenant"] = document(tenant)
        async with sign_in_page(tenant) as page:
            assert page.status_code == 303
            assert page.headers["location"].startswith(f"{tenant}/authorize?")


async def test_sign_in_refuses_a_document_naming_another_issuer() -> None:
    async with TrickleIssuer(interval=0.01).running() as server:
        server.documents["/.well-known/oauth-authorization-server"] = document(
            "https://evil.example", endpoints="https://evil.example"
        )
        async with sign_in_page(server.url) as page:
            assert page.status_code == 502 and "Sign-in failed" in page.text
            assert "evil.example" not in page.headers.get("location", "")
        with pytest.raises(OAuthConfigError, match="must match exactly"):
            await discover(server.url)


async def test_a_root_issuer_with_or_without_its_trailing_slash_is_the_same_issuer() -> None:
    async with TrickleIssuer(interval=0.01).running() as server:
        server.documents["/.well-known/oauth-authorization-server"] = document(f"{server.url}/", server.url)
        found = await discover(server.url)
        assert found.authorization_endpoint == f"{server.url}/authorize"
        async with sign_in_page(server.url) as page:
            assert page.status_code == 303
            assert page.headers["location"].startswith(f"{server.url}/authorize?")
