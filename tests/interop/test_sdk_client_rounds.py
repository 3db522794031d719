"""The SDK's own `mcp.Client` on 2026-07-28, driving the input-required rounds itself.

Its driver retries a state-only result after 50-250 ms and gives up after 10 rounds, so these
tests also prove the server holds a retry while the page is open instead of re-asking: the
handler runs once per URL elicitation, the browser step completes, the result arrives.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from typing import Any

import httpx2
import pytest
from mcp import Client
from mcp.client.streamable_http import streamable_http_client
from mcp_types import ElicitRequestURLParams, ElicitResult
from support.interop_harness import SECRET, Briefing, auth, briefing_running, fingerprint, provider, token

from elicitkit.demo.auth_server import DemoAuthServer
from elicitkit.demo.provider import DemoProvider

__all__ = ["auth", "provider"]


class StockHandler:
    """An application's elicitation callback: open the browser, say `action`."""

    def __init__(self, briefing: Briefing, action: str) -> None:
        self.briefing = briefing
        self.action = action
        self.urls: list[str] = []

    async def __call__(self, context: Any, params: Any) -> ElicitResult:
        assert isinstance(params, ElicitRequestURLParams), params
        self.urls.append(params.url)
        if self.action == "accept":
            self.briefing.complete_soon(params.url)
        return ElicitResult(action=self.action)  # type: ignore[arg-type]


@pytest.fixture
async def briefing(auth: DemoAuthServer, provider: DemoProvider) -> AsyncIterator[Briefing]:
    async with briefing_running(auth, provider) as running:
        yield running


async def call(briefing: Briefing, tool: str, action: str) -> tuple[Any, StockHandler]:
    handler = StockHandler(briefing, action)
    http = httpx2.AsyncClient(
        headers={"Authorization": f"Bearer {await token(briefing.auth, 'alice')}"},
        timeout=httpx2.Timeout(30, read=120),
    )
    async with (
        http,
        Client(
            streamable_http_client(briefing.mcp_url, http_client=http),
            mode="2026-07-28",
            elicitation_callback=handler,
            cache=None,
        ) as client,
    ):
        assert client.session.protocol_version == "2026-07-28"
        result = await briefing.run(client.call_tool(tool, {}))
    return result, handler


async def test_secret_one_handler_call_browser_step_result(briefing: Briefing) -> None:
    result, handler = await call(briefing, "forecast", "accept")
    assert len(handler.urls) == 1
    assert briefing.browser_steps == handler.urls
    assert not result.is_error, result
    assert fingerprint(SECRET) in result.content[0].text


async def test_oauth_connection_one_handler_call_browser_step_result(briefing: Briefing) -> None:
    result, handler = await call(briefing, "agenda", "accept")
    assert len(handler.urls) == 1
    assert briefing.browser_steps == handler.urls
    assert not result.is_error, result
    assert json.loads(result.content[0].text)["owner"] == "alice"


@pytest.mark.parametrize("tool", ["forecast", "agenda"])
async def test_decline_in_the_url_round_ends_the_tool_declined(briefing: Briefing, tool: str) -> None:
    result, handler = await call(briefing, tool, "decline")
    assert len(handler.urls) == 1 and briefing.browser_steps == []
    assert result.is_error
    assert "'declined'" in result.content[0].text
