"""Tasks (2025-11-25) through the bridge, both ways, against the reference "everything" server.

The server's own task (`simulate-research-query`, which requires one): a host that knows no
tasks calls it plainly and the bridge runs the task; a host that runs tasks runs its own
through the bridge, and the task's question reaches it tied to its `tasks/result`. The
client's task (`trigger-elicitation-request-async`, a task-augmented `elicitation/create`): the
bridge takes it as its own task and asks the host, or the person in its page (`--answer`).
Real processes throughout: the host, `elicitkit bridge`, the TypeScript server.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest
from bridge_harness import BrowserRecord, bridge_http, bridge_stdio, environment, text_of
from mcp import Client
from mcp_types import ElicitRequestFormParams, ElicitResult, ListTasksRequest, ListTasksResult
from playwright.async_api import Browser
from test_bridge_everything import EVERYTHING, through

from elicitkit.client import AcceptedElicitation, ElicitationConfig, ScriptedUI

pytestmark = [pytest.mark.timeout(300), pytest.mark.filterwarnings("ignore::DeprecationWarning")]

HOW = ["stdio", "http"]
AMBIGUOUS = {"topic": "python", "ambiguous": True}
SAID = {
    "accept": "[COMPLETED] User provided the requested information!",
    "decline": "[DECLINED] User declined to provide the requested information.",
    "cancel": "[CANCELLED] User cancelled the elicitation dialog.",
}


class Host:
    """A host's elicitation callback that answers every question `action`, with `content`."""

    def __init__(self, action: str, content: dict[str, Any] | None = None) -> None:
        self.result = ElicitResult(action=action, content=content)  # type: ignore[arg-type]
        self.asked: list[Any] = []

    async def __call__(self, context: Any, params: Any) -> ElicitResult:
        self.asked.append(params)
        return self.result


@pytest.mark.parametrize("how", HOW)
@pytest.mark.parametrize("action", ["accept", "decline", "cancel"])
async def test_the_servers_task_augmented_question_reaches_the_host(
    how: str, action: str, everything_bridged: str
) -> None:
    """The bridge declares `tasks.requests.elicitation.create`, so the server lists its async
    tool and asks as a task; the bridge answers with a task of its own and asks the host a plain
    question, whose answer ends the task the server polls."""
    host = Host(action, {"name": "Ada Lovelace", "favoriteColor": "Blue"} if action == "accept" else None)
    async with Client(through(how, everything_bridged), elicitation_callback=host, mode="legacy") as client:
        tools = {tool.name for tool in (await client.list_tools()).tools}
        assert "trigger-elicitation-request-async" in tools
        result = await client.call_tool("trigger-elicitation-request-async", {})
    said = text_of(result)
    assert SAID[action] in said, said
    assert "Task created:" in said
    if action == "accept":
        assert "- Name: Ada Lovelace" in said and "- Favorite Color: Blue" in said
    [asked] = host.asked
    assert isinstance(asked, ElicitRequestFormParams)
    assert asked.requested_schema["required"] == ["name"]


@pytest.mark.parametrize("how", HOW)
async def test_a_host_that_knows_no_tasks_gets_the_task_tool_run_by_the_bridge(
    how: str, everything_bridged: str
) -> None:
    """`simulate-research-query` requires a task; a host that calls it plainly gets its result,
    and the clarifying question the task asks on `tasks/result` reaches that host."""
    host = Host("accept", {"interpretation": "snake"})
    async with Client(through(how, everything_bridged), elicitation_callback=host, mode="legacy") as client:
        result = await client.call_tool("simulate-research-query", AMBIGUOUS)
    assert "# Research Report: python (snake)" in text_of(result), text_of(result)
    [asked] = host.asked
    assert "could have multiple interpretations" in asked.message


@pytest.mark.parametrize("how", HOW)
async def test_a_host_that_runs_tasks_runs_its_own_through_the_bridge(
    how: str, everything_bridged: str
) -> None:
    """elicitkit's client as the host calls the task tool as a task: the bridge passes the
    `task`, `tasks/get` and `tasks/result` through, the question comes tied to the host's
    `tasks/result` (its related-task `_meta` kept), and the task is the host's to list."""
    ui = ScriptedUI(AcceptedElicitation({"interpretation": "snake"}))
    async with ElicitationConfig(ui).connect(through(how, everything_bridged), mode="legacy") as client:
        result = await client.call_tool("simulate-research-query", AMBIGUOUS)
        listed = await client.session.send_request(ListTasksRequest(), ListTasksResult)
    assert "# Research Report: python (snake)" in text_of(result), text_of(result)
    [question] = ui.shown
    assert "in its task simulate-research-query" in (question.server or "")
    assert [task.status for task in listed.tasks] == ["completed"]


async def test_the_bridge_answers_the_task_augmented_question_in_its_page(
    everything_http: str, tmp_path: Path, chromium: Browser
) -> None:
    """`--answer browser` for a host that declared no elicitation: the person answers the
    server's task in the bridge's page."""
    record = BrowserRecord(tmp_path)
    env = environment(**record.env)

    async def person() -> None:
        page = await chromium.new_page()
        await page.goto(await asyncio.to_thread(record.next_url, 0))
        await page.get_by_label("Your Name").first.fill("Grace Hopper")
        await page.get_by_role("button", name="Review answers").click()
        await page.get_by_role("button", name="Submit answers").click()

    async def calls(server: Any) -> str:
        async with Client(server, mode="legacy") as client:  # no elicitation declared
            return text_of(await client.call_tool("trigger-elicitation-request-async", {}))

    with bridge_http([everything_http], tmp_path / "bridge.log", "browser", env=env) as bridged:
        _, said = await asyncio.gather(person(), calls(bridged))
    assert SAID["accept"] in said and "- Name: Grace Hopper" in said, said


async def test_over_stdio_the_bridge_answers_the_research_question_in_its_page(
    tmp_path: Path, chromium: Browser
) -> None:
    """The same for the server's own task, the bridge run by the host over stdio."""
    record = BrowserRecord(tmp_path)
    env = environment(**record.env)

    async def person() -> None:
        page = await chromium.new_page()
        await page.goto(await asyncio.to_thread(record.next_url, 0))
        await page.get_by_label("Python snake species").check()
        await page.get_by_role("button", name="Review answers").click()
        await page.get_by_role("button", name="Submit answers").click()

    async def calls() -> str:
        async with Client(bridge_stdio(EVERYTHING, "browser", env=env), mode="legacy") as client:
            return text_of(await client.call_tool("simulate-research-query", AMBIGUOUS))

    _, said = await asyncio.gather(person(), calls())
    assert "# Research Report: python (snake)" in said, said
