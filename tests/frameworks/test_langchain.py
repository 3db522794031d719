"""LangChain's `langchain.mcp.MCPAdapter` around a `fastmcp.Client` answering through elicitkit:
the tools LangChain builds ask the person a form and a URL consent, at both revisions, and a
decline stays a decline."""

from __future__ import annotations

import warnings
from typing import Any

import fastmcp
import pytest
from fastmcp_harness import BOOKING, Person, fastmcp_example

from elicitkit.client import (
    AcceptedElicitation,
    DeclinedElicitation,
    ElicitationConfig,
    FormQuestion,
    ScriptedUI,
    UrlQuestion,
)
from elicitkit.client._frameworks import for_fastmcp


def mcp_adapter(client: fastmcp.Client[Any]) -> Any:

    from langchain_core._api import LangChainBetaWarning  # its import adds a filter of its own

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", LangChainBetaWarning)  # langchain.mcp is in beta, it says once
        from langchain.mcp import MCPAdapter
    return MCPAdapter(client)


pytestmark = pytest.mark.timeout(90)


async def tools(adapter: Any) -> dict[str, Any]:
    return {tool.name: tool for tool in await adapter.list_tools()}


@pytest.mark.parametrize("mode", ["legacy", "2026-07-28"])
async def test_langchain_tools_ask_through_elicitkit(mode: str) -> None:
    person = Person()
    ui = ScriptedUI(AcceptedElicitation(BOOKING), otherwise=AcceptedElicitation())
    config = ElicitationConfig(ui, modes=("form", "url"), open_url=person.open, wait_timeout=30)
    answers = for_fastmcp(config)
    async with fastmcp_example() as served:
        client = fastmcp.Client(
            served.mcp, mode=mode, input_required_max_rounds=400, **answers.client_options()
        )
        async with mcp_adapter(client) as adapter:
            found = await tools(adapter)
            booked = await found["book"].ainvoke({})
            forecast = await found["forecast"].ainvoke({"city": "Oslo"})
        await person.finished()
    assert "Booked a table for 4 on 2026-12-24." in str(booked)
    assert "Sunny in Oslo (key " in str(forecast)
    form, *consents = ui.shown
    assert isinstance(form, FormQuestion) and consents and all(isinstance(c, UrlQuestion) for c in consents)
    assert person.opened[0].startswith(f"{served.base}/elicit/")


async def test_langchain_decline_stays_a_decline() -> None:
    answers = for_fastmcp(ElicitationConfig(ScriptedUI(DeclinedElicitation())))
    async with (
        fastmcp_example() as served,
        mcp_adapter(fastmcp.Client(served.mcp, **answers.client_options())) as adapter,
    ):
        booked = await (await tools(adapter))["book"].ainvoke({})
    assert "Nothing booked: the person chose decline." in str(booked)


@pytest.mark.parametrize("mode", ["legacy", "2026-07-28"])
async def test_langchain_undeclared_mode_reaches_the_server_as_an_error(mode: str) -> None:
    person = Person()
    ui = ScriptedUI(otherwise=AcceptedElicitation())
    answers = for_fastmcp(ElicitationConfig(ui, modes=("form",), open_url=person.open))
    async with fastmcp_example() as served:
        client = fastmcp.Client(served.mcp, mode=mode, **answers.client_options())
        async with mcp_adapter(client) as adapter:
            try:
                forecast: Any = await (await tools(adapter))["forecast"].ainvoke({"city": "Oslo"})
            except Exception as exc:  # the tool raises the server's error, or returns it
                forecast = exc
        states = {r.state for r in served.store.records.values()}
    assert "did not declare elicitation mode 'url'" in str(forecast), forecast
    assert "Sunny" not in str(forecast) and ui.shown == [] and person.opened == []
    assert "completed" not in states
