"""FastMCP's `Client` (PyPI `fastmcp`, the `fastmcp` extra) on 2026-07-28 against an elicitkit server.

FastMCP negotiates the modern era itself (`mode="auto"` probes `server/discover`) and drives
the input-required rounds with the SDK's driver; its elicitation handler is the documented
four-argument one. Each URL it is handed is opened by the scripted browser.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from typing import Any

import pytest
from mcp_types import ElicitRequestURLParams
from support.interop_harness import SECRET, Briefing, auth, briefing_running, fingerprint, provider, token

from elicitkit.demo.auth_server import DemoAuthServer
from elicitkit.demo.provider import DemoProvider

__all__ = ["auth", "provider"]


@pytest.fixture
async def briefing(auth: DemoAuthServer, provider: DemoProvider) -> AsyncIterator[Briefing]:
    async with briefing_running(auth, provider) as running:
        yield running


async def call(briefing: Briefing, tool: str, action: str) -> tuple[Any, list[str], str | None]:
    from fastmcp import Client
    from fastmcp.client.elicitation import ElicitResult
    from fastmcp.client.transports import StreamableHttpTransport

    urls: list[str] = []

    async def on_elicit(message: str, response_type: Any, params: Any, context: Any) -> Any:
        assert isinstance(params, ElicitRequestURLParams), params
        urls.append(params.url)
        if action == "accept":
            briefing.complete_soon(params.url)
        return ElicitResult(action=action)

    transport = StreamableHttpTransport(briefing.mcp_url, auth=await token(briefing.auth, "alice"))
    async with Client(transport, elicitation_handler=on_elicit, timeout=120) as client:
        era = client.protocol_version
        result = await briefing.run(client.call_tool_mcp(tool, {}))
    return result, urls, era


async def test_secret_one_handler_call_browser_step_result(briefing: Briefing) -> None:
    result, urls, era = await call(briefing, "forecast", "accept")
    assert era == "2026-07-28"
    assert len(urls) == 1 and briefing.browser_steps == urls
    assert not result.is_error, result
    assert fingerprint(SECRET) in result.content[0].text


async def test_oauth_connection_one_handler_call_browser_step_result(briefing: Briefing) -> None:
    result, urls, era = await call(briefing, "agenda", "accept")
    assert era == "2026-07-28"
    assert len(urls) == 1 and briefing.browser_steps == urls
    assert not result.is_error, result
    assert json.loads(result.content[0].text)["owner"] == "alice"


@pytest.mark.parametrize("tool", ["forecast", "agenda"])
async def test_decline_in_the_url_round_ends_the_tool_declined(briefing: Briefing, tool: str) -> None:
    result, urls, _era = await call(briefing, tool, "decline")
    assert len(urls) == 1 and briefing.browser_steps == []
    assert result.is_error
    assert "'declined'" in result.content[0].text
