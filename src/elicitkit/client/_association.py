"""Which server requests arrive while a client request is in flight (C-03).

The 2025-11-25 wire carries no field tying an `elicitation/create` to the client request it
serves; the tie is that it arrives while that request is open. mcp 2.3.0 does not tell the
callback, so this transport wrapper watches the JSON-RPC messages both ways and records, for
each incoming `elicitation/create`, whether a `tools/call`, `resources/read` or `prompts/get`
was open at that moment.

Over streamable HTTP the stream says more. A request on a call's own POST stream is that
call's. A request on the standalone GET stream names no call: stock servers send one there
while a tool runs (the TypeScript SDK's `server.server.elicitInput(...)`, the official
conformance harness's mock server), so by default it is taken as the open call's when exactly
one call is open, and refused when none is or several are, since nothing says which (C-03);
`standalone="refuse"` refuses it always. mcp 2.3.0 merges that stream with each call's POST
stream before anything can tell them apart (`StreamableHTTPTransport.handle_get_stream` writes
into the same read stream, untagged; see docs/upstream.md), so `StandaloneStreamTap`, an httpx
response hook on the client elicitkit builds for a URL, reads the GET stream's events as they
pass and tells the watch which `elicitation/create` ids came that way.
tests/client/test_hostile.py pins it.
`WatchedTransport`, `Watch` and the tap are public from `elicitkit.client` (`elicitkit check`
uses them).

A tool called as a task (2025-11-25) asks on another request: its `elicitation/create` carries
`_meta["io.modelcontextprotocol/related-task"]` and arrives while the client's `tasks/result`
for that task is open, on that request's stream or any other (T-24). Such a request is tied when
a `tasks/result` naming its task is open, and refused otherwise, whatever else is open: a
`tasks/result` in flight counts for its own task's questions only.

It changes one thing, a gap in mcp 2.3.0: at 2026-07-28 a result without `resultType` MUST be
taken as "complete", but the SDK rejects it and the call crashes. A response to a request this
client sent at a modern version gets `"resultType": "complete"` when it has none; nothing else
is touched. tests/client/test_wire.py pins both.
"""

from __future__ import annotations

import json
from collections import OrderedDict
from collections.abc import AsyncIterator, Callable
from types import TracebackType
from typing import TYPE_CHECKING, Any, Protocol

import httpx2
from anyio.abc import ObjectReceiveStream, ObjectSendStream
from mcp.client import Transport
from mcp.shared.message import SessionMessage
from mcp_types import (
    PROTOCOL_VERSION_META_KEY,
    JSONRPCError,
    JSONRPCNotification,
    JSONRPCRequest,
    JSONRPCResponse,
    RequestId,
)
from mcp_types.version import MODERN_PROTOCOL_VERSIONS

from elicitkit._sdk import ReadStream, TransportStreams, WriteStream

if TYPE_CHECKING:
    from elicitkit.client._config import StandalonePolicy

ASSOCIABLE_METHODS = frozenset({"tools/call", "resources/read", "prompts/get"})
RELATED_TASK = "io.modelcontextprotocol/related-task"
"""The `_meta` key tying a message to a task (2025-11-25 tasks)."""
_MAX_VERDICTS = 1024


def related_task(meta: Any) -> str | None:
    """The task id a message's `_meta` names under "io.modelcontextprotocol/related-task", or None."""
    related = meta.get(RELATED_TASK) if isinstance(meta, dict) else None
    task_id = related.get("taskId") if isinstance(related, dict) else None
    return task_id if isinstance(task_id, str) else None


class Watch(Protocol):
    """What `WatchedTransport` feeds: every message sent, and every one received.

    `sent` may return a message to send in place of the one given (a raw client declaring
    other capabilities than the SDK's, say); None sends it unchanged.
    """

    def sent(self, item: SessionMessage) -> SessionMessage | None:
        """A message about to go to the server: return one to send in its place, or None."""
        ...

    def received(self, item: SessionMessage | Exception) -> None:
        """A message from the server (or the transport's error), before the session reads it."""
        ...


class RequestWatch:
    """The client requests open right now, and a verdict for each `elicitation/create` seen."""

    def __init__(self, *, standalone: StandalonePolicy = "one-call") -> None:
        self._standalone_policy = standalone
        self._open: set[RequestId] = set()
        self._results: dict[RequestId, str] = {}
        """Each open `tasks/result` request, and the task it names."""
        self.task_status: Callable[[dict[str, Any]], None] | None = None
        """Told the params of each `notifications/tasks/status` (mcp 2.3 drops the notification
        unread: its type is one the SDK does not dispatch)."""
        self._modern: set[RequestId] = set()
        self._verdicts: OrderedDict[RequestId, bool] = OrderedDict()
        self._standalone: OrderedDict[RequestId, None] = OrderedDict()

    def arrived_standalone(self, request_id: RequestId) -> None:
        """An `elicitation/create` with this id came on the standalone GET stream (not yet read)."""
        self._standalone[request_id] = None
        while len(self._standalone) > _MAX_VERDICTS:
            self._standalone.popitem(last=False)

    def sent(self, item: SessionMessage) -> None:
        message = item.message
        if isinstance(message, JSONRPCRequest) and _is_modern(message):
            self._modern.add(message.id)
        if isinstance(message, JSONRPCRequest) and message.method in ASSOCIABLE_METHODS:
            self._open.add(message.id)
        elif isinstance(message, JSONRPCRequest) and message.method == "tasks/result":
            task_id = (message.params or {}).get("taskId")
            if isinstance(task_id, str):
                self._results[message.id] = task_id
        elif isinstance(message, JSONRPCNotification) and message.method == "notifications/cancelled":
            request_id = (message.params or {}).get("requestId")
            if isinstance(request_id, str | int):
                self._open.discard(request_id)
                self._results.pop(request_id, None)
                self._modern.discard(request_id)

    def received(self, item: SessionMessage | Exception) -> None:
        if isinstance(item, Exception):
            return
        message = item.message
        if isinstance(message, JSONRPCResponse | JSONRPCError) and message.id is not None:
            self._open.discard(message.id)
            self._results.pop(message.id, None)
            if message.id in self._modern:
                self._modern.discard(message.id)
                if isinstance(message, JSONRPCResponse):
                    message.result.setdefault("resultType", "complete")
        elif isinstance(message, JSONRPCNotification) and message.method == "notifications/tasks/status":
            if self.task_status is not None:
                self.task_status(message.params or {})
        elif isinstance(message, JSONRPCRequest) and message.method == "elicitation/create":
            standalone = self._standalone.pop(message.id, False) is None
            task_id = related_task((message.params or {}).get("_meta"))
            if task_id is not None:  # a task's question: its own tasks/result is the tie (T-24)
                tied = task_id in self._results.values()
            elif standalone:  # no call named: the open call's only when there is exactly one
                tied = len(self._open) == 1 and self._standalone_policy == "one-call"
            else:
                tied = bool(self._open)
            self._verdicts[message.id] = tied
            while len(self._verdicts) > _MAX_VERDICTS:
                self._verdicts.popitem(last=False)

    def arrived_on_wire(self, request_id: RequestId) -> bool | None:
        """For a wire `elicitation/create`: was a client request open? None if it never came on the wire."""
        return self._verdicts.pop(request_id, None)


def _is_modern(request: JSONRPCRequest) -> bool:
    meta = (request.params or {}).get("_meta")
    return isinstance(meta, dict) and meta.get(PROTOCOL_VERSION_META_KEY) in MODERN_PROTOCOL_VERSIONS


class _WatchedRead(ObjectReceiveStream[SessionMessage | Exception]):
    def __init__(self, inner: ReadStream[SessionMessage | Exception], watch: Watch) -> None:
        self._inner = inner
        self._watch = watch

    @property
    def last_context(self) -> Any:
        return getattr(self._inner, "last_context", None)

    async def receive(self) -> SessionMessage | Exception:
        item = await self._inner.receive()
        self._watch.received(item)
        return item

    async def aclose(self) -> None:
        await self._inner.aclose()


class _WatchedWrite(ObjectSendStream[SessionMessage]):
    def __init__(self, inner: WriteStream[SessionMessage], watch: Watch) -> None:
        self._inner = inner
        self._watch = watch

    async def send(self, item: SessionMessage, /) -> None:
        replaced = self._watch.sent(item)
        await self._inner.send(item if replaced is None else replaced)

    async def aclose(self) -> None:
        await self._inner.aclose()


class WatchedTransport:
    """A `Transport` that feeds a `Watch` (a `RequestWatch`, say) with every message passing through."""

    def __init__(self, inner: Transport, watch: Watch) -> None:
        self._inner = inner
        self._watch = watch

    async def __aenter__(self) -> TransportStreams:
        read, write = await self._inner.__aenter__()
        return _WatchedRead(read, self._watch), _WatchedWrite(write, self._watch)

    async def __aexit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> bool | None:
        return await self._inner.__aexit__(exc_type, exc, tb)


_MAX_EVENT = 1 << 20  # the SDK's own cap on one SSE event


class StandaloneWatch(Protocol):
    """What `StandaloneStreamTap` tells: the id of each `elicitation/create` on the GET stream."""

    def arrived_standalone(self, request_id: RequestId) -> None:
        """An `elicitation/create` with this id came on the standalone GET stream; told as its
        bytes pass, before the session reads the request."""
        ...


class StandaloneStreamTap:
    """An httpx response hook: notes each `elicitation/create` read off the standalone GET stream.

    It parses the event stream's `data:` lines as the bytes pass (the SDK parses them again just
    after) and changes nothing. A compressed stream cannot be read here and is left untapped:
    then the check falls back to "was any call open". Put it on the `httpx2.AsyncClient` given
    to `streamable_http_client`: `client.event_hooks["response"].append(StandaloneStreamTap(w))`.
    """

    def __init__(self, watch: StandaloneWatch) -> None:
        self._watch = watch

    async def __call__(self, response: httpx2.Response) -> None:
        is_get = response.request.method == "GET"
        is_sse = response.headers.get("content-type", "").startswith("text/event-stream")
        plain = response.headers.get("content-encoding", "identity") == "identity"
        if is_get and is_sse and plain and isinstance(response.stream, httpx2.AsyncByteStream):
            response.stream = ElicitationStream(response.stream, self._watch.arrived_standalone)


class ElicitationStream(httpx2.AsyncByteStream):
    """A response's event stream, passed on unchanged, that calls `note` with the id of each
    `elicitation/create` it carries: how a hook learns which stream a question came on (the
    standalone GET stream here; a call's own POST stream in the bridge)."""

    def __init__(
        self,
        inner: httpx2.AsyncByteStream,
        note: Callable[[RequestId], None],
        *,
        methods: tuple[str, ...] = ("elicitation/create",),
    ) -> None:
        self._inner = inner
        self._note = note
        self._methods = methods
        """The requests noted (a proxy also ties `sampling/createMessage` and `roots/list`)."""
        self._line = b""
        self._data: list[bytes] = []
        self._size = 0

    async def __aiter__(self) -> AsyncIterator[bytes]:
        async for chunk in self._inner:
            self._feed(chunk)
            yield chunk

    async def aclose(self) -> None:
        """Close the response's own stream: httpx calls this when the response is closed."""
        await self._inner.aclose()

    def _feed(self, chunk: bytes) -> None:
        *lines, self._line = (self._line + chunk).split(b"\n")
        if len(self._line) > _MAX_EVENT:
            self._line, self._data, self._size = b"", [], 0
        for line in lines:
            line = line.removesuffix(b"\r")
            if not line:
                self._dispatch()
            elif line.startswith(b"data:") and self._size <= _MAX_EVENT:
                value = line[5:].removeprefix(b" ")
                self._data.append(value)
                self._size += len(value)

    def _dispatch(self) -> None:
        data, self._data, self._size = b"\n".join(self._data), [], 0
        if not any(method.encode() in data for method in self._methods):
            return
        try:
            message = json.loads(data)
        except ValueError:
            return
        if isinstance(message, dict) and message.get("method") in self._methods:
            request_id = message.get("id")
            if isinstance(request_id, str | int) and not isinstance(request_id, bool):
                self._note(request_id)
