"""elicitkit's client against FastMCP's tasks extension (`fastmcp-tasks` 4.1.4, nobody here wrote it).

Its tools run only as tasks (`TaskConfig(mode="required")`), so a client that does not declare
`io.modelcontextprotocol/tasks` is refused with -32021. On 2026-07-28 `ElicitingClient` declares
it, polls `tasks/get`, asks the task's input requests through its own rules and answers them with
`tasks/update`; `call_tool` returns the tool's result as a plain call would. The person's cancel on
the waiting screen, and a call cancelled (Ctrl-C), reach the server as `tasks/cancel`.
"""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any, Literal

import anyio
import httpx2
import pytest
from mcp.shared.exceptions import MCPError
from mcp_types import Request, RequestParams, Result
from support.fastmcp_tasks_peer import serving

from elicitkit.client import (
    AcceptedElicitation,
    DeclinedElicitation,
    ElicitationCancelledError,
    ElicitationConfig,
    FormQuestion,
    ScriptedUI,
    UrlQuestion,
)

pytestmark = pytest.mark.timeout(90)

APPROVE = {"approve": True, "amount": 7}
ELICITKIT = Path(sys.executable).with_name("elicitkit")


@pytest.fixture(scope="module")
def peer(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    with serving(tmp_path_factory.mktemp("fastmcp-tasks") / "server.log") as url:
        yield url


class Sent:
    """The JSON-RPC methods (and task ids) the client sent, read off its HTTP requests."""

    def __init__(self) -> None:
        self.calls: list[tuple[str, Any]] = []
        self.routed: list[tuple[str | None, Any]] = []
        """For each `tasks/*`: its `Mcp-Name` header and its task id (SEP-2663: the same)."""

    async def __call__(self, request: httpx2.Request) -> None:
        if request.method == "POST":
            body = json.loads(request.content)
            method, task = body.get("method"), (body.get("params") or {}).get("taskId")
            self.calls.append((method, task))
            if str(method).startswith("tasks/"):
                self.routed.append((request.headers.get("mcp-name"), task))

    def methods(self) -> list[str]:
        return [method for method, _ in self.calls]

    def task_id(self) -> str:
        return next(task for method, task in self.calls if method == "tasks/get")


async def call(
    peer: str, tool: str, arguments: dict[str, Any], ui: ScriptedUI, *, mode: str = "auto"
) -> tuple[Any, Sent]:
    sent = Sent()
    http = httpx2.AsyncClient(event_hooks={"request": [sent]}, timeout=httpx2.Timeout(30, read=60))
    config = ElicitationConfig(ui, modes=("form", "url"), open_url=lambda url: True)
    async with http, config.connect(peer, http_client=http, mode=mode) as client:
        try:
            return await client.call_tool(tool, arguments), sent
        except (MCPError, ElicitationCancelledError) as error:  # inside: the SDK's task groups would wrap it
            return error, sent


class _TaskParams(RequestParams):
    task_id: str


class _GetTask(Request[_TaskParams, Literal["tasks/get"]]):
    method: Literal["tasks/get"] = "tasks/get"


class _Status(Result):
    status: str


async def status_of(peer: str, task_id: str) -> str:
    """What a fresh connection's `tasks/get` says of `task_id` (the peer's tasks are anonymous)."""
    async with ElicitationConfig(ScriptedUI()).connect(peer) as client:
        result = await client.session.send_request(_GetTask(params=_TaskParams(task_id=task_id)), _Status)
    return result.status


async def test_a_task_that_asks_is_answered_and_ends_as_a_plain_call(peer: str) -> None:
    ui = ScriptedUI(AcceptedElicitation(APPROVE))
    result, sent = await call(peer, "approve_payment", {"payee": "Ann"}, ui)
    assert not result.is_error, result
    assert result.content[0].text == "payment to Ann: approved, 7"
    [question] = ui.shown
    assert isinstance(question, FormQuestion) and question.message == "Pay Ann?"
    assert question.server == "fastmcp-tasks peer, in its task approve_payment"  # who asks, and for what
    methods = sent.methods()
    assert "tasks/get" in methods and methods.count("tasks/update") == 1
    assert sent.routed and all(header == task for header, task in sent.routed)
    # On 2025-11-25 the extension does not exist, so it is not declared and the server refuses.
    legacy_ui = ScriptedUI(AcceptedElicitation(APPROVE))
    error, sent = await call(peer, "approve_payment", {"payee": "Ann"}, legacy_ui, mode="legacy")
    assert isinstance(error, MCPError) and error.error.code == -32021
    assert legacy_ui.shown == [] and "tasks/get" not in sent.methods()


async def test_an_answer_outside_the_schema_is_never_sent(peer: str) -> None:
    ui = ScriptedUI(AcceptedElicitation({"approve": True, "amount": 5000}), AcceptedElicitation(APPROVE))
    result, _ = await call(peer, "approve_payment", {"payee": "Ann"}, ui)
    assert result.content[0].text == "payment to Ann: approved, 7"
    _, second = ui.shown
    assert isinstance(second, FormQuestion) and [p.field for p in second.problems] == ["amount"]


async def test_a_declined_question_reaches_the_task(peer: str) -> None:
    result, _ = await call(peer, "approve_payment", {"payee": "Ann"}, ScriptedUI(DeclinedElicitation()))
    assert result.content[0].text == "payment to Ann: decline"


async def test_cancel_on_the_waiting_screen_cancels_the_task(peer: str) -> None:
    ui = ScriptedUI(AcceptedElicitation(), waits=["cancel"])
    result, sent = await call_with_timed_out_wait(peer, ui)
    assert isinstance(result, ElicitationCancelledError)
    assert isinstance(ui.shown[0], UrlQuestion) and ui.waited
    task = sent.task_id()
    assert ("tasks/cancel", task) in sent.calls
    assert await status_of(peer, task) == "cancelled"


async def call_with_timed_out_wait(peer: str, ui: ScriptedUI) -> tuple[Any, Sent]:
    """`connect_bank` with a `wait_timeout` of 0: the waiting screen asks the person at once."""
    sent = Sent()
    http = httpx2.AsyncClient(event_hooks={"request": [sent]}, timeout=httpx2.Timeout(30, read=60))
    config = ElicitationConfig(ui, modes=("url",), open_url=lambda url: True, wait_timeout=0)
    async with http, config.connect(peer, http_client=http) as client:
        try:
            return await client.call_tool("connect_bank", {"hold": 30}), sent
        except ElicitationCancelledError as error:
            return error, sent


async def test_a_cancelled_call_cancels_the_task(peer: str) -> None:
    sent = Sent()
    http = httpx2.AsyncClient(event_hooks={"request": [sent]}, timeout=httpx2.Timeout(30, read=60))
    ui = ScriptedUI(AcceptedElicitation())
    config = ElicitationConfig(ui, modes=("url",), open_url=lambda url: True)
    async with http, config.connect(peer, http_client=http) as client:
        with anyio.move_on_after(3) as scope:  # what Ctrl-C does to the call
            await client.call_tool("connect_bank", {"hold": 30})
    assert scope.cancelled_caught
    assert len(ui.waited) == 1  # one waiting screen, however many polls went by
    task = sent.task_id()
    assert ("tasks/cancel", task) in sent.calls
    assert await status_of(peer, task) == "cancelled"


def test_elicitkit_client_command_answers_the_task(peer: str, tmp_path: Path) -> None:
    answers = tmp_path / "answers.json"
    answers.write_text(json.dumps([{"action": "accept", "content": {"approve": True, "amount": 12}}]))
    command = [str(ELICITKIT), "client", peer, "--call", "approve_payment", "--args", '{"payee": "Ann"}']
    done = subprocess.run([*command, "--answers", str(answers)], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "payment to Ann: approved, 12"
    assert "fastmcp-tasks peer, in its task approve_payment" in done.stderr and '"Pay Ann?"' in done.stderr
