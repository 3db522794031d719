"""A FastMCP server with MCP authorization (a FastMCP `TokenVerifier` over the demo
authorization server): each user's `Secret` is bound to that user, the page signs the browser
in at the same authorization server, and one user's link is refused to another."""

from __future__ import annotations

import asyncio
import hashlib
from typing import Any

import pytest
from fastmcp import Context, FastMCP
from fastmcp.server.auth import AccessToken, TokenVerifier
from support.oauth_harness import Browser, auth, mcp_session, serve, token  # noqa: F401 - auth is a fixture

from elicitkit.demo.auth_server import DemoAuthServer
from elicitkit.fastmcp import Elicitation
from elicitkit.server import KeyRing, McpUsers, MemoryStore, OAuthLogin, UrlMode

pytestmark = pytest.mark.timeout(90)


class DemoVerifier(TokenVerifier):
    """FastMCP's token verifier, checking tokens of the demo authorization server."""

    def __init__(self, demo: DemoAuthServer) -> None:
        super().__init__(required_scopes=["mcp"])
        self._sdk = demo.token_verifier()

    async def verify_token(self, token: str) -> AccessToken | None:
        found = await self._sdk.verify_token(token)
        return None if found is None else AccessToken(**found.model_dump())


def secured(url: str, demo: DemoAuthServer) -> Any:
    server: FastMCP[Any] = FastMCP("weather", auth=DemoVerifier(demo))
    url_mode = UrlMode(
        browser=OAuthLogin(demo.issuer, scopes=["openid"], token_verifier=demo.token_verifier()),
        public_url=url,
        keys=KeyRing.from_string(KeyRing.generate()),
        store=MemoryStore(),
        users=McpUsers(issuer=demo.issuer),
    )
    key = Elicitation(server, url_mode=url_mode).secret("api-key", title="API key", message="Your key.")

    @server.tool
    async def whose(ctx: Context) -> str:
        return hashlib.sha256((await key.get(ctx)).encode()).hexdigest()[:8]

    return server.http_app()


def digest(value: str) -> str:
    return hashlib.sha256(value.encode()).hexdigest()[:8]


async def test_each_user_gets_their_own_secret(auth: DemoAuthServer) -> None:  # noqa: F811
    async with serve(lambda url: secured(url, auth)) as base:
        results = {}
        for person in ("alice", "bob"):
            async with mcp_session(f"{base}/mcp", await token(auth, person)) as session:
                call = asyncio.create_task(session.client.call_tool("whose", {}))
                asked = await asyncio.wait_for(session.urls.get(), 30)
                assert asked.url.startswith(f"{base}/elicit/")
                if person == "bob":  # alice cannot answer bob's question
                    async with Browser(auth, "alice") as intruder:
                        page = await intruder.open(asked.url)
                        assert page.status_code in (403, 404) and "wk-" not in page.text
                async with Browser(auth, person) as browser:
                    page = await browser.open(asked.url)
                    assert page.status_code == 200 and person in page.text
                    done = await browser.submit(page, secret=f"wk-{person}", action="save")
                    assert done.status_code == 200 and "Saved" in done.text
                results[person] = await asyncio.wait_for(call, 30)
    assert {p: r.content[0].text for p, r in results.items()} == {
        "alice": digest("wk-alice"),
        "bob": digest("wk-bob"),
    }
