"""What a person meets when the bridge cannot sign in to the upstream server: one sentence,
an `ElicitationError`, and nothing left listening. Also: the callback listener takes only the
sign-in it is waiting for, and a pre-registered client works without registration.

The authorization server is panva's oidc-provider (tests/support/oidc_peer.py); the person's
part is played over HTTP on its real login and consent pages (`OidcPeer.sign_in`).
"""

from __future__ import annotations

import asyncio
import os
import socket
import sys
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import httpx
import httpx2
import pytest
from mcp import Client
from mcp.client.streamable_http import streamable_http_client
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import PlainTextResponse, Response
from starlette.routing import Route
from support.oidc_peer import OidcPeer
from support.server_process import free_port
from support.url_harness import serve
from test_authorization import build_mcp

from elicitkit.bridge._authorization import UpstreamAuthorizationError, upstream_auth
from elicitkit.errors import ElicitationError

pytestmark = pytest.mark.timeout(90)

MCP_PORT = free_port()
MCP = f"http://127.0.0.1:{MCP_PORT}/mcp"
CALLBACK_PORT = free_port()
PRE_REGISTERED = {
    "client_id": "bridge-app",
    "token_endpoint_auth_method": "none",
    "application_type": "native",
    "redirect_uris": [f"http://127.0.0.1:{CALLBACK_PORT}/callback"],
    "grant_types": ["authorization_code", "refresh_token"],
}
SECRET = "s+e/c=r%t :x"  # what RFC 6749 section 2.3.1 form-encoding is for
CONFIDENTIAL = {
    **PRE_REGISTERED,
    "client_id": "bridge-confidential",
    "client_secret": SECRET,
    "token_endpoint_auth_method": "client_secret_basic",
}
INITIALIZE = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {
        "protocolVersion": "2025-11-25",
        "capabilities": {},
        "clientInfo": {"name": "t", "version": "1"},
    },
}


@pytest.fixture(scope="module")
def peer() -> Iterator[OidcPeer]:
    with OidcPeer(
        clients=[PRE_REGISTERED, CONFIDENTIAL],
        resources={MCP: {"scope": "mcp", "format": "jwt"}},
        scopes=["mcp"],
        registration=True,
    ) as started:
        yield started


@pytest.fixture
async def upstream(peer: OidcPeer) -> AsyncIterator[str]:
    async with serve(build_mcp(peer.issuer, MCP), MCP_PORT):
        yield MCP


async def first_request(auth: httpx2.Auth, url: str = MCP) -> httpx2.Response:
    async with httpx2.AsyncClient(auth=auth, timeout=30) as http:
        accept = {"Accept": "application/json, text/event-stream"}
        return await http.post(url, json=INITIALIZE, headers=accept)


def assert_one_sentence(error: BaseException, *words: str) -> None:
    assert isinstance(error, ElicitationError)
    text = str(error)
    assert "\n" not in text and "Traceback" not in text
    assert text[0].isupper() and text.endswith("."), text
    assert text.count("; ") <= 1 and len(text) < 400, text
    for word in words:
        assert word in text, (word, text)


def never(url: str) -> None:
    raise AssertionError(f"no browser should open here: {url}")


def refused(port: int) -> bool:
    with socket.socket() as probe:
        return probe.connect_ex(("127.0.0.1", port)) != 0


def play(peer: OidcPeer, *, abort: bool = False, forge_first: bool = False) -> tuple[Any, list[Any]]:
    """An `open_browser` that plays alice over HTTP; what her browser saw lands in the list."""
    seen: list[Any] = []
    tasks: list[asyncio.Task[None]] = []

    async def browse(url: str) -> None:
        async with httpx.AsyncClient(timeout=10) as http:
            back = await peer.sign_in(http, url, "alice", abort=abort)
            if forge_first:
                forged = httpx.URL(back).copy_set_param("state", "forged")
                seen.append(await http.get(forged))
            seen.append(await http.get(back))

    def opener(url: str) -> None:
        tasks.append(asyncio.get_running_loop().create_task(browse(url)))

    return opener, seen


async def test_a_server_without_metadata_is_named_without_opening_a_browser(tmp_path: Path) -> None:
    async def everything(request: Request) -> Response:
        if request.url.path == "/mcp":
            return PlainTextResponse("sign in", 401, headers={"WWW-Authenticate": "Bearer"})
        return PlainTextResponse("no", 404)

    bare = Starlette(routes=[Route("/{path:path}", everything, methods=["GET", "POST"])])
    async with serve(lambda url: bare) as base:
        for options in ({}, {"client_id": "known-elsewhere"}):
            auth = upstream_auth(f"{base}/mcp", data_dir=tmp_path, open_browser=never, **options)
            with pytest.raises(UpstreamAuthorizationError) as raised:
                await first_request(auth, f"{base}/mcp")
            assert raised.value.reason == "metadata"
            assert_one_sentence(raised.value, f"{base}/mcp", "publishes no OAuth metadata")


async def test_a_refused_registration_says_what_the_server_said(tmp_path: Path) -> None:
    # This provider does not know the resource's scope, so it refuses the client that asks for it.
    resources = {MCP: {"scope": "mcp", "format": "jwt"}}
    with OidcPeer(clients=[], resources=resources, registration=True) as strict:
        async with serve(build_mcp(strict.issuer, MCP), MCP_PORT):
            with pytest.raises(UpstreamAuthorizationError) as raised:
                await first_request(upstream_auth(MCP, data_dir=tmp_path, open_browser=never))
    assert raised.value.reason == "registration"
    assert_one_sentence(raised.value, MCP, "refused to register", "scope", "client id")


async def test_declining_at_the_provider_is_one_sentence(
    peer: OidcPeer, upstream: str, tmp_path: Path
) -> None:
    opener, seen = play(peer, abort=True)
    with pytest.raises(UpstreamAuthorizationError) as raised:
        await first_request(upstream_auth(upstream, data_dir=tmp_path, open_browser=opener))
    assert raised.value.reason == "declined"
    assert_one_sentence(raised.value, upstream, "declined")
    assert seen[-1].status_code == 200 and "You can close this tab" in seen[-1].text


async def test_a_sign_in_nobody_finishes_ends_at_the_deadline(
    peer: OidcPeer, upstream: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path))  # the user's data directory, as platformdirs reads it
    opened: list[str] = []
    auth = upstream_auth(upstream, open_browser=opened.append, sign_in_timeout=1.5)
    started = asyncio.get_running_loop().time()
    with pytest.raises(UpstreamAuthorizationError) as raised:
        await first_request(auth)
    assert 1.4 < asyncio.get_running_loop().time() - started < 15
    assert raised.value.reason == "timeout"
    assert_one_sentence(raised.value, upstream, "1.5 seconds")
    callback = httpx.URL(httpx.URL(opened[0]).params["redirect_uri"])
    assert callback.host == "127.0.0.1" and callback.path == "/callback"
    assert refused(callback.port or 0)  # nothing is left listening
    # The dynamic registration was kept under the user's data directory, in a folder for this server.
    folders = list((tmp_path / "elicitkit" / "bridge").iterdir())
    assert len(folders) == 1 and any(folders[0].iterdir())


@pytest.mark.parametrize(("client_id", "secret"), [("bridge-app", None), ("bridge-confidential", SECRET)])
async def test_the_callback_takes_only_its_own_sign_in_and_a_pre_registered_client_needs_no_registration(
    peer: OidcPeer, upstream: str, tmp_path: Path, client_id: str, secret: str | None
) -> None:
    opener, seen = play(peer, forge_first=True)
    auth = upstream_auth(
        upstream,
        data_dir=tmp_path,
        open_browser=opener,
        client_id=client_id,
        client_secret=secret,
        callback_port=CALLBACK_PORT,
    )
    async with (
        httpx2.AsyncClient(auth=auth, timeout=30) as http,
        Client(streamable_http_client(upstream, http_client=http), cache=None) as client,
    ):
        result = await client.call_tool("whoami", {})
    assert not result.is_error and '"sub": "alice"' in result.content[0].text  # type: ignore[union-attr]
    forged, real = seen
    assert forged.status_code == 400 and "not the sign-in" in forged.text
    assert real.status_code == 200 and "You can close this tab" in real.text
    assert refused(CALLBACK_PORT)


async def test_a_damaged_sign_in_on_disk_means_signing_in_again(
    peer: OidcPeer, upstream: str, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    opened: list[str] = []
    with pytest.raises(UpstreamAuthorizationError):  # registers, then nobody signs in
        await first_request(
            upstream_auth(upstream, data_dir=tmp_path, open_browser=opened.append, sign_in_timeout=1)
        )
    (stored,) = [path for path in tmp_path.rglob("*") if path.is_file() and path.name != "key"]
    stored.write_bytes(stored.read_bytes()[:-5] + b"xxxxx")
    with pytest.raises(UpstreamAuthorizationError) as raised:
        await first_request(
            upstream_auth(upstream, data_dir=tmp_path, open_browser=opened.append, sign_in_timeout=1)
        )
    assert raised.value.reason == "timeout" and len(opened) == 2  # asked to sign in again, no crash
    assert "cannot be read" in caplog.text


async def test_by_default_the_sign_in_opens_in_the_browser_named_by_BROWSER(
    peer: OidcPeer, upstream: str, tmp_path: Path
) -> None:
    """In a process of its own (Python's `webbrowser` reads $BROWSER once per process)."""
    seen = tmp_path / "opened.txt"
    browser = tmp_path / "browser.sh"
    browser.write_text(f'#!/bin/sh\nprintf %s "$1" > {seen}\n')
    browser.chmod(0o700)
    script = (
        "import asyncio, sys, httpx2\n"
        "from pathlib import Path\n"
        "from elicitkit.bridge._authorization import upstream_auth\n"
        "async def main():\n"
        f"    auth = upstream_auth({upstream!r}, data_dir=Path({str(tmp_path)!r}), sign_in_timeout=3)\n"
        "    async with httpx2.AsyncClient(auth=auth) as http:\n"
        f"        await http.post({upstream!r}, json={{}})\n"
        "try:\n"
        "    asyncio.run(main())\n"
        "except Exception as error:\n"
        "    sys.exit(f'elicitkit bridge: {error}')\n"
    )
    environment = {**os.environ, "BROWSER": str(browser), "DISPLAY": "", "WAYLAND_DISPLAY": ""}
    process = await asyncio.create_subprocess_exec(
        sys.executable, "-c", script, env=environment, stderr=asyncio.subprocess.PIPE
    )
    _, stderr = await asyncio.wait_for(process.communicate(), 60)
    printed = stderr.decode()
    assert process.returncode == 1
    opened = seen.read_text()
    assert opened.startswith(f"{peer.issuer}/auth?") and f"in your browser: {opened}" in printed
    assert "was not finished within 3 seconds" in printed.splitlines()[-1]
