"""The 2026-07-28 tasks extension over the `Tasks` core (support/ext_task_server.py, real HTTP on
127.0.0.1 in this event loop, elicitkit's client as the requestor).

A URL-mode `Secret` asked inside a task: the person consents, finishes the page, and the call
ends with the tool's result. What the person answered and what the tool returned are in the
store sealed, never as plain text, as the 2026-07-28 rounds seal theirs; a call cancelled on the
client (Ctrl-C) cancels the task on the server, and a second `tasks/cancel` of the ended task is
still acknowledged.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any, Literal

import anyio
import httpx2
import pytest
from mcp.shared.exceptions import MCPError
from mcp_types import Request, RequestParams, Result
from support.ext_task_server import build
from support.server_process import free_port, stop, wait_until_serving
from support.task_server import PAY_KEY, fingerprint, finish_page
from support.url_harness import serve

from elicitkit.client import AcceptedElicitation, ElicitationConfig, FormQuestion, ScriptedUI, UrlQuestion
from elicitkit.server import KEYS_ENV, KeyRing, MemoryStore

pytestmark = pytest.mark.timeout(90)

TESTS = Path(__file__).parents[2]


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
    async with serve(lambda url: build(url, store).streamable_http_app()) as url:
        yield store, f"{url}/mcp"


def client(url: str, ui: ScriptedUI, ids: TaskIds, **config: Any) -> tuple[httpx2.AsyncClient, Any]:
    http = httpx2.AsyncClient(
        headers={"Authorization": "Bearer alice"}, event_hooks={"request": [ids]}, timeout=30
    )
    return http, ElicitationConfig(ui, **config).connect(url, http_client=http)


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


async def test_a_url_question_in_a_task_completes_when_the_page_is_done(
    extended: tuple[MemoryStore, str],
) -> None:
    _, url = extended
    ids = TaskIds()
    pages: list[str] = []
    done: list[str] = []

    def open_url(link: str) -> bool:
        pages.append(link)
        return True

    async def person() -> None:
        while not pages:
            await anyio.sleep(0.05)
        done.append(await finish_page(pages[0], "alice", PAY_KEY))

    ui = ScriptedUI(AcceptedElicitation())
    http, connecting = client(url, ui, ids, modes=("url",), open_url=open_url, allow_http=True)
    async with http, connecting as eliciting, anyio.create_task_group() as tg:
        tg.start_soon(person)
        result = await eliciting.call_tool("pay", {"amount": 5})
    assert result.content[0].text == f"Paid 5 with key {fingerprint(PAY_KEY)}"
    [consent] = ui.shown
    assert isinstance(consent, UrlQuestion) and consent.server == "ext-tasks, in its task pay"
    assert len(pages) == 1 and done


class Away(ScriptedUI):
    """A person who sees the question and does not answer it (until the process asking is gone)."""

    async def ask_form(self, question: FormQuestion) -> Any:
        self.shown.append(question)
        await anyio.sleep_forever()


class TaskState(Result):
    status: str
    input_requests: dict[str, Any] | None = None
    result: dict[str, Any] | None = None


class _UpdateParams(_TaskParams):
    input_responses: dict[str, Any]


class _UpdateTask(Request[_UpdateParams, Literal["tasks/update"]]):
    method: Literal["tasks/update"] = "tasks/update"


@contextlib.contextmanager
def replica(port: int, store: str, ring: str, log: Path) -> Iterator[subprocess.Popen[bytes]]:
    env = {**os.environ, KEYS_ENV: ring}
    command = [sys.executable, "-m", "support.ext_task_server", str(port), "--store", store, "--lease", "1"]
    process = subprocess.Popen(command, cwd=TESTS, env=env, stdout=log.open("ab"), stderr=subprocess.STDOUT)
    try:
        wait_until_serving(process, f"http://127.0.0.1:{port}/", log)
        yield process
    finally:
        stop(process)


async def test_a_task_whose_replica_died_is_answered_on_another(tmp_path: Path) -> None:
    """Alice's task asks on replica A, which is SIGKILLed with the question open; her next
    `tasks/get` on replica B (one SQLite file) runs the task again there, the same question is open
    under the same key, and her `tasks/update` on B completes it."""
    store, ring = f"sqlite:///{tmp_path / 'tasks.db'}", KeyRing.generate("k1")
    ids, ui = TaskIds(), Away()
    with (
        replica(free_port(), store, ring, tmp_path / "a.log") as a,
        replica(free_port(), store, ring, tmp_path / "b.log") as b,
    ):
        url_a, url_b = (f"http://127.0.0.1:{p.args[3]}/mcp" for p in (a, b))  # type: ignore[index]
        http, connecting = client(url_a, ui, ids)
        with contextlib.suppress(Exception):  # hanging up on a dead replica fails, as it should
            async with http, connecting as eliciting, anyio.create_task_group() as tg:
                tg.start_soon(eliciting.call_tool, "approve", {"payee": "Ann"})
                with anyio.fail_after(30):
                    while not ui.shown:
                        await anyio.sleep(0.05)
                a.send_signal(signal.SIGKILL)
                a.wait(10)
                tg.cancel_scope.cancel()
        assert ui.shown and ids.seen, "the question was asked on replica A"
        task = ids.seen[0]
        http, connecting = client(url_b, ScriptedUI(), TaskIds())
        async with http, connecting as eliciting:
            get = _GetTask(params=_TaskParams(task_id=task))
            with anyio.fail_after(30):
                state = await eliciting.session.send_request(get, TaskState)
                while state.status != "input_required":
                    await anyio.sleep(0.2)
                    state = await eliciting.session.send_request(get, TaskState)
                [key] = state.input_requests or {}
                answer = {key: {"action": "accept", "content": {"approve": True, "amount": 7}}}
                await eliciting.session.send_request(
                    _UpdateTask(params=_UpdateParams(task_id=task, input_responses=answer)), Result
                )
                while state.status != "completed":
                    await anyio.sleep(0.2)
                    state = await eliciting.session.send_request(get, TaskState)
    assert (state.result or {})["content"][0]["text"] == "payment to Ann: approved, 7"
    assert [q.message for q in ui.shown] == ["Pay Ann?"]
