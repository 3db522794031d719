"""Calling a tool as a task (2025-11-25): the client as the task's requestor.

A server that declares `tasks.requests.tools.call` lists, per tool, `execution.taskSupport`. A
"required" tool is called as a task without the caller asking, an "optional" one when the
caller asks (`call_tool(..., task=True)`), and a tool that forbids it, or leaves it unsaid, never
(T-20, T-21). The call answers a `CreateTaskResult` at once; the client then polls `tasks/get`
at the server's `pollInterval` (T-22) until the task needs input or ends, and calls
`tasks/result`: its stream carries the task's questions, which the connection's
`ServerElicitations` answers under every client rule, naming the task's tool to the person
(T-23, T-24), and its answer is the tool's result, as a plain call returns it. A
`notifications/tasks/status` the server sends stands for the next poll, at once (the spec makes
it optional: polling never waits for one). While it waits, each new status is a notice on the
UI. One deadline bounds the whole call; a call that ends here first (the deadline, Ctrl-C, any
cancellation) cancels the task on the server (T-25), and a cancelled task is
`ToolTaskCancelledError`.
"""

from __future__ import annotations

import math
from contextlib import suppress
from typing import TYPE_CHECKING, Any

import anyio
from mcp.client.session import IncomingMessage
from mcp.shared.exceptions import MCPError
from mcp_types import (
    REQUEST_TIMEOUT,
    CallToolRequest,
    CallToolRequestParams,
    CallToolResult,
    CancelTaskRequest,
    CancelTaskRequestParams,
    CancelTaskResult,
    CreateTaskResult,
    GetTaskPayloadRequest,
    GetTaskPayloadRequestParams,
    GetTaskRequest,
    GetTaskRequestParams,
    GetTaskResult,
    RequestParamsMeta,
    Task,
    TaskMetadata,
    ToolListChangedNotification,
)
from mcp_types.version import MODERN_PROTOCOL_VERSIONS
from pydantic import ValidationError

from elicitkit._sdk import send_raw_request
from elicitkit.client._errors import ToolTaskCancelledError
from elicitkit.client._limits import cut
from elicitkit.client._ui import Notice
from elicitkit.i18n import noop

if TYPE_CHECKING:
    from mcp.client import Client

    from elicitkit.client._connection import ServerElicitations

__all__ = ["ToolTasks"]

TERMINAL = frozenset({"completed", "failed", "cancelled"})
DEFAULT_POLL = 1.0
"""Seconds between two `tasks/get` when the server suggests no `pollInterval`."""
MIN_POLL = 0.1
"""Never faster than this, whatever the server suggests: a `pollInterval` of 0 is not a spin."""
CANCEL_WAIT = 5.0
LISTING_PAGES = 100
"""The most `tools/list` pages read to find a tool's `taskSupport`: a cursor that never ends, ends."""
"""Seconds a call that ends here waits, at most, for the server to take its `tasks/cancel`."""

_STATUS = {
    "working": noop("working"),
    "completed": noop("completed"),
    "failed": noop("failed"),
    "cancelled": noop("cancelled"),
}


def poll_interval(task: Task) -> float:
    """Seconds until the next `tasks/get`: the server's `pollInterval` (T-22), at least `MIN_POLL`."""
    if task.poll_interval is None:
        return DEFAULT_POLL
    return max(task.poll_interval / 1000, MIN_POLL)


class ToolTasks:
    """One connection's tools called as tasks: which are, and each such call from start to result."""

    def __init__(self, client: Client, elicitations: ServerElicitations) -> None:
        self._client = client
        self._elicitations = elicitations
        self._support: dict[str, str | None] | None = None
        """Each listed tool's `execution.taskSupport`, from the last listing (None: not listed yet)."""
        self._pauses: dict[str, anyio.Event] = {}
        """The task each call here waits on between two polls, and what ends the wait early."""
        self._told: dict[str, Task] = {}
        """A task's state as its last `notifications/tasks/status` said it, not yet taken."""

    def status_arrived(self, params: dict[str, Any]) -> None:
        """A `notifications/tasks/status`: for a task a call here awaits, its state, taken at once."""
        try:
            task = Task.model_validate(params, by_name=False)
        except ValidationError:
            return
        pause = self._pauses.get(task.task_id)
        if pause is not None:
            self._told[task.task_id] = task
            pause.set()

    async def on_message(self, message: IncomingMessage) -> None:
        """The server's tools changed: list them again before the next call."""
        if isinstance(message, ToolListChangedNotification):
            self._support = None

    async def wanted(self, name: str, asked: bool | None) -> bool:
        """Whether `name` is called as a task: when the server takes task-augmented calls and the
        tool requires it, or allows it and the caller asked (T-20, T-21); never on 2026-07-28,
        where tasks are an extension."""
        if asked is False or self._client.protocol_version in MODERN_PROTOCOL_VERSIONS:
            return False
        tasks = self._client.server_capabilities.tasks
        requests = tasks.requests if tasks is not None else None
        if requests is None or requests.tools is None or requests.tools.call is None:
            return False
        support = await self._support_of(name)
        return support == "required" or (support == "optional" and asked is True)

    async def _support_of(self, name: str) -> str | None:
        if self._support is None or name not in self._support:
            support: dict[str, str | None] = {}
            cursor: str | None = None
            for _ in range(LISTING_PAGES):
                page = await self._client.list_tools(cursor=cursor)
                support.update(
                    {t.name: t.execution.task_support if t.execution else None for t in page.tools}
                )
                cursor = page.next_cursor
                if cursor is None or name in support:
                    break
            self._support = support
        return self._support.get(name)

    async def call(
        self,
        name: str,
        arguments: dict[str, Any] | None,
        *,
        deadline: float | None,
        meta: RequestParamsMeta | None = None,
    ) -> CallToolResult:
        """Call `name` as a task and return its result; `deadline` seconds bound the whole call."""
        ttl = None if deadline is None else math.ceil(deadline * 1000)
        params = CallToolRequestParams(name=name, arguments=arguments, task=TaskMetadata(ttl=ttl), _meta=meta)
        raw = await send_raw_request(self._client.session, CallToolRequest(params=params))
        if "task" not in raw:  # a server that takes no task processes the call normally
            return CallToolResult.model_validate(raw, by_name=False)
        task = CreateTaskResult.model_validate(raw, by_name=False).task
        self._elicitations.tasks_called[task.task_id] = name
        try:
            with anyio.fail_after(deadline):
                return await self._follow(name, task)
        except TimeoutError:
            await self._cancel(task.task_id)
            raise ToolTaskCancelledError(
                f"The server's task for {name} did not finish within {deadline:g} s, so it was cancelled; "
                "allow it more time (task_timeout) or call it again later."
            ) from None
        except anyio.get_cancelled_exc_class():
            await self._cancel(task.task_id)  # Ctrl-C, a caller's cancel scope: the server stops too
            raise
        finally:
            self._elicitations.tasks_called.pop(task.task_id, None)

    async def _follow(self, name: str, task: Task) -> CallToolResult:
        """Poll until the task needs input or ends, then take its result from `tasks/result`."""
        while True:
            while task.status not in TERMINAL and task.status != "input_required":
                task = self._seen(name, task, await self._next(task))
            if task.status == "cancelled":
                raise _cancelled(name, task)
            try:
                result = await self._result(name, task)
            except MCPError as error:
                if error.code == REQUEST_TIMEOUT:  # the read timeout, not the task: poll again
                    task = self._seen(name, task, await self._get(task.task_id))
                    continue
                latest = await self._get(task.task_id)
                if latest.status == "cancelled":
                    raise _cancelled(name, latest) from None
                raise  # what the tool's request itself answered, as a plain call raises it
            if not result.is_error:
                await self._client.session.validate_tool_result(name, result)
            return result

    async def _result(self, name: str, task: Task) -> CallToolResult:
        """`tasks/result`: it blocks until the task ends, and its stream carries the task's
        questions (T-23); meanwhile `tasks/get` keeps the person told of the status."""
        request = GetTaskPayloadRequest(params=GetTaskPayloadRequestParams(task_id=task.task_id))
        async with anyio.create_task_group() as group:
            group.start_soon(self._keep_polling, name, task)
            try:
                result = await self._client.session.send_request(request, CallToolResult)
            finally:
                group.cancel_scope.cancel()
        return result

    async def _keep_polling(self, name: str, task: Task) -> None:
        while task.status not in TERMINAL:
            try:
                task = self._seen(name, task, await self._next(task))
            except MCPError:
                return  # the result will say what went wrong

    async def _next(self, task: Task) -> Task:
        """The task's next state: what a status notification tells, or `tasks/get` once the
        poll interval has passed (T-22)."""
        pause = self._pauses[task.task_id] = anyio.Event()
        try:
            with anyio.move_on_after(poll_interval(task)):
                await pause.wait()
        finally:
            del self._pauses[task.task_id]
        told = self._told.pop(task.task_id, None)
        return told if told is not None else await self._get(task.task_id)

    async def _get(self, task_id: str) -> GetTaskResult:
        request = GetTaskRequest(params=GetTaskRequestParams(task_id=task_id))
        return await self._client.session.send_request(request, GetTaskResult)

    async def _cancel(self, task_id: str) -> None:
        """`tasks/cancel`, shielded and bounded: the call is ending here, the task must too (T-25)."""
        request = CancelTaskRequest(params=CancelTaskRequestParams(task_id=task_id))
        # MCPError: already ended (-32602), or the connection is gone: nothing left to stop
        with anyio.move_on_after(CANCEL_WAIT, shield=True), suppress(MCPError):
            await self._client.session.send_request(request, CancelTaskResult)

    def _seen(self, name: str, before: Task, now: Task) -> Task:
        """A new status or status message is a notice for the person; "input_required" is not,
        since its question shows."""
        changed = (now.status, now.status_message) != (before.status, before.status_message)
        if changed and now.status in _STATUS:
            status = Notice(_STATUS[now.status])
            server = self._elicitations.server_name()
            if now.status_message:
                said = cut(now.status_message, self._elicitations.sizes.message)
                template = noop("Waiting for %(server)s's task %(tool)s: %(status)s, “%(message)s”.")
                self._elicitations.notice(
                    Notice(template, server=server, tool=name, status=status, message=said)
                )
            else:
                template = noop("Waiting for %(server)s's task %(tool)s: %(status)s.")
                self._elicitations.notice(Notice(template, server=server, tool=name, status=status))
        return now


def _cancelled(name: str, task: Task) -> ToolTaskCancelledError:
    why = f" ({task.status_message})" if task.status_message else ""
    return ToolTaskCancelledError(
        f"The server's task for {name} was cancelled before it finished{why}; "
        "call the tool again if you still need it."
    )
