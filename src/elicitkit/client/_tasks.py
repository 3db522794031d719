"""`ElicitationTasks`: the client as a task receiver, for a server's task-augmented questions.

A server may ask with `task: {ttl}` in an `elicitation/create` (2025-11-25, when the client
declared `tasks.requests.elicitation.create`). The request is checked as any other (T-12: the
modes, the schema subset and sizes, the tie to a call; a refused one gets -32602 and no task),
answered at once with a `CreateTaskResult`, and the question goes to the person in the
background by the very path of a plain request (`ServerElicitations.answer`: the rate limit,
strict validation, URL consent), named with its task so the person sees which task asks. The
task is `input_required` while the question is on the UI and ends `completed` with the person's
answer (accept, decline, or cancel: a dismissed question is an answer, as in a plain request,
and the server reads `{"action": "cancel"}`), or `cancelled` (the server's `tasks/cancel`, its
TTL: the request itself was cancelled, and no answer exists).
The server reads it with `tasks/get`, `tasks/result` (which waits for the end and returns the
`ElicitResult` with the related-task `_meta`), `tasks/list` and `tasks/cancel`.

Tasks belong to the session that created them: another session's id is as unknown as a
made-up one (-32602, T-18). Memory stays bounded under a flood (T-19): the rate limit dismisses
the questions (C-31), a TTL is at most `MAX_TTL_MS`, a task is freed when its TTL ends, and a
connection keeps at most `MAX_TASKS` (the oldest finished one is freed first; when all are
open, a new request is dismissed at once with a plain "cancel", as the rate limit would).
"""

from __future__ import annotations

import logging
import uuid
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from types import TracebackType
from typing import Any

import anyio
import anyio.abc
from mcp.client import ClientRequestContext, ClientSession
from mcp.shared.exceptions import MCPError
from mcp_types import (
    INTERNAL_ERROR,
    INVALID_PARAMS,
    CancelTaskRequestParams,
    CreateTaskResult,
    ElicitRequest,
    ElicitResult,
    ErrorData,
    GetTaskPayloadRequestParams,
    GetTaskRequestParams,
    ListTasksResult,
    PaginatedRequestParams,
    RequestId,
    Task,
    TaskStatus,
)
from mcp_types import methods as wire
from mcp_types.version import MODERN_PROTOCOL_VERSIONS
from pydantic import ValidationError

from elicitkit.client._association import RELATED_TASK
from elicitkit.client._connection import ServerElicitations
from elicitkit.client._ui import Notice
from elicitkit.i18n import noop

__all__ = ["MAX_TASKS", "MAX_TTL_MS", "RELATED_TASK", "ElicitationTasks"]

logger = logging.getLogger("elicitkit.client")

DEFAULT_TTL_MS = 3_600_000
"""A task's life when the server asks for none: an hour."""
MAX_TTL_MS = 86_400_000
"""The longest life a task gets, whatever the server asks: a day."""
MAX_TASKS = 100
"""Tasks one connection keeps, open and finished."""
POLL_INTERVAL_MS = 1_000
_PAGE = 50

_TERMINAL: frozenset[TaskStatus] = frozenset({"completed", "failed", "cancelled"})
_WORKING = "The question is on its way to the person."
_ASKING = "Waiting for the person's answer."
_ANSWERED = "The person answered."
_DECLINED = "The person declined to answer."
_DISMISSED = "The question was cancelled or dismissed without an answer."
_BY_REQUEST = "The task was cancelled by request."
_EXPIRED = "The task's time to live ended before the person answered."
_FAILED = "The question could not be asked."


def _now() -> datetime:
    return datetime.now(UTC)


def _stamp(moment: datetime) -> str:
    return moment.isoformat(timespec="milliseconds").replace("+00:00", "Z")


def _invalid(message: str) -> MCPError:
    return MCPError(code=INVALID_PARAMS, message=message)


@dataclass(eq=False)
class _Task:
    """One task: its state as `tasks/get` shows it, its outcome, and the scopes that end it."""

    id: str
    session: ClientSession
    ttl: int
    created: datetime = field(default_factory=_now)
    updated: datetime = field(default_factory=_now)
    asker: str = ""
    """Who asks, as the person is told: the server and the task."""
    status: TaskStatus = "working"
    message: str = _WORKING
    result: ElicitResult | None = None
    error: ErrorData | None = None
    ended: anyio.Event = field(default_factory=anyio.Event)
    asking: anyio.CancelScope = field(default_factory=anyio.CancelScope)
    """The question: `tasks/cancel` ends it."""
    life: anyio.CancelScope = field(default_factory=anyio.CancelScope)
    """The whole task: its TTL, or being freed early, ends it."""

    @property
    def terminal(self) -> bool:
        return self.status in _TERMINAL

    def move(self, status: TaskStatus, message: str) -> None:
        """To `status`; nothing moves a task out of a terminal status."""
        if not self.terminal:
            self.status, self.message, self.updated = status, message, _now()

    def end(
        self,
        status: TaskStatus,
        message: str,
        result: ElicitResult | None = None,
        error: ErrorData | None = None,
    ) -> None:
        if self.terminal:
            return
        self.move(status, message)
        self.result, self.error = result, error
        self.ended.set()
        logger.info("elicitation task %s ended %s", self.id, status)

    def wire(self) -> Task:
        return Task(
            task_id=self.id,
            status=self.status,
            status_message=self.message,
            created_at=_stamp(self.created),
            last_updated_at=_stamp(self.updated),
            ttl=self.ttl,
            poll_interval=POLL_INTERVAL_MS,
        )


def _outcome(result: ElicitResult) -> tuple[TaskStatus, str]:
    if result.action == "accept":
        return "completed", _ANSWERED
    if result.action == "decline":
        return "completed", _DECLINED
    return "completed", _DISMISSED  # the person's "cancel" is an answer; `cancelled` is tasks/cancel's


def _dump(result: Any) -> dict[str, Any]:
    dumped: dict[str, Any] = result.model_dump(by_alias=True, mode="json", exclude_none=True)
    return dumped


class ElicitationTasks:
    """The elicitation tasks servers create on one client connection, and the requests that read them.

    An `elicitkit._sdk.ServerRequestHandler`: it answers a task-augmented `elicitation/create`
    and `tasks/get`, `tasks/result`, `tasks/list`, `tasks/cancel`, and leaves every other
    request to the SDK. `async with` it around the connection: its questions run in its task
    group, and end with it.
    """

    def __init__(self, elicitations: ServerElicitations) -> None:
        self.elicitations = elicitations
        self._tasks: dict[str, _Task] = {}
        self._group: anyio.abc.TaskGroup | None = None

    async def __aenter__(self) -> ElicitationTasks:
        self._group = anyio.create_task_group()
        await self._group.__aenter__()
        return self

    async def __aexit__(
        self, kind: type[BaseException] | None, error: BaseException | None, trace: TracebackType | None
    ) -> bool | None:
        group, self._group = self._group, None
        self._tasks.clear()
        if group is None:
            return None
        group.cancel_scope.cancel()
        return await group.__aexit__(kind, error, trace)

    async def answered(self) -> None:
        """Until no task's question is open: each has its answer, or was cancelled."""
        while open_ := [task for task in self._tasks.values() if not task.terminal]:
            await open_[0].ended.wait()

    async def __call__(
        self, session: ClientSession, request_id: RequestId, method: str, params: Mapping[str, Any] | None
    ) -> dict[str, Any] | None:
        version = session.protocol_version or "2025-11-25"
        if version in MODERN_PROTOCOL_VERSIONS or self._group is None:
            return None
        if method == "elicitation/create":
            if params is None or params.get("task") is None:
                return None  # not a task: asked as any question is
            return await self._create(session, request_id, version, params)
        if method == "tasks/get":
            return _dump(self._find(session, GetTaskRequestParams, params).wire())
        if method == "tasks/result":
            return await self._result(self._find(session, GetTaskPayloadRequestParams, params))
        if method == "tasks/list":
            return self._list(session, params)
        if method == "tasks/cancel":
            return self._cancel(self._find(session, CancelTaskRequestParams, params))
        return None

    async def _create(
        self, session: ClientSession, request_id: RequestId, version: str, raw: Mapping[str, Any] | None
    ) -> dict[str, Any] | None:
        try:
            request = wire.parse_server_request("elicitation/create", version, raw)
        except (KeyError, ValueError, ValidationError):
            return None  # the SDK answers it as it answers any broken request
        if not isinstance(request, ElicitRequest) or request.params.task is None:
            return None  # not a task: asked as any question is
        params, asked = request.params, request.params.task.ttl
        context = ClientRequestContext(session=session, request_id=request_id, meta=params.meta)
        refusal = self.elicitations.refusal(context, params)
        if refusal is not None:
            logger.info("refused a task-augmented elicitation/create: %s", refusal)
            raise _invalid(refusal)
        if not self._make_room():
            logger.info("dismissed a task-augmented elicitation/create: %s tasks are open", MAX_TASKS)
            return _dump(ElicitResult(action="cancel"))
        ttl = DEFAULT_TTL_MS if asked is None else max(0, min(asked, MAX_TTL_MS))
        task_id, server = str(uuid.uuid4()), self.elicitations.server_name(context)
        asker = Notice(noop("%(server)s (task %(task)s)"), server=server, task=task_id[:8])
        task = _Task(id=task_id, session=session, ttl=ttl, asker=asker)
        self._tasks[task.id] = task
        assert self._group is not None
        self._group.start_soon(self._run, task, params)
        logger.info("elicitation task %s created by %s (ttl %s ms)", task.id, server, task.ttl)
        return _dump(CreateTaskResult(task=task.wire()))

    def _make_room(self) -> bool:
        """Free the oldest finished task when the connection keeps `MAX_TASKS`; False if all are open."""
        if len(self._tasks) < MAX_TASKS:
            return True
        oldest = next((task for task in self._tasks.values() if task.terminal), None)
        if oldest is None:
            return False
        self._free(oldest)
        return True

    def _free(self, task: _Task) -> None:
        self._tasks.pop(task.id, None)
        task.life.cancel()

    async def _run(self, task: _Task, params: Any) -> None:
        task.life.deadline = anyio.current_time() + task.ttl / 1000
        with task.life:
            with task.asking:
                try:
                    shown = lambda: task.move("input_required", _ASKING)  # noqa: E731
                    result = await self.elicitations.answer(task.asker, params, asking=shown)
                except Exception:
                    logger.exception("elicitation task %s failed", task.id)
                    task.end("failed", _FAILED, error=ErrorData(code=INTERNAL_ERROR, message=_FAILED))
                else:
                    task.end(*_outcome(result), result=result)
            await anyio.sleep_forever()  # kept, for tasks/get and tasks/result, until its TTL ends
        if task.status == "input_required":  # the person was looking at it
            said = noop(
                "%(server)s's question ran out of time and was taken off the screen; nothing was sent."
            )
            self.elicitations.notice(Notice(said, server=task.asker))
        task.end("cancelled", _EXPIRED, result=ElicitResult(action="cancel"))
        if self._tasks.get(task.id) is task:
            self._tasks.pop(task.id)
            logger.info("elicitation task %s freed", task.id)

    def _find(self, session: ClientSession, kind: type[Any], raw: Mapping[str, Any] | None) -> _Task:
        try:
            task_id: str = kind.model_validate(raw or {}, by_name=False).task_id
        except ValidationError:
            raise _invalid("The request needs a 'taskId'.") from None
        task = self._tasks.get(task_id)
        if task is None or task.session is not session:  # another session's task is unknown here
            raise _invalid(f"Failed to retrieve task: no task {task_id[:64]!r} on this connection.")
        return task

    async def _result(self, task: _Task) -> dict[str, Any]:
        await task.ended.wait()
        if task.error is not None:
            raise MCPError.from_error_data(task.error)
        result = task.result or ElicitResult(action="cancel")
        meta = {**(result.meta or {}), RELATED_TASK: {"taskId": task.id}}
        return _dump(result.model_copy(update={"meta": meta}))

    def _list(self, session: ClientSession, raw: Mapping[str, Any] | None) -> dict[str, Any]:
        try:
            cursor = PaginatedRequestParams.model_validate(raw or {}, by_name=False).cursor
        except ValidationError:
            raise _invalid("tasks/list takes an optional 'cursor' string.") from None
        mine = [task for task in self._tasks.values() if task.session is session]
        start = 0
        if cursor is not None:
            start = next((i for i, task in enumerate(mine) if task.id == cursor), -1)
            if start < 0:
                raise _invalid("The cursor is not one this client gave, or its task is gone.")
        page = mine[start : start + _PAGE]
        later = mine[start + _PAGE : start + _PAGE + 1]
        listed = ListTasksResult(
            tasks=[task.wire() for task in page], next_cursor=later[0].id if later else None
        )
        return _dump(listed)

    def _cancel(self, task: _Task) -> dict[str, Any]:
        if task.terminal:
            raise _invalid(f"Cannot cancel task: already in terminal status {task.status!r}.")
        if task.status == "input_required":  # the person was looking at it
            said = noop("%(server)s took its question back; nothing was sent.")
            self.elicitations.notice(Notice(said, server=task.asker))
        task.end("cancelled", _BY_REQUEST, result=ElicitResult(action="cancel"))
        task.asking.cancel()
        return _dump(task.wire())
