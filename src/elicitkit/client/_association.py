"""Which server requests arrive while a client request is in flight (C-03).

The 2025-11-25 wire carries no field tying an `elicitation/create` to the client request it
serves; the tie is that it arrives while that request is open. mcp 2.3.0 does not tell the
callback, so this transport wrapper watches the JSON-RPC messages both ways and records, for
each incoming `elicitation/create`, whether a `tools/call`, `resources/read` or `prompts/get`
was open at that moment.

It changes one thing, a gap in mcp 2.3.0: at 2026-07-28 a result without `resultType` MUST be
taken as "complete", but the SDK rejects it and the call crashes. A response to a request this
client sent at a modern version gets `"resultType": "complete"` when it has none; nothing else
is touched. tests/client/test_wire.py pins both.
"""

from __future__ import annotations

from collections import OrderedDict
from types import TracebackType
from typing import Any, Protocol

from mcp.client import Transport
from mcp.client._transport import ReadStream, TransportStreams, WriteStream
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

ASSOCIABLE_METHODS = frozenset({"tools/call", "resources/read", "prompts/get"})
_MAX_VERDICTS = 1024


class Watch(Protocol):
    """What `WatchedTransport` feeds: every message sent, and every one received."""

    def sent(self, item: SessionMessage) -> None: ...

    def received(self, item: SessionMessage | Exception) -> None: ...


class RequestWatch:
    """The client requests open right now, and a verdict for each `elicitation/create` seen."""

    def __init__(self) -> None:
        self._open: set[RequestId] = set()
        self._modern: set[RequestId] = set()
        self._verdicts: OrderedDict[RequestId, bool] = OrderedDict()

    def sent(self, item: SessionMessage) -> None:
        message = item.message
        if isinstance(message, JSONRPCRequest) and _is_modern(message):
            self._modern.add(message.id)
        if isinstance(message, JSONRPCRequest) and message.method in ASSOCIABLE_METHODS:
            self._open.add(message.id)
        elif isinstance(message, JSONRPCNotification) and message.method == "notifications/cancelled":
            request_id = (message.params or {}).get("requestId")
            if isinstance(request_id, str | int):
                self._open.discard(request_id)
                self._modern.discard(request_id)

    def received(self, item: SessionMessage | Exception) -> None:
        if isinstance(item, Exception):
            return
        message = item.message
        if isinstance(message, JSONRPCResponse | JSONRPCError) and message.id is not None:
            self._open.discard(message.id)
            if message.id in self._modern:
                self._modern.discard(message.id)
                if isinstance(message, JSONRPCResponse):
                    message.result.setdefault("resultType", "complete")
        elif isinstance(message, JSONRPCRequest) and message.method == "elicitation/create":
            self._verdicts[message.id] = bool(self._open)
            while len(self._verdicts) > _MAX_VERDICTS:
                self._verdicts.popitem(last=False)

    def arrived_on_wire(self, request_id: RequestId) -> bool | None:
        """For a wire `elicitation/create`: was a client request open? None if it never came on the wire."""
        return self._verdicts.pop(request_id, None)


def _is_modern(request: JSONRPCRequest) -> bool:
    meta = (request.params or {}).get("_meta")
    return isinstance(meta, dict) and meta.get(PROTOCOL_VERSION_META_KEY) in MODERN_PROTOCOL_VERSIONS


class _WatchedRead:
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

    def __aiter__(self) -> _WatchedRead:
        return self

    async def __anext__(self) -> SessionMessage | Exception:
        item = await self._inner.__anext__()
        self._watch.received(item)
        return item

    async def __aenter__(self) -> _WatchedRead:
        await self._inner.__aenter__()
        return self

    async def __aexit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> bool | None:
        return await self._inner.__aexit__(exc_type, exc, tb)


class _WatchedWrite:
    def __init__(self, inner: WriteStream[SessionMessage], watch: Watch) -> None:
        self._inner = inner
        self._watch = watch

    async def send(self, item: SessionMessage, /) -> None:
        self._watch.sent(item)
        await self._inner.send(item)

    async def aclose(self) -> None:
        await self._inner.aclose()

    async def __aenter__(self) -> _WatchedWrite:
        await self._inner.__aenter__()
        return self

    async def __aexit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> bool | None:
        return await self._inner.__aexit__(exc_type, exc, tb)


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
