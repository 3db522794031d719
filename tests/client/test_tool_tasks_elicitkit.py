"""elicitkit's client calls elicitkit's own task tools (2025-11-25) as a requestor (T-20..T-25).

The server is tests/support/task_server.py over real HTTP on 127.0.0.1 (its tools run as tasks
through `elicitkit.server`'s `Tasks`): a form question and a URL-mode `Secret` asked inside a
task reach the person through the task's `tasks/result`, and the tool's result, or its error,
comes back as a plain call returns it.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

import httpx2
import pytest
from mcp.shared.exceptions import MCPError
from mcp_types import TextContent
from support.task_server import PAY_KEY, fingerprint, finish_page, serving

from elicitkit.client import (
    AcceptedElicitation,
    ElicitationConfig,
    ElicitingClient,
    FormQuestion,
    ScriptedUI,
    UrlQuestion,
)

pytestmark = pytest.mark.timeout(60)


@asynccontextmanager
async def connected(ui: ScriptedUI, **options: object) -> AsyncIterator[ElicitingClient]:
    async with (
        serving() as (_server, url),
        httpx2.AsyncClient(headers={"Authorization": "Bearer alice"}, timeout=30) as http,
        ElicitationConfig(ui, modes=("form", "url"), **options).connect(  # type: ignore[arg-type]
            url, mode="legacy", http_client=http
        ) as client,
    ):
        yield client


def text_of(result: object) -> str:
    return "\n".join(c.text for c in result.content if isinstance(c, TextContent))  # type: ignore[attr-defined]


async def test_a_form_question_inside_an_optional_task_tool_asked_for_as_a_task() -> None:
    ui = ScriptedUI(AcceptedElicitation({"day": "Friday"}))
    async with connected(ui) as client:
        result = await client.call_tool("book", {"city": "Oslo"}, task=True)
    assert text_of(result) == "Booked Oslo on Friday"
    [question] = ui.shown
    assert isinstance(question, FormQuestion) and question.server == "tasks, in its task book"


async def test_a_required_task_tools_url_question_completes_when_the_page_is_finished() -> None:
    links: list[str] = []

    def opened(url: str) -> bool:
        links.append(url)
        asyncio.get_running_loop().create_task(finish_page(url, "alice", PAY_KEY))
        return True

    ui = ScriptedUI(AcceptedElicitation())
    async with connected(ui, open_url=opened) as client:
        result = await client.call_tool("pay", {"amount": 12})
    assert text_of(result) == f"Paid 12 with key {fingerprint(PAY_KEY)}"
    [question] = ui.shown
    assert isinstance(question, UrlQuestion) and question.server == "tasks, in its task pay"
    assert len(links) == 1


async def test_a_failed_task_gives_what_the_plain_call_gives() -> None:
    async with connected(ScriptedUI()) as client:
        plain = await _outcome(client, task=False)
        as_task = await _outcome(client, task=True)
    assert as_task == plain


async def _outcome(client: ElicitingClient, *, task: bool) -> tuple[str, object]:
    try:
        result = await client.call_tool("fail", {}, task=task)
    except MCPError as error:
        return "error", (error.code, error.error.message)
    return "result", (result.is_error, text_of(result))
