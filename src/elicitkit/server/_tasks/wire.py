"""The 2025-11-25 task wire on an `MCPServer`: `tools/call` with `task`, and `tasks/*`.

One server middleware, installed by `Elicitation(server, tasks=...)`, speaks it on connections
that negotiated 2025-11-25 and leaves every other era alone (older clients know no tasks, so
their calls run as plain calls; on 2026-07-28 tasks are an extension of their own):

- `initialize` declares `capabilities.tasks` (`list`, `cancel`, `requests.tools.call`);
- `tools/list` gives each task tool its `execution.taskSupport`;
- `tools/call` with `task` returns a `CreateTaskResult` at once and runs the tool in the
  background (a `required` tool called without it, or a `forbidden` one with it: -32601);
- `tasks/get`, `tasks/list`, `tasks/cancel` read the core, bound to the caller (an unknown,
  expired or another user's id: -32602);
- `tasks/result` blocks until the task ends, and meanwhile sends each question the task asks
  as an `elicitation/create` on its own stream (`_meta["io.modelcontextprotocol/related-task"]`
  names the task), answered by the client's ordinary elicitation handler; the result carries the
  same `_meta`, as the spec asks.

The SDK does not route `tasks/*` on 2025-11-25 and would sieve a `CreateTaskResult` out of a
`tools/call` result, so this is a middleware that answers before the handler lookup.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from dataclasses import replace
from typing import TYPE_CHECKING, Any

import pydantic
from mcp.server.context import CallNext, HandlerResult, ServerRequestContext
from mcp.shared.exceptions import MCPError
from mcp.shared.message import ServerMessageMetadata
from mcp_types import (
    INTERNAL_ERROR,
    INVALID_PARAMS,
    INVALID_REQUEST,
    METHOD_NOT_FOUND,
    ElicitRequest,
    ElicitResult,
)

from elicitkit._sdk import run_in_lifespan
from elicitkit.server._errors import ElicitationError, IdentityRequiredError, PendingLimitError
from elicitkit.server._rounds import RoundsMiddleware
from elicitkit.server._tasks.record import TaskRecord, iso
from elicitkit.server._tasks.tasks import Resume, Tasks, TerminalTaskError, UnknownTaskError

if TYPE_CHECKING:
    from mcp.server.mcpserver import MCPServer

__all__ = ["RELATED_TASK", "TASKS_VERSION", "TasksMiddleware", "serve_tasks", "task_wire"]

logger = logging.getLogger(__name__)

TASKS_VERSION = "2025-11-25"
"""The one protocol revision whose core has tasks."""
RELATED_TASK = "io.modelcontextprotocol/related-task"
_TASK_METHODS = frozenset({"tasks/get", "tasks/result", "tasks/list", "tasks/cancel"})
_CAPABILITY: dict[str, Any] = {"list": {}, "cancel": {}, "requests": {"tools": {"call": {}}}}


def serve_tasks(server: MCPServer[Any], middleware: TasksMiddleware) -> None:
    """Put the task wire on `server` (before the rounds, so a task's run gets one) and run its
    tasks in the server's lifespan; once per server."""
    if any(isinstance(m, TasksMiddleware) for m in server.middleware):
        raise ElicitationError("This server serves tasks already; give Elicitation one Tasks per server.")
    chain = server.middleware
    at = next((i for i, m in enumerate(chain) if isinstance(m, RoundsMiddleware)), len(chain))
    chain.insert(at, middleware)
    run_in_lifespan(server, middleware.tasks.running)


def task_wire(record: TaskRecord) -> dict[str, Any]:
    """The 2025-11-25 `Task` object of `record` (times in ISO 8601, durations in milliseconds)."""
    wire: dict[str, Any] = {
        "taskId": record.id,
        "status": record.status,
        "createdAt": iso(record.created_at),
        "lastUpdatedAt": iso(record.updated_at),
        "ttl": round(record.ttl * 1000),
        "pollInterval": round(record.poll_interval * 1000),
    }
    if record.status_message is not None:
        wire["statusMessage"] = record.status_message
    return wire


class TasksMiddleware:
    """The 2025-11-25 task wire for one server's `Tasks` (see the module docstring)."""

    def __init__(self, tasks: Tasks) -> None:
        self.tasks = tasks

    async def __call__(self, ctx: ServerRequestContext[Any, Any], call_next: CallNext) -> HandlerResult:
        method = ctx.method
        if method == "initialize":
            return _declared(_dumped(await call_next(ctx)))
        with self.tasks.resuming(_resume(ctx, call_next)):  # any wire's reads may run a task again
            return await self._handle(ctx, call_next)

    async def _handle(self, ctx: ServerRequestContext[Any, Any], call_next: CallNext) -> HandlerResult:
        method = ctx.method
        if ctx.protocol_version != TASKS_VERSION:
            return await call_next(ctx)
        try:
            if method == "tools/list":
                return self._listed(_dumped(await call_next(ctx)))
            if method == "tools/call":
                return await self._call(ctx, call_next)
            if method in _TASK_METHODS:
                return await self._task_method(ctx, call_next)
        except (UnknownTaskError, TerminalTaskError) as error:
            raise MCPError(code=INVALID_PARAMS, message=str(error)) from None
        except (IdentityRequiredError, PendingLimitError) as error:
            raise MCPError(code=INVALID_REQUEST, message=str(error)) from None
        return await call_next(ctx)

    def _listed(self, result: dict[str, Any]) -> dict[str, Any]:
        for tool in result.get("tools") or ():
            support = self.tasks.support(str(tool.get("name")))
            if support != "forbidden" and isinstance(tool, dict):
                tool["execution"] = {**(tool.get("execution") or {}), "taskSupport": support}
        return result

    async def _call(self, ctx: ServerRequestContext[Any, Any], call_next: CallNext) -> HandlerResult:
        params = dict(ctx.params or {})
        name = str(params.get("name"))
        task = params.pop("task", None)
        support = self.tasks.support(name)
        if task is None:
            if support == "required":
                raise MCPError(
                    code=METHOD_NOT_FOUND,
                    message=f"The tool {name!r} runs only as a task: call it with `task` in its params.",
                )
            return await call_next(ctx)
        if support == "forbidden":
            raise MCPError(
                code=METHOD_NOT_FOUND,
                message=f"The tool {name!r} does not run as a task: call it without `task`.",
            )
        ttl = task.get("ttl") if isinstance(task, Mapping) else None
        inner = replace(ctx, params=params)

        async def run() -> Mapping[str, Any]:
            return _dumped(await call_next(inner))

        record = await self.tasks.create(
            self.tasks.caller(),
            name,
            {"name": name, "arguments": params.get("arguments") or {}},
            run=run,
            ttl=ttl / 1000 if isinstance(ttl, int | float) else None,
        )
        return {"task": task_wire(record)}

    async def _task_method(self, ctx: ServerRequestContext[Any, Any], call_next: CallNext) -> HandlerResult:
        params = ctx.params or {}
        caller = self.tasks.caller()
        if ctx.method == "tasks/list":
            cursor = params.get("cursor")
            records, after = await self.tasks.list(caller, cursor if isinstance(cursor, str) else None)
            listed: dict[str, Any] = {"tasks": [task_wire(r) for r in records]}
            if after is not None:
                listed["nextCursor"] = after
            return listed
        task_id = params.get("taskId")
        if not isinstance(task_id, str):
            raise UnknownTaskError()
        if ctx.method == "tasks/cancel":
            return task_wire(await self.tasks.cancel(caller, task_id))
        resume = _resume(ctx, call_next)
        if ctx.method == "tasks/get":
            return task_wire(await self.tasks.get(caller, task_id, resume=resume))
        return await self._result(ctx, task_id, resume)

    async def _result(
        self, ctx: ServerRequestContext[Any, Any], task_id: str, resume: Resume
    ) -> HandlerResult:
        """`tasks/result`: block until the task ends, asking its questions on this stream meanwhile."""
        tasks = self.tasks
        caller = tasks.caller()
        sent: set[str] = set()
        while True:
            record = await tasks.get(caller, task_id, resume=resume)
            if record.terminal:
                return _payload(record)
            for key, question in tasks.open_questions(record).items():
                if key in sent:
                    continue
                sent.add(key)
                answer = await _deliver(ctx, record, question)
                await tasks.answer(caller, task_id, key, answer)
            await tasks.changed(task_id, record)


def _resume(ctx: ServerRequestContext[Any, Any], call_next: CallNext) -> Resume:
    """Run a stored task's tool call again through the rest of the chain, from this request of its user."""

    def resume(record: TaskRecord) -> Any:
        params = dict(record.request)
        meta = (ctx.params or {}).get("_meta")
        if meta is not None:  # this request's own (on 2026-07-28: the client's capabilities)
            params["_meta"] = meta
        again = replace(ctx, method="tools/call", params=params)

        async def run() -> Mapping[str, Any]:
            return _dumped(await call_next(again))

        return run

    return resume


async def _deliver(
    ctx: ServerRequestContext[Any, Any], record: TaskRecord, question: ElicitRequest
) -> dict[str, Any]:
    """Send `question` on this `tasks/result` stream, tied to the task; the client's reply (a refusal
    or an unreadable reply reads as cancel, so the task does not wait for ever)."""
    params = question.params.model_dump(mode="json", by_alias=True, exclude_none=True)
    params["_meta"] = {**(params.get("_meta") or {}), RELATED_TASK: {"taskId": record.id}}
    request = ElicitRequest.model_validate({"method": "elicitation/create", "params": params}, by_name=False)
    try:
        result = await ctx.session.send_request(
            request, ElicitResult, metadata=ServerMessageMetadata(related_request_id=ctx.request_id)
        )
    except (MCPError, pydantic.ValidationError) as error:
        logger.info("task question not answered (%s): cancelled", type(error).__name__)
        return {"action": "cancel"}
    return result.model_dump(mode="json", by_alias=True, exclude_none=True)


def _payload(record: TaskRecord) -> dict[str, Any]:
    """What the task's request returned (or its JSON-RPC error), tied to the task by `_meta`."""
    outcome = record.outcome or {}
    error = outcome.get("error")
    if isinstance(error, dict):
        code = int(error.get("code", INTERNAL_ERROR))
        raise MCPError(code=code, message=str(error.get("message")), data=error.get("data"))
    result = outcome.get("result")
    if not isinstance(result, dict):
        raise MCPError(
            code=INVALID_REQUEST,
            message="The task was cancelled before it finished, so it has no result; call the tool again.",
        )
    meta = result.get("_meta")
    meta = meta if isinstance(meta, dict) else {}
    return {**result, "_meta": {**meta, RELATED_TASK: {"taskId": record.id}}}


def _declared(result: dict[str, Any]) -> dict[str, Any]:
    """The initialize result with `capabilities.tasks`, on 2025-11-25 only."""
    if result.get("protocolVersion") == TASKS_VERSION and isinstance(result.get("capabilities"), dict):
        result["capabilities"]["tasks"] = _CAPABILITY
    return result


def _dumped(result: HandlerResult) -> dict[str, Any]:
    if isinstance(result, pydantic.BaseModel):
        return result.model_dump(mode="json", by_alias=True, exclude_none=True)
    return dict(result or {})
