"""`OAuthLogin` signs the person in at panva's oidc-provider (a real OAuth server none of us
wrote) and checks the browser's token with the MCP server's own verifier, which accepts only
JWTs issued for this MCP server (RFC 8707 audience) with the `mcp` scope. At its defaults the
login asks for exactly that, so alice's first link signs her in; a setting that could never
match is refused when the server is put together, with a sentence naming what to set.
"""

from __future__ import annotations

import base64
import hashlib
import secrets
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any
from urllib.parse import urljoin

import httpx
import pytest
from mcp.server.auth.provider import AccessToken
from mcp.server.auth.settings import AuthSettings
from mcp.server.mcpserver import Context, MCPServer
from mcp.shared.exceptions import MCPError
from pydantic import AnyHttpUrl
from support.oidc_peer import OidcPeer
from support.server_process import free_port
from support.url_harness import Browser, mcp_session, read_form, serve

from elicitkit.server import (
    Elicitation,
    KeyRing,
    MemoryStore,
    OAuthLogin,
    UrlMode,
    UrlModeError,
)
from elicitkit.server._tokens import JWTVerifier

pytestmark = pytest.mark.timeout(90)

PORT = free_port()
BASE = f"http://127.0.0.1:{PORT}"
MCP = f"{BASE}/mcp"
OTHER = "https://other.example/mcp"
APP_CALLBACK = "http://127.0.0.1:9/callback"
CLIENTS = [
    {  # the MCP client alice uses
        "client_id": "mcp-app",
        "token_endpoint_auth_method": "none",
        "redirect_uris": [APP_CALLBACK],
        "grant_types": ["authorization_code"],
    },
    {  # the browser sign-in of the MCP server's pages
        "client_id": "tables-login",
        "token_endpoint_auth_method": "none",
        "redirect_uris": [f"{BASE}/elicit/login/callback"],
        "grant_types": ["authorization_code"],
    },
]


def tables(verifier: Any, auth: AuthSettings, login: OAuthLogin) -> MCPServer[Any]:
    """An MCP server whose tool needs a secret typed on its own page (URL mode, -32042)."""
    server: MCPServer[Any] = MCPServer("tables", token_verifier=verifier, auth=auth)
    url_mode = UrlMode(
        browser=login,
        public_url=BASE,
        keys=KeyRing.from_string(KeyRing.generate()),
        store=MemoryStore(),
        wait="error",
    )
    key = Elicitation(server, url_mode=url_mode).secret("api-key", title="API key", message="Your key.")

    @server.tool()
    async def forecast(ctx: Context) -> str:  # type: ignore[type-arg]
        return f"key of {len(await key.get(ctx))} characters"

    return server


def settings(issuer: str, *, resource: str | None = MCP, strict: bool | None = True) -> AuthSettings:
    return AuthSettings(
        issuer_url=AnyHttpUrl(issuer),
        resource_server_url=AnyHttpUrl(resource) if resource else None,
        validate_token_resource=strict if resource else None,
        required_scopes=["mcp"],
    )


async def mcp_token(peer: OidcPeer, login: str) -> str:
    """What alice's MCP client gets: code + PKCE for this server, as MCP clients do it."""
    async with httpx.AsyncClient(timeout=10) as http:
        verifier = secrets.token_urlsafe(48)
        challenge = base64.urlsafe_b64encode(hashlib.sha256(verifier.encode()).digest()).rstrip(b"=")
        params = {
            "client_id": "mcp-app",
            "response_type": "code",
            "redirect_uri": APP_CALLBACK,
            "scope": "openid mcp",
            "state": "s",
            "code_challenge": challenge.decode(),
            "code_challenge_method": "S256",
            "resource": MCP,
        }
        back = await peer.sign_in(http, str(httpx.URL(f"{peer.issuer}/auth", params=params)), login)
        answer = await http.post(
            f"{peer.issuer}/token",
            data={
                "grant_type": "authorization_code",
                "code": httpx.URL(back).params["code"],
                "redirect_uri": APP_CALLBACK,
                "code_verifier": verifier,
                "client_id": "mcp-app",
                "resource": MCP,
            },
        )
        answer.raise_for_status()
        return str(answer.json()["access_token"])


@asynccontextmanager
async def running(server: MCPServer[Any]) -> AsyncIterator[None]:
    async with serve(lambda url: server.streamable_http_app(), PORT):
        yield


async def first_link(peer: OidcPeer, browser: httpx.AsyncClient, person: str) -> str:
    """The person's tool is held with -32042; their browser opens the link, is sent to sign in
    at the provider, signs in there, and is sent back: the URL it is sent back to."""
    async with mcp_session(MCP, await mcp_token(peer, person)) as session:
        with pytest.raises(MCPError) as raised:
            await session.client.call_tool("forecast", {})
    url = raised.value.error.data["elicitations"][0]["url"]
    for _ in range(10):  # our landing page, then our login, then the provider
        answer = await browser.get(url)
        if not answer.is_redirect:
            break
        url = urljoin(url, answer.headers["location"])
        if url.startswith(peer.issuer):
            return await peer.sign_in(browser, url, person)
    raise AssertionError(f"the link did not lead to a sign-in at the provider: {url}")


@pytest.fixture(scope="module")
def peer() -> Any:
    with OidcPeer(clients=CLIENTS, resources={MCP: {"scope": "mcp", "format": "jwt"}}) as started:
        yield started


@pytest.mark.parametrize("scopes", [(), ("openid",)])
async def test_the_first_link_signs_alice_in_at_the_defaults(peer: OidcPeer, scopes: tuple[str, ...]) -> None:
    verifier = JWTVerifier(peer.issuer, MCP, required_scopes=["mcp"])
    login = OAuthLogin(peer.issuer, client_id="tables-login", scopes=scopes)
    async with running(tables(verifier, settings(peer.issuer), login)), Browser(None, "alice") as alice:
        browser = alice.http  # keeps the pages' cookies as a browser does on loopback
        callback = await first_link(peer, browser, "alice")
        signed_in = await browser.get(callback)
        assert signed_in.status_code == 303, callback  # not "Sign-in failed" (401)
        page = await browser.get(urljoin(callback, signed_in.headers["location"]))
    assert httpx.URL(callback).path == "/elicit/login/callback"
    assert page.status_code == 200 and "alice" in page.text
    action, fields = read_form(page.text)
    assert action and "csrf" in fields  # the secret's own page, ready for her key


async def test_a_custom_verifier_gets_the_audience_from_auth_settings(peer: OidcPeer) -> None:
    """The SDK's way: a verifier of your own that checks the audience (as the SDK's example
    does) and says nothing about it; `AuthSettings` names the audience and the scopes."""
    jwt = JWTVerifier(peer.issuer, MCP)

    class Mine:
        async def verify_token(self, token: str) -> AccessToken | None:
            return await jwt.verify_token(token)

    login = OAuthLogin(peer.issuer, client_id="tables-login")
    async with running(tables(Mine(), settings(peer.issuer), login)), Browser(None, "bob") as bob:
        signed_in = await bob.http.get(await first_link(peer, bob.http, "bob"))
    assert signed_in.status_code == 303, signed_in.text[:300]


def test_a_resource_the_verifier_refuses_is_an_error_at_start_up() -> None:
    verifier = JWTVerifier("https://as.example", MCP)
    login = OAuthLogin("https://as.example", resource=OTHER)
    with pytest.raises(UrlModeError) as raised:
        tables(verifier, settings("https://as.example"), login)
    said = str(raised.value)
    assert OTHER in said and f"resource={MCP!r}" in said and "\n" not in said


def test_an_issuer_the_verifier_does_not_trust_is_an_error_at_start_up() -> None:
    verifier = JWTVerifier("https://as.example", MCP)
    login = OAuthLogin("https://elsewhere.example")
    with pytest.raises(UrlModeError, match=r"OAuthLogin\('https://as.example'\)"):
        tables(verifier, settings("https://as.example"), login)


def test_auth_settings_that_check_the_audience_refuse_another_resource_at_start_up() -> None:
    class Mine:
        async def verify_token(self, token: str) -> AccessToken | None:
            return None

    login = OAuthLogin("https://as.example", resource=OTHER)
    with pytest.raises(UrlModeError, match="resource="):
        tables(Mine(), settings("https://as.example", strict=True), login)
    lenient = OAuthLogin("https://as.example", resource=OTHER)  # the SDK does not check it: yours
    tables(Mine(), settings("https://as.example", strict=False), lenient)
    assert lenient.resource == OTHER


def test_what_the_login_asks_for_is_readable(peer: OidcPeer) -> None:
    """Your scopes and the verifier's; `AuthSettings.required_scopes` only when you gave none
    (the SDK asks those of MCP requests, not of a token, and your client may not be allowed them)."""
    verifier = JWTVerifier(peer.issuer, MCP, required_scopes=["profile"])
    yours = OAuthLogin(peer.issuer, client_id="tables-login", scopes=["openid"])
    tables(verifier, settings(peer.issuer), yours)
    defaults = OAuthLogin(peer.issuer, client_id="tables-login")
    tables(verifier, settings(peer.issuer), defaults)
    assert (yours.resource, yours.scopes) == (MCP, ["openid", "profile"])
    assert (defaults.resource, defaults.scopes) == (MCP, ["mcp", "profile"])
