"""The 2026-07-28 tasks extension over the `Tasks` core (support/ext_task_server.py, real HTTP on
127.0.0.1 in this event loop, elicitkit's client as the requestor).

What the person answered and what the tool returned are in the store sealed, never as plain
text, as the 2026-07-28 rounds seal theirs; a call cancelled on the client (Ctrl-C) cancels the
task on the server, and a second `tasks/cancel` of the ended task is still acknowledged.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from typing import Any, Literal

import anyio
import httpx2
import pytest
from mcp.shared.exceptions import MCPError
from mcp_types import Request, RequestParams, Result
from support.ext_task_server import build

from elicitkit.asgi import EmbeddedServer
from elicitkit.client import AcceptedElicitation, ElicitationConfig, FormQuestion, ScriptedUI
from elicitkit.server import MemoryStore

pytestmark = pytest.mark.timeout(60)


class _TaskParams(RequestParams):
    task_id: str


class _GetTask(Request[_TaskParams, Literal["tasks/get"]]):
    method: Literal["tasks/get"] = "tasks/get"


class _CancelTask(Request[_TaskParams, Literal["tasks/cancel"]]):
    method: Literal["tasks/cancel"] = "tasks/cancel"


class _Status(Result):
    status: str


class TaskIds:
    def __init__(self) -> None:
        self.seen: list[str] = []

    async def __call__(self, request: httpx2.Request) -> None:
        if request.method == "POST":
            body = json.loads(request.content)
            if body.get("method") == "tasks/get":
                self.seen.append(body["params"]["taskId"])


@pytest.fixture
async def extended() -> AsyncIterator[tuple[MemoryStore, str]]:
    store = MemoryStore()
    server = build(store)
    async with EmbeddedServer(lambda url: server.streamable_http_app(), lifespan="on") as running:
        yield store, f"{running.url}/mcp"


def client(url: str, ui: ScriptedUI, ids: TaskIds) -> tuple[httpx2.AsyncClient, Any]:
    http = httpx2.AsyncClient(
        headers={"Authorization": "Bearer alice"}, event_hooks={"request": [ids]}, timeout=30
    )
    return http, ElicitationConfig(ui).connect(url, http_client=http)


async def test_the_answer_and_the_result_are_sealed_in_the_store(extended: tuple[MemoryStore, str]) -> None:
    store, url = extended
    ids = TaskIds()
    ui = ScriptedUI(AcceptedElicitation({"approve": True, "amount": 987}))
    http, connecting = client(url, ui, ids)
    async with http, connecting as eliciting:
        result = await eliciting.call_tool("approve", {"payee": "Zanzibar"})
    assert result.content[0].text == "payment to Zanzibar: approved, 987"
    assert isinstance(ui.shown[0], FormQuestion)
    blobs = [await store.get_blob(key) async for key in store.blob_keys()]
    assert blobs, "the task is kept in the store"
    for plain in (b"Zanzibar", b"987", b"payment to"):
        assert not any(plain in (b or b"") for b in blobs), plain


async def test_a_cancelled_call_cancels_the_task_on_the_server(extended: tuple[MemoryStore, str]) -> None:
    _, url = extended
    ids = TaskIds()

    class Away(ScriptedUI):
        async def ask_form(self, question: FormQuestion) -> Any:
            self.shown.append(question)
            await anyio.sleep_forever()

    ui = Away()
    http, connecting = client(url, ui, ids)
    async with http, connecting as eliciting:
        with anyio.move_on_after(2):  # what Ctrl-C does to the call
            await eliciting.call_tool("approve", {"payee": "Ann"})
        assert ui.shown, "the question was asked"
        task = _TaskParams(task_id=ids.seen[0])
        status = await eliciting.session.send_request(_GetTask(params=task), _Status)
        try:
            again = await eliciting.session.send_request(_CancelTask(params=task), Result)
        except MCPError as error:  # inside: the SDK's task groups would wrap it
            again = error
    assert status.status == "cancelled"
    assert isinstance(again, Result)  # an ended task's cancel is acknowledged, not refused
