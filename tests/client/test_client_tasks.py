"""The client as a task receiver (T-10..T-19): a server's task-augmented `elicitation/create`.

The server here is the bare SDK over real streamable HTTP; its one tool sends the client any
request and says what came back, so each test plays the requestor's side of the 2025-11-25 tasks
spec by hand: create the task, poll `tasks/get`, wait on `tasks/result`, list, cancel.
"""

from __future__ import annotations

import json
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import anyio
import pytest
from client_http import serve
from mcp.server.mcpserver import Context, MCPServer
from mcp.shared.exceptions import MCPError

from elicitkit._sdk import connection_of
from elicitkit.client import (
    AcceptedElicitation,
    CancelledElicitation,
    DeclinedElicitation,
    ElicitationConfig,
    ElicitingClient,
    FormQuestion,
    RateLimit,
    Reply,
    ScriptedUI,
    UrlQuestion,
)

pytestmark = pytest.mark.timeout(60)

SCHEMA = {
    "type": "object",
    "properties": {"name": {"type": "string", "maxLength": 5}, "agree": {"type": "boolean"}},
    "required": ["name"],
}
RELATED = "io.modelcontextprotocol/related-task"


def task_server() -> MCPServer:
    server = MCPServer("Task Asker")

    @server.tool()
    async def send(ctx: Context, method: str, params: dict[str, Any]) -> str:
        """Send the client `method` with `params`; the result, or the JSON-RPC error, as JSON."""
        connection = connection_of(ctx.session)
        assert connection is not None
        try:
            return json.dumps(await connection.send_raw_request(method, params))
        except MCPError as error:
            return json.dumps({"error": error.code, "message": error.message})

    @server.tool()
    async def capabilities(ctx: Context) -> str:
        caps = ctx.session.client_capabilities
        return json.dumps(caps.model_dump(mode="json", by_alias=True, exclude_none=True) if caps else {})

    return server


def form(ttl: int | None = 60_000, schema: dict[str, Any] | None = None) -> dict[str, Any]:
    params: dict[str, Any] = {"mode": "form", "message": "Who are you?", "requestedSchema": schema or SCHEMA}
    if ttl is not None:
        params["task"] = {"ttl": ttl}
    else:
        params["task"] = {}
    return params


class HeldUI(ScriptedUI):
    """A scripted person who answers only when the test lets them (`release`)."""

    def __init__(self, *replies: Reply) -> None:
        super().__init__(*replies)
        self.asking = anyio.Event()
        self.released = anyio.Event()
        self.withdrawn = 0

    def release(self) -> None:
        self.released.set()

    async def ask_form(self, question: FormQuestion) -> Reply:
        self.asking.set()
        try:
            await self.released.wait()
        except anyio.get_cancelled_exc_class():
            self.withdrawn += 1
            raise
        return await super().ask_form(question)


class Requestor:
    """The server's side, driven from the test through the `send` tool."""

    def __init__(self, client: ElicitingClient) -> None:
        self.client = client

    async def __call__(self, method: str, params: dict[str, Any]) -> dict[str, Any]:
        result = await self.client.call_tool("send", {"method": method, "params": params})
        return dict(json.loads(result.content[0].text))  # type: ignore[union-attr]

    async def create(self, **kwargs: Any) -> dict[str, Any]:
        created = await self("elicitation/create", form(**kwargs))
        return dict(created["task"])

    async def get(self, task_id: str) -> dict[str, Any]:
        return await self("tasks/get", {"taskId": task_id})


@asynccontextmanager
async def connected(config: ElicitationConfig, app: Any = None) -> AsyncIterator[Requestor]:
    with serve((app or task_server()).streamable_http_app()) as url:
        async with config.connect(url, mode="legacy") as client:
            yield Requestor(client)


async def until(requestor: Requestor, task_id: str, status: str) -> dict[str, Any]:
    for _ in range(200):
        got = await requestor.get(task_id)
        if got.get("status") == status:
            return got
        await anyio.sleep(0.02)
    raise AssertionError(f"task {task_id} never reached {status}: {got}")


# -- T-10, T-11: the capability, and a client that does not declare it


async def test_the_client_declares_elicitation_tasks_with_list_and_cancel_unless_told_not_to() -> None:
    async with connected(ElicitationConfig(ScriptedUI())) as requestor:
        declared = json.loads((await requestor.client.call_tool("capabilities")).content[0].text)  # type: ignore[union-attr]
    assert declared["tasks"] == {"list": {}, "cancel": {}, "requests": {"elicitation": {"create": {}}}}
    async with connected(ElicitationConfig(ScriptedUI(), tasks=False)) as requestor:
        declared = json.loads((await requestor.client.call_tool("capabilities")).content[0].text)  # type: ignore[union-attr]
    assert "tasks" not in declared


async def test_a_client_that_does_not_declare_tasks_answers_a_task_request_as_a_plain_one() -> None:
    ui = ScriptedUI(AcceptedElicitation({"name": "Ada"}))
    async with connected(ElicitationConfig(ui, tasks=False)) as requestor:
        answered = await requestor("elicitation/create", form())
        unknown = await requestor("tasks/get", {"taskId": "anything"})
    assert answered == {"action": "accept", "content": {"name": "Ada"}}
    assert unknown["error"] == -32601


# -- T-12, T-14, T-15: the task, its states and its result


async def test_a_task_request_returns_a_working_task_at_once_and_goes_input_required_while_asked() -> None:
    ui = HeldUI(AcceptedElicitation({"name": "Ada", "agree": True}))
    async with connected(ElicitationConfig(ui)) as requestor:
        task = await requestor.create(ttl=60_000)
        assert task["status"] == "working"
        assert task["ttl"] == 60_000 and task["pollInterval"] > 0
        assert task["createdAt"].endswith("Z") and task["lastUpdatedAt"].endswith("Z")
        assert ui.shown == []  # answered before the person was
        await ui.asking.wait()
        asked = await until(requestor, task["taskId"], "input_required")
        assert asked["createdAt"] == task["createdAt"]
        async with anyio.create_task_group() as group:
            results: list[dict[str, Any]] = []

            async def result() -> None:
                results.append(await requestor("tasks/result", {"taskId": task["taskId"]}))

            group.start_soon(result)
            await anyio.sleep(0.2)
            assert results == []  # tasks/result waits for the end
            ui.release()
        done = await requestor.get(task["taskId"])
    assert done["status"] == "completed"
    [payload] = results
    assert payload["action"] == "accept" and payload["content"] == {"name": "Ada", "agree": True}
    assert payload["_meta"][RELATED] == {"taskId": task["taskId"]}
    assert RELATED not in json.dumps(done)  # tasks/get carries the id in its body, not in _meta
    [question] = ui.shown
    assert isinstance(question, FormQuestion)
    assert question.server == f"Task Asker (task {task['taskId'][:8]})"


@pytest.mark.parametrize(
    ("reply", "status", "action"),
    [(DeclinedElicitation(), "completed", "decline"), (CancelledElicitation(), "completed", "cancel")],
)
async def test_a_declined_or_dismissed_question_completes_the_task_with_that_answer(
    reply: Reply, status: str, action: str
) -> None:
    async with connected(ElicitationConfig(ScriptedUI(reply))) as requestor:
        task = await requestor.create()
        payload = await requestor("tasks/result", {"taskId": task["taskId"]})
        got = await requestor.get(task["taskId"])
    assert got["status"] == status
    assert payload == {"action": action, "_meta": {RELATED: {"taskId": task["taskId"]}}}


# -- T-13: the same rules as a plain request


async def test_a_task_answer_is_validated_strictly_before_it_is_sent() -> None:
    ui = ScriptedUI(AcceptedElicitation({"name": "Adalbert"}), AcceptedElicitation({"name": "Ada"}))
    async with connected(ElicitationConfig(ui)) as requestor:
        task = await requestor.create()
        payload = await requestor("tasks/result", {"taskId": task["taskId"]})
    assert payload["content"] == {"name": "Ada"}
    first, second = ui.shown
    assert isinstance(second, FormQuestion) and second.problems and not getattr(first, "problems", ())


@pytest.mark.parametrize(
    "params",
    [
        {"mode": "url", "message": "Open", "url": "https://example.com", "elicitationId": "e1"},
        {
            "mode": "form",
            "message": "Nested",
            "requestedSchema": {"type": "object", "properties": {"a": {"type": "object"}}},
        },
    ],
    ids=["undeclared url mode", "schema outside the subset"],
)
async def test_a_task_request_outside_the_client_rules_is_refused_and_makes_no_task(
    params: dict[str, Any],
) -> None:
    ui = ScriptedUI(AcceptedElicitation({}))
    async with connected(ElicitationConfig(ui)) as requestor:
        refused = await requestor("elicitation/create", {**params, "task": {"ttl": 1000}})
        listed = await requestor("tasks/list", {})
    assert refused["error"] == -32602
    assert listed["tasks"] == [] and ui.shown == []


async def test_a_url_task_opens_the_page_only_after_consent() -> None:
    opened: list[str] = []
    ui = ScriptedUI(AcceptedElicitation())
    config = ElicitationConfig(
        ui, modes=("form", "url"), open_url=lambda url: bool(opened.append(url)) or True
    )
    params = {
        "mode": "url",
        "message": "Sign in",
        "url": "https://example.com/sign-in",
        "elicitationId": "e1",
    }
    async with connected(config) as requestor:
        task = (await requestor("elicitation/create", {**params, "task": {"ttl": 60_000}}))["task"]
        payload = await requestor("tasks/result", {"taskId": task["taskId"]})
    assert payload["action"] == "accept"
    [question] = ui.shown
    assert isinstance(question, UrlQuestion) and question.server.startswith("Task Asker (task ")
    assert opened == ["https://example.com/sign-in"]


# -- T-16, T-17: listing and cancelling


async def test_tasks_list_shows_this_connections_tasks_and_refuses_a_cursor_it_never_gave() -> None:
    ui = ScriptedUI(otherwise=DeclinedElicitation())
    async with connected(ElicitationConfig(ui)) as requestor:
        made = [(await requestor.create())["taskId"] for _ in range(3)]
        listed = await requestor("tasks/list", {})
        wrong = await requestor("tasks/list", {"cursor": "not-a-cursor"})
    assert [task["taskId"] for task in listed["tasks"]] == made
    assert "nextCursor" not in listed
    assert wrong["error"] == -32602


async def test_tasks_cancel_withdraws_the_question_and_the_task_stays_cancelled() -> None:
    ui = HeldUI(AcceptedElicitation({"name": "Ada"}))
    async with connected(ElicitationConfig(ui)) as requestor:
        task = await requestor.create()
        await ui.asking.wait()
        cancelled = await requestor("tasks/cancel", {"taskId": task["taskId"]})
        payload = await requestor("tasks/result", {"taskId": task["taskId"]})
        again = await requestor("tasks/cancel", {"taskId": task["taskId"]})
        ui.release()
        await anyio.sleep(0.1)
        got = await requestor.get(task["taskId"])
    assert cancelled["status"] == "cancelled" and cancelled["taskId"] == task["taskId"]
    assert ui.withdrawn == 1
    assert ui.notices == [f"Task Asker (task {task['taskId'][:8]}) took its question back; nothing was sent."]
    assert payload == {"action": "cancel", "_meta": {RELATED: {"taskId": task["taskId"]}}}
    assert again["error"] == -32602 and "cancelled" in again["message"]
    assert got["status"] == "cancelled"


async def test_cancelling_a_completed_task_is_invalid_params() -> None:
    async with connected(ElicitationConfig(ScriptedUI(DeclinedElicitation()))) as requestor:
        task = await requestor.create()
        await requestor("tasks/result", {"taskId": task["taskId"]})
        refused = await requestor("tasks/cancel", {"taskId": task["taskId"]})
    assert refused["error"] == -32602 and "completed" in refused["message"]


# -- T-18: ids that are not this session's


@pytest.mark.parametrize("method", ["tasks/get", "tasks/result", "tasks/cancel"])
async def test_an_unknown_or_another_sessions_task_id_is_invalid_params(method: str) -> None:
    ui = HeldUI(DeclinedElicitation())
    server = task_server()
    with serve(server.streamable_http_app()) as url:
        config = ElicitationConfig(ui)
        async with config.connect(url, mode="legacy") as first, config.connect(url, mode="legacy") as second:
            theirs = await Requestor(first).create()
            unknown = await Requestor(second)(method, {"taskId": "no-such-task"})
            foreign = await Requestor(second)(method, {"taskId": theirs["taskId"]})
            listed = await Requestor(second)("tasks/list", {})
            ui.release()
    assert unknown["error"] == foreign["error"] == -32602
    assert listed["tasks"] == []


# -- T-19: time to live, and a flood


async def test_a_task_whose_ttl_ends_is_cancelled_and_freed() -> None:
    ui = HeldUI(AcceptedElicitation({"name": "Ada"}))
    async with connected(ElicitationConfig(ui)) as requestor:
        task = await requestor.create(ttl=1_500)
        await ui.asking.wait()
        payload = await requestor("tasks/result", {"taskId": task["taskId"]})
        assert ui.withdrawn == 1
        gone = await requestor.get(task["taskId"])
        listed = await requestor("tasks/list", {})
    assert payload["action"] == "cancel"
    assert ui.notices == [
        f"Task Asker (task {task['taskId'][:8]})'s question ran out of time and was taken off the screen; "
        "nothing was sent."
    ]
    assert gone["error"] == -32602
    assert listed["tasks"] == []


async def test_a_server_flooding_task_requests_meets_the_rate_limit_and_bounded_memory() -> None:
    ui = ScriptedUI(otherwise=DeclinedElicitation())
    limit = RateLimit(per_second=0.5, burst=3, max_waiting=2)
    started = time.monotonic()
    async with connected(ElicitationConfig(ui, rate_limit=limit)) as requestor:
        made = [await requestor("elicitation/create", form(ttl=600_000)) for _ in range(150)]
        first = await requestor.get(made[0]["task"]["taskId"])
        pages, cursor = 0, None
        listed: list[dict[str, Any]] = []
        while True:
            page = await requestor("tasks/list", {"cursor": cursor} if cursor else {})
            listed += page["tasks"]
            pages += 1
            cursor = page.get("nextCursor")
            if cursor is None:
                break
    assert len(ui.shown) <= limit.most_in(time.monotonic() - started)
    assert len(listed) < len(made) and pages > 1  # the oldest finished tasks were freed
    assert first["error"] == -32602
    assert {task["status"] for task in listed} <= {"completed", "cancelled"}
