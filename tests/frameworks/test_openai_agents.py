"""openai-agents for real: examples/fastmcp/agent_openai_agents.py (an `Agent` with a scripted
`Model`, no network) whose function tool makes the MCP call through `ElicitingClient`, against
the FastMCP example server on 127.0.0.1. openai-agents' own MCP client declares no elicitation,
so this recipe is how its agents reach a person (docs/frameworks.md)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from fastmcp_harness import BOOKING, ROOT, fastmcp_example
from support.scripts import load

from elicitkit.client import (
    AcceptedElicitation,
    DeclinedElicitation,
    ElicitationConfig,
    FormQuestion,
    ScriptedUI,
)

pytestmark = pytest.mark.timeout(60)

run = load(ROOT / "examples" / "fastmcp" / "agent_openai_agents.py").run


@pytest.fixture(autouse=True)
def no_tracing() -> Iterator[None]:
    """openai-agents exports traces to OpenAI by default: off, no network."""
    from agents import set_tracing_disabled

    set_tracing_disabled(True)
    yield
    set_tracing_disabled(False)


async def test_openai_agent_books_through_the_recipe() -> None:
    ui = ScriptedUI(AcceptedElicitation(BOOKING))
    async with fastmcp_example() as served:
        output = await run(served.mcp, ElicitationConfig(ui))
    assert output == "Booked a table for 4 on 2026-12-24."
    assert [type(q) for q in ui.shown] == [FormQuestion]


async def test_openai_agent_gets_a_decline_not_an_accept() -> None:
    ui = ScriptedUI(DeclinedElicitation())
    async with fastmcp_example() as served:
        output = await run(served.mcp, ElicitationConfig(ui))
    assert output == "Nothing booked: the person chose decline."
