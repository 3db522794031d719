"""An elicitkit task tool on the 2026-07-28 tasks extension (support/ext_task_server.py, its own process),
called by FastMCP's client with fastmcp-tasks' client half (nobody here wrote it; its own venv)
and by elicitkit's client.

The tool asks with `elicit.form` as any tool does; the task goes `input_required`, `tasks/get`
carries the question in `inputRequests`, `tasks/update` carries the answer, validated as every
form answer is (a wrong one is -32602 and the question stays open); `tasks/*` of another user,
or of no task, is -32602.
"""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any, Literal

import httpx2
import pytest
from mcp.client import Client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.exceptions import MCPError
from mcp_types import Request, RequestParams, Result
from support.fastmcp_tasks_peer import PEER, PYTHON
from support.server_process import free_port, stop, wait_until_serving

from elicitkit.client import AcceptedElicitation, ElicitationConfig, FormQuestion, ScriptedUI

pytestmark = pytest.mark.timeout(90)

TESTS = Path(__file__).parents[1]


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    log = tmp_path_factory.mktemp("ext-tasks") / "server.log"
    port = free_port()
    with log.open("wb") as out:
        process = subprocess.Popen(
            [sys.executable, "-m", "support.ext_task_server", str(port)], cwd=TESTS, stdout=out, stderr=out
        )
    url = f"http://127.0.0.1:{port}/mcp"
    try:
        wait_until_serving(process, url, log)
        yield url
    finally:
        stop(process)


def fastmcp_client(url: str, answer: dict[str, Any]) -> subprocess.CompletedProcess[str]:
    command = [str(PYTHON), "client.py", url, "alice", "approve", '{"payee": "Ann"}', json.dumps(answer)]
    return subprocess.run(command, cwd=PEER, capture_output=True, text=True, timeout=60)


def test_fastmcp_tasks_client_answers_an_elicitkit_task(server: str) -> None:
    done = fastmcp_client(server, {"approve": True, "amount": 7})
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout) == "payment to Ann: approved, 7"
    assert "asked: Pay Ann?" in done.stderr


def test_an_answer_outside_the_form_is_refused_and_never_reaches_the_tool(server: str) -> None:
    done = fastmcp_client(server, {"approve": True, "amount": 5000})
    assert done.returncode == 1
    assert "does not fit the form" in done.stderr and "at most 1000" in done.stderr
    assert "approved" not in done.stdout


class _TaskParams(RequestParams):
    task_id: str


class _GetTask(Request[_TaskParams, Literal["tasks/get"]]):
    method: Literal["tasks/get"] = "tasks/get"


class _Status(Result):
    status: str


class TaskIds:
    """The task ids the client polled, read off its HTTP requests."""

    def __init__(self) -> None:
        self.seen: list[str] = []

    async def __call__(self, request: httpx2.Request) -> None:
        if request.method == "POST":
            body = json.loads(request.content)
            if body.get("method") == "tasks/get":
                self.seen.append(body["params"]["taskId"])


async def get_as(server: str, user: str, task_id: str) -> _Status | MCPError:
    http = httpx2.AsyncClient(headers={"Authorization": f"Bearer {user}"}, timeout=30)
    async with http, ElicitationConfig(ScriptedUI()).connect(server, http_client=http) as client:
        try:
            return await client.session.send_request(_GetTask(params=_TaskParams(task_id=task_id)), _Status)
        except MCPError as error:  # inside: the SDK's task groups would wrap it
            return error


async def test_elicitkit_client_answers_and_only_its_user_reads_the_task(server: str) -> None:
    ids = TaskIds()
    ui = ScriptedUI(AcceptedElicitation({"approve": True, "amount": 9}))
    http = httpx2.AsyncClient(
        headers={"Authorization": "Bearer alice"}, event_hooks={"request": [ids]}, timeout=30
    )
    async with http, ElicitationConfig(ui).connect(server, http_client=http) as client:
        result = await client.call_tool("approve", {"payee": "Ann"})
    assert result.content[0].text == "payment to Ann: approved, 9"  # type: ignore[union-attr]
    [question] = ui.shown
    assert isinstance(question, FormQuestion) and question.message == "Pay Ann?"
    task = ids.seen[0]
    mine = await get_as(server, "alice", task)
    assert isinstance(mine, _Status) and mine.status == "completed"
    for user, task_id in (("bob", task), ("alice", "no-such-task")):
        refused = await get_as(server, user, task_id)
        assert isinstance(refused, MCPError) and refused.error.code == -32602


async def test_a_client_that_did_not_declare_the_extension_is_told_so(server: str) -> None:
    """The SDK's plain client declares no extension: the task tool and `tasks/get` are -32021."""
    http = httpx2.AsyncClient(headers={"Authorization": "Bearer alice"}, timeout=30)
    async with http, Client(streamable_http_client(server, http_client=http)) as client:
        refused: list[MCPError] = []
        for call in (
            lambda: client.call_tool("approve", {"payee": "Ann"}),
            lambda: client.session.send_request(_GetTask(params=_TaskParams(task_id="any")), _Status),
        ):
            try:
                await call()
            except MCPError as error:  # inside: the SDK's task groups would wrap it
                refused.append(error)
    assert [e.error.code for e in refused] == [-32021, -32021]
    assert refused[0].error.data == {
        "requiredCapabilities": {"extensions": {"io.modelcontextprotocol/tasks": {}}}
    }
