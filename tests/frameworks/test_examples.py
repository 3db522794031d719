"""The framework examples, run for real against the FastMCP example server: a pydantic-ai agent
(FunctionModel, no network) whose MCP toolset answers through elicitkit's ScriptedUI."""

from __future__ import annotations

import sys

import pytest
from fastmcp_harness import BOOKING, ROOT, Person, fastmcp_example

from elicitkit.client import Accept, ElicitationHandler, FormQuestion, ScriptedUI, UrlQuestion

sys.path.insert(0, str(ROOT / "examples" / "fastmcp"))

from agent_pydantic_ai import build_agent

pytestmark = pytest.mark.timeout(90)


async def test_pydantic_ai_agent_books_and_gets_the_forecast() -> None:
    person = Person()
    ui = ScriptedUI(Accept(BOOKING), otherwise=Accept())
    handler = ElicitationHandler(ui, modes=("form", "url"), open_url=person.open, wait_timeout=30)
    async with fastmcp_example() as served:
        result = await build_agent(served.mcp, handler).run("Book a table, then the weather in Oslo.")
        await person.finished()
    booked, forecast = result.output.split(" / ")
    assert booked == "Booked a table for 4 on 2026-12-24."
    assert forecast.startswith("Sunny in Oslo (key ")
    assert isinstance(ui.shown[0], FormQuestion) and isinstance(ui.shown[1], UrlQuestion)
    assert person.opened and person.opened[0].startswith(f"{served.base}/elicit/")


async def test_pydantic_ai_agent_gets_a_decline_not_an_accept() -> None:
    from elicitkit.client import Decline

    ui = ScriptedUI(Decline(), Decline())
    handler = ElicitationHandler(ui, modes=("form", "url"), open_url=lambda url: True)
    async with fastmcp_example() as served:
        agent = build_agent(served.mcp, handler)
        result = await agent.run("Book a table, then the weather in Oslo.")
    booked, forecast = result.output.split(" / ")
    assert booked == "Nothing booked: the person chose decline."
    assert "declined" in forecast
