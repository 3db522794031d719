"""2026-07-28 (M-01): the SDK runs the input-required rounds through the same client rules, patiently."""

from __future__ import annotations

import json
import time
from typing import Any

import pytest
from client_http import serve
from mcp import Client
from mcp.client import InputRequiredRoundsExceededError
from mcp.server.mcpserver import Context, MCPServer
from mcp_types import (
    ElicitRequest,
    ElicitRequestFormParams,
    ElicitRequestURLParams,
    ElicitResult,
    InputRequiredResult,
)

from elicitkit.client import AcceptedElicitation, ElicitationConfig, FormQuestion, ScriptedUI, UrlQuestion

SCHEMA = {
    "type": "object",
    "properties": {"name": {"type": "string", "default": "Ada"}},
    "required": ["name"],
}


def rounds_server(browser_done: list[float]) -> MCPServer:
    mcp = MCPServer("Rounds")

    @mcp.tool()
    async def ask_name(ctx: Context) -> str | InputRequiredResult:
        if ctx.input_responses:
            return json.dumps(
                {k: v.model_dump(mode="json", exclude_none=True) for k, v in ctx.input_responses.items()}
            )
        form = ElicitRequestFormParams(message="Who?", requested_schema=SCHEMA)
        return InputRequiredResult(input_requests={"who": ElicitRequest(params=form)}, request_state="s1")

    @mcp.tool()
    async def connect(ctx: Context) -> str | InputRequiredResult:
        """Round 1 asks for a URL; later rounds carry only state until the browser flow is done."""
        if ctx.request_state is None:
            url = ElicitRequestURLParams(message="Connect your account", url="https://example.com/connect")
            return InputRequiredResult(
                input_requests={"link": ElicitRequest(params=url)}, request_state="opened"
            )
        if not browser_done or time.monotonic() < browser_done[0]:
            return InputRequiredResult(request_state="waiting")
        return "connected"

    return mcp


async def test_a_round_form_goes_through_the_handler() -> None:
    ui = ScriptedUI(AcceptedElicitation({"name": 7}), AcceptedElicitation({"name": "Bea"}))
    with serve(rounds_server([]).streamable_http_app()) as url:
        async with ElicitationConfig(ui).connect(url) as client:
            assert client.protocol_version == "2026-07-28"
            result = await client.call_tool("ask_name")
    assert json.loads(result.content[0].text) == {"who": {"action": "accept", "content": {"name": "Bea"}}}  # type: ignore[union-attr]
    _, second = ui.shown
    assert isinstance(second, FormQuestion) and second.problems  # the invalid answer was never sent


async def test_rounds_wait_for_a_browser_flow_longer_than_the_sdk_default() -> None:
    browser_done: list[float] = []

    def browser(url: str) -> bool:
        browser_done.append(time.monotonic() + 3.0)  # the person takes 3 s: > 10 SDK rounds
        return True

    ui = ScriptedUI(AcceptedElicitation())
    config = ElicitationConfig(ui, modes=("url",), open_url=browser)
    with serve(rounds_server(browser_done).streamable_http_app()) as url:
        async with config.connect(url) as client:
            result = await client.call_tool("connect")
    assert result.content[0].text == "connected"  # type: ignore[union-attr]
    [question] = ui.shown
    assert isinstance(question, UrlQuestion) and question.report.url == "https://example.com/connect"


async def test_the_sdk_default_gives_up_on_the_same_flow() -> None:
    """Pins why `input_rounds` exists: the plain SDK client stops after about 2 s of polling."""
    browser_done = [time.monotonic() + 3.0]

    async def accept(context: Any, params: Any) -> ElicitResult:
        return ElicitResult(action="accept")

    with serve(rounds_server(browser_done).streamable_http_app()) as url:
        async with Client(url, elicitation_callback=accept) as client:
            with pytest.raises(InputRequiredRoundsExceededError):
                await client.call_tool("connect")
