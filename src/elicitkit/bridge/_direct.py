"""Plain requests of the short way sent upstream as one POST each, under every client rule.

Upstream, most of a bridged call's cost is the SDK's machinery around one HTTP POST: the
session and its dispatcher, the transport's writer task, its event-stream parser. `DirectWire`
takes the short way's requests past that machinery and nothing else: a request is written into
the upstream client's own message stream, above every watch elicitkit keeps on the wire (the
call's tie to the host call, C-03's record of open calls), and taken off at the bottom, just
above the SDK's transport, where it goes out as one POST on the same HTTP client (its
connections, its auth, its hooks; the session id and protocol version the SDK's own requests
carry). Whatever the server answers on that POST, a question or a notice before the response,
goes up the client's read stream as if the SDK's transport had read it, through the same
watches to the same session, which answers it under the client's rules (modes, the schema
subset, validation, rate limits, the bridge's UI). The response itself is taken off at the top,
after the watches have seen it, and handed to the request's caller.

A server may close a POST's event stream before the response (SSE polling): the wire resumes
it as the SDK's transport does, after the server's `retry` with a GET carrying `Last-Event-ID`,
on the same HTTP client, passing up whatever the resumed stream brings. A stream that ends with
no event id to resume from is an error for the caller, and so is one whose resumes fail
`MAX_RECONNECTION_ATTEMPTS` times in a row, as the SDK counts them. A resume that brings nothing
is how a server polls through a long job, so it is no failure; each one in a row doubles the wait
before the next (up to `_MAX_QUIET_WAIT`), so a server that keeps closing in silence costs a GET
now and then, never a loop, until it answers or the host cancels the call. Everything else, the
SDK's own requests and notifications included, passes through untouched.
"""

from __future__ import annotations

import contextvars
import itertools
import json
from collections.abc import Mapping
from contextlib import suppress
from dataclasses import dataclass
from types import TracebackType
from typing import Any

import anyio
import httpx2
from anyio.abc import ObjectReceiveStream, ObjectSendStream, TaskGroup
from anyio.streams.memory import MemoryObjectReceiveStream, MemoryObjectSendStream
from mcp.client import Transport
from mcp.client.streamable_http import DEFAULT_RECONNECTION_DELAY_MS, MAX_RECONNECTION_ATTEMPTS
from mcp.shared.exceptions import MCPError
from mcp.shared.message import SessionMessage
from mcp_types import (
    CONNECTION_CLOSED,
    INTERNAL_ERROR,
    INVALID_REQUEST,
    ErrorData,
    JSONRPCError,
    JSONRPCMessage,
    JSONRPCNotification,
    JSONRPCRequest,
    JSONRPCResponse,
    RequestId,
    jsonrpc_message_adapter,
)
from pydantic import ValidationError

from elicitkit._sdk import ReadStream, TransportStreams, WriteStream, stream_within_origin

__all__ = ["DirectWire"]

_PREFIX = "elicitkit-bridge-"
"""Ids of the requests this wire sends (the SDK numbers its own)."""
_MAX_EVENT = 1 << 20  # the SDK's own cap on one event
_MAX_QUIET_WAIT = 30.0
"""Seconds at most between resumes of a stream that keeps ending with nothing new."""
_Item = SessionMessage | Exception
_Envelope = tuple[contextvars.Context | None, _Item]


class DirectWire:
    """The short way's upstream POSTs for one upstream session over Streamable HTTP `url`."""

    def __init__(self, http: httpx2.AsyncClient, url: str) -> None:
        self._http = http
        self._url = url
        self._session: dict[str, str] = {}
        self._ids = itertools.count(1)
        self._write: WriteStream[SessionMessage] | None = None
        self._up: MemoryObjectSendStream[_Envelope] | None = None
        self._waiting: dict[RequestId, MemoryObjectSendStream[JSONRPCResponse | JSONRPCError]] = {}
        http.event_hooks["request"].append(self._note_session)

    @property
    def ready(self) -> bool:
        """Connected, and the SDK has sent a request inside the session (its id is known)."""
        return self._write is not None and self._up is not None and bool(self._session)

    async def request(self, method: str, params: Mapping[str, Any] | None) -> dict[str, Any]:
        """Send `method` upstream; its result, or the server's error raised as an `MCPError`."""
        write = self._write
        assert write is not None, "request() before the upstream session is open"
        request_id = f"{_PREFIX}{next(self._ids)}"
        # No params stays absent, never `null`: strict servers (the TypeScript SDK's) refuse null.
        extra = {"params": dict(params)} if params else {}
        message = JSONRPCRequest(jsonrpc="2.0", id=request_id, method=method, **extra)
        send, receive = anyio.create_memory_object_stream[JSONRPCResponse | JSONRPCError](1)
        self._waiting[request_id] = send
        try:
            await write.send(SessionMessage(message))
            reply = await receive.receive()
        except anyio.get_cancelled_exc_class():
            with anyio.CancelScope(shield=True), anyio.move_on_after(5):
                said = {"requestId": request_id, "reason": "The host cancelled the call."}
                cancel = JSONRPCNotification(jsonrpc="2.0", method="notifications/cancelled", params=said)
                await write.send(SessionMessage(cancel))
            raise
        finally:
            self._waiting.pop(request_id, None)
            send.close()
            receive.close()
        if isinstance(reply, JSONRPCError):
            raise MCPError(code=reply.error.code, message=reply.error.message, data=reply.error.data)
        return reply.result

    def above(self, inner: Transport) -> Transport:
        """The top layer: where the wire writes its requests and takes its responses off."""
        return _Top(inner, self)

    def below(self, inner: Transport) -> Transport:
        """The bottom layer, just above the SDK's transport: where the requests go out as POSTs."""
        return _Bottom(inner, self)

    # -- the layers' side

    def writes_to(self, write: WriteStream[SessionMessage] | None) -> None:
        """The top layer's write stream, where requests start (None once it closes)."""
        self._write = write

    def reads_into(self, up: MemoryObjectSendStream[_Envelope] | None) -> None:
        """The bottom layer's read stream, where what the server answers goes (None once it closes)."""
        self._up = up

    async def _note_session(self, request: httpx2.Request) -> None:
        """An httpx request hook: the session id and protocol version the SDK's requests carry."""
        session = request.headers.get("mcp-session-id")
        version = request.headers.get("mcp-protocol-version")
        if session and version:
            self._session = {"mcp-session-id": session, "mcp-protocol-version": version}

    def takes(self, message: JSONRPCMessage) -> bool:
        """A response to one of this wire's requests (never the session's): given to its caller."""
        if not isinstance(message, JSONRPCResponse | JSONRPCError) or not _ours(message.id):
            return False
        waiter = self._waiting.get(message.id) if message.id is not None else None
        if waiter is not None:
            with suppress(anyio.WouldBlock, anyio.BrokenResourceError, anyio.ClosedResourceError):
                waiter.send_nowait(message)
        return True

    async def post(self, request: JSONRPCRequest) -> None:
        """POST `request`; everything the server answers on it goes up the read stream, its event
        stream resumed if the server closes it before the response."""
        headers = {"accept": "application/json, text/event-stream", "content-type": "application/json"}
        headers.update(self._session)
        body = json.dumps(request.model_dump(by_alias=True, mode="json", exclude_unset=True)).encode()
        cursor = _Cursor()
        try:
            async with stream_within_origin(
                self._http, "POST", self._url, content=body, headers=headers
            ) as response:
                if await self._read(request.id, response, cursor):
                    return
        except (httpx2.HTTPError, httpx2.StreamError, OSError) as error:
            # A connection lost mid-stream resumes as a closed stream does; a malformed one does not.
            if cursor.event_id is None or isinstance(error, httpx2.SSEError):
                await self._failed(request.id, CONNECTION_CLOSED, f"The upstream request failed: {error}")
                return
        if cursor.event_id is None:
            await self._failed(request.id, CONNECTION_CLOSED, "The upstream stream ended without a response.")
            return
        await self._resume(request.id, cursor)

    async def _resume(self, request_id: RequestId, cursor: _Cursor) -> None:
        """Resume a request's event stream as the SDK's transport does: after the server's `retry`
        (else the SDK's default), a GET with `Last-Event-ID`, again each time it ends without the
        response. Failed resumes count toward the SDK's bound; quiet ones double the wait."""
        failures = 0
        quiet = 0
        while failures < MAX_RECONNECTION_ATTEMPTS and cursor.event_id is not None:
            retry = cursor.retry_ms if cursor.retry_ms is not None else DEFAULT_RECONNECTION_DELAY_MS
            await anyio.sleep(min(retry / 1000 * 2**quiet, max(retry / 1000, _MAX_QUIET_WAIT)))
            headers = {"accept": "text/event-stream", "cache-control": "no-store", **self._session}
            headers["last-event-id"] = cursor.event_id
            brought = cursor.messages
            try:
                async with self._http.stream("GET", self._url, headers=headers) as response:
                    if not _event_stream(response):
                        failures += 1
                        continue
                    if await self._events(request_id, response, cursor):
                        return
            except httpx2.SSEError as error:  # an event stream that breaks the rules: no resuming it
                text = f"The upstream event stream failed: {error}"
                await self._failed(request_id, CONNECTION_CLOSED, text)
                return
            except (httpx2.HTTPError, httpx2.StreamError, OSError):
                failures += 1
                continue
            failures = 0
            quiet = 0 if cursor.messages > brought else min(quiet + 1, 16)
        await self._failed(
            request_id,
            CONNECTION_CLOSED,
            f"The upstream stream ended without a response, and {failures} tries in a row to resume "
            "it failed.",
        )

    async def _read(self, request_id: RequestId, response: httpx2.Response, cursor: _Cursor) -> bool:
        """Pass up what `response` carries; whether it carried the response (or an error for it)."""
        if response.status_code == 202 or 300 <= response.status_code < 400:
            return await self._failed(
                request_id, INVALID_REQUEST, "The upstream server did not answer the request."
            )
        kind = response.headers.get("content-type", "").lower()
        if response.status_code >= 400:
            if kind.startswith("application/json"):
                reply = _message(await response.aread())
                if isinstance(reply, JSONRPCError):
                    return await self._failed(
                        request_id, reply.error.code, reply.error.message, reply.error.data
                    )
            if response.status_code == 404:
                return await self._failed(request_id, INVALID_REQUEST, "Session terminated")
            return await self._failed(request_id, INTERNAL_ERROR, "Server returned an error response")
        if kind.startswith("application/json"):
            reply = _message(await response.aread())
            if reply is None:
                return await self._failed(request_id, INTERNAL_ERROR, "The upstream answer was not JSON-RPC.")
            await self._pass_up(reply)
            return _answers(reply, request_id)
        if not kind.startswith("text/event-stream"):
            return await self._failed(request_id, INVALID_REQUEST, f"Unexpected content type: {kind}")
        return await self._events(request_id, response, cursor)

    async def _events(self, request_id: RequestId, response: httpx2.Response, cursor: _Cursor) -> bool:
        """Pass up the messages of an event stream, keeping `cursor` at its last event id and
        `retry`; whether it carried the response (or an error for it)."""
        async for event in httpx2.EventSource(response, max_event_size=_MAX_EVENT):
            if event.id:
                cursor.event_id = event.id
            if event.retry is not None:
                cursor.retry_ms = event.retry
            if event.event != "message" or not event.data:
                continue  # a priming event (an id to resume from, and a `retry`), or not a message
            message = _message(event.data.encode())
            if message is None:
                return await self._failed(request_id, INTERNAL_ERROR, "An upstream event was not JSON-RPC.")
            cursor.messages += 1
            await self._pass_up(message)
            if _answers(message, request_id):
                return True
        return False

    async def _failed(self, request_id: RequestId, code: int, text: str, data: Any = None) -> bool:
        error = JSONRPCError(
            jsonrpc="2.0", id=request_id, error=ErrorData(code=code, message=text, data=data)
        )
        await self._pass_up(error)
        return True

    async def _pass_up(self, message: JSONRPCMessage) -> None:
        if self._up is not None:
            # A closed stream: the session is closing, and its callers learn it from the session.
            with suppress(anyio.ClosedResourceError, anyio.BrokenResourceError):
                await self._up.send((contextvars.copy_context(), SessionMessage(message)))


@dataclass
class _Cursor:
    """Where a request's event stream resumes from (its last event id, the server's `retry` in
    milliseconds), and how many messages it has brought."""

    event_id: str | None = None
    retry_ms: int | None = None
    messages: int = 0


def _event_stream(response: httpx2.Response) -> bool:
    kind = response.headers.get("content-type", "").lower()
    return response.is_success and kind.startswith("text/event-stream")


def _ours(request_id: RequestId | None) -> bool:
    return isinstance(request_id, str) and request_id.startswith(_PREFIX)


def _answers(message: JSONRPCMessage, request_id: RequestId) -> bool:
    return isinstance(message, JSONRPCResponse | JSONRPCError) and message.id == request_id


def _message(data: bytes) -> JSONRPCMessage | None:
    try:
        message: JSONRPCMessage = jsonrpc_message_adapter.validate_json(data, by_name=False)
    except ValidationError:
        return None
    return message


class _Top:
    """The layer above every watch: the wire's write stream, and its responses taken off."""

    def __init__(self, inner: Transport, wire: DirectWire) -> None:
        self._inner = inner
        self._wire = wire

    async def __aenter__(self) -> TransportStreams:
        read, write = await self._inner.__aenter__()
        self._wire.writes_to(write)
        return _TakenOff(read, self._wire), write

    async def __aexit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> bool | None:
        self._wire.writes_to(None)
        return await self._inner.__aexit__(exc_type, exc, tb)


class _TakenOff(ObjectReceiveStream[_Item]):
    """The read stream the session reads, without the wire's responses."""

    def __init__(self, inner: ReadStream[_Item], wire: DirectWire) -> None:
        self._inner = inner
        self._wire = wire

    @property
    def last_context(self) -> Any:
        return getattr(self._inner, "last_context", None)

    async def receive(self) -> _Item:
        while True:
            item = await self._inner.receive()
            if not isinstance(item, SessionMessage) or not self._wire.takes(item.message):
                return item

    async def aclose(self) -> None:
        await self._inner.aclose()


class _Bottom:
    """The layer just above the SDK's transport: the wire's requests go out as POSTs, and what
    they bring back joins what the SDK's transport reads."""

    def __init__(self, inner: Transport, wire: DirectWire) -> None:
        self._inner = inner
        self._wire = wire
        self._tasks: TaskGroup | None = None
        self._up: MemoryObjectSendStream[_Envelope] | None = None

    async def __aenter__(self) -> TransportStreams:
        read, write = await self._inner.__aenter__()
        up, merged = anyio.create_memory_object_stream[_Envelope]()
        self._tasks = anyio.create_task_group()
        await self._tasks.__aenter__()
        self._tasks.start_soon(_pump, read, up)
        self._wire.reads_into(up)
        self._up = up
        return _Merged(merged), _Posting(write, self._wire)

    async def __aexit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> bool | None:
        self._wire.reads_into(None)
        if self._up is not None:
            self._up.close()
        if self._tasks is not None:  # entered after the SDK's transport: left before it
            self._tasks.cancel_scope.cancel()
            await self._tasks.__aexit__(None, None, None)
        return await self._inner.__aexit__(exc_type, exc, tb)


async def _pump(read: ReadStream[_Item], up: MemoryObjectSendStream[_Envelope]) -> None:
    """What the SDK's transport reads, passed on with the context it was sent in; its end is
    the end of the merged stream (the session then ends, as without the wire)."""
    with up:
        try:
            async for item in read:
                await up.send((getattr(read, "last_context", None), item))
        except (anyio.ClosedResourceError, anyio.BrokenResourceError):
            pass


class _Merged(ObjectReceiveStream[_Item]):
    """The read stream above the bottom layer: the SDK transport's messages and the wire's."""

    def __init__(self, inner: MemoryObjectReceiveStream[_Envelope]) -> None:
        self._inner = inner
        self.last_context: contextvars.Context | None = None

    async def receive(self) -> _Item:
        self.last_context, item = await self._inner.receive()
        return item

    async def aclose(self) -> None:
        await self._inner.aclose()


class _Posting(ObjectSendStream[SessionMessage]):
    """The write stream above the bottom layer: the wire's requests are POSTed here, in the
    sender's task; everything else goes to the SDK's transport."""

    def __init__(self, inner: WriteStream[SessionMessage], wire: DirectWire) -> None:
        self._inner = inner
        self._wire = wire

    async def send(self, item: SessionMessage, /) -> None:
        message = item.message
        if isinstance(message, JSONRPCRequest) and _ours(message.id):
            await self._wire.post(message)
            return
        await self._inner.send(item)

    async def aclose(self) -> None:
        await self._inner.aclose()
