"""Each client adapter in elicitkit.client._frameworks drives a real elicitkit server (the FastMCP
example over HTTP on 127.0.0.1) through a form accept, a decline, a URL consent with its
completion notice, and an undeclared-mode refusal that reaches the server as an error."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from typing import Any

import fastmcp
import pytest
from fastmcp_harness import BOOKING, Person, fastmcp_example
from mcp import Client
from mcp.shared.exceptions import MCPError

from elicitkit.client import (
    AcceptedElicitation,
    DeclinedElicitation,
    ElicitationConfig,
    FormQuestion,
    ScriptedUI,
    ServerElicitations,
    UrlQuestion,
)
from elicitkit.client._frameworks import for_fastmcp, for_sdk_session

pytestmark = pytest.mark.timeout(90)

MODES = ["legacy", "2026-07-28"]


class Call:
    """One connected framework client: `tool(name, args)` gives (is_error, text)."""

    def __init__(self, tool: Callable[[str, dict[str, Any]], Any], answers: ServerElicitations) -> None:
        self.tool = tool
        self.answers = answers


@asynccontextmanager
async def via_fastmcp(url: str, config: ElicitationConfig, mode: str) -> AsyncIterator[Call]:
    adapter = for_fastmcp(config)
    client = fastmcp.Client(url, mode=mode, input_required_max_rounds=400, **adapter.client_options())

    async def tool(name: str, args: dict[str, Any]) -> tuple[bool, str]:
        result = await adapter.until_urls_complete(lambda: client.call_tool(name, args, raise_on_error=False))
        return result.is_error, str(result.content[0].text)  # type: ignore[union-attr]

    async with client:
        yield Call(tool, adapter.answers)


@asynccontextmanager
async def via_sdk_session(url: str, config: ElicitationConfig, mode: str) -> AsyncIterator[Call]:
    callback = for_sdk_session(config)
    client = Client(
        url,
        mode=mode,
        elicitation_callback=callback,
        message_handler=callback.on_message,
        input_required_max_rounds=400,
        cache=None,
    )

    async def tool(name: str, args: dict[str, Any]) -> tuple[bool, str]:
        result = await client.call_tool(name, args)
        return result.is_error, str(result.content[0].text)  # type: ignore[union-attr]

    async with client:
        yield Call(tool, callback)


ADAPTERS = {"fastmcp": via_fastmcp, "sdk-session": via_sdk_session}


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("adapter", ADAPTERS)
async def test_form_accept_and_decline(adapter: str, mode: str) -> None:
    ui = ScriptedUI(AcceptedElicitation(BOOKING), DeclinedElicitation())
    async with (
        fastmcp_example() as served,
        ADAPTERS[adapter](served.mcp, ElicitationConfig(ui), mode) as call,
    ):
        accepted = await call.tool("book", {})
        declined = await call.tool("book", {})
    assert accepted == (False, "Booked a table for 4 on 2026-12-24.")
    assert declined == (False, "Nothing booked: the person chose decline.")
    assert [type(q) for q in ui.shown] == [FormQuestion, FormQuestion]


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("adapter", ADAPTERS)
async def test_url_consent_opens_only_after_accept(adapter: str, mode: str) -> None:
    person = Person()
    ui = ScriptedUI(otherwise=AcceptedElicitation())
    config = ElicitationConfig(ui, modes=("form", "url"), open_url=person.open, wait_timeout=30)
    async with fastmcp_example() as served, ADAPTERS[adapter](served.mcp, config, mode) as call:
        error, text = await call.tool("forecast", {"city": "Oslo"})
        await person.finished()
    assert not error and text.startswith("Sunny in Oslo")
    consent = ui.shown[0]
    assert isinstance(consent, UrlQuestion) and consent.report.url == person.opened[0]
    if mode == "legacy":  # the completion notice reached the client through the framework
        elicitation_id = person.opened[0].rsplit("/", 1)[1]
        assert call.answers.completions.is_done(elicitation_id)


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("adapter", ADAPTERS)
async def test_url_decline_is_a_decline(adapter: str, mode: str) -> None:
    person = Person()
    ui = ScriptedUI(DeclinedElicitation())
    config = ElicitationConfig(ui, modes=("form", "url"), open_url=person.open)
    async with fastmcp_example() as served, ADAPTERS[adapter](served.mcp, config, mode) as call:
        error, text = await call.tool("forecast", {"city": "Oslo"})
        states = {r.state for r in served.store.records.values()}
    assert error and "declined" in text
    assert person.opened == [] and states == {"declined"}


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("adapter", ADAPTERS)
async def test_an_undeclared_mode_is_refused_as_an_error_never_an_accept(adapter: str, mode: str) -> None:
    person = Person()
    ui = ScriptedUI(otherwise=AcceptedElicitation())
    config = ElicitationConfig(ui, modes=("form",), open_url=person.open)
    async with fastmcp_example() as served, ADAPTERS[adapter](served.mcp, config, mode) as call:
        try:
            error, text = await call.tool("forecast", {"city": "Oslo"})
        except MCPError as exc:  # the SDK's 2026-07-28 driver fails the call on a refused input request
            error, text = True, str(exc)
        states = {r.state for r in served.store.records.values()}
    assert error and "did not declare elicitation mode 'url'" in text, text
    assert ui.shown == [] and person.opened == []  # the person never saw it; nothing was opened
    assert "completed" not in states


# -- who asks: the server's name from the moment the framework's client connects ---------------

SERVER = "tables"  # the FastMCP example's name


def named_the_server(ui: ScriptedUI) -> bool:
    screens = [*ui.shown, *ui.waited]
    return bool(ui.shown) and all(screen.server == SERVER for screen in screens)


async def test_a_32042_consent_through_fastmcps_client_names_the_server() -> None:
    person = Person()
    ui = ScriptedUI(otherwise=AcceptedElicitation())
    answers = for_fastmcp(ElicitationConfig(ui, modes=("form", "url"), open_url=person.open))
    async with fastmcp_example(wait="error") as served, answers.client(served.mcp, mode="legacy") as client:
        result = await answers.until_urls_complete(lambda: client.call_tool("forecast", {"city": "Oslo"}))
        await person.finished()
    assert str(result.data).startswith("Sunny in Oslo")
    assert isinstance(ui.shown[0], UrlQuestion) and named_the_server(ui), [*ui.shown, *ui.waited]


async def test_a_32042_consent_through_pydantic_ai_names_the_server() -> None:
    from pydantic_ai import Agent
    from pydantic_ai.mcp import MCPToolset
    from pydantic_ai.messages import ModelMessage, ModelResponse, TextPart, ToolCallPart, ToolReturnPart
    from pydantic_ai.models.function import AgentInfo, FunctionModel

    def model(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        returned = [p for m in messages for p in getattr(m, "parts", ()) if isinstance(p, ToolReturnPart)]
        if not returned:
            return ModelResponse(parts=[ToolCallPart("forecast", {"city": "Oslo"})])
        return ModelResponse(parts=[TextPart(str(returned[0].content))])

    person = Person()
    ui = ScriptedUI(otherwise=AcceptedElicitation())
    answers = for_fastmcp(ElicitationConfig(ui, modes=("form", "url"), open_url=person.open))
    async with fastmcp_example(wait="error") as served:
        toolset: MCPToolset[Any] = MCPToolset(
            answers.client(served.mcp, mode="legacy"), process_tool_call=answers.process_tool_call
        )
        result = await Agent(FunctionModel(model), toolsets=[toolset]).run("The weather in Oslo?")
        await person.finished()
    assert result.output.startswith("Sunny in Oslo")
    assert isinstance(ui.shown[0], UrlQuestion) and named_the_server(ui), [*ui.shown, *ui.waited]


async def test_a_32042_consent_through_langchain_names_the_server() -> None:
    from test_langchain import mcp_adapter

    person = Person()
    ui = ScriptedUI(otherwise=AcceptedElicitation())
    answers = for_fastmcp(ElicitationConfig(ui, modes=("form", "url"), open_url=person.open))
    async with (
        fastmcp_example(wait="error") as served,
        mcp_adapter(answers.client(served.mcp, mode="legacy")) as adapter,
    ):
        forecast = {tool.name: tool for tool in await adapter.list_tools()}["forecast"]
        result = await answers.until_urls_complete(lambda: forecast.ainvoke({"city": "Oslo"}))
        await person.finished()
    assert "Sunny in Oslo" in str(result)
    assert isinstance(ui.shown[0], UrlQuestion) and named_the_server(ui), [*ui.shown, *ui.waited]


async def test_answers_client_keeps_your_message_handler_and_refuses_a_second_elicitation_handler() -> None:
    seen: list[Any] = []

    async def mine(message: Any) -> None:
        seen.append(message)

    person = Person()
    ui = ScriptedUI(otherwise=AcceptedElicitation())
    answers = for_fastmcp(ElicitationConfig(ui, modes=("form", "url"), open_url=person.open))
    with pytest.raises(ValueError, match="elicitation_handler"):
        answers.client("http://127.0.0.1:9/mcp", elicitation_handler=answers.elicitation_handler)
    async with (
        fastmcp_example() as served,
        answers.client(served.mcp, mode="legacy", message_handler=mine) as client,
    ):
        await client.call_tool("forecast", {"city": "Oslo"})
        await person.finished()
    elicitation_id = person.opened[0].rsplit("/", 1)[1]
    assert answers.answers.completions.is_done(elicitation_id)  # the answers' own message handler ran
    assert seen  # and yours after it
