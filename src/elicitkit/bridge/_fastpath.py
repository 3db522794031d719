"""The short way through the bridge for a host request nobody needs to ask about.

Most of a bridged call's cost is the SDK's server machinery toward the host (a session per
host, a task tree and an event stream per request, each message validated into a model and
out again), not the bridge's own work. A request that can bring no question back to the host
needs none of it: `FastPath` answers it at the HTTP level, from the parsed JSON, through the
same upstream client, which keeps every client rule and the C-03 tie of upstream calls (once
its session is open, as one POST on its own wire: `_direct.DirectWire`).

It serves only a live Streamable HTTP session of a 2025-11-25 host that declared no
elicitation, sampling or roots (nothing can be asked of it on the call's stream), for the
plain list/read/call methods without a progress token; anything else (initialize, notifications, responses,
batches, progress, a host that answers questions, a 2026-07-28 host and its rounds) goes the
full way, unchanged. A host's `notifications/cancelled` cancels the upstream call as the full
way does; a dropped connection does not (2025-11-25: a disconnection SHOULD NOT be taken for a
cancellation), and watching for one would cost a task per request.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Callable
from typing import Any

import anyio
from mcp.client import Client
from mcp.server.streamable_http_manager import StreamableHTTPSessionManager
from mcp.server.transport_security import TransportSecurityMiddleware
from mcp.shared.jsonrpc_dispatcher import handler_exception_to_error_data
from mcp_types import (
    INTERNAL_ERROR,
    CallToolRequest,
    ErrorData,
    GetPromptRequest,
    ListPromptsRequest,
    ListResourcesRequest,
    ListResourceTemplatesRequest,
    ListToolsRequest,
    ReadResourceRequest,
    Request,
    RequestId,
)
from mcp_types.version import MODERN_PROTOCOL_VERSIONS
from pydantic import ValidationError
from starlette.requests import Request as HTTPRequest
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from elicitkit._sdk import held_open, live_session
from elicitkit.bridge._calls import AsSent, HostCall, on_behalf_of
from elicitkit.bridge._sessions import Link, Links
from elicitkit.bridge._upstream import BridgeClient
from elicitkit.client import ElicitingClient, until_urls_complete
from elicitkit.errors import ElicitationError

logger = logging.getLogger("elicitkit.bridge")

__all__ = ["FastPath"]

_MAX_BODY = 1 << 20
"""Larger bodies go the full way (and meet its own size limit)."""

_REQUESTS: dict[str, type[Request[Any, Any]]] = {
    "tools/list": ListToolsRequest,
    "tools/call": CallToolRequest,
    "resources/list": ListResourcesRequest,
    "resources/templates/list": ListResourceTemplatesRequest,
    "resources/read": ReadResourceRequest,
    "prompts/list": ListPromptsRequest,
    "prompts/get": GetPromptRequest,
}
"""The requests the short way serves, and the SDK's model of each."""
_HELD = {"tools/call": "name", "resources/read": "uri", "prompts/get": "name"}
"""The calls an upstream question or a -32042 may serve, and the parameter naming each."""


async def _send_once(client: Client, request: Request[Any, Any]) -> dict[str, Any]:
    """`request` upstream, its result kept as JSON for the host: as one POST on the client's own
    wire (`DirectWire`) once the session is up, else through the SDK session as every call goes
    (stamped, named, its result checked, a later revision's fields dropped)."""
    wire = client.direct if isinstance(client, BridgeClient) else None
    if wire is not None and wire.ready:
        data = request.model_dump(by_alias=True, mode="json", exclude_none=True)
        return await wire.request(request.method, data.get("params"))
    return (await client.session.send_request(request, AsSent)).root


async def _send(client: Client, request: Request[Any, Any]) -> dict[str, Any]:
    """As `ElicitingClient` sends a call: a -32042 answered and the call retried (C-21)."""
    if not isinstance(client, ElicitingClient) or request.method not in _HELD:
        return await _send_once(client, request)
    result = await until_urls_complete(client.elicitations, lambda: _send_once(client, request))
    if request.method == "tools/call" and result.get("isError"):
        content = result.get("content")
        said = (
            [c.get("text", "") for c in content if isinstance(c, dict)] if isinstance(content, list) else []
        )
        client.elicitations.explain_no_questions(client.protocol_version, [str(text) for text in said])
    return result


class FastPath:
    """ASGI middleware in front of the bridge's Streamable HTTP endpoint (see the module)."""

    def __init__(
        self, app: ASGIApp, *, links: Links, manager: Callable[[], StreamableHTTPSessionManager], path: str
    ) -> None:
        self.app = app
        self.links = links
        self.manager = manager
        self.path = path
        self._open: dict[tuple[str, RequestId], anyio.CancelScope] = {}
        self._checks: TransportSecurityMiddleware | None = None

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["method"] != "POST" or _route_path(scope) != self.path:
            await self.app(scope, receive, send)
            return
        headers = dict(scope["headers"])
        key = headers.get(b"mcp-session-id", b"").decode("latin-1")
        link = self.links.peek(key) if key else None
        if link is None:
            await self.app(scope, receive, send)
            return
        body, more = await _read_body(receive)
        replay = _replaying(body, more, receive)
        message = _json(body) if not more else None
        if isinstance(message, dict) and message.get("method") == "notifications/cancelled":
            self._cancel(key, message.get("params"))
        served = await self._serve(scope, headers, key, link, message, send)
        if not served:
            await self.app(scope, replay, send)

    async def _serve(
        self,
        scope: Scope,
        headers: dict[bytes, bytes],
        key: str,
        link: Link,
        message: Any,
        send: Send,
    ) -> bool:
        plain = _plain_request(message)
        client = link.client
        if plain is None or client is None or not _eligible(link, headers, scope):
            return False
        request_id, request = plain
        if client.protocol_version in MODERN_PROTOCOL_VERSIONS:
            return False  # a 2026-07-28 upstream's results need translating for this host
        manager = self.manager()
        transport = live_session(manager, key)
        if transport is None:
            return False  # an ended session, or one bound to a credential: the full way judges
        if await self._security(manager).validate_request(HTTPRequest(scope), is_post=True) is not None:
            return False  # the full way answers with the reason
        open_key = (key, request_id)
        if open_key in self._open:
            return False  # a reused id: the full way says what is wrong with it
        outcome: dict[str, Any] | None = None
        with held_open(transport), anyio.CancelScope() as cancel:
            self._open[open_key] = cancel
            try:
                outcome = await self._forward(link, client, request_id, request)
            finally:
                self._open.pop(open_key, None)
        if outcome is None:  # cancelled: no response for a cancelled request
            await _respond(send, 202, b"", key)
            return True
        payload = {"jsonrpc": "2.0", "id": request_id, **outcome}
        await _respond(send, 200, json.dumps(payload, separators=(",", ":")).encode(), key)
        return True

    def _security(self, manager: StreamableHTTPSessionManager) -> TransportSecurityMiddleware:
        """The DNS rebinding and content-type checks the session's transport makes, with its settings."""
        if self._checks is None or self._checks.settings is not manager.security_settings:
            self._checks = TransportSecurityMiddleware(manager.security_settings)
        return self._checks

    async def _forward(
        self, link: Link, client: Client, request_id: RequestId, request: Request[Any, Any]
    ) -> dict[str, Any]:
        """The upstream's answer to `request`, as the full way would give it: a result or an error."""
        channel = link.host.channel
        host_call = HostCall(channel, request_id) if request.method in _HELD and channel is not None else None
        opened = link.host.open(host_call) if host_call is not None else None
        try:
            if host_call is None:
                result = await _send(client, request)
            else:
                with on_behalf_of(host_call):
                    result = await _send(client, request)
        except ElicitationError as error:  # the bridge's client stopped the call, as `Forwarder` says
            return {"error": {"code": INTERNAL_ERROR, "message": str(error)}}
        except Exception as error:  # as the SDK's server answers a handler that raised
            data = handler_exception_to_error_data(error)
            if data is None:
                logger.exception("the upstream call failed")
                data = ErrorData(code=0, message=str(error))
            return {"error": data.model_dump(by_alias=True, mode="json", exclude_none=True)}
        finally:
            if opened is not None:
                link.host.close(opened)
        return {"result": result}

    def _cancel(self, key: str, params: Any) -> None:
        request_id = params.get("requestId") if isinstance(params, dict) else None
        if isinstance(request_id, str | int) and not isinstance(request_id, bool):
            scope = self._open.get((key, request_id))
            if scope is not None:
                scope.cancel()


def _route_path(scope: Scope) -> str:
    """The path inside the app (a gateway may mount it under a prefix)."""
    path: str = scope["path"]
    root: str = scope.get("root_path", "")
    return path[len(root) :] if root and path.startswith(root) else path


def _eligible(link: Link, headers: dict[bytes, bytes], scope: Scope) -> bool:
    """A 2025-11-25 host that declared no elicitation, sampling or roots (a server's request
    within a call would have no stream to reach it), on the version it negotiated, accepting
    JSON, with no credential (a session bound to one is the session manager's to check)."""
    host = link.host
    session = host.channel
    if host.modes or host.relays or host.modern or session is None or scope.get("user") is not None:
        return False
    version = headers.get(b"mcp-protocol-version", b"").decode("latin-1")
    if version != session.protocol_version:
        return False
    accept = headers.get(b"accept", b"").decode("latin-1")
    return "application/json" in accept and "text/event-stream" in accept


def _plain_request(message: Any) -> tuple[RequestId, Request[Any, Any]] | None:
    """The id and the SDK model of a single request the short way serves, else None."""
    if not isinstance(message, dict) or message.get("jsonrpc") != "2.0":
        return None
    request_id, method = message.get("id"), message.get("method")
    if isinstance(request_id, bool) or not isinstance(request_id, str | int) or method not in _REQUESTS:
        return None
    params = message.get("params")
    if params is not None:
        if not isinstance(params, dict):
            return None
        meta = params.get("_meta")
        if meta is not None and (not isinstance(meta, dict) or meta):
            return None  # a progress token, or anything else riding along: the full way carries it
        if set(params) - {"name", "arguments", "uri", "cursor", "_meta"}:
            return None  # a field this path does not forward (a newer revision's, say)
    try:
        request = _REQUESTS[method].model_validate({"method": method, "params": params}, by_name=False)
    except ValidationError:
        return None  # the full way says what is wrong with it
    return request_id, request


async def _read_body(receive: Receive) -> tuple[bytes, bool]:
    """The request body, up to `_MAX_BODY`; `more` when it is longer (the rest not yet read)."""
    chunks: list[bytes] = []
    size = 0
    while True:
        message = await receive()
        if message["type"] != "http.request":
            return b"".join(chunks), False
        chunk = message.get("body", b"")
        chunks.append(chunk)
        size += len(chunk)
        if not message.get("more_body", False):
            return b"".join(chunks), False
        if size > _MAX_BODY:
            return b"".join(chunks), True


def _replaying(body: bytes, more: bool, receive: Receive) -> Receive:
    """A `receive` that gives `body` again, then the rest of the request."""
    given = False

    async def replay() -> Message:
        nonlocal given
        if not given:
            given = True
            return {"type": "http.request", "body": body, "more_body": more}
        return await receive()

    return replay


def _json(body: bytes) -> Any:
    try:
        return json.loads(body)
    except ValueError:
        return None


async def _respond(send: Send, status: int, body: bytes, session: str) -> None:
    headers = [(b"mcp-session-id", session.encode("latin-1")), (b"content-length", str(len(body)).encode())]
    if body:
        headers.append((b"content-type", b"application/json"))
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": body})
