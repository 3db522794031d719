"""A tool called as a task (2025-11-25), elicitkit's client as the task's requestor (T-20..T-25).

Against the reference "everything" server (tests/peers/everything, nobody here wrote it): its
`simulate-research-query` requires a task, and with an ambiguous topic its task asks a
clarifying question on the `tasks/result` stream. Against `task_stdio_server.py`, a task server
written out as bare JSON-RPC: which tools are called as tasks, the poll interval, and which
task questions the client takes.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp.client.stdio import StdioServerParameters
from mcp_types import ListTasksRequest, ListTasksResult, TextContent
from support.server_process import free_port, stop, wait_until_serving

from elicitkit.client import (
    AcceptedElicitation,
    DeclinedElicitation,
    ElicitationConfig,
    ElicitationProtocolError,
    ElicitingClient,
    FormQuestion,
    ScriptedUI,
    ToolTaskCancelledError,
)

HERE = Path(__file__).parent
PEER = HERE.parent / "peers" / "everything"
EVERYTHING = StdioServerParameters(
    command="node",
    args=[
        str(PEER / "node_modules" / "@modelcontextprotocol" / "server-everything" / "dist" / "index.js"),
        "stdio",
    ],
)
TASK_PEER = StdioServerParameters(command=sys.executable, args=[str(HERE / "task_stdio_server.py")])
AMBIGUOUS = {"topic": "python", "ambiguous": True}


def text_of(result: Any) -> str:
    return "\n".join(c.text for c in result.content if isinstance(c, TextContent))


@pytest.fixture(scope="module")
def everything_http() -> Iterator[str]:
    """The reference server over its own streamable HTTP transport, on 127.0.0.1."""
    port = free_port()
    env = {**os.environ, "PORT": str(port)}
    process = subprocess.Popen(
        ["node", "serve_http.mjs"], cwd=PEER, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    try:
        wait_until_serving(process, f"http://127.0.0.1:{port}/mcp")
        yield f"http://127.0.0.1:{port}/mcp"
    finally:
        stop(process)


@pytest.fixture(params=["stdio", "http"])
def everything(request: pytest.FixtureRequest) -> Any:
    return EVERYTHING if request.param == "stdio" else request.getfixturevalue("everything_http")


class Pondering(ScriptedUI):
    """A person who is shown the question and never answers."""

    def __init__(self) -> None:
        super().__init__()
        self.asked = anyio.Event()

    async def ask_form(self, question: FormQuestion) -> Any:
        self.shown.append(question)
        self.asked.set()
        await anyio.sleep_forever()


async def list_tasks(client: ElicitingClient) -> dict[str, str]:
    listed = await client.session.send_request(ListTasksRequest(), ListTasksResult)
    return {task.task_id: task.status for task in listed.tasks}


async def test_the_research_tool_asks_its_clarifying_question_through_the_task(everything: Any) -> None:
    """T-20, T-23, T-24: taskSupport "required", so a plain `call_tool` calls it as a task; the
    question comes on `tasks/result`, the person sees which task asks, and the answer shapes the
    report, returned as a plain call returns a result."""
    ui = ScriptedUI(AcceptedElicitation({"interpretation": "snake"}))
    async with ElicitationConfig(ui).connect(everything, mode="legacy") as client:
        result = await client.call_tool("simulate-research-query", AMBIGUOUS)
    assert not result.is_error, text_of(result)
    assert "# Research Report: python (snake)" in text_of(result)
    [question] = ui.shown
    assert isinstance(question, FormQuestion)
    assert question.server == "Everything Reference Server, in its task simulate-research-query"
    assert "could have multiple interpretations" in question.message
    assert any("Generating report" in notice for notice in ui.notices), ui.notices


async def test_a_declined_clarification_reaches_the_task() -> None:
    ui = ScriptedUI(DeclinedElicitation())
    async with ElicitationConfig(ui).connect(EVERYTHING, mode="legacy") as client:
        result = await client.call_tool("simulate-research-query", AMBIGUOUS)
    assert "User declined - using default interpretation" in text_of(result), text_of(result)


async def test_a_call_cancelled_here_cancels_the_task_on_the_server() -> None:
    """T-25: the caller gives up while the person is being asked; the task is cancelled on the
    server, not only abandoned here."""
    ui = Pondering()
    async with ElicitationConfig(ui).connect(EVERYTHING, mode="legacy") as client:
        async with anyio.create_task_group() as group:
            group.start_soon(client.call_tool, "simulate-research-query", AMBIGUOUS)
            with anyio.fail_after(20):
                await ui.asked.wait()
            group.cancel_scope.cancel()
        assert list((await list_tasks(client)).values()) == ["cancelled"]


async def test_a_task_past_its_deadline_is_cancelled_on_the_server_and_said_so() -> None:
    """T-25: one deadline bounds the whole call; when it runs out the server is told."""
    async with ElicitationConfig(ScriptedUI()).connect(TASK_PEER, mode="legacy") as client:
        with anyio.fail_after(20), pytest.raises(ToolTaskCancelledError, match="did not finish within 1 s"):
            await client.call_tool("slow", {}, task_timeout=1)
        assert list((await list_tasks(client)).values()) == ["cancelled"]


async def test_only_a_tool_that_takes_tasks_is_called_as_one() -> None:
    """T-20, T-21: "required" always, "optional" when asked, "forbidden" or unsaid never."""
    async with ElicitationConfig(ScriptedUI()).connect(TASK_PEER, mode="legacy") as client:
        said = {
            (name, asked): text_of(await client.call_tool(name, {}, task=asked))
            for name in ("optional", "forbidden", "unsaid")
            for asked in (None, True)
        }
    assert said == {
        ("optional", None): "optional: plain",
        ("optional", True): "optional: task",
        ("forbidden", None): "forbidden: plain",
        ("forbidden", True): "forbidden: plain",
        ("unsaid", None): "unsaid: plain",
        ("unsaid", True): "unsaid: plain",
    }


async def test_the_client_polls_at_the_interval_and_takes_only_its_tasks_questions() -> None:
    """T-22: `tasks/get` at the server's `pollInterval` (300 ms), never faster. T-24: a question
    tagged with the task is answered on its `tasks/result`; before that request is open, tagged
    with another task, or not tagged at all, it is refused with -32602 and never shown."""
    ui = ScriptedUI(AcceptedElicitation({"topic": "snakes"}))
    async with ElicitationConfig(ui).connect(TASK_PEER, mode="legacy") as client:
        report = json.loads(text_of(await client.call_tool("research", {})))
    assert report["replies"] == {
        "before tasks/result": -32602,
        "a stranger's task": -32602,
        "no task named": -32602,
        "its own task": "accept",
    }
    assert len(ui.shown) == 1 and ui.shown[0].server == "Task Peer, in its task research"
    assert len(report["gaps"]) >= 2 and min(report["gaps"]) >= 0.29, report["gaps"]


async def test_a_status_notification_is_taken_at_once_not_after_the_poll_interval() -> None:
    """T-22 (optional part): the task suggests 5 s between polls, then says at once, in
    `notifications/tasks/status`, that it needs input; the client calls `tasks/result` without
    waiting out the interval, and its question is answered."""
    ui = ScriptedUI(AcceptedElicitation({"topic": "snakes"}))
    async with ElicitationConfig(ui).connect(TASK_PEER, mode="legacy") as client:
        report = json.loads(text_of(await client.call_tool("told", {})))
    assert report["reply"] == "accept"
    assert report["after"] < 3, report


async def test_a_task_that_breaks_the_protocol_ends_with_a_typed_error_not_pydantics() -> None:
    async with ElicitationConfig(ScriptedUI()).connect(TASK_PEER, mode="legacy") as client:
        with pytest.raises(ElicitationProtocolError, match="Task Peer sent a result that breaks the"):
            await client.call_tool("broken", {})


async def test_a_listing_that_never_ends_does_not_hold_the_call() -> None:
    """A tool the listing never names, on a server whose every `tools/list` page names a next
    one: the client stops reading pages (100 at most) and calls it plainly."""
    endless = StdioServerParameters(command=sys.executable, args=[*TASK_PEER.args, "300", "-", "endless"])
    async with ElicitationConfig(ScriptedUI()).connect(endless, mode="legacy") as client:
        with anyio.fail_after(30):
            assert text_of(await client.call_tool("nowhere", {})) == "nowhere: plain"
