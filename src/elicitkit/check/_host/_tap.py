"""What the host sent back, as it sent it: the evidence the grading needs beyond the typed answer
(and, in `TaskWatch`, how it ran the task tool).

`Elicitation.form` hands a tool the answer after strict validation, and nothing of a decline's
content; a host's mistakes are in what it sent. `Tap` is a server middleware (the SDK's public
`MCPServer.middleware`, which may pass an adjusted context on) that keeps, for each `tools/call`,

- on 2025-11-25, every `elicitation/create` result as the session received it (the session the
  handler sees records its `send_request` results);
- on 2026-07-28, the raw `inputResponses` of the retry, by key.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Awaitable, Callable
from contextvars import ContextVar
from typing import Any

from mcp.server.context import ServerRequestContext
from mcp.server.session import ServerSession
from mcp_types import ElicitResult

from elicitkit.check._host._records import MODERN

CallNext = Callable[[ServerRequestContext[Any, Any]], Awaitable[Any]]

_heard: ContextVar[list[dict[str, Any]] | None] = ContextVar("elicitkit_host_heard", default=None)


def heard() -> list[dict[str, Any]]:
    """The results this request's live questions got (2025-11-25), oldest first, as JSON data."""
    return _heard.get() or []


class Tap:
    """The middleware: `rounds` collects each retry's raw `inputResponses` by question key."""

    def __init__(self) -> None:
        self.rounds: dict[str, Any] = {}

    async def __call__(self, ctx: ServerRequestContext[Any, Any], call_next: CallNext) -> Any:
        if ctx.method != "tools/call":
            return await call_next(ctx)
        responses = (ctx.params or {}).get("inputResponses")
        if isinstance(responses, dict):
            self.rounds.update(responses)
        token = _heard.set([])
        try:
            return await call_next(dataclasses.replace(ctx, session=_Recording(ctx.session)))
        finally:
            _heard.reset(token)


class _Recording(ServerSession):
    """The request's own session, seen through, keeping each elicitation result it receives."""

    def __init__(self, inner: ServerSession) -> None:  # the same session: its state, not a copy of it
        vars(self).update(vars(inner))

    async def send_request(self, request: Any, result_type: Any, *args: Any, **kwargs: Any) -> Any:
        result = await super().send_request(request, result_type, *args, **kwargs)
        found = _heard.get()
        if isinstance(result, ElicitResult) and found is not None:
            found.append(result.model_dump(mode="json", by_alias=True, exclude_none=True))
        return result


class TaskWatch:
    """The middleware that sees how a 2025-11-25 host runs the task tool `tool`: whether
    its `tools/call` carried `task`, when it polled `tasks/get`, how often it read `tasks/result`.
    It sits outermost, so it sees the calls the task wire refuses too."""

    def __init__(self, tool: str, clock: Callable[[], float]) -> None:
        self.tool = tool
        self.clock = clock
        self.calls: list[bool] = []
        self.polls: list[float] = []
        self.results = 0

    async def __call__(self, ctx: ServerRequestContext[Any, Any], call_next: CallNext) -> Any:
        params = ctx.params or {}
        if ctx.protocol_version >= MODERN:  # tasks there are an extension, not this wire
            return await call_next(ctx)
        if ctx.method == "tools/call" and params.get("name") == self.tool:
            self.calls.append(isinstance(params.get("task"), dict))
        elif ctx.method == "tasks/get":
            self.polls.append(self.clock())
        elif ctx.method == "tasks/result":
            self.results += 1
        return await call_next(ctx)
