"""The MCP server the host talks to: every request forwarded to that host session's upstream.

Results and errors come back unchanged (an `MCPError` keeps its code and data); upstream
notifications (list changes, resource updates, log messages, completion notices) go to the
host, progress to the host call it belongs to, and a host's cancellation cancels the
upstream call it caused. A host's roots list change goes upstream (`_relayed` carries the
requests themselves).
"""

from __future__ import annotations

import hashlib
import logging
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

from mcp.client import Client
from mcp.client.session import IncomingMessage, LoggingFnT, MessageHandlerFnT
from mcp.server import Server
from mcp.server.context import CallNext, HandlerResult, ServerRequestContext
from mcp.shared.exceptions import MCPError
from mcp_types import (
    INTERNAL_ERROR,
    CallToolRequest,
    CallToolRequestParams,
    CancelTaskRequest,
    CompleteRequest,
    CompleteRequestParams,
    CompleteResult,
    ElicitCompleteNotification,
    EmptyResult,
    GetPromptRequestParams,
    GetTaskPayloadRequest,
    GetTaskRequest,
    Implementation,
    ListTasksRequest,
    LoggingMessageNotification,
    LoggingMessageNotificationParams,
    NotificationParams,
    PaginatedRequestParams,
    PromptListChangedNotification,
    ReadResourceRequestParams,
    Request,
    ResourceListChangedNotification,
    ResourceUpdatedNotification,
    RootsListChangedNotification,
    ServerCapabilities,
    SetLevelRequestParams,
    SubscribeRequest,
    SubscribeRequestParams,
    ToolListChangedNotification,
    UnsubscribeRequest,
    UnsubscribeRequestParams,
)
from mcp_types.version import MODERN_PROTOCOL_VERSIONS

from elicitkit._sdk import send_raw_request
from elicitkit.bridge._calls import on_behalf_of
from elicitkit.bridge._host import HostCall, HostSession
from elicitkit.bridge._rounds import Rounds, upstream_seeds
from elicitkit.bridge._sessions import Link, Links
from elicitkit.errors import ElicitationError

logger = logging.getLogger("elicitkit.bridge")

__all__ = ["Forwarder", "forwarding_server", "host_message_handler"]

_T = TypeVar("_T")
_PASSED = (
    ToolListChangedNotification,
    PromptListChangedNotification,
    ResourceListChangedNotification,
    ResourceUpdatedNotification,
    ElicitCompleteNotification,
)
_TASK_REQUESTS: dict[str, type[Request[Any, Any]]] = {
    "tasks/get": GetTaskRequest,
    "tasks/result": GetTaskPayloadRequest,
    "tasks/list": ListTasksRequest,
    "tasks/cancel": CancelTaskRequest,
}
"""The 2025-11-25 task requests a host may send; the bridge passes each to the server."""
_STDIO = "stdio"
_SESSIONLESS = "declared:"


def _session_key(ctx: ServerRequestContext[Any, Any]) -> str:
    """The host session a request belongs to: its `mcp-session-id`, or the one stdio connection.
    2026-07-28 has no sessions: its requests that declare the same capabilities share a pool of
    upstream sessions (`Links.pooled`), which declare what they declare."""
    headers = getattr(ctx.request, "headers", None)
    if headers is None:
        return _STDIO
    session_id = headers.get("mcp-session-id")
    if session_id:
        return str(session_id)
    declared = ctx.session.client_capabilities
    text = declared.model_dump_json(exclude_none=True) if declared is not None else ""
    return _SESSIONLESS + hashlib.sha256(text.encode()).hexdigest()[:24]


def host_message_handler(host: HostSession) -> MessageHandlerFnT:
    """What the upstream client does with a notification: pass it to the host."""

    async def handle(message: IncomingMessage) -> None:
        if isinstance(message, Exception):
            logger.debug("upstream transport: %s", message)
        elif isinstance(message, _PASSED):
            await host.notify(message)

    return handle


def host_logger(host: HostSession) -> LoggingFnT:
    async def log(params: LoggingMessageNotificationParams) -> None:
        await host.notify(LoggingMessageNotification(params=params))

    return log


class Forwarder:
    """Forwards host requests to the link of their host session."""

    def __init__(self, links: Links) -> None:
        self.links = links
        self.capabilities: ServerCapabilities | None = None
        """The upstream's capabilities, declared to the host as they are."""
        self.server_info: Implementation | None = None
        self.instructions: str | None = None
        self.server: Server[Any] | None = None
        self.rounds = Rounds()
        """A 2026-07-28 host's calls, held upstream while it answers round by round."""

    async def link(self, ctx: ServerRequestContext[Any, Any], *, call: bool = False) -> Link:
        key = _session_key(ctx)

        def host() -> HostSession:
            return HostSession.of(ctx.session)

        if key.startswith(_SESSIONLESS):
            # A call that may be held gets an upstream session holding no other host's call; a
            # retry, the one its state was sealed for.
            owner = self.rounds.sealed_for((ctx.params or {}).get("requestState")) if call else None
            size = self.rounds.max_held
            link = await self.links.pooled(key, host, owner=owner, alone=call, size=size)
        else:
            link = await self.links.get(key, host)
        link.host.reach(ctx.session)
        return link

    async def forward(
        self,
        ctx: ServerRequestContext[Any, Any],
        send: Callable[[Client], Awaitable[_T]],
        *,
        call: bool = False,
    ) -> _T:
        """Run `send` on the upstream client; a `call` is one an upstream question may serve."""
        link = await self.link(ctx, call=call)
        client = link.client
        if client is None:
            raise MCPError(code=INTERNAL_ERROR, message="The upstream session closed; try again.")
        if call and self.rounds.takes(link.host, ctx):
            modern = client.protocol_version in MODERN_PROTOCOL_VERSIONS
            return await self.rounds.call(link.host, ctx, lambda: send(client), modern=modern)  # type: ignore[no-any-return]
        host_call = HostCall(ctx.session, ctx.request_id) if call and ctx.request_id is not None else None
        opened = link.host.open(host_call) if host_call is not None else None
        try:
            if host_call is None:
                return await send(client)
            with on_behalf_of(host_call):
                return await send(client)
        except ElicitationError as error:
            # The bridge's client stopped the call (a declined URL, a rate limit): say so as an error.
            raise MCPError(code=INTERNAL_ERROR, message=str(error)) from None
        finally:
            if opened is not None:
                link.host.close(opened)

    # -- handlers

    async def list_tools(
        self, ctx: ServerRequestContext[Any, Any], params: PaginatedRequestParams | None
    ) -> Any:
        cursor = params.cursor if params is not None else None
        return await self.forward(ctx, lambda c: c.list_tools(cursor=cursor))

    async def call_tool(self, ctx: ServerRequestContext[Any, Any], params: CallToolRequestParams) -> Any:
        async def progress(progress: float, total: float | None, message: str | None) -> None:
            await ctx.session.report_progress(progress, total, message)

        # Progress is asked of the server only for a host that asked for it: no token, no
        # per-call progress handler upstream, and nothing to relay.
        relay = progress if _wants_progress(params) else None
        return await self.forward(
            ctx,
            lambda c: c.call_tool(
                params.name, params.arguments, progress_callback=relay, **upstream_seeds(params, c)
            ),
            call=True,
        )

    async def list_resources(
        self, ctx: ServerRequestContext[Any, Any], params: PaginatedRequestParams | None
    ) -> Any:
        cursor = params.cursor if params is not None else None
        return await self.forward(ctx, lambda c: c.list_resources(cursor=cursor))

    async def list_resource_templates(
        self, ctx: ServerRequestContext[Any, Any], params: PaginatedRequestParams | None
    ) -> Any:
        cursor = params.cursor if params is not None else None
        return await self.forward(ctx, lambda c: c.list_resource_templates(cursor=cursor))

    async def read_resource(
        self, ctx: ServerRequestContext[Any, Any], params: ReadResourceRequestParams
    ) -> Any:
        return await self.forward(
            ctx, lambda c: c.read_resource(str(params.uri), **upstream_seeds(params, c)), call=True
        )

    async def subscribe(self, ctx: ServerRequestContext[Any, Any], params: SubscribeRequestParams) -> Any:
        request = SubscribeRequest(params=params)
        return await self.forward(ctx, lambda c: c.session.send_request(request, EmptyResult))

    async def unsubscribe(self, ctx: ServerRequestContext[Any, Any], params: UnsubscribeRequestParams) -> Any:
        request = UnsubscribeRequest(params=params)
        return await self.forward(ctx, lambda c: c.session.send_request(request, EmptyResult))

    async def list_prompts(
        self, ctx: ServerRequestContext[Any, Any], params: PaginatedRequestParams | None
    ) -> Any:
        cursor = params.cursor if params is not None else None
        return await self.forward(ctx, lambda c: c.list_prompts(cursor=cursor))

    async def get_prompt(self, ctx: ServerRequestContext[Any, Any], params: GetPromptRequestParams) -> Any:
        return await self.forward(
            ctx, lambda c: c.get_prompt(params.name, params.arguments, **upstream_seeds(params, c)), call=True
        )

    async def complete(self, ctx: ServerRequestContext[Any, Any], params: CompleteRequestParams) -> Any:
        request = CompleteRequest(params=params)
        return await self.forward(ctx, lambda c: c.session.send_request(request, CompleteResult))

    async def set_level(self, ctx: ServerRequestContext[Any, Any], params: SetLevelRequestParams) -> Any:
        return await self.forward(ctx, lambda c: c.set_logging_level(params.level))

    # -- notifications from the host

    async def initialized(self, ctx: ServerRequestContext[Any, Any], params: NotificationParams) -> None:
        """The host may be sent requests now (a stdio host's upstream session opened before)."""
        link = self.links.peek(_session_key(ctx))
        if link is not None:
            link.host.reach(ctx.session)

    async def roots_changed(self, ctx: ServerRequestContext[Any, Any], params: NotificationParams) -> None:
        """The host's roots changed: tell the upstream, which was told the host's `roots`."""
        link = self.links.peek(_session_key(ctx))
        if link is None or link.client is None or link.host.roots is None:
            return
        try:
            await link.client.session.send_notification(RootsListChangedNotification())
        except Exception as error:  # an upstream gone must not break the host's side
            logger.debug("could not pass the roots change upstream: %s", error)

    # -- middleware: the host sees the upstream's name, instructions and capabilities

    async def __call__(self, ctx: ServerRequestContext[Any, Any], call_next: CallNext) -> HandlerResult:
        if ctx.method in _TASK_REQUESTS or (ctx.method == "tools/call" and _asks_a_task(ctx.params)):
            return await self.pass_task(ctx)
        if ctx.method not in ("initialize", "server/discover"):
            return await call_next(ctx)
        if _session_key(ctx) == _STDIO and self.capabilities is None:
            # One host on stdio: its upstream session opens now, with the modes it declares.
            initialize = ctx.method == "initialize"
            host = HostSession.from_initialize(ctx.params) if initialize else HostSession.of(ctx.session)
            try:
                link = await self.links.get(_STDIO, lambda: host)
            except MCPError:
                if initialize:
                    raise
                # A failed `server/discover` sends a 2026-07-28 host to `initialize`, which this
                # connection no longer takes, and whose refusal would hide why: the host is told
                # the bridge's own description, and its next request gets the sentence.
                return await call_next(ctx)
            if link.client is not None:
                self.learn(link.client)
        result = await call_next(ctx)
        if not isinstance(result, dict):
            return result
        if self.capabilities is not None:
            result = {**result, "capabilities": _dump(self.capabilities)}
        if ctx.method == "initialize" and self.server_info is not None:
            result = {**result, "serverInfo": _dump(self.server_info), "instructions": self.instructions}
        return {key: value for key, value in result.items() if value is not None}

    async def pass_task(self, ctx: ServerRequestContext[Any, Any]) -> dict[str, Any]:
        """A host's task request (2025-11-25), passed upstream and answered as the server answered.

        A `tools/call` with `task` gets the server's `CreateTaskResult`, and `tasks/get`,
        `tasks/list`, `tasks/cancel` its answers, unchanged. A task's questions come on the
        host's `tasks/result`, so that one is a call: its questions reach the host (with their
        related-task `_meta`) or the bridge's own page, like any call's. The SDK neither routes
        `tasks/*` nor lets a `CreateTaskResult` through `call_tool`, hence the raw request."""
        request = _TASK_REQUESTS.get(ctx.method, CallToolRequest).model_validate(
            {"method": ctx.method, "params": ctx.params or {}}
        )
        return await self.forward(
            ctx, lambda c: send_raw_request(c.session, request), call=ctx.method == "tasks/result"
        )

    def learn(self, client: Client) -> None:
        """Take the upstream's description from a connected client."""
        self.capabilities = client.server_capabilities
        self.server_info = info = client.server_info
        self.instructions = client.instructions
        if self.server is not None:
            self.server.instructions = client.instructions
            if info is not None:
                self.server.name, self.server.version = info.name, info.version
                self.server.title, self.server.description = info.title, info.description


def _asks_a_task(params: Any) -> bool:
    return isinstance(params, dict) and params.get("task") is not None


def _wants_progress(params: CallToolRequestParams) -> bool:
    meta: Any = params.meta or {}
    return meta.get("progress_token", meta.get("progressToken")) is not None


def _dump(model: Any) -> Any:
    return model.model_dump(by_alias=True, mode="json", exclude_none=True)


def forwarding_server(forwarder: Forwarder, name: str) -> Server[Any]:
    """A low-level `Server` whose every request goes through `forwarder`."""
    server: Server[Any] = Server(name)
    handlers: list[tuple[str, type[Any], Any]] = [
        ("tools/list", PaginatedRequestParams, forwarder.list_tools),
        ("tools/call", CallToolRequestParams, forwarder.call_tool),
        ("resources/list", PaginatedRequestParams, forwarder.list_resources),
        ("resources/templates/list", PaginatedRequestParams, forwarder.list_resource_templates),
        ("resources/read", ReadResourceRequestParams, forwarder.read_resource),
        ("resources/subscribe", SubscribeRequestParams, forwarder.subscribe),
        ("resources/unsubscribe", UnsubscribeRequestParams, forwarder.unsubscribe),
        ("prompts/list", PaginatedRequestParams, forwarder.list_prompts),
        ("prompts/get", GetPromptRequestParams, forwarder.get_prompt),
        ("completion/complete", CompleteRequestParams, forwarder.complete),
        ("logging/setLevel", SetLevelRequestParams, forwarder.set_level),
    ]
    for method, params_type, handler in handlers:
        server.add_request_handler(method, params_type, handler)
    server.add_notification_handler("notifications/initialized", NotificationParams, forwarder.initialized)
    server.add_notification_handler(
        "notifications/roots/list_changed", NotificationParams, forwarder.roots_changed
    )
    server.middleware.insert(0, forwarder)
    forwarder.server = server
    return server
