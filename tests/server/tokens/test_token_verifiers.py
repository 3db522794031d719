"""`JWTVerifier` (RFC 9068) and `IntrospectionVerifier` (RFC 7662) against panva's
oidc-provider: a token is accepted only by the server it was issued for (RFC 8707), only from
its issuer, only unexpired, unrevoked and with the scopes required; the user is its `sub`.
Through a real MCP server, a refused token gets the SDK's 401 with `WWW-Authenticate`."""

from __future__ import annotations

import asyncio
import base64
import hashlib
import json
import secrets
import time
from collections.abc import AsyncIterator, Iterator
from typing import Any

import httpx
import pytest
from mcp.server.auth.settings import AuthSettings
from mcp.server.mcpserver import Context, MCPServer
from pydantic import AnyHttpUrl
from support.oidc_peer import OidcPeer
from support.server_process import free_port
from support.url_harness import mcp_session, serve

from elicitkit.server._tokens import IntrospectionVerifier, JWTVerifier, basic_credentials
from elicitkit.server._user import McpUsers

pytestmark = pytest.mark.timeout(90)

PORT = free_port()
MCP = f"http://127.0.0.1:{PORT}/mcp"
OTHER = "https://other.example/mcp"
OPAQUE = "https://opaque.example/mcp"
CALLBACK = "http://127.0.0.1:9/callback"
RS_SECRET = "rs+se/cr=et%25:x y"  # every character RFC 6749 section 2.3.1 encoding is about
RESOURCES = {
    MCP: {"scope": "mcp", "format": "jwt"},
    OTHER: {"scope": "mcp", "format": "jwt"},
    OPAQUE: {"scope": "mcp", "format": "opaque"},
    "https://other-opaque.example/mcp": {"scope": "mcp", "format": "opaque"},
}
CLIENTS = [
    {
        "client_id": "mcp-app",
        "token_endpoint_auth_method": "none",
        "redirect_uris": [CALLBACK],
        "grant_types": ["authorization_code"],
    },
    {
        "client_id": "mcp-resource-server",
        "client_secret": RS_SECRET,
        "redirect_uris": [],
        "grant_types": [],
        "response_types": [],
    },
]


@pytest.fixture(scope="module")
def peer() -> Iterator[OidcPeer]:
    with OidcPeer(clients=CLIENTS, resources=RESOURCES) as started:
        yield started


@pytest.fixture(scope="module")
def stranger() -> Iterator[OidcPeer]:
    """Another issuer that knows the same resources: its tokens must not pass ours."""
    with OidcPeer(clients=CLIENTS, resources=RESOURCES) as started:
        yield started


async def user_token(
    peer: OidcPeer, resource: str, *, login: str = "alice", scope: str = "mcp"
) -> dict[str, Any]:
    """Code + PKCE at the peer, as the MCP client would do it, for `resource`."""
    async with httpx.AsyncClient(timeout=10) as http:
        verifier = secrets.token_urlsafe(48)
        challenge = base64.urlsafe_b64encode(hashlib.sha256(verifier.encode()).digest()).rstrip(b"=").decode()
        params = {
            "client_id": "mcp-app",
            "response_type": "code",
            "redirect_uri": CALLBACK,
            "scope": f"openid {scope}",
            "state": "s",
            "code_challenge": challenge,
            "code_challenge_method": "S256",
            "resource": resource,
        }
        back = await peer.sign_in(http, str(httpx.URL(f"{peer.issuer}/auth", params=params)), login)
        code = httpx.URL(back).params["code"]
        answer = await http.post(
            f"{peer.issuer}/token",
            data={
                "grant_type": "authorization_code",
                "code": code,
                "redirect_uri": CALLBACK,
                "code_verifier": verifier,
                "client_id": "mcp-app",
                "resource": resource,
            },
        )
        answer.raise_for_status()
        return dict(answer.json())


def introspection(peer: OidcPeer, resource: str = OPAQUE, **options: Any) -> IntrospectionVerifier:
    return IntrospectionVerifier(
        peer.issuer, resource, client_id="mcp-resource-server", client_secret=RS_SECRET, **options
    )


async def test_jwt_for_this_server_names_the_user(peer: OidcPeer) -> None:
    token = await user_token(peer, MCP, login="alice")
    verified = await JWTVerifier(peer.issuer, MCP, required_scopes=["mcp"]).verify_token(
        token["access_token"]
    )
    assert verified is not None
    assert (verified.subject, verified.client_id, verified.scopes) == ("alice", "mcp-app", ["mcp"])
    assert verified.claims is not None and verified.claims["iss"] == peer.issuer
    assert verified.resource == MCP and verified.expires_at is not None


async def test_jwt_refusals(peer: OidcPeer, stranger: OidcPeer) -> None:
    mine = JWTVerifier(peer.issuer, MCP, required_scopes=["mcp"])
    for_other = await user_token(peer, OTHER)
    assert await JWTVerifier(peer.issuer, OTHER).verify_token(for_other["access_token"]) is not None
    assert await mine.verify_token(for_other["access_token"]) is None  # another resource (RFC 8707)
    from_stranger = await user_token(stranger, MCP)
    assert await mine.verify_token(from_stranger["access_token"]) is None  # another issuer's keys
    good = await user_token(peer, MCP)
    assert await mine.verify_token(good["id_token"]) is None  # an ID token is not an access token
    assert (
        await JWTVerifier(peer.issuer, MCP, required_scopes=["admin"]).verify_token(good["access_token"])
        is None
    )
    assert await mine.verify_token(good["access_token"][:-4] + "AAAA") is None  # signature broken
    assert await mine.verify_token("not-a-jwt") is None
    assert await mine.verify_token(good["access_token"]) is not None


async def test_jwt_expiry_is_enforced() -> None:
    with OidcPeer(clients=CLIENTS, resources=RESOURCES, access_token_ttl=5) as short:
        token = await user_token(short, MCP)
        verifier = JWTVerifier(short.issuer, MCP, leeway=0)
        assert await verifier.verify_token(token["access_token"]) is not None
        # until just past the token's own `exp` (a loaded machine may take a second to get here)
        payload = token["access_token"].split(".")[1]
        expires = json.loads(base64.urlsafe_b64decode(payload + "=" * (-len(payload) % 4)))["exp"]
        await asyncio.sleep(max(0.0, expires - time.time()) + 1.2)
        assert await verifier.verify_token(token["access_token"]) is None


async def test_introspection_checks_audience_issuer_and_revocation(
    peer: OidcPeer, stranger: OidcPeer
) -> None:
    verifier = introspection(peer)  # client_secret_basic with a secret full of + / = % : and a space
    token = await user_token(peer, OPAQUE, login="bob")
    verified = await verifier.verify_token(token["access_token"])
    assert verified is not None and verified.subject == "bob" and verified.scopes == ["mcp"]
    assert verified.claims is not None and verified.claims["iss"] == peer.issuer
    post = introspection(peer, auth_method="client_secret_post")
    assert await post.verify_token(token["access_token"]) is not None
    other = await user_token(peer, "https://other-opaque.example/mcp")
    assert await verifier.verify_token(other["access_token"]) is None  # issued for another resource
    assert await introspection(peer, required_scopes=["admin"]).verify_token(token["access_token"]) is None
    foreign = await user_token(stranger, OPAQUE)
    assert await verifier.verify_token(foreign["access_token"]) is None  # unknown at our issuer
    async with httpx.AsyncClient() as http:
        revoked = await http.post(
            f"{peer.issuer}/token/revocation",
            data={"token": token["access_token"], "client_id": "mcp-app"},
        )
    assert revoked.status_code == 200
    assert await verifier.verify_token(token["access_token"]) is None


def test_basic_credentials_form_encode_before_base64() -> None:
    header = basic_credentials("my client", "a+b/c=d%e:f")
    decoded = base64.b64decode(header.removeprefix("Basic ")).decode()
    assert decoded == "my+client:a%2Bb%2Fc%3Dd%25e%3Af"


def build_mcp(verifier: JWTVerifier, issuer: str) -> Any:
    def build(url: str) -> Any:
        server: MCPServer[Any] = MCPServer(
            "tokens",
            token_verifier=verifier,
            auth=AuthSettings(
                issuer_url=AnyHttpUrl(issuer), resource_server_url=AnyHttpUrl(MCP), required_scopes=["mcp"]
            ),
        )

        @server.tool()
        async def whoami(ctx: Context) -> str:  # type: ignore[type-arg]
            caller = McpUsers().caller()
            return f"{caller.user.subject} at {caller.user.issuer}"

        return server.streamable_http_app()

    return build


@pytest.fixture
async def mcp_server(peer: OidcPeer) -> AsyncIterator[str]:
    async with serve(build_mcp(JWTVerifier(peer.issuer, MCP), peer.issuer), PORT) as url:
        yield url


async def test_mcp_server_rejects_a_token_for_another_resource(peer: OidcPeer, mcp_server: str) -> None:
    for_other = await user_token(peer, OTHER)
    async with httpx.AsyncClient() as http:
        refused = await http.post(
            f"{mcp_server}/mcp",
            json={"jsonrpc": "2.0", "id": 1, "method": "ping"},
            headers={"Authorization": f"Bearer {for_other['access_token']}", "Accept": "application/json"},
        )
    assert refused.status_code == 401
    challenge = refused.headers["www-authenticate"]
    assert challenge.startswith("Bearer") and 'error="invalid_token"' in challenge
    assert "resource_metadata=" in challenge
    good = await user_token(peer, MCP, login="carol")
    async with mcp_session(f"{mcp_server}/mcp", good["access_token"]) as session:
        result = await session.client.call_tool("whoami", {})
    assert not result.is_error
    assert result.content[0].text == f"carol at {peer.issuer}"  # type: ignore[union-attr]
