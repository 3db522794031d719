"""One clock: every expiry URL mode keeps is read by its store's clock, and by nothing else.

The server's SQLite store runs on a clock that stands still in May 2033, years from the
machine's, and only the test moves it. A link, the -32042 listener it holds, the browser's
session, the OAuth access token, the consent's date and a 2026-07-28 question's timeout all
keep that time: a piece that read the machine's clock would find a link expired at once, a
session or token never expiring, a consent dated today.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from form_clients import Script, accept
from mcp import Client
from mcp.server.mcpserver import Context, MCPServer
from mcp.shared.exceptions import MCPError
from mcp_types import InputRequiredResult, TextContent
from pydantic import BaseModel
from support.clock import Clock
from support.oauth_harness import (
    Browser,
    agenda_with,
    auth,
    connect,
    events,
    provider,
    stored,
    url_required,
)

from elicitkit.demo.auth_server import DemoAuthServer
from elicitkit.demo.provider import DemoProvider
from elicitkit.server import Elicitation, ElicitationTimeoutError
from elicitkit.server._url_mode import UrlMode
from elicitkit.server._user import McpUsers
from elicitkit.server._vault import KeyRing
from elicitkit.server.store import MemoryStore, SQLiteStore

__all__ = ["auth", "provider"]
pytestmark = pytest.mark.timeout(90)

MAY_2033 = 2_000_000_000.0
HOUR = 3600.0


def sign_ins(browser: Browser) -> int:
    """How many times the browser came back from signing in at the MCP authorization server."""
    return sum("/elicit/login/callback" in url for url in browser.history)


async def a_link(alice: Any) -> str:
    with pytest.raises(MCPError) as raised:
        await alice.client.call_tool("agenda", {})
    return url_required(raised.value)


async def test_links_sessions_tokens_and_consents_keep_the_stores_clock(
    auth: DemoAuthServer, provider: DemoProvider, tmp_path: Path
) -> None:
    clock = Clock(at=MAY_2033)
    store = SQLiteStore(tmp_path / "url-mode.sqlite3", clock=clock)
    async with agenda_with(auth, provider, store=store) as (agenda, alice), Browser(auth, "alice") as browser:
        # A fresh link opens, and the browser signs in once.
        assert (await connect(browser, provider, await a_link(alice))).status_code == 200
        assert sign_ins(browser) == 1
        assert events(await alice.client.call_tool("agenda", {}))["owner"] == "alice"
        first = await stored(agenda, "alice", auth.issuer)
        assert first is not None

        # The access token (an hour) expires by the clock: refreshed before it is used.
        clock.advance(HOUR + 1)
        seen = len(provider.authorization_headers)
        assert events(await alice.client.call_tool("agenda", {}))["owner"] == "alice"
        second = await stored(agenda, "alice", auth.issuer)
        assert second is not None and second["access_token"] != first["access_token"]
        api_calls = [h for h in provider.authorization_headers[seen:] if h.startswith("Bearer ")]
        assert api_calls == [f"Bearer {second['access_token']}"]

        # The grant ends: a new link, whose consent page dates the earlier consent by the clock.
        provider.refuse_refresh = True
        clock.advance(HOUR + 1)
        link = await a_link(alice)
        assert agenda.url_mode.held == 1  # the -32042 listener, kept until the link expires
        page = await browser.open(link)
        assert page.status_code == 200 and "You allowed this application before, on May 18, 2033" in page.text
        assert sign_ins(browser) == 1  # two hours into a twelve-hour session

        # Twelve hours on: the link (fifteen minutes) and the session (twelve hours) are over.
        clock.advance(12 * HOUR)
        await agenda.url_mode.sweep()
        assert agenda.url_mode.held == 0
        gone = await browser.open(link)
        assert gone.status_code == 410 and "expired" in gone.text
        assert (await browser.open(await a_link(alice))).status_code == 200
        assert sign_ins(browser) == 2


class Word(BaseModel):
    word: str


async def test_a_2026_question_times_out_by_the_url_modes_clock() -> None:
    clock = Clock(at=MAY_2033)
    server = MCPServer("clocked rounds")
    url_mode = UrlMode(
        keys=KeyRing.from_string(KeyRing.generate()),
        store=MemoryStore(clock=clock),
        users=McpUsers.single_user_local(),
    )
    elicit = Elicitation(server, url_mode=url_mode)

    @server.tool()
    async def word(ctx: Context) -> str:  # type: ignore[type-arg]
        try:
            await elicit.form(ctx, "A word?", Word, timeout=60)
        except ElicitationTimeoutError as late:
            return f"timeout after {late.timeout:g}"
        return "answered"

    async with Client(server, mode="auto", elicitation_callback=Script(accept(word="x"))) as client:
        asked = await client.session.call_tool("word", {}, allow_input_required=True)
        assert isinstance(asked, InputRequiredResult)
        answer = {"elicitation-1": accept(word="x")}
        again: dict[str, Any] = {"input_responses": answer, "request_state": asked.request_state}
        clock.advance(59)
        on_time = await client.session.call_tool("word", {}, **again)
        clock.advance(2)
        late = await client.session.call_tool("word", {}, **again)
    for result, expected in ((on_time, "answered"), (late, "timeout after 60")):
        block = result.content[0]
        assert isinstance(block, TextContent) and block.text == expected
