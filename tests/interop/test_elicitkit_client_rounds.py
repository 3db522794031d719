"""elicitkit's own client against elicitkit's server on 2026-07-28, URL mode end to end.

One consent screen per URL however many rounds the call takes; the person's latest choice wins
(cancelling the wait, or declining on the page, after accepting the consent); cancelling the
call (what Ctrl-C does) ends it promptly and tells the server; and a server that keeps naming
the same URL gets no second screen and a typed error.
"""

from __future__ import annotations

import time
from collections.abc import AsyncIterator
from typing import Any, Literal

import anyio
import httpx2
import pytest
from mcp.client.streamable_http import streamable_http_client
from mcp.server.mcpserver import Context, MCPServer
from mcp_types import ElicitRequest, ElicitRequestURLParams, InputRequiredResult
from support.interop_harness import SECRET, Briefing, auth, briefing_running, fingerprint, provider, token

from elicitkit.client import AcceptedElicitation, ElicitationConfig, ScriptedUI, UrlQuestion, Waiting
from elicitkit.client._errors import ElicitationCancelledError, ElicitationLoopError
from elicitkit.client._rounds import RoundsPolicy
from elicitkit.demo.auth_server import DemoAuthServer
from elicitkit.demo.provider import DemoProvider

__all__ = ["auth", "provider"]

FAST = RoundsPolicy(first_delay=0.05, max_delay=0.2)


class LeavingUI(ScriptedUI):
    """A person who accepts the consent, then presses cancel on the waiting screen after `after` s."""

    def __init__(self, after: float) -> None:
        super().__init__(AcceptedElicitation())
        self.after = after

    async def wait(self, waiting: Waiting) -> Literal["retry", "cancel"]:
        self.waited.append(waiting)
        await anyio.sleep(max(0.0, self.after - (time.monotonic() - waiting.started)))
        return "cancel"


@pytest.fixture
async def briefing(auth: DemoAuthServer, provider: DemoProvider) -> AsyncIterator[Briefing]:
    async with briefing_running(auth, provider, hold=0.3) as running:  # short holds: many rounds
        yield running


async def call(
    briefing: Briefing, tool: str, ui: ScriptedUI, *, browser: str = "complete", policy: RoundsPolicy = FAST
) -> tuple[Any, list[str]]:
    opened: list[str] = []

    def open_url(url: str) -> bool:
        opened.append(url)
        if browser != "stay":
            briefing.complete_soon(url, decline=browser == "decline")
        return True

    config = ElicitationConfig(ui, modes=("url",), open_url=open_url, allow_http=True)
    http = httpx2.AsyncClient(
        headers={"Authorization": f"Bearer {await token(briefing.auth, 'alice')}"},
        timeout=httpx2.Timeout(30, read=120),
    )
    transport = streamable_http_client(briefing.mcp_url, http_client=http)
    async with http, config.connect(transport, mode="2026-07-28", rounds=policy) as client:
        assert client.protocol_version == "2026-07-28"
        try:
            result: Any = await briefing.run(client.call_tool(tool, {}))
        except ElicitationCancelledError as exc:  # inside: the SDK's task groups would wrap it
            result = exc
    return result, opened


def consent_screens(ui: ScriptedUI) -> list[UrlQuestion]:
    return [q for q in ui.shown if isinstance(q, UrlQuestion)]


@pytest.mark.parametrize("tool", ["forecast", "agenda"])
async def test_one_consent_screen_however_many_rounds(briefing: Briefing, tool: str) -> None:
    ui = ScriptedUI(AcceptedElicitation())
    result, opened = await call(briefing, tool, ui)
    assert not result.is_error, result
    assert len(consent_screens(ui)) == 1 and len(opened) == 1
    if tool == "forecast":
        assert fingerprint(SECRET) in result.content[0].text


async def test_a_long_browser_step_gets_a_waiting_screen_and_still_one_consent(briefing: Briefing) -> None:
    ui = ScriptedUI(AcceptedElicitation())
    opened: list[str] = []

    async def person_later() -> None:
        while not opened:
            await anyio.sleep(0.05)
        await anyio.sleep(2.0)  # several held rounds and "still waiting" answers go by
        briefing.complete_soon(opened[0])

    async with anyio.create_task_group() as tg:
        tg.start_soon(person_later)
        handler_ui = ui

        def open_url(url: str) -> bool:
            opened.append(url)
            return True

        config = ElicitationConfig(handler_ui, modes=("url",), open_url=open_url, allow_http=True)
        http = httpx2.AsyncClient(
            headers={"Authorization": f"Bearer {await token(briefing.auth, 'alice')}"},
            timeout=httpx2.Timeout(30, read=120),
        )
        transport = streamable_http_client(briefing.mcp_url, http_client=http)
        async with http, config.connect(transport, mode="2026-07-28", rounds=FAST) as client:
            result = await briefing.run(client.call_tool("forecast", {}))
    assert not result.is_error, result
    assert len(consent_screens(ui)) == 1 and len(opened) == 1
    assert len(ui.waited) >= 2  # the waiting screen stood while rounds went by
    assert all(w.pending and w.pending[0][1] == consent_screens(ui)[0].message for w in ui.waited)


async def test_cancel_on_the_waiting_screen_after_accept_wins_even_during_a_held_retry(
    auth: DemoAuthServer, provider: DemoProvider
) -> None:
    """The server holds each retry 25 s (its default); the screen's cancel does not wait for it."""
    ui = LeavingUI(after=1.0)
    async with briefing_running(auth, provider) as briefing:
        started = time.monotonic()
        result, _opened = await call(briefing, "forecast", ui, browser="stay")
        assert isinstance(result, ElicitationCancelledError), result
        assert time.monotonic() - started < 10
        assert len(consent_screens(ui)) == 1 and len(ui.waited) == 1  # one screen, up all along
        url = consent_screens(ui)[0].report.url
        assert await briefing.record_state(url) == "cancelled"  # the server, and so the tool, was told


async def test_decline_on_the_page_after_accept_ends_the_tool_declined(briefing: Briefing) -> None:
    ui = ScriptedUI(AcceptedElicitation())
    result, opened = await call(briefing, "forecast", ui, browser="decline")
    assert result.is_error and "'declined'" in result.content[0].text
    assert len(consent_screens(ui)) == 1
    assert await briefing.record_state(opened[0]) == "declined"


async def test_cancelling_the_call_like_ctrl_c_ends_it_promptly_and_tells_the_server(
    briefing: Briefing,
) -> None:
    """What Ctrl-C does to an asyncio program: the call's task is cancelled mid-round."""
    ui = ScriptedUI(AcceptedElicitation())
    config = ElicitationConfig(ui, modes=("url",), open_url=lambda url: True, allow_http=True)
    http = httpx2.AsyncClient(
        headers={"Authorization": f"Bearer {await token(briefing.auth, 'alice')}"},
        timeout=httpx2.Timeout(30, read=120),
    )
    transport = streamable_http_client(briefing.mcp_url, http_client=http)
    started = time.monotonic()
    async with http, config.connect(transport, mode="2026-07-28", rounds=FAST) as client:
        with anyio.move_on_after(1.5) as scope:
            await client.call_tool("forecast", {})
        assert scope.cancelled_caught
        assert time.monotonic() - started < 15  # prompt, even with the goodbye round
    assert ui.notices == []
    url = consent_screens(ui)[0].report.url
    assert await briefing.record_state(url) == "cancelled"  # the tool saw the cancel


def reasking_server() -> MCPServer[Any]:
    """Misbehaves as elicitkit's server once did: names the same URL again on every retry."""
    server: MCPServer[Any] = MCPServer("Reasker")

    @server.tool()
    async def connect(ctx: Context) -> str | InputRequiredResult:  # type: ignore[type-arg]
        url = ElicitRequestURLParams(message="Connect your account", url="https://example.com/connect")
        return InputRequiredResult(input_requests={"link": ElicitRequest(params=url)}, request_state="again")

    return server


async def test_a_server_that_reasks_the_same_url_gets_one_screen_then_a_typed_error() -> None:
    ui = ScriptedUI(AcceptedElicitation(), otherwise=AcceptedElicitation())
    opened: list[str] = []
    config = ElicitationConfig(ui, modes=("url",), open_url=lambda url: opened.append(url) or True)
    async with config.connect(reasking_server(), rounds=FAST) as client:
        assert client.protocol_version == "2026-07-28"
        with anyio.fail_after(30), pytest.raises(ElicitationLoopError) as raised:
            await client.call_tool("connect", {})
    assert len(consent_screens(ui)) == 1 and opened == ["https://example.com/connect"]
    assert "already answered" in str(raised.value)
