"""Where elicitkit meets a FastMCP server: the SDK request behind FastMCP's `Context`, and -32042.

FastMCP runs on the SDK's low-level `Server` and keeps the SDK's middleware list, so elicitkit
sits there, inside the SDK's `RequestStateBoundary`, exactly as on an `MCPServer`:

- `RequestBridge` remembers the SDK request each tools/call, prompts/get and resources/read
  runs in, so a tool's FastMCP `Context` can stand for the SDK `Context` every flow reads;
- the rounds middleware carries 2026-07-28 questions and answers;
- `KeepUrlRequired`, a FastMCP middleware, undoes FastMCP turning a -32042 raised in a tool
  into an `isError` result (docs/upstream.md), so the client sees the error it must act on.

The SDK server under FastMCP comes from `_fastmcp.low_level_server`, the one place that reads
FastMCP's private surface.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from contextvars import ContextVar
from typing import Any

import pydantic
from fastmcp import FastMCP
from fastmcp.exceptions import ToolError
from fastmcp.server.context import Context as FastMCPContext
from fastmcp.server.middleware import CallNext as FastMCPCallNext
from fastmcp.server.middleware import Middleware, MiddlewareContext
from mcp.server.context import CallNext, HandlerResult, ServerRequestContext
from mcp.server.mcpserver import Context
from mcp.shared.exceptions import UrlElicitationRequiredError
from mcp_types import InputResponseRequestParams
from mcp_types.methods import INPUT_REQUIRED_METHODS

from elicitkit.fastmcp._fastmcp import low_level_server
from elicitkit.server import NotInRequestError, RoundsMiddleware

_request: ContextVar[Context[Any, Any] | None] = ContextVar("elicitkit_fastmcp_request", default=None)


class RequestBridge:
    """SDK middleware: the request being handled, as an SDK `Context`, for the tool to ask in."""

    async def __call__(self, ctx: ServerRequestContext[Any, Any], call_next: CallNext) -> HandlerResult:
        if ctx.method not in INPUT_REQUIRED_METHODS:
            return await call_next(ctx)
        try:
            params = InputResponseRequestParams.model_validate(ctx.params or {})
        except pydantic.ValidationError:
            params = None  # the handler refuses the request itself
        token = _request.set(Context(request_context=ctx, input_params=params))
        try:
            return await call_next(ctx)
        finally:
            _request.reset(token)


class KeepUrlRequired(Middleware):
    """Lets the -32042 a URL-mode flow raises in a tool reach the client as that error."""

    async def on_call_tool(
        self, context: MiddlewareContext[Any], call_next: FastMCPCallNext[Any, Any]
    ) -> Any:
        try:
            return await call_next(context)
        except ToolError as exc:
            cause = exc.__cause__
            if isinstance(cause, UrlElicitationRequiredError):
                raise cause from None
            raise


def install(server: FastMCP[Any], clock: Callable[[], float] = time.time) -> None:
    """Add the bridge, the rounds (timeouts counted by `clock`) and the -32042 fix to `server`, once."""
    low = low_level_server(server)
    if not any(isinstance(m, RequestBridge) for m in low.middleware):
        low.middleware.append(RequestBridge())
    if not any(isinstance(m, RoundsMiddleware) for m in low.middleware):
        low.middleware.append(RoundsMiddleware(low, clock=clock))  # type: ignore[arg-type]  # reads name, title, version...
    if not any(isinstance(m, KeepUrlRequired) for m in server.middleware):
        server.add_middleware(KeepUrlRequired())


def install_tasks(server: FastMCP[Any], middleware: Any) -> None:
    """Put the task wire (`Elicitation.task_middleware()`) before the bridge, so a task's run (and a
    run again, from a `tasks/get`) passes the bridge and its tools get their request."""
    chain = low_level_server(server).middleware
    if any(type(m) is type(middleware) for m in chain):
        return
    at = next((i for i, m in enumerate(chain) if isinstance(m, RequestBridge)), len(chain))
    chain.insert(at, middleware)


def from_fastmcp(ctx: Any) -> Context[Any, Any] | None:
    """The SDK `Context` a FastMCP `Context` stands for (None for any other kind of `ctx`)."""
    if not isinstance(ctx, FastMCPContext):
        return None
    found = _request.get()
    if found is None:
        raise NotInRequestError(
            "This FastMCP Context has no request elicitkit can ask in: create "
            "elicitkit.fastmcp.Elicitation(server) on the FastMCP server that runs (the parent too, "
            "when this one is mounted), and ask from inside a tool, prompt or resource."
        )
    return found
