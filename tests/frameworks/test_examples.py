"""The framework examples, run for real against the FastMCP example server: a pydantic-ai agent
(FunctionModel, no network) whose MCP toolset answers through elicitkit's ScriptedUI, and
FastMCP's own client answering the same way."""

from __future__ import annotations

from typing import Any

import pytest
from fastmcp_harness import BOOKING, ROOT, Person, fastmcp_example
from support.scripts import load

from elicitkit.client import AcceptedElicitation, ElicitationConfig, FormQuestion, ScriptedUI, UrlQuestion

build_agent = load(ROOT / "examples" / "fastmcp" / "agent_pydantic_ai.py").build_agent
run_fastmcp_client = load(ROOT / "examples" / "fastmcp" / "client_fastmcp.py").run

pytestmark = [
    pytest.mark.timeout(90),
    # pydantic-ai warns this on 2026-07-28 sessions, wrongly: FastMCP's input-required driver
    # does call it (these tests show it), see docs/upstream.md.
    pytest.mark.filterwarnings("ignore:`elicitation_handler` will never be called:UserWarning"),
]


async def test_pydantic_ai_agent_books_and_gets_the_forecast() -> None:
    person = Person()
    ui = ScriptedUI(AcceptedElicitation(BOOKING), otherwise=AcceptedElicitation())
    config = ElicitationConfig(ui, modes=("form", "url"), open_url=person.open, wait_timeout=30)
    async with fastmcp_example() as served:
        result = await build_agent(served.mcp, config).run("Book a table, then the weather in Oslo.")
        await person.finished()
    booked, forecast = result.output.split(" / ")
    assert booked == "Booked a table for 4 on 2026-12-24."
    assert forecast.startswith("Sunny in Oslo (key ")
    assert isinstance(ui.shown[0], FormQuestion) and isinstance(ui.shown[1], UrlQuestion)
    assert person.opened and person.opened[0].startswith(f"{served.base}/elicit/")


async def test_pydantic_ai_agent_gets_a_decline_not_an_accept() -> None:
    from elicitkit.client import DeclinedElicitation

    ui = ScriptedUI(DeclinedElicitation(), DeclinedElicitation())
    config = ElicitationConfig(ui, modes=("form", "url"), open_url=lambda url: True)
    async with fastmcp_example() as served:
        agent = build_agent(served.mcp, config)
        result = await agent.run("Book a table, then the weather in Oslo.")
    booked, forecast = result.output.split(" / ")
    assert booked == "Nothing booked: the person chose decline."
    assert "declined" in forecast


@pytest.mark.parametrize(("mode", "wait"), [("auto", "live"), ("legacy", "live"), ("legacy", "error")])
async def test_fastmcp_client_example(mode: str, wait: Any) -> None:
    person = Person()
    ui = ScriptedUI(AcceptedElicitation(BOOKING), otherwise=AcceptedElicitation())
    config = ElicitationConfig(ui, modes=("form", "url"), open_url=person.open, wait_timeout=30)
    async with fastmcp_example(wait=wait) as served:
        booked, forecast = await run_fastmcp_client(served.mcp, config, mode)
        await person.finished()
    assert booked == "Booked a table for 4 on 2026-12-24."
    assert forecast.startswith("Sunny in Oslo (key ")
    form, *consents = ui.shown  # 2026-07-28 ("auto") asks the URL again each round until done
    assert isinstance(form, FormQuestion) and consents
    assert all(isinstance(c, UrlQuestion) and c.report.url == person.opened[0] for c in consents)


async def test_pydantic_ai_undeclared_mode_reaches_the_server_as_an_error() -> None:
    # pydantic-ai's session (the SDK's) declares url anyway; the form-only config refuses the
    # URL request with an error, which the tool sees and pydantic-ai hands the model as a retry
    person = Person()
    ui = ScriptedUI(AcceptedElicitation(BOOKING), otherwise=AcceptedElicitation())
    config = ElicitationConfig(ui, modes=("form",), open_url=person.open)
    async with fastmcp_example() as served:
        result = await build_agent(served.mcp, config).run("Book a table, then the weather in Oslo.")
        states = {r.state for r in served.store.records.values()}
    booked, forecast = result.output.split(" / ")
    assert booked == "Booked a table for 4 on 2026-12-24."
    assert forecast == "This client did not declare elicitation mode 'url'."
    assert [type(q) for q in ui.shown] == [FormQuestion] and person.opened == []
    assert "completed" not in states
