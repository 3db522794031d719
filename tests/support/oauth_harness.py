"""Shared pieces for the OAuth-connection tests, all real: the demo authorization server (the MCP
users alice and bob), the demo provider (Demo Calendar, the third party), an "agenda" MCP server
whose tool reads the user's calendar through an `OAuthConnection`, plain `mcp.Client` sessions
that tap every byte, and a scripted browser. It builds on the URL-mode harness.
"""

from __future__ import annotations

import asyncio
import json
import tempfile
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from html.parser import HTMLParser
from pathlib import Path
from typing import Any
from urllib.parse import parse_qsl, urljoin, urlsplit

import httpx
import pytest
from mcp.server.auth.settings import AuthSettings
from mcp.server.mcpserver import Context, MCPServer
from mcp.shared.exceptions import MCPError

from elicitkit.demo.auth_server import DemoAuthServer
from elicitkit.demo.provider import CALENDAR_SCOPE, DemoProvider
from elicitkit.server._elicitation import Elicitation
from elicitkit.server._oauth import OAuthConnection
from elicitkit.server._url_mode import UrlMode
from elicitkit.server._user import User
from elicitkit.server._vault import KeyRing
from elicitkit.server._web.login import OAuthLogin
from elicitkit.server.store import MemoryStore, Store
from elicitkit.server.store._sqlite import SQLiteStore
from support.url_harness import Browser, Session, mcp_session, serve

__all__ = ["Browser", "Session", "mcp_session", "serve"]


@pytest.fixture
async def auth() -> AsyncIterator[DemoAuthServer]:
    async with DemoAuthServer() as server:
        yield server


@pytest.fixture
async def provider() -> AsyncIterator[DemoProvider]:
    async with DemoProvider(client_id="agenda-server", client_secret="agenda-s3cret") as server:
        yield server


@dataclass
class Agenda:
    server: MCPServer[Any]
    url_mode: UrlMode
    calendar: OAuthConnection
    base: str


def build_agenda(
    url: str, auth: DemoAuthServer, provider: DemoProvider, *, discovery: bool = False, **options: Any
) -> Agenda:
    wait = options.pop("wait", "error")
    store: Store = options.pop("store", None) or MemoryStore()
    server: MCPServer[Any] = MCPServer(
        "agenda",
        token_verifier=auth.token_verifier(),
        auth=AuthSettings(issuer_url=auth.issuer, resource_server_url=None, required_scopes=["mcp"]),  # type: ignore[arg-type]
    )
    url_mode = UrlMode(
        browser=options.pop("browser", None) or OAuthLogin(auth.issuer, scopes=["openid"]),
        public_url=url,
        keys=options.pop("keys", None) or KeyRing.from_string(KeyRing.generate("k1")),
        store=store,
        wait=wait,
    )
    elicit = Elicitation(server, url_mode=url_mode)
    endpoints: dict[str, Any] = (
        {"issuer": provider.issuer}
        if discovery
        else {
            "authorization_endpoint": provider.authorization_endpoint,
            "token_endpoint": provider.token_endpoint,
            "revocation_endpoint": provider.revocation_endpoint,
        }
    )
    calendar = elicit.oauth(
        "calendar",
        service="Demo Calendar",
        client_id=provider.client_id,
        client_secret=provider.client_secret,
        scopes=[CALENDAR_SCOPE],
        scope_descriptions={CALENDAR_SCOPE: "read your calendar"},
        **endpoints,
        **options,
    )
    provider.set_redirect_uris([calendar.redirect_uri])

    @server.tool()
    async def agenda(ctx: Context) -> str:  # type: ignore[type-arg]
        async with httpx.AsyncClient(auth=calendar.auth(ctx), timeout=10) as http:
            answer = await http.get(provider.api_url)
        answer.raise_for_status()
        return answer.text

    @server.tool()
    async def disconnect_calendar(ctx: Context) -> str:  # type: ignore[type-arg]
        return "revoked" if await calendar.disconnect(ctx) else "deleted"

    return Agenda(server, url_mode, calendar, url)


@asynccontextmanager
async def agenda_running(
    auth: DemoAuthServer, provider: DemoProvider, **options: Any
) -> AsyncIterator[Agenda]:
    """Serve the agenda server; `sqlite=True` keeps its records in the default SQLite store."""
    built: list[Agenda] = []
    with tempfile.TemporaryDirectory() as folder:
        if options.pop("sqlite", False):
            options["store"] = SQLiteStore(Path(folder) / "url-mode.sqlite3")

        def build(url: str) -> Any:
            built.append(build_agenda(url, auth, provider, **options))
            return built[0].server.streamable_http_app()

        try:
            async with serve(build):
                yield built[0]
        finally:
            if built:
                await built[0].url_mode.store.close()


@asynccontextmanager
async def agenda_with(
    auth: DemoAuthServer, provider: DemoProvider, person: str = "alice", mode: str = "legacy", **options: Any
) -> AsyncIterator[tuple[Agenda, Session]]:
    """The agenda server running, and `person`'s MCP session with it (`mode` as `mcp.Client` takes it)."""
    async with agenda_running(auth, provider, **options) as agenda:
        session_token = await token(auth, person)
        async with mcp_session(f"{agenda.base}/mcp", session_token, mode=mode) as session:
            yield agenda, session


async def token(auth: DemoAuthServer, person: str) -> str:
    return (await auth.token_for(person)).access_token


def url_required(error: BaseException) -> str:
    """The URL a -32042 error lists."""
    from mcp.shared.exceptions import MCPError

    assert isinstance(error, MCPError), error
    assert error.code == -32042, error
    (listed,) = error.data["elicitations"]
    return str(listed["url"])


class _Link(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.href = ""

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        values = dict(attrs)
        if tag == "a" and "continue" in (values.get("class") or "") and not self.href:
            self.href = values.get("href") or ""


def continue_url(html: str) -> str:
    """Where the page after consent sends the person: the provider's authorization URL."""
    link = _Link()
    link.feed(html)
    assert link.href, html
    return link.href


def query_of(url: str) -> dict[str, str]:
    return dict(parse_qsl(urlsplit(url).query))


async def consent(browser: Browser, url: str) -> str:
    """Open the link (signing in to the MCP AS as needed), allow; return the provider's authorize URL."""
    page = await browser.open(url)
    assert page.status_code == 200, page.text
    assert "Demo Calendar" in page.text and "read your calendar" in page.text
    moving_on = await browser.submit(page, action="connect")
    assert moving_on.status_code == 200, moving_on.text
    return continue_url(moving_on.text)


async def at_provider(browser: Browser, provider: DemoProvider, authorize: str, person: str = "alice") -> str:
    """Sign in and allow at the provider; return the callback URL it sends the browser to."""
    return await provider.sign_in(browser.http, authorize, person)


async def connect(
    browser: Browser, provider: DemoProvider, url: str, person: str = "alice"
) -> httpx.Response:
    """The whole browser side: consent here, sign in there, come back."""
    callback = await at_provider(browser, provider, await consent(browser, url), person)
    return await browser.http.get(callback)


def location(response: httpx.Response) -> str:
    return urljoin(str(response.url), response.headers.get("location", ""))


async def stored(agenda: Agenda, person: str, issuer: str) -> dict[str, Any] | None:
    raw = await agenda.url_mode.vault.get(User(issuer, person), "oauth:calendar:tokens")
    return None if raw is None else dict(json.loads(raw))


def events(result: Any) -> dict[str, Any]:
    assert not result.is_error, result
    return dict(json.loads(result.content[0].text))


async def connected_alice(agenda: Agenda, auth: DemoAuthServer, provider: DemoProvider, alice: Any) -> None:
    """alice calls the tool, gets the URL (-32042), connects in her browser."""
    with pytest.raises(MCPError) as raised:
        await alice.client.call_tool("agenda", {})
    url = url_required(raised.value)
    async with Browser(auth, "alice") as browser:
        done = await connect(browser, provider, url)
        assert done.status_code == 200, done.text
        assert "account is connected" in done.text
    await asyncio.wait_for(alice.notice_arrived.wait(), 15)
