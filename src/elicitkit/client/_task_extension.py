"""The 2026-07-28 tasks extension (`io.modelcontextprotocol/tasks`, SEP-2663) on the client.

A server that negotiated the extension may answer `tools/call` with a task handle
(`resultType: "task"`) instead of the tool's result. `TaskExtension` declares the extension
(on 2026-07-28 connections only: the SDK drops a claim's ad on a revision it does not cover)
and claims that result shape through the SDK's public `ClientExtension`/`ResultClaim`, so
`ElicitingClient.call_tool` still returns the tool's result as a plain call would:

- it polls `tasks/get` at the task's `pollIntervalMs` (the rounds' backoff when it gives none);
- while the task is `input_required`, each new key of `inputRequests` is asked through the
  connection's `ServerElicitations`, every client rule applying as to a live request (a task is
  not a higher-trust channel), the question naming the tool whose task asks, and the answers go
  back in one `tasks/update`; a key already answered is never shown again, however many polls
  still list it;
- after the person accepted a URL the waiting screen stays up while the task works; cancel on
  it, Ctrl-C or the call being cancelled sends `tasks/cancel`;
- `completed` returns the task's `result`, `failed` raises its JSON-RPC error as the plain call
  would have (`MCPError`), a task the server cancelled is `ToolTaskCancelledError`, as on
  2025-11-25. The poll floor, the terminal statuses and the bounded `tasks/cancel` are
  `_tool_tasks`' (the 2025-11-25 requestor), so both eras behave alike.
"""

from __future__ import annotations

import math
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

import anyio
from mcp.client import ClientRequestContext, ClientSession
from mcp.client.extension import ClaimContext, ClientExtension, ResultClaim
from mcp.shared.exceptions import MCPError
from mcp_types import (
    CallToolResult,
    ElicitRequest,
    ElicitRequestURLParams,
    ElicitResult,
    ErrorData,
    InputRequest,
    InputResponse,
    Request,
    RequestParams,
    Result,
)
from mcp_types.version import MODERN_PROTOCOL_VERSIONS
from pydantic import TypeAdapter, ValidationError

from elicitkit.client._association import RELATED_TASK
from elicitkit.client._connection import ServerElicitations
from elicitkit.client._errors import (
    ElicitationCancelledError,
    ElicitationLoopError,
    ElicitationProtocolError,
    ToolTaskCancelledError,
)
from elicitkit.client._rounds import RoundsPolicy
from elicitkit.client._tool_tasks import CANCEL_WAIT, MIN_POLL, TERMINAL
from elicitkit.client._ui import Notice, Waiting
from elicitkit.i18n import noop

__all__ = ["TASKS_EXTENSION", "TaskExtension"]

TASKS_EXTENSION = "io.modelcontextprotocol/tasks"

_WAITING_NOTE = Notice(noop("The server's task goes on while the page is open; cancel stops the task."))

_input_request: TypeAdapter[InputRequest] = TypeAdapter(InputRequest)


class _TaskFields(Result):
    task_id: str
    status: Literal["working", "input_required", "completed", "failed", "cancelled"]
    status_message: str | None = None
    created_at: str | None = None
    last_updated_at: str | None = None
    ttl_ms: int | None = None
    poll_interval_ms: int | None = None


class CreatedTask(_TaskFields):
    """The task handle a server returns for `tools/call` (`CreateTaskResult`)."""

    result_type: Literal["task"]


class TaskState(_TaskFields):
    """What `tasks/get` says: the task, with its input requests, result or error inlined."""

    result_type: str | None = None
    input_requests: dict[str, Any] | None = None
    result: dict[str, Any] | None = None
    error: dict[str, Any] | None = None


class _TaskParams(RequestParams):
    task_id: str


class _UpdateParams(_TaskParams):
    input_responses: dict[str, Any]


class _GetTask(Request[_TaskParams, Literal["tasks/get"]]):
    method: Literal["tasks/get"] = "tasks/get"
    name_param = "taskId"  # SEP-2663: Mcp-Name carries the task id, for routing


class _UpdateTask(Request[_UpdateParams, Literal["tasks/update"]]):
    method: Literal["tasks/update"] = "tasks/update"
    name_param = "taskId"


class _CancelTask(Request[_TaskParams, Literal["tasks/cancel"]]):
    method: Literal["tasks/cancel"] = "tasks/cancel"
    name_param = "taskId"


class TaskExtension(ClientExtension):
    """The tasks extension, driven for a person: a tasked `tools/call` ends as the tool's result."""

    identifier = TASKS_EXTENSION

    def __init__(self, answers: ServerElicitations, policy: RoundsPolicy, max_rounds: int) -> None:
        self._answers = answers
        self._policy = policy
        self._max_rounds = max_rounds

    def claims(self) -> Sequence[ResultClaim[Any]]:
        return (
            ResultClaim(
                result_type="task",
                model=CreatedTask,
                resolve=self.follow,
                protocol_versions=frozenset(MODERN_PROTOCOL_VERSIONS),
            ),
        )

    async def follow(self, created: CreatedTask, ctx: ClaimContext) -> CallToolResult:
        """The claim's resolver: `created` followed to the tool's result."""
        task = _Task(
            self._answers, ctx.session, created.task_id, ctx.tool_name, self._policy, self._max_rounds
        )
        self._answers.tasks_called[created.task_id] = ctx.tool_name  # its questions name the tool
        try:
            return await task.run(created)
        finally:
            self._answers.tasks_called.pop(created.task_id, None)


@dataclass
class _Task:
    """One task from its handle to its end."""

    answers: ServerElicitations
    session: ClientSession
    task_id: str
    tool: str
    policy: RoundsPolicy
    max_rounds: int
    answered: set[str] = field(default_factory=set)
    waiting_on: list[tuple[str, str]] = field(default_factory=list)
    rounds: int = 0
    delay: float = 0.0
    started: float = field(default_factory=time.monotonic)
    window: float = field(default_factory=time.monotonic)

    @property
    def server(self) -> str:
        return self.answers.server_name()

    async def run(self, created: CreatedTask) -> CallToolResult:
        state: _TaskFields = created
        self.delay = self.policy.first_delay
        try:
            while True:
                if isinstance(state, TaskState) and state.status in TERMINAL:
                    return self._ended(state)
                asked = state.input_requests if isinstance(state, TaskState) else None
                if state.status == "input_required" and asked and await self._answer(asked):
                    state = await self._get()
                    continue
                if not self.waiting_on:
                    await anyio.sleep(self._next_delay(state))
                    state = await self._get()
                    continue
                polled = await self._wait_out(state)
                if polled is None:  # the person cancelled the wait
                    await self._goodbye()
                    raise ElicitationCancelledError(
                        f"Stopped waiting for {self.server}'s task; it was told to cancel it."
                    )
                state = polled
        except anyio.get_cancelled_exc_class():
            await self._goodbye()  # Ctrl-C, or the host cancelled the call
            raise

    async def _get(self) -> TaskState:
        request = _GetTask(params=_TaskParams(task_id=self.task_id))
        try:
            state = await self.session.send_request(request, TaskState)
        except ValidationError as error:
            raise ElicitationProtocolError(
                f"{self.server} answered tasks/get with something that is not a task "
                f"({error.errors()[0]['msg']}); the call was stopped."
            ) from None
        if state.task_id != self.task_id:
            raise ElicitationProtocolError(
                f"{self.server} answered tasks/get for task {self.task_id!r} with task {state.task_id!r}; "
                "the call was stopped."
            )
        return state

    def _next_delay(self, state: _TaskFields) -> float:
        """The server's `pollIntervalMs` when it gives one (SEP-2663: SHOULD honour), else the backoff."""
        if state.poll_interval_ms is not None:
            return max(state.poll_interval_ms / 1000, MIN_POLL)
        delay = self.delay
        self.delay = min(max(self.delay * 2, self.policy.first_delay), self.policy.max_delay)
        return max(delay, MIN_POLL)

    async def _answer(self, raw: Mapping[str, Any]) -> bool:
        """Ask each input request not answered yet and send the answers in one `tasks/update`;
        False when every listed key was answered already (the update is not seen yet)."""
        fresh = {key: value for key, value in raw.items() if key not in self.answered}
        if not fresh:
            return False
        self.rounds += 1
        if self.rounds > self.max_rounds:
            await self._goodbye()
            raise ElicitationLoopError(
                f"{self.server}'s task still needed input after {self.max_rounds} rounds; it was "
                "cancelled. Try again, or raise input_rounds if the flow really takes that long."
            )
        responses: dict[str, Any] = {}
        for key, value in fresh.items():
            try:
                request = _input_request.validate_python(value, by_name=False)
            except ValidationError as error:
                await self._goodbye()
                raise ElicitationProtocolError(
                    f"{self.server}'s task asked for input this client cannot read under {key!r} "
                    f"({error.errors()[0]['msg']}); the task was cancelled."
                ) from None
            answer = await self._dispatch(key, request)
            responses[key] = answer.model_dump(mode="json", by_alias=True, exclude_none=True)
        update = _UpdateTask(params=_UpdateParams(task_id=self.task_id, input_responses=responses))
        await self.session.send_request(update, Result)
        self.answered.update(fresh)
        return True

    async def _dispatch(self, key: str, request: InputRequest) -> InputResponse:
        """One question, through the client's own elicitation handling (every client rule), tied
        to its task as a 2025-11-25 task's question is, so the person is told which task asks."""
        if isinstance(request, ElicitRequest):
            tied = {**(request.params.meta or {}), RELATED_TASK: {"taskId": self.task_id}}
            request = request.model_copy(update={"params": request.params.model_copy(update={"meta": tied})})
        meta = request.params.meta if request.params is not None else None
        context = ClientRequestContext(session=self.session, request_id=f"{self.task_id}/{key}", meta=meta)
        answer: InputResponse | ErrorData = await self.session.dispatch_input_request(context, request)
        if isinstance(answer, ErrorData):
            await self._goodbye()
            raise MCPError.from_error_data(answer)
        if (
            isinstance(request, ElicitRequest)
            and isinstance(request.params, ElicitRequestURLParams)
            and isinstance(answer, ElicitResult)
            and answer.action == "accept"
        ):
            self.waiting_on.append((key, request.params.message))
        return answer

    def _news(self, state: TaskState) -> bool:
        """Whether `state` needs more than another poll: the task ended or asks something new."""
        if state.status in TERMINAL:
            return True
        return state.status == "input_required" and any(
            key not in self.answered for key in state.input_requests or {}
        )

    async def _wait_out(self, state: _TaskFields) -> TaskState | None:
        """Poll until the task ends or asks again, with the waiting screen up the whole time (it
        presses the choice on the person past the config's `wait_timeout`; "retry" polls now);
        None when the person cancels."""
        outcome: list[TaskState | None] = []
        poke = [anyio.Event()]
        with self.answers.gate.prompt():  # the waiting screen is a prompt like any other
            async with anyio.create_task_group() as tg:

                async def person() -> None:
                    while True:
                        left = self.answers.config.wait_timeout - (time.monotonic() - self.window)
                        waiting = Waiting(
                            self.server, self.waiting_on, self.started, left <= 0, (_WAITING_NOTE,)
                        )
                        with anyio.move_on_after(left if left > 0 else math.inf) as screen:
                            choice = await self.answers.wait(waiting)
                        if screen.cancelled_caught:
                            continue  # wait_timeout passed: the same screen, now pressing the choice
                        if choice == "cancel":
                            outcome.append(None)
                            tg.cancel_scope.cancel()
                            return
                        self.window = time.monotonic()  # "retry": poll now, and a new wait_timeout
                        poke[0].set()

                async def poll() -> None:
                    current = state
                    while True:
                        with anyio.move_on_after(self._next_delay(current)):
                            await poke[0].wait()
                        poke[0] = anyio.Event()
                        current = await self._get()
                        if self._news(current):
                            outcome.append(current)
                            tg.cancel_scope.cancel()
                            return

                tg.start_soon(person)
                tg.start_soon(poll)
        return outcome[0]

    async def _goodbye(self) -> None:
        """Tell the server to cancel the task (`tasks/cancel`), briefly; the task is left to its TTL
        when the connection is gone."""
        with anyio.move_on_after(CANCEL_WAIT, shield=True):
            try:
                await self.session.send_request(_CancelTask(params=_TaskParams(task_id=self.task_id)), Result)
            except Exception as exc:
                template = noop("%(server)s could not be told of the cancel (%(error)s).")
                self.answers.notice(Notice(template, server=self.server, error=exc))

    def _ended(self, state: TaskState) -> CallToolResult:
        """The task's end as the plain call would have ended (a cancelled task as on 2025-11-25)."""
        if state.status == "completed":
            try:
                return CallToolResult.model_validate(state.result or {}, by_name=False)
            except ValidationError as error:
                raise ElicitationProtocolError(
                    f"{self.server}'s task completed with a result that is not a tool result "
                    f"({error.errors()[0]['msg']})."
                ) from None
        if state.status == "failed":
            try:
                failure = ErrorData.model_validate(state.error or {}, by_name=False)
            except ValidationError:
                raise ElicitationProtocolError(
                    f"{self.server}'s task failed without a JSON-RPC error to say why."
                ) from None
            raise MCPError.from_error_data(failure)
        why = f" ({state.status_message})" if state.status_message else ""
        raise ToolTaskCancelledError(  # as on 2025-11-25 (`_tool_tasks`)
            f"The server's task for {self.tool} was cancelled before it finished{why}; "
            "call the tool again if you still need it."
        )
