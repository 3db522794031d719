"""Shared by the oidc-provider OAuth tests (tests/server/oauth, tests/e2e): an "agenda" MCP
server with one `OAuthConnection` per client authentication method, all at one panva
oidc-provider (tests/support/oidc_peer.py) whose clients are registered for them; the calendar API's
tokens are opaque and checked by introspection, as the API itself would.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from typing import Any

import httpx
import pytest
from joserfc.jwk import RSAKey
from mcp.server.auth.settings import AuthSettings
from mcp.server.mcpserver import Context, MCPServer
from mcp.shared.exceptions import MCPError

from elicitkit.demo.auth_server import DemoAuthServer
from elicitkit.server._elicitation import Elicitation
from elicitkit.server._oauth import OAuthConnection
from elicitkit.server._url_mode import UrlMode
from elicitkit.server._user import User
from elicitkit.server._vault import KeyRing
from elicitkit.server._web.login import OAuthLogin
from elicitkit.server.store import MemoryStore
from support.oauth_harness import Browser, continue_url, serve, url_required
from support.oidc_peer import OidcPeer
from support.server_process import free_port

CAL = "https://calendar.example/api"
SECRET = "b+s/e=c%r:e t"  # what RFC 6749 section 2.3.1 form-encoding is for
KEY = RSAKey.generate_key(2048)
SCOPES = ["openid", "offline_access", "calendar.read"]
DESCRIBED = {"calendar.read": "read your calendar", "calendar.write": "change your calendar"}


@dataclass
class Setup:
    """How each connection talks to the provider: (client metadata at the peer, connection options)."""

    clients: dict[str, tuple[dict[str, Any], dict[str, Any]]] = field(
        default_factory=lambda: {
            "basic": ({"client_secret": SECRET, "token_endpoint_auth_method": "client_secret_basic"}, {}),
            "post": (
                {"client_secret": SECRET, "token_endpoint_auth_method": "client_secret_post"},
                {"token_endpoint_auth_method": "client_secret_post"},
            ),
            "jwt": (
                {
                    "token_endpoint_auth_method": "private_key_jwt",
                    "jwks": {"keys": [KEY.as_dict(private=False)]},
                },
                {"private_key": KEY.as_pem(private=True).decode()},
            ),
            "public": ({"token_endpoint_auth_method": "none"}, {}),
            "wide": (  # asks for more than the calendar API grants
                {"client_secret": SECRET},
                {"scopes": [*SCOPES, "calendar.write"], "authorization_params": {"ui_locales": "de"}},
            ),
            "wrong": ({"client_secret": "the-real-one"}, {}),  # the server is configured with SECRET
            "silent": (
                {"client_secret": SECRET},
                {"authorization_params": {"prompt": "none"}},
            ),  # login_required
        }
    )


@dataclass
class Running:
    base: str
    peer: OidcPeer
    url_mode: UrlMode
    connections: dict[str, OAuthConnection]


def connection_options(name: str, options: dict[str, Any]) -> dict[str, Any]:
    secret = {} if name in ("jwt", "public") else {"client_secret": SECRET}
    return {"scopes": SCOPES, "resource": CAL, **secret, **options}


@asynccontextmanager
async def running(auth: DemoAuthServer) -> AsyncIterator[Running]:
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    setup = Setup()
    clients = [
        {
            "client_id": f"agenda-{name}",
            "redirect_uris": [f"{base}/elicit/callback/{name}"],
            "grant_types": ["authorization_code", "refresh_token"],
            **metadata,
        }
        for name, (metadata, _) in setup.clients.items()
    ]
    clients.append(
        {
            "client_id": "calendar-api",
            "client_secret": "api",
            "redirect_uris": [],
            "grant_types": [],
            "response_types": [],
        }
    )
    with OidcPeer(clients=clients, resources={CAL: {"scope": "calendar.read", "format": "opaque"}}) as peer:
        built: list[Running] = []

        def build(url: str) -> Any:
            server: MCPServer[Any] = MCPServer(
                "agenda",
                token_verifier=auth.token_verifier(),
                auth=AuthSettings(issuer_url=auth.issuer, resource_server_url=None, required_scopes=["mcp"]),  # type: ignore[arg-type]
            )
            url_mode = UrlMode(
                browser=OAuthLogin(auth.issuer, scopes=["openid"]),
                public_url=url,
                keys=KeyRing.from_string(KeyRing.generate("k1")),
                store=MemoryStore(),
                wait="error",
            )
            elicit = Elicitation(server, url_mode=url_mode)
            connections = {
                name: elicit.oauth(
                    name,
                    service="Peer Calendar",
                    client_id=f"agenda-{name}",
                    issuer=peer.issuer,
                    scope_descriptions=DESCRIBED,
                    **connection_options(name, options),
                )
                for name, (_, options) in setup.clients.items()
            }

            @server.tool()
            async def use(name: str, ctx: Context) -> str:  # type: ignore[type-arg]
                connection = connections[name]
                access = await connection.token(ctx)
                return json.dumps({"token": access, "granted": await connection.granted_scopes(ctx)})

            @server.tool()
            async def disconnect(name: str, ctx: Context) -> str:  # type: ignore[type-arg]
                return "revoked" if await connections[name].disconnect(ctx) else "deleted"

            built.append(Running(url, peer, url_mode, connections))
            return server.streamable_http_app()

        async with serve(build, port):
            yield built[0]


async def introspect(peer: OidcPeer, value: str) -> dict[str, Any]:
    async with httpx.AsyncClient() as http:
        answer = await http.post(
            f"{peer.issuer}/token/introspection", data={"token": value}, auth=("calendar-api", "api")
        )
    return dict(answer.json())


async def stored(run: Running, name: str) -> dict[str, Any]:
    raw = await run.url_mode.vault.get(User(run.url_mode.users.issuer or "", "alice"), f"oauth:{name}:tokens")
    assert raw is not None
    return dict(json.loads(raw))


async def connect(
    run: Running, auth: DemoAuthServer, alice: Any, name: str, *, languages: str | None = None
) -> tuple[str, httpx.Response]:
    """alice calls the tool, gets the link (-32042), consents, signs in at the peer, comes back;
    her browser asks for pages in `languages` (an Accept-Language value) when given."""
    with pytest.raises(MCPError) as raised:
        await alice.client.call_tool("use", {"name": name})
    async with Browser(auth, "alice") as browser:
        if languages is not None:
            browser.http.headers["Accept-Language"] = languages
        authorize = await consent_here(browser, url_required(raised.value))
        callback = await run.peer.sign_in(browser.http, authorize, "alice")
        return authorize, await browser.http.get(callback)


async def consent_here(browser: Browser, url: str) -> str:
    page = await browser.open(url)
    assert page.status_code == 200 and "Peer Calendar" in page.text, page.text
    moving_on = await browser.submit(page, action="connect")
    return continue_url(moving_on.text)


async def use(alice: Any, name: str) -> dict[str, Any]:
    result = await alice.client.call_tool("use", {"name": name})
    assert not result.is_error, result
    return dict(json.loads(result.content[0].text))
