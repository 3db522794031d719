"""The bridge signs in to a remote MCP server as its OAuth client, in a real browser.

panva's oidc-provider (written by none of us) is the authorization server, with dynamic client
registration open; in front of it an MCP server that verifies its JWTs for its own resource
(RFC 8707). Chromium plays the person through the `open_browser` hook: the first run registers,
signs in and calls a tool; the tokens on disk are not readable; a second run with the same data
folder needs no browser; once the access token expires, the next run refreshes it, again
without a browser.
"""

from __future__ import annotations

import asyncio
import json
import logging
import stat
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import httpx2
import pytest
from mcp import Client
from mcp.client.streamable_http import streamable_http_client
from mcp.server.auth.middleware.auth_context import get_access_token
from mcp.server.auth.settings import AuthSettings
from mcp.server.mcpserver import MCPServer
from playwright.async_api import Browser
from pydantic import AnyHttpUrl
from support.oidc_peer import OidcPeer
from support.server_process import free_port
from support.url_harness import serve

from elicitkit.bridge._authorization import upstream_auth
from elicitkit.server._tokens import JWTVerifier

pytestmark = pytest.mark.timeout(150)

TTL = 15  # seconds an access token lives at the peer: long enough for a sign-in, short to wait out


def build_mcp(issuer: str, mcp: str) -> Callable[[str], Any]:
    """An MCP server that accepts only the peer's JWTs issued for it, and says whose token came.

    Its settings are written as people write them: `AnyHttpUrl` gives the peer's root issuer a
    trailing slash the peer's own metadata does not have; the bridge takes them as one server.
    """

    def build(url: str) -> Any:
        server: MCPServer[Any] = MCPServer(
            "upstream",
            token_verifier=JWTVerifier(issuer, mcp, required_scopes=["mcp"], leeway=0),
            auth=AuthSettings(
                issuer_url=AnyHttpUrl(issuer),
                resource_server_url=AnyHttpUrl(mcp),
                required_scopes=["mcp"],
            ),
        )

        @server.tool()
        async def whoami() -> str:
            token = get_access_token()
            assert token is not None
            return json.dumps({"sub": token.subject, "token": token.token, "expires_at": token.expires_at})

        return server.streamable_http_app()

    return build


@pytest.fixture
def upstream() -> Iterator[tuple[OidcPeer, str]]:
    port = free_port()
    mcp = f"http://127.0.0.1:{port}/mcp"
    with OidcPeer(
        clients=[],
        resources={mcp: {"scope": "mcp", "format": "jwt"}},
        scopes=["mcp"],
        registration=True,
        access_token_ttl=TTL,
    ) as peer:
        yield peer, mcp


async def call_whoami(mcp: str, auth: httpx2.Auth) -> dict[str, Any]:
    async with (
        httpx2.AsyncClient(auth=auth, timeout=httpx2.Timeout(30, read=60)) as http,
        Client(streamable_http_client(mcp, http_client=http), cache=None) as client,
    ):
        result = await client.call_tool("whoami", {})
    assert not result.is_error, result
    return dict(json.loads(result.content[0].text))  # type: ignore[union-attr]


async def sign_in_with_chromium(browser: Browser, peer: OidcPeer, url: str) -> str:
    """alice at oidc-provider's own login and consent pages; the text of the page she ends on."""
    context = await browser.new_context()
    try:
        page = await context.new_page()
        await page.goto(url)
        await page.wait_for_url(f"{peer.issuer}/interaction/*")
        await page.fill("input[name=login]", "alice")
        await page.fill("input[name=password]", "anything")
        await page.click("button[type=submit]")
        await page.wait_for_selector("text=Authorize")
        await page.click("button[type=submit]")
        await page.wait_for_url("http://127.0.0.1:*/callback?*")
        return await page.text_content("body") or ""
    finally:
        await context.close()


def no_browser(url: str) -> None:
    raise AssertionError(f"the bridge asked for a browser again: {url}")


async def test_sign_in_once_then_reuse_and_refresh_without_a_browser(
    upstream: tuple[OidcPeer, str],
    chromium: Browser,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    caplog: pytest.LogCaptureFixture,
) -> None:
    peer, mcp = upstream
    caplog.set_level(logging.DEBUG)
    opened: list[asyncio.Task[str]] = []

    def open_in_chromium(url: str) -> None:
        assert url.startswith(f"{peer.issuer}/auth?")
        opened.append(asyncio.get_running_loop().create_task(sign_in_with_chromium(chromium, peer, url)))

    async with serve(build_mcp(peer.issuer, mcp), int(mcp.split(":")[2].split("/")[0])):
        first = await call_whoami(mcp, upstream_auth(mcp, data_dir=tmp_path, open_browser=open_in_chromium))
        assert first["sub"] == "alice"
        assert len(opened) == 1
        assert "You can close this tab" in await opened[0]

        # The URL is on stderr for a person to open by hand; no token is shown or logged.
        printed = capsys.readouterr().err
        assert f"{peer.issuer}/auth?" in printed
        logged = "\n".join(record.getMessage() for record in caplog.records)
        assert first["token"] not in printed and first["token"] not in logged

        # On disk, in a folder of its own: only the owner can read it, and it is not the token in clear.
        files = [path for path in tmp_path.rglob("*") if path.is_file()]
        assert files
        for path in files:
            assert stat.S_IMODE(path.stat().st_mode) & 0o077 == 0, path
            content = path.read_bytes()
            assert first["token"].encode() not in content
            assert b"access_token" not in content and b"refresh_token" not in content
        folder = {path.parent for path in files}
        assert len(folder) == 1 and stat.S_IMODE(folder.pop().stat().st_mode) & 0o077 == 0

        # A second run with the same data folder: the stored token, no browser.
        second = await call_whoami(mcp, upstream_auth(mcp, data_dir=tmp_path, open_browser=no_browser))
        assert second["token"] == first["token"]

        # After the token expired, a new run refreshes it (offline access), still no browser.
        await asyncio.sleep(max(0.0, first["expires_at"] - time.time()) + 1.5)
        third = await call_whoami(mcp, upstream_auth(mcp, data_dir=tmp_path, open_browser=no_browser))
        assert third["sub"] == "alice" and third["token"] != first["token"]
        assert third["expires_at"] > first["expires_at"]
        assert third["token"] not in capsys.readouterr().err
