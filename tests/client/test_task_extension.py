"""`ElicitingClient` on the 2026-07-28 tasks extension, against a server whose tasks say what a
test needs (real HTTP on 127.0.0.1): what no well-behaved peer shows.

- a server still listing an answered key (its update not seen yet) gets no second screen and no
  second `tasks/update` (SEP-2663: deduplicate keys across polls);
- an input request refused by the client's rules (an undeclared mode) or that it cannot answer
  (sampling) is not answered: the task is cancelled and the call raises;
- a `failed` task raises its JSON-RPC error as the plain call would; a task the server cancelled
  is `ToolTaskCancelledError`, as on 2025-11-25; a `tasks/get` that is not a task is
  `ElicitationProtocolError`.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from typing import Any

import pytest
from mcp.server.context import CallNext, HandlerResult, ServerRequestContext
from mcp.server.extension import Extension, MethodBinding
from mcp.server.mcpserver import MCPServer
from mcp.shared.exceptions import MCPError
from mcp_types import CallToolRequestParams, RequestParams

from elicitkit.asgi import EmbeddedServer
from elicitkit.client import (
    AcceptedElicitation,
    ElicitationConfig,
    ElicitationProtocolError,
    FormQuestion,
    ScriptedUI,
    ToolTaskCancelledError,
)

pytestmark = pytest.mark.timeout(60)

FORM = {
    "method": "elicitation/create",
    "params": {
        "mode": "form",
        "message": "Which day?",
        "requestedSchema": {"type": "object", "properties": {"day": {"type": "string"}}, "required": ["day"]},
    },
}
URL = {
    "method": "elicitation/create",
    "params": {"mode": "url", "message": "Sign in", "url": "https://bank.example/", "elicitationId": "e1"},
}
SAMPLING = {
    "method": "sampling/createMessage",
    "params": {"messages": [{"role": "user", "content": {"type": "text", "text": "hi"}}], "maxTokens": 5},
}
DONE = {"content": [{"type": "text", "text": "done"}], "isError": False}


class _TaskParams(RequestParams):
    task_id: str


class _UpdateParams(_TaskParams):
    input_responses: dict[str, Any]


@dataclass
class Scripted(Extension):
    """Each tool is a task whose `tasks/get` answers come from `script[tool]`, one per poll (the last
    repeats); what the client sent is kept in `updates` and `cancels`."""

    script: dict[str, list[dict[str, Any]]]
    identifier = "io.modelcontextprotocol/tasks"
    polls: dict[str, int] = field(default_factory=dict)
    updates: list[dict[str, Any]] = field(default_factory=list)
    cancels: list[str] = field(default_factory=list)

    def methods(self) -> list[MethodBinding]:
        return [
            MethodBinding("tasks/get", _TaskParams, self.get),
            MethodBinding("tasks/update", _UpdateParams, self.update),
            MethodBinding("tasks/cancel", _TaskParams, self.cancel),
        ]

    async def intercept_tool_call(
        self, params: CallToolRequestParams, ctx: ServerRequestContext[Any, Any], call_next: CallNext
    ) -> HandlerResult:
        return {"resultType": "task", **self.task_of(params.name, "working")}

    def task_of(self, task_id: str, status: str) -> dict[str, Any]:
        return {
            "taskId": task_id,
            "status": status,
            "createdAt": "2026-12-07T10:00:00Z",
            "lastUpdatedAt": "2026-12-07T10:00:00Z",
            "ttlMs": 60000,
            "pollIntervalMs": 20,
        }

    async def get(self, ctx: ServerRequestContext[Any, Any], params: _TaskParams) -> HandlerResult:
        steps = self.script[params.task_id]
        n = self.polls[params.task_id] = self.polls.get(params.task_id, 0) + 1
        step = dict(steps[min(n, len(steps)) - 1])
        return {**self.task_of(params.task_id, step.pop("status")), **step}

    async def update(self, ctx: ServerRequestContext[Any, Any], params: _UpdateParams) -> HandlerResult:
        self.updates.append(params.input_responses)
        return {}

    async def cancel(self, ctx: ServerRequestContext[Any, Any], params: _TaskParams) -> HandlerResult:
        self.cancels.append(params.task_id)
        return {}


SCRIPT: dict[str, list[dict[str, Any]]] = {
    # the update is not seen for three polls: the same key stays listed
    "slow_update": [
        *[{"status": "input_required", "inputRequests": {"q": FORM}}] * 4,
        {"status": "completed", "result": DONE},
    ],
    "url_not_declared": [{"status": "input_required", "inputRequests": {"u": URL}}],
    "sampling": [{"status": "input_required", "inputRequests": {"s": SAMPLING}}],
    "fails": [
        {"status": "working"},
        {"status": "failed", "error": {"code": -32000, "message": "the bank is down"}},
    ],
    "server_cancels": [{"status": "cancelled", "statusMessage": "shutting down"}],
    "not_a_task": [{"status": "completed", "result": {"content": "not a list"}}],
}


@pytest.fixture
async def served() -> AsyncIterator[tuple[Scripted, str]]:
    scripted = Scripted(SCRIPT)
    server: MCPServer[Any] = MCPServer("scripted tasks", extensions=[scripted])
    for name in SCRIPT:
        server.add_tool(lambda: "never run", name=name)
    async with EmbeddedServer(lambda url: server.streamable_http_app(), lifespan="on") as running:
        yield scripted, f"{running.url}/mcp"


async def call(url: str, tool: str, ui: ScriptedUI) -> Any:
    config = ElicitationConfig(ui, modes=("form",))
    async with config.connect(url) as client:
        try:
            return await client.call_tool(tool, {})
        except (
            MCPError,
            ElicitationProtocolError,
            ToolTaskCancelledError,
        ) as error:  # inside: the SDK's task groups would wrap it
            return error


async def test_a_key_still_listed_after_its_answer_is_not_asked_again(served: tuple[Scripted, str]) -> None:
    scripted, url = served
    ui = ScriptedUI(AcceptedElicitation({"day": "Monday"}), otherwise=AcceptedElicitation({"day": "Sunday"}))
    result = await call(url, "slow_update", ui)
    assert result.content[0].text == "done"
    assert len(ui.shown) == 1 and isinstance(ui.shown[0], FormQuestion)
    assert scripted.updates == [{"q": {"action": "accept", "content": {"day": "Monday"}}}]
    assert scripted.polls["slow_update"] == 5


@pytest.mark.parametrize("tool", ["url_not_declared", "sampling"])
async def test_an_input_request_the_client_refuses_cancels_the_task(
    served: tuple[Scripted, str], tool: str
) -> None:
    scripted, url = served
    ui = ScriptedUI(otherwise=AcceptedElicitation())
    error = await call(url, tool, ui)
    assert isinstance(error, MCPError)
    assert ui.shown == [] and scripted.updates == [] and scripted.cancels == [tool]


async def test_a_failed_task_raises_its_error_as_the_plain_call_would(served: tuple[Scripted, str]) -> None:
    _, url = served
    error = await call(url, "fails", ScriptedUI())
    assert isinstance(error, MCPError) and error.error.code == -32000
    assert error.error.message == "the bank is down"


async def test_a_task_the_server_cancelled_ends_as_on_2025_11_25(served: tuple[Scripted, str]) -> None:
    _, url = served
    error = await call(url, "server_cancels", ScriptedUI())
    assert isinstance(error, ToolTaskCancelledError)
    assert str(error) == (
        "The server's task for server_cancels was cancelled before it finished (shutting down); "
        "call the tool again if you still need it."
    )


async def test_a_task_result_that_is_not_a_tool_result_is_a_protocol_error(
    served: tuple[Scripted, str],
) -> None:
    _, url = served
    error = await call(url, "not_a_task", ScriptedUI())
    assert isinstance(error, ElicitationProtocolError) and "not a tool result" in str(error)
