"""What the server sees on the wire: declared modes (C-01), -32602 refusals (C-02..C-04), notices (C-20)."""

from __future__ import annotations

import json
from typing import Any

import pytest
from client_http import WireLog, eventually, record, serve
from client_servers import State, elicit_server
from mcp.server.mcpserver import MCPServer

from elicitkit.client import AcceptedElicitation, ElicitationConfig, ScriptedUI, accept_prefilled

MODES: list[tuple[tuple[str, ...], dict[str, Any]]] = [
    (("form",), {"form": {}}),
    (("url",), {"url": {}}),
    (("form", "url"), {"form": {}, "url": {}}),
]


def caps_server() -> MCPServer:
    mcp = MCPServer("Caps")

    @mcp.tool()
    def hello() -> str:
        return "hi"

    return mcp


@pytest.mark.parametrize(("modes", "expected"), MODES)
async def test_initialize_declares_exactly_the_configured_modes(
    modes: tuple[str, ...], expected: dict[str, Any]
) -> None:
    wire = WireLog(caps_server().streamable_http_app())
    with serve(wire) as url:
        config = ElicitationConfig(ScriptedUI(), modes=modes)
        async with config.connect(url, mode="legacy") as client:
            await client.call_tool("hello")
    [initialize] = wire.requests("initialize")
    assert initialize["params"]["capabilities"]["elicitation"] == expected


@pytest.mark.parametrize(("modes", "expected"), MODES)
async def test_2026_requests_declare_exactly_the_configured_modes(
    modes: tuple[str, ...], expected: dict[str, Any]
) -> None:
    wire = WireLog(caps_server().streamable_http_app())
    with serve(wire) as url:
        config = ElicitationConfig(ScriptedUI(), modes=modes)
        async with config.connect(url, mode="2026-07-28") as client:
            await client.call_tool("hello")
    [call] = wire.requests("tools/call")
    declared = call["params"]["_meta"]["io.modelcontextprotocol/clientCapabilities"]
    assert declared["elicitation"] == expected


async def test_the_sdk_alone_would_declare_both_modes() -> None:
    """Pins why the override exists: a plain mcp.Client with a callback declares form and url."""
    from mcp import Client
    from mcp_types import ElicitResult

    async def callback(context: Any, params: Any) -> ElicitResult:
        return ElicitResult(action="cancel")

    wire = WireLog(caps_server().streamable_http_app())
    with serve(wire) as url:
        async with Client(url, mode="legacy", elicitation_callback=callback) as client:
            await client.call_tool("hello")
    [initialize] = wire.requests("initialize")
    assert initialize["params"]["capabilities"]["elicitation"] == {"form": {}, "url": {}}


def test_modes_must_name_form_or_url() -> None:
    with pytest.raises(ValueError, match="modes"):
        ElicitationConfig(ScriptedUI(), modes=())
    with pytest.raises(ValueError, match="modes"):
        ElicitationConfig(ScriptedUI(), modes=("form", "sms"))


async def call(endpoint: str, config: ElicitationConfig, tool: str, **arguments: Any) -> dict[str, Any]:
    async with config.connect(endpoint, mode="legacy") as client:
        result = await client.call_tool(tool, arguments)
    text = result.content[0].text  # type: ignore[union-attr]
    return dict(json.loads(text))


async def test_undeclared_url_mode_gets_32602_and_the_ui_is_never_called() -> None:
    ui = ScriptedUI(otherwise=AcceptedElicitation())
    opened: list[str] = []
    config = ElicitationConfig(ui, modes=("form",), open_url=record(opened))
    with serve(elicit_server(State()).streamable_http_app()) as url:
        answer = await call(url, config, "ask_url", url="https://example.com/a")
    assert answer["error"] == -32602
    assert ui.shown == [] and opened == []


async def test_undeclared_form_mode_gets_32602_and_the_ui_is_never_called() -> None:
    ui = ScriptedUI(otherwise=accept_prefilled)
    config = ElicitationConfig(ui, modes=("url",))
    with serve(elicit_server(State()).streamable_http_app()) as url:
        answer = await call(url, config, "ask_form")
    assert answer["error"] == -32602
    assert ui.shown == []


async def test_a_schema_outside_the_form_subset_gets_32602_and_the_ui_is_never_called() -> None:
    ui = ScriptedUI(otherwise=accept_prefilled)
    config = ElicitationConfig(ui, modes=("form",))
    nested = {"type": "object", "properties": {"address": {"type": "object", "properties": {}}}}
    with serve(elicit_server(State()).streamable_http_app()) as url:
        answer = await call(url, config, "ask_form", schema=json.dumps(nested))
    assert answer["error"] == -32602
    assert "form-mode subset" in answer["message"]
    assert ui.shown == []


async def test_no_mode_means_form() -> None:
    ui = ScriptedUI(otherwise=accept_prefilled)
    config = ElicitationConfig(ui, modes=("form",))
    with serve(elicit_server(State()).streamable_http_app()) as url:
        answer = await call(url, config, "ask_without_mode", with_url=False)
    assert answer == {"action": "accept", "content": {"name": "Ada"}}
    assert [q.message for q in ui.shown] == ["No mode"]


async def test_no_mode_with_a_url_is_a_bad_form_not_a_url_request() -> None:
    ui = ScriptedUI(otherwise=AcceptedElicitation())
    config = ElicitationConfig(ui, modes=("form", "url"), open_url=lambda u: True)
    with serve(elicit_server(State()).streamable_http_app()) as url:
        answer = await call(url, config, "ask_without_mode", with_url=True)
    assert answer["error"] == -32602
    assert ui.shown == []


async def test_elicitation_with_no_request_in_flight_gets_32602_and_the_ui_is_never_called() -> None:
    state = State()
    ui = ScriptedUI(otherwise=accept_prefilled)
    config = ElicitationConfig(ui, modes=("form",))
    with serve(elicit_server(state).streamable_http_app()) as url:
        async with config.connect(url, mode="legacy") as client:
            await client.call_tool("ask_later", {"delay": 0.3})
            await eventually(lambda: bool(state.outcomes))
    assert json.loads(state.outcomes[0])["error"] == -32602
    assert ui.shown == []


async def test_completion_notices_for_unknown_and_repeated_ids_are_ignored() -> None:
    ui = ScriptedUI(otherwise=AcceptedElicitation())
    config = ElicitationConfig(ui, modes=("url",), open_url=lambda u: True)
    with serve(elicit_server(State()).streamable_http_app()) as url:
        async with config.connect(url, mode="legacy") as client:
            accepted = await client.call_tool(
                "ask_url", {"url": "https://example.com/a", "elicitation_id": "known"}
            )
            assert json.loads(accepted.content[0].text)["action"] == "accept"  # type: ignore[union-attr]
            await client.call_tool("complete", {"ids": ["stranger", "known", "known", "stranger"]})
            completions = client.elicitations.completions
            await eventually(lambda: completions.is_done("known"))
            await client.call_tool("complete", {"ids": ["known"]})
    assert not completions.is_done("stranger")
    assert [n for n in ui.notices if "completed" in n] == ["Test Elicitor: an elicitation completed."]


def bare_2026_server() -> Any:
    """A hand-written 2026-07-28 server whose tools/call result has no resultType (spec: means complete)."""
    from starlette.applications import Starlette
    from starlette.requests import Request
    from starlette.responses import JSONResponse
    from starlette.routing import Route

    listing = {"name": "plain", "inputSchema": {"type": "object"}}
    results: dict[str, dict[str, Any]] = {
        "tools/list": {"resultType": "complete", "ttlMs": 0, "cacheScope": "private", "tools": [listing]},
        "tools/call": {"content": [{"type": "text", "text": "no result type"}]},
    }

    async def endpoint(request: Request) -> JSONResponse:
        body = await request.json()
        return JSONResponse({"jsonrpc": "2.0", "id": body["id"], "result": results[body["method"]]})

    return Starlette(routes=[Route("/mcp", endpoint, methods=["POST"])])


async def test_a_2026_result_without_result_type_is_complete() -> None:
    with serve(bare_2026_server()) as url:
        async with ElicitationConfig(ScriptedUI()).connect(url, mode="2026-07-28") as client:
            result = await client.call_tool("plain")
    assert result.content[0].text == "no result type"  # type: ignore[union-attr]


async def test_the_sdk_alone_rejects_a_2026_result_without_result_type() -> None:
    """Pins why the wire wrapper fills in resultType: mcp 2.3.0 raises on it."""
    from mcp import Client
    from pydantic import ValidationError

    with serve(bare_2026_server()) as url:
        async with Client(url, mode="2026-07-28") as client:
            with pytest.raises(ValidationError, match="resultType"):
                await client.call_tool("plain")
