"""The 2026-07-28 task wire: the `io.modelcontextprotocol/tasks` extension (SEP-2663).

On 2026-07-28 tasks are an extension, served here on the SDK's public `Extension` API with the
same `Tasks` core as the 2025-11-25 wire (`wire.py`), so a tool runs as a task on either era
and asks as any tool does:

- `tools/call` of a task tool from a client that declared the extension on the request returns
  a `CreateTaskResult` (`resultType: "task"`) at once and runs the tool in the background; a
  `required` tool called by a client that did not declare it: -32021 naming the extension;
- `tasks/get` returns the task, with `inputRequests` (the task's open questions, by key) while
  it is `input_required`, `result` or `error` once it ended;
- `tasks/update` takes `inputResponses`: each answer to an open form question is validated as
  a form answer is (`schema.validate`, the check every form answer passes) and a wrong one is
  -32602 with the task left waiting; an answer to a key not open is ignored (SEP-2663);
- `tasks/cancel` cancels it. Every `tasks/*` is bound to the user who created the task: an
  unknown, expired or another user's id is -32602; from a client that did not declare the
  extension on the request, -32021.

The task's state (questions, answers, result) is the core's, sealed in its store; answers are
replayed by the question's identity, as the 2026-07-28 rounds replay theirs from `requestState`.
A task whose process died runs again from the next `tasks/get` of its user (the core's
`Tasks.resuming`, which the task middleware sets around every request); that run's own
`tools/call` passes through here as a plain call.
Pass the extension to the server at construction, `MCPServer(..., extensions=[TasksExtension(tasks)])`,
and the same `tasks` to `Elicitation(server, tasks=tasks)`, which runs them.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager, suppress
from typing import Any

import pydantic
from mcp.server.context import CallNext, HandlerResult, ServerRequestContext
from mcp.server.extension import Extension, MethodBinding
from mcp.server.mcpserver import require_client_extension
from mcp.shared.exceptions import MCPError
from mcp_types import (
    INVALID_PARAMS,
    INVALID_REQUEST,
    CallToolRequestParams,
    ElicitRequestFormParams,
    RequestParams,
)

from elicitkit import schema
from elicitkit.server._errors import IdentityRequiredError, PendingLimitError
from elicitkit.server._rounds import ROUNDS_VERSION
from elicitkit.server._tasks.record import TaskRecord, iso
from elicitkit.server._tasks.tasks import Tasks, TerminalTaskError, UnknownTaskError, current_run

__all__ = ["TASKS_EXTENSION", "TasksExtension"]

TASKS_EXTENSION = "io.modelcontextprotocol/tasks"
_VERSIONS = frozenset({ROUNDS_VERSION})


class _TaskParams(RequestParams):
    task_id: str


class _UpdateParams(_TaskParams):
    input_responses: dict[str, Any]


class TasksExtension(Extension):
    """The tasks extension for one server's `Tasks` (see the module docstring)."""

    identifier = TASKS_EXTENSION

    def __init__(self, tasks: Tasks) -> None:
        self.tasks = tasks

    def methods(self) -> Sequence[MethodBinding]:
        """`tasks/get`, `tasks/update` and `tasks/cancel`, served on 2026-07-28 only."""
        return (
            MethodBinding("tasks/get", _TaskParams, self._get, protocol_versions=_VERSIONS),
            MethodBinding("tasks/update", _UpdateParams, self._update, protocol_versions=_VERSIONS),
            MethodBinding("tasks/cancel", _TaskParams, self._cancel, protocol_versions=_VERSIONS),
        )

    async def intercept_tool_call(
        self, params: CallToolRequestParams, ctx: ServerRequestContext[Any, Any], call_next: CallNext
    ) -> HandlerResult:
        """A task tool's call, from a client that declared the extension, as a task: the
        `CreateTaskResult` at once, the tool run in the background (-32021 for a `required` tool
        called by a client that did not declare it; any other call passes through)."""
        support = self.tasks.support(params.name)
        if ctx.protocol_version not in _VERSIONS or support == "forbidden" or current_run() is not None:
            return await call_next(ctx)  # a task's own run (run again after its process died) runs plainly
        try:
            require_client_extension(ctx, TASKS_EXTENSION)
        except MCPError:
            if support == "required":
                raise  # -32021 with the extension in requiredCapabilities (SEP-2663)
            return await call_next(ctx)

        async def run() -> Mapping[str, Any]:
            return _dumped(await call_next(ctx))

        request = {"name": params.name, "arguments": params.arguments or {}}
        with _on_the_wire():
            record = await self.tasks.create(self.tasks.caller(), params.name, request, run=run)
        return {"resultType": "task", **_task(record)}

    async def _get(self, ctx: ServerRequestContext[Any, Any], params: _TaskParams) -> HandlerResult:
        require_client_extension(ctx, TASKS_EXTENSION)  # -32021 for a client that did not declare it
        with _on_the_wire():
            record = await self.tasks.get(self.tasks.caller(), params.task_id)
        return self._detailed(record)

    async def _update(self, ctx: ServerRequestContext[Any, Any], params: _UpdateParams) -> HandlerResult:
        require_client_extension(ctx, TASKS_EXTENSION)
        with _on_the_wire():
            caller = self.tasks.caller()
            record = await self.tasks.get(caller, params.task_id)
            open_ = self.tasks.open_questions(record)
            for key, answer in params.input_responses.items():
                question = open_.get(key)
                if question is None:
                    continue  # not open (never asked, answered, or superseded): ignored, SEP-2663
                await self.tasks.answer(caller, params.task_id, key, _checked(key, question.params, answer))
        return {}

    async def _cancel(self, ctx: ServerRequestContext[Any, Any], params: _TaskParams) -> HandlerResult:
        require_client_extension(ctx, TASKS_EXTENSION)
        with _on_the_wire(), suppress(TerminalTaskError):  # an ended task stays as it ended (SEP-2663)
            await self.tasks.cancel(self.tasks.caller(), params.task_id)
        return {}

    def _detailed(self, record: TaskRecord) -> dict[str, Any]:
        """`tasks/get`'s `DetailedTask`: the task, with what its status inlines."""
        wire = _task(record)
        if record.status == "input_required":
            wire["inputRequests"] = {
                key: question.model_dump(mode="json", by_alias=True, exclude_none=True)
                for key, question in self.tasks.open_questions(record).items()
            }
        outcome = record.outcome or {}
        if record.status == "completed":
            wire["result"] = outcome.get("result") or {}
        elif record.status == "failed":
            wire["error"] = outcome.get("error") or {"code": -32603, "message": "The task failed."}
        return wire


def _task(record: TaskRecord) -> dict[str, Any]:
    """The extension's `Task` object of `record` (times in ISO 8601, durations in milliseconds)."""
    wire: dict[str, Any] = {
        "taskId": record.id,
        "status": record.status,
        "createdAt": iso(record.created_at),
        "lastUpdatedAt": iso(record.updated_at),
        "ttlMs": round(record.ttl * 1000),
        "pollIntervalMs": round(record.poll_interval * 1000),
    }
    if record.status_message is not None:
        wire["statusMessage"] = record.status_message
    return wire


def _checked(key: str, question: Any, answer: Any) -> dict[str, Any]:
    """`answer` as an `elicitation/create` result; an accepted form answer must pass the form's
    schema, as every form answer does (-32602 otherwise, the question left open)."""
    if not isinstance(answer, Mapping) or answer.get("action") not in ("accept", "decline", "cancel"):
        raise MCPError(
            code=INVALID_PARAMS,
            message=f"inputResponses[{key!r}] is not an elicitation/create result; answer the question.",
        )
    if answer["action"] == "accept" and isinstance(question, ElicitRequestFormParams):
        content = answer.get("content")
        problems = schema.validate(
            question.requested_schema, dict(content) if isinstance(content, Mapping) else {}
        )
        if problems or not isinstance(content, Mapping):
            said = problems[0].message if problems else "the answer has no content"
            raise MCPError(
                code=INVALID_PARAMS,
                message=f"inputResponses[{key!r}] does not fit the form ({said}); the question stays open.",
            )
    return dict(answer)


@contextmanager
def _on_the_wire() -> Iterator[None]:
    """The core's refusals as the extension's JSON-RPC errors."""
    try:
        yield
    except (UnknownTaskError, TerminalTaskError) as error:
        raise MCPError(code=INVALID_PARAMS, message=str(error)) from None
    except (IdentityRequiredError, PendingLimitError) as error:
        raise MCPError(code=INVALID_REQUEST, message=str(error)) from None


def _dumped(result: HandlerResult) -> dict[str, Any]:
    if isinstance(result, pydantic.BaseModel):
        return result.model_dump(mode="json", by_alias=True, exclude_none=True)
    return dict(result or {})
