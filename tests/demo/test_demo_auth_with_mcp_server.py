"""The demo authorization server plugged into a real MCPServer: a tool sees who is calling."""

from collections.abc import AsyncIterator
from typing import Any

import httpx
import httpx2
import pytest
from demo_oauth_helpers import CALLBACK, query_of
from mcp import Client
from mcp.client.auth import OAuthClientProvider
from mcp.client.streamable_http import streamable_http_client
from mcp.server.auth.middleware.auth_context import get_access_token
from mcp.server.auth.provider import TokenVerifier
from mcp.server.auth.settings import AuthSettings
from mcp.server.mcpserver import MCPServer
from mcp.shared.auth import (
    AuthorizationCodeResult,
    OAuthClientInformationFull,
    OAuthClientMetadata,
    OAuthToken,
)
from starlette.types import ASGIApp

from elicitkit.demo._serve import LocalServer
from elicitkit.demo.auth_server import DemoAuthServer


class _McpHttpServer(LocalServer):
    def __init__(self, auth: DemoAuthServer, verifier: TokenVerifier) -> None:
        super().__init__()
        self.auth = auth
        self.verifier = verifier

    def build_app(self, url: str) -> ASGIApp:
        mcp = MCPServer(
            "who-am-i",
            token_verifier=self.verifier,
            auth=AuthSettings(
                issuer_url=self.auth.issuer,  # type: ignore[arg-type]
                resource_server_url=f"{url}/mcp",  # type: ignore[arg-type]
                validate_token_resource=True,
                required_scopes=["mcp"],
            ),
        )

        @mcp.tool()
        def whoami() -> dict[str, Any]:
            token = get_access_token()
            assert token is not None
            return {"sub": token.subject, "iss": (token.claims or {}).get("iss"), "client": token.client_id}

        return mcp.streamable_http_app()


@pytest.fixture(params=["same process", "introspection"])
async def mcp_server(request: pytest.FixtureRequest, auth: DemoAuthServer) -> AsyncIterator[_McpHttpServer]:
    verifier = auth.token_verifier() if request.param == "same process" else auth.introspection_verifier()
    async with _McpHttpServer(auth, verifier) as server:
        yield server


async def call_whoami(server: _McpHttpServer, token: str) -> dict[str, Any]:
    async with (
        httpx2.AsyncClient(headers={"Authorization": f"Bearer {token}"}) as http,
        Client(streamable_http_client(f"{server.url}/mcp", http_client=http)) as client,
    ):
        result = await client.call_tool("whoami", {})
    assert not result.is_error, result
    assert result.structured_content is not None
    return result.structured_content


async def test_tool_sees_the_verified_subject_and_issuer(
    auth: DemoAuthServer, mcp_server: _McpHttpServer
) -> None:
    resource = f"{mcp_server.url}/mcp"
    alice = await auth.token_for("alice", scopes=["mcp"], resource=resource)
    bob = await auth.token_for("bob", scopes=["mcp"], resource=resource)
    assert await call_whoami(mcp_server, alice.access_token) == {
        "sub": "alice",
        "iss": auth.issuer,
        "client": "demo-test-client",
    }
    assert (await call_whoami(mcp_server, bob.access_token))["sub"] == "bob"


async def test_mcp_server_refuses_bad_tokens(auth: DemoAuthServer, mcp_server: _McpHttpServer) -> None:
    elsewhere = await auth.token_for("alice", scopes=["mcp"], resource="http://127.0.0.1:1/mcp")
    no_mcp_scope = await auth.token_for("alice", scopes=["openid"], resource=f"{mcp_server.url}/mcp")
    body = {"jsonrpc": "2.0", "id": 1, "method": "ping"}
    async with httpx.AsyncClient() as http:
        anonymous = await http.post(f"{mcp_server.url}/mcp", json=body)
        wrong_audience = await http.post(
            f"{mcp_server.url}/mcp", json=body, headers={"Authorization": f"Bearer {elsewhere.access_token}"}
        )
        wrong_scope = await http.post(
            f"{mcp_server.url}/mcp",
            json=body,
            headers={"Authorization": f"Bearer {no_mcp_scope.access_token}"},
        )
    assert anonymous.status_code == 401
    assert wrong_audience.status_code == 401
    assert wrong_scope.status_code == 403


class _MemoryTokenStorage:
    def __init__(self) -> None:
        self.tokens: OAuthToken | None = None
        self.client_info: OAuthClientInformationFull | None = None

    async def get_tokens(self) -> OAuthToken | None:
        return self.tokens

    async def set_tokens(self, tokens: OAuthToken) -> None:
        self.tokens = tokens

    async def get_client_info(self) -> OAuthClientInformationFull | None:
        return self.client_info

    async def set_client_info(self, client_info: OAuthClientInformationFull) -> None:
        self.client_info = client_info


async def test_the_sdks_own_oauth_client_signs_in_through_discovery_and_registration(
    auth: DemoAuthServer, mcp_server: _McpHttpServer, browser: httpx.AsyncClient
) -> None:
    """What an MCP client does: RFC 9728 + RFC 8414 discovery, registration, code + PKCE."""
    landed: list[str] = []

    async def open_in_browser(url: str) -> None:
        landed.append(await auth.sign_in(browser, url, "bob"))

    async def wait_for_callback() -> AuthorizationCodeResult:
        answer = query_of(landed[-1])
        return AuthorizationCodeResult(code=answer["code"], state=answer.get("state"), iss=answer.get("iss"))

    storage = _MemoryTokenStorage()
    oauth = OAuthClientProvider(
        server_url=f"{mcp_server.url}/mcp",
        client_metadata=OAuthClientMetadata(redirect_uris=[CALLBACK], client_name="SDK client"),  # type: ignore[list-item]
        storage=storage,
        redirect_handler=open_in_browser,
        callback_handler=wait_for_callback,
    )
    async with (
        httpx2.AsyncClient(auth=oauth) as http,
        Client(streamable_http_client(f"{mcp_server.url}/mcp", http_client=http)) as client,
    ):
        result = await client.call_tool("whoami", {})
    assert result.structured_content is not None
    assert result.structured_content["sub"] == "bob"
    assert storage.client_info is not None
    assert result.structured_content["client"] == storage.client_info.client_id
    assert len(landed) == 1
