"""`CheckSession`: one client connection that declares chosen modes and answers on a plan.

The plan of a call is its strategy: `valid` (a valid form answer, or consent to a URL),
`decline`, `cancel`, or `invalid` (the prepared invalid content for the first form, valid
ones after it, so a server that asks again is seen asking again). A question in a mode this
connection did not declare is refused with -32602, as a conforming client would (C-02); one
that came on the standalone stream, outside any call, is declined.
"""

from __future__ import annotations

import contextlib
from typing import Any

import anyio
from mcp.client import Client
from mcp.client.session import ClientRequestContext
from mcp.shared.exceptions import MCPError
from mcp_types import (
    CONNECTION_CLOSED,
    INVALID_PARAMS,
    REQUEST_TIMEOUT,
    ElicitRequestParams,
    ElicitResult,
    ErrorData,
    Request,
    TextContent,
    Tool,
)

from elicitkit._sdk import send_raw_request
from elicitkit.check._answers import valid_answer
from elicitkit.check._observed import Call, Connection, Observations, Poll, Reply, TaskRun
from elicitkit.check._target import Target, TargetError
from elicitkit.check._wire import Wire

LEGACY = "2025-11-25"
MODERN = "2026-07-28"

TERMINAL = frozenset({"completed", "failed", "cancelled"})
#: the task lifetime the checker asks for; long enough for a run, short enough to be swept soon
TASK_TTL_MS = 300_000


class NoReplyError(TargetError, TimeoutError):
    """The server sent no reply in time, or the connection was lost: a `TargetError` to a caller,
    a `TimeoutError` to the checker's own deadlines, which treat both alike."""


class _Raw(Request[dict[str, Any] | None, str]):
    """Any request, sent as the checker writes it; the reply is read back raw."""


class CheckSession:
    """`async with CheckSession(...) as s: await s.call(...)`; every call is recorded in `seen`."""

    def __init__(
        self, target: Target, connection: Connection, seen: Observations, *, timeout: float, mode: str
    ) -> None:
        self.connection = connection
        self.seen = seen
        self.timeout = timeout
        self.wire = Wire(connection, seen)
        #: the tools `call` calls as tasks (2025-11-25, `execution.taskSupport: "required"`)
        self.as_task: frozenset[str] = frozenset()
        #: the task run a question may belong to (its status is read while the question is open)
        self.task: TaskRun | None = None
        self.client = Client(
            self.wire.transport(target.transport(self.wire)),
            mode=mode,
            elicitation_callback=self._answer,
            input_required_max_rounds=6,
            read_timeout_seconds=timeout * 2,
        )

    async def __aenter__(self) -> CheckSession:
        await self.client.__aenter__()
        self.connection.revision = self.client.protocol_version
        return self

    @property
    def server_tasks(self) -> dict[str, Any] | None:
        """The server's `tasks` capability as it declared it (2025-11-25), or None."""
        caps = self.client.server_capabilities.model_dump(by_alias=True, mode="json", exclude_none=True)
        tasks = caps.get("tasks")
        return tasks if isinstance(tasks, dict) else None

    @property
    def cancels(self) -> bool:
        """Whether the server declared `tasks.cancel`."""
        return isinstance((self.server_tasks or {}).get("cancel"), dict)

    async def __aexit__(self, *exc: Any) -> None:
        await self.client.__aexit__(None, None, None)

    async def tools(self) -> list[Tool]:
        found: list[Tool] = []
        cursor: str | None = None
        for _ in range(20):
            page = await self.client.list_tools(cursor=cursor)
            found.extend(page.tools)
            cursor = page.next_cursor
            if not cursor:
                break
        return found

    async def call(
        self,
        tool: str,
        arguments: dict[str, Any],
        strategy: str = "valid",
        invalid: tuple[dict[str, Any], list[str]] | None = None,
        call: Call | None = None,
    ) -> Call:
        """Call `tool`, answering on the plan; `call`, when given, is the record to fill as it goes.
        A tool in `as_task` is called as a task."""
        if tool in self.as_task:
            return await self.call_as_task(tool, arguments, strategy, invalid, call)
        call = call or Call(self.connection, tool, strategy)
        if invalid is not None:
            call.invalid, call.problems = invalid
        self.seen.calls.append(call)
        self.wire.call = call
        try:
            with anyio.fail_after(self.timeout):
                result = await self.client.call_tool(tool, arguments)
            call.outcome = "result"
            call.is_error = bool(result.is_error)
            call.text = " ".join(c.text for c in result.content if isinstance(c, TextContent))
        except TimeoutError:
            call.outcome = "timeout"
        except MCPError as error:
            call.outcome = "error"
            call.error = error.error.model_dump(by_alias=True, mode="json", exclude_none=True)
        except Exception as error:  # a report, not a crash: the checker goes on with the next call
            call.outcome = "crash"
            call.text = f"{type(error).__name__}: {error}"
        finally:
            self.wire.call = None
        return call

    async def request(self, method: str, params: dict[str, Any], *, wait: float | None = None) -> Reply:
        """Send `method` as written and keep the raw reply: the server's error is a reply; no
        reply in `wait` seconds (default: the timeout) is a `NoReplyError` (a TimeoutError), as is a
        lost connection."""
        reply = Reply(self.connection, method, params)
        try:
            # raw: the SDK holds a `tools/call` reply to `CallToolResult`; a `CreateTaskResult` is none
            request = _Raw(method=method, params=params)
            wait = wait or self.timeout
            reply.result = await send_raw_request(self.client.session, request, read_timeout=wait)
        except MCPError as error:
            if error.code in (REQUEST_TIMEOUT, CONNECTION_CLOSED):  # the SDK's own, not the server's
                raise NoReplyError(f"{method}: {error.error.message}") from None
            reply.error = error.error.model_dump(by_alias=True, mode="json", exclude_none=True)
        return reply

    async def call_as_task(
        self,
        tool: str,
        arguments: dict[str, Any],
        strategy: str = "valid",
        invalid: tuple[dict[str, Any], list[str]] | None = None,
        call: Call | None = None,
    ) -> Call:
        """Call `tool` as a task: poll `tasks/get` at the server's `pollInterval` while `tasks/result`
        waits (the questions come there, answered on the plan), all within one deadline; then
        read the ended task once more and try to cancel it, which must be refused."""
        call = call or Call(self.connection, tool, strategy)
        if invalid is not None:
            call.invalid, call.problems = invalid
        self.seen.calls.append(call)
        self.wire.call = call
        params = {"name": tool, "arguments": arguments, "task": {"ttl": TASK_TTL_MS}}
        try:
            run = TaskRun(call, await self.request("tools/call", params))
            self.seen.task_runs.append(run)
            if run.task_id is None:  # refused, or a plain result where a CreateTaskResult belongs
                _ended(call, run.created)
                return call
            self.task, self.wire.task_id = run, run.task_id
            with anyio.fail_after(self.timeout * TASK_TIME):
                await self._follow(run)
            _ended(call, run.result)
            run.after = await self.request("tasks/get", {"taskId": run.task_id})
            if self.cancels:
                run.cancel = await self.request("tasks/cancel", {"taskId": run.task_id})
        except TimeoutError:
            call.outcome = "timeout"
        except Exception as error:  # a report, not a crash: the checker goes on with the next call
            call.outcome = "crash"
            call.text = f"{type(error).__name__}: {error}"
        finally:
            self.wire.call, self.wire.task_id, self.task = None, None, None
        return call

    async def _follow(self, run: TaskRun) -> None:
        task_id = run.task_id
        assert task_id is not None

        async def result() -> None:
            run.result = await self.request(
                "tasks/result", {"taskId": task_id}, wait=self.timeout * TASK_TIME
            )
            tasks.cancel_scope.cancel()

        async with anyio.create_task_group() as tasks:
            tasks.start_soon(result)
            interval = _interval(run.created.result)
            while True:
                reply = await self._poll(run, asking=False)
                interval = _interval(reply.result, interval)
                await anyio.sleep(interval)

    async def _poll(self, run: TaskRun, *, asking: bool) -> Reply:
        reply = await self.request("tasks/get", {"taskId": run.task_id})
        run.polls.append(Poll(reply, anyio.current_time(), asking))
        return reply

    async def _answer(
        self, context: ClientRequestContext, params: ElicitRequestParams
    ) -> ElicitResult | ErrorData:
        # A question from the standalone stream belongs to no call (S-02): declined, and the
        # answer the open call planned (an invalid one, say) stays for the call's own question.
        raw = params.model_dump(by_alias=True, mode="json", exclude_none=True)
        loose = self.wire.came_loose(context.request_id) and not self.wire.of_task(raw)
        call = None if loose else self.wire.call
        mode = raw.get("mode") or "form"
        if mode not in self.connection.declared:
            return ErrorData(code=INVALID_PARAMS, message=f"This client did not declare {mode} mode.")
        if call is not None and self.task is not None and self.task.call is call:
            with contextlib.suppress(TimeoutError):  # the status while asked; the answer matters more
                await self._poll(self.task, asking=True)
        strategy = call.strategy if call is not None else "decline"
        action = strategy if strategy in ("decline", "cancel") else "accept"
        content: dict[str, Any] | None = None
        if action == "accept" and mode == "form":
            schema = raw.get("requestedSchema") or {}
            first_form = call is not None and not any(c is not None for _, c in call.answers)
            if strategy == "invalid" and call is not None and call.invalid is not None and first_form:
                content = call.invalid
            else:
                content = valid_answer(schema)
        if call is not None:
            call.answers.append((action, content))
            if self.task is not None and self.task.call is call:
                self.task.answered_at.append(anyio.current_time())
        return ElicitResult(action=action, content=content)


#: a task call may take this many times `timeout` in all (it is polled, its work takes time)
TASK_TIME = 3


def _interval(result: dict[str, Any] | None, default: float = 0.5) -> float:
    """The server's `pollInterval` in seconds, held between 0.05 and 2 so a run stays short."""
    task = result.get("task", result) if result is not None else None
    value = task.get("pollInterval") if isinstance(task, dict) else None
    if isinstance(value, int | float) and not isinstance(value, bool):
        return min(max(value / 1000, 0.05), 2.0)
    return default


def _ended(call: Call, reply: Reply | None) -> None:
    """Fill in how `call` ended from the reply that ends it (`tasks/result`, or the create itself)."""
    if reply is None:
        call.outcome = "timeout"
    elif reply.error is not None:
        call.outcome, call.error = "error", reply.error
    else:
        result = reply.result or {}
        call.outcome = "result"
        call.is_error = result.get("isError") is True
        content = result.get("content")
        texts = [c.get("text") for c in content if isinstance(c, dict)] if isinstance(content, list) else []
        call.text = " ".join(t for t in texts if isinstance(t, str))
