"""The reference "everything" server's task-augmented question, answered by elicitkit's client (T-10..T-19).

`trigger-elicitation-request-async` (tests/peers/everything, nobody here wrote it) is listed only
to a client that declares `tasks.requests.elicitation.create`. Its tool sends an
`elicitation/create` with `task: {ttl}`, polls the client's `tasks/get` every second and reads
`tasks/result`, then says what it saw, the status of each poll included.
"""

from __future__ import annotations

from pathlib import Path

import anyio
import pytest
from mcp.client.stdio import StdioServerParameters

from elicitkit.client import (
    AcceptedElicitation,
    CancelledElicitation,
    DeclinedElicitation,
    ElicitationConfig,
    FormQuestion,
    Reply,
    ScriptedUI,
)

pytestmark = pytest.mark.timeout(120)

INDEX = (
    Path(__file__).parents[2]
    / "tests/peers/everything/node_modules/@modelcontextprotocol/server-everything/dist/index.js"
)
EVERYTHING = StdioServerParameters(command="node", args=[str(INDEX), "stdio"])
TOOL = "trigger-elicitation-request-async"


class SlowPerson(ScriptedUI):
    """A scripted person who takes a while over each form, as a person does."""

    async def ask_form(self, question: FormQuestion) -> Reply:
        await anyio.sleep(1.5)
        return await super().ask_form(question)


async def call(ui: ScriptedUI, config: ElicitationConfig | None = None) -> str:
    async with (config or ElicitationConfig(ui)).connect(EVERYTHING) as client:
        listed = {tool.name for tool in (await client.list_tools()).tools}
        assert TOOL in listed
        result = await client.call_tool(TOOL, {})
    return "\n".join(part.text for part in result.content)  # type: ignore[union-attr]


async def test_the_async_question_is_answered_through_a_task_that_waits_for_the_person() -> None:
    ui = SlowPerson(AcceptedElicitation({"name": "Ada", "favoriteColor": "Blue", "agreeToTerms": True}))
    said = await call(ui)
    assert "[COMPLETED] User provided the requested information!" in said
    assert "- Name: Ada" in said and "- Favorite Color: Blue" in said
    assert "Poll 1: input_required" in said  # the person was being asked
    assert "completed" in said and '"io.modelcontextprotocol/related-task"' in said
    [question] = ui.shown
    task_id = said.split("Task created: ")[1].split()[0]
    assert isinstance(question, FormQuestion)
    assert question.server == f"Everything Reference Server (task {task_id[:8]})"


@pytest.mark.parametrize(
    ("reply", "said"),
    [
        (DeclinedElicitation(), "[DECLINED] User declined to provide the requested information."),
        (CancelledElicitation(), "[CANCELLED] User cancelled the elicitation dialog."),
    ],
    ids=["declined", "cancelled"],
)
async def test_the_async_question_declined_or_cancelled_by_the_person(reply: Reply, said: str) -> None:
    assert said in await call(ScriptedUI(reply))


async def test_without_tasks_the_client_is_not_offered_the_async_question() -> None:
    config = ElicitationConfig(ScriptedUI(), tasks=False)
    async with config.connect(EVERYTHING) as client:
        listed = {tool.name for tool in (await client.list_tools()).tools}
    assert TOOL not in listed and "trigger-elicitation-request" in listed
