"""Single-user local mode: a stdio MCP server (a subprocess) with the pages on a loopback
listener it starts itself, and the refusals when URL mode has no verified user or the client
did not declare URL mode."""

from __future__ import annotations

import asyncio
import os
import sys
from pathlib import Path
from typing import Any

import pytest
from mcp import Client, StdioServerParameters
from mcp.shared.exceptions import MCPError
from mcp_types import ElicitRequestURLParams, ElicitResult
from support.security_headers import assert_hardened
from support.url_harness import SECRET, Browser, build_weather, fingerprint

from elicitkit.server._user import McpUsers, User
from elicitkit.server._vault import KeyRing
from elicitkit.server._web.identity import HookIdentity
from elicitkit.server.store import MemoryStore

pytestmark = pytest.mark.timeout(90)

HARNESS = Path(__file__).parents[1] / "support" / "url_harness.py"


async def test_stdio_server_with_loopback_pages(tmp_path: Path) -> None:
    urls: asyncio.Queue[ElicitRequestURLParams] = asyncio.Queue()

    async def on_elicit(context: Any, params: Any) -> ElicitResult:
        urls.put_nowait(params)
        return ElicitResult(action="accept")

    params = StdioServerParameters(
        command=sys.executable,
        args=[str(HARNESS), "--stdio", "--db", str(tmp_path / "local.sqlite3")],
        env={**os.environ, "ELICITKIT_VAULT_KEYS": KeyRing.generate("k1")},
    )
    async with Client(params, mode="legacy", elicitation_callback=on_elicit, cache=None) as client:
        call = asyncio.create_task(client.call_tool("forecast", {"city": "Bergen"}))
        asked = await asyncio.wait_for(urls.get(), 30)
        assert asked.url.startswith("http://127.0.0.1:") and "/elicit/" in asked.url
        async with Browser(auth=None, person="local-user") as browser:
            page = await browser.open(asked.url)
            assert page.status_code == 200 and "local-user" in page.text
            assert_hardened(page.headers)
            done = await browser.submit(page, secret=SECRET, action="save")
            assert done.status_code == 200 and "Saved" in done.text
        result = await asyncio.wait_for(call, 30)
        assert not result.is_error and fingerprint(SECRET) in result.content[0].text  # type: ignore[union-attr]
        again = await client.call_tool("forecast", {"city": "Bergen"})  # stored now: no new question
        assert not again.is_error and urls.empty()
    assert SECRET.encode() not in (tmp_path / "local.sqlite3").read_bytes()


def _unauthenticated_weather(users: McpUsers | None = None) -> Any:
    async def nobody(request: Any) -> User | None:
        return None

    return build_weather(
        public_url="http://127.0.0.1:9",
        issuer=None,
        verifier=None,
        keys=KeyRing.from_string(KeyRing.generate("k1")),
        store=MemoryStore(),
        browser=HookIdentity(nobody),
        users=users,
    )


async def test_no_verified_user_is_refused_clearly() -> None:
    weather = _unauthenticated_weather()
    asked: list[Any] = []

    async def on_elicit(context: Any, params: Any) -> ElicitResult:
        asked.append(params)
        return ElicitResult(action="accept")

    async with Client(weather.server, mode="legacy", elicitation_callback=on_elicit, cache=None) as client:
        result = await client.call_tool("forecast", {"city": "Paris"})
    assert result.is_error
    assert "URL mode needs a verified user" in result.content[0].text  # type: ignore[union-attr]
    assert asked == [] and weather.url_mode.store.records == {}


async def test_client_without_url_mode_is_refused_before_anything_is_sent() -> None:
    weather = _unauthenticated_weather(McpUsers.single_user_local())
    async with Client(weather.server, mode="legacy", cache=None) as client:  # declares no elicitation
        with pytest.raises(MCPError) as raised:
            await client.call_tool("forecast", {"city": "Paris"})
    assert raised.value.code == -32021
    assert weather.url_mode.store.records == {}


def test_url_mode_without_a_browser_identity_is_a_clear_error() -> None:
    from elicitkit.server._errors import UrlModeError
    from elicitkit.server._url_mode import UrlMode

    with pytest.raises(UrlModeError, match="browser=OAuthLogin"):
        UrlMode(keys=KeyRing.from_string(KeyRing.generate()), store=MemoryStore())


async def test_no_public_url_is_a_clear_error(caplog: pytest.LogCaptureFixture) -> None:
    weather = build_weather(
        public_url=None,
        issuer=None,
        verifier=None,
        keys=KeyRing.from_string(KeyRing.generate("k1")),
        store=MemoryStore(),
        users=McpUsers.single_user_local(),
    )

    async def on_elicit(context: Any, params: Any) -> ElicitResult:
        raise AssertionError("nothing may be asked without a link to give")

    async with Client(weather.server, mode="legacy", elicitation_callback=on_elicit, cache=None) as client:
        result = await client.call_tool("forecast", {"city": "Paris"})
    assert result.is_error  # a server configuration error: the author reads it in the server log
    assert "pass UrlMode(public_url=...)" in caplog.text
    assert weather.url_mode.store.records == {}
