"""Which host call each upstream question serves.

The bridge makes each upstream call on behalf of one host call, and over Streamable HTTP the
upstream sends a question about a call on that call's own POST stream. `UpstreamCalls` keeps
both ties: the host call behind each upstream request (noted as the request is sent, in the
host call's own task, through `on_behalf_of`) and the upstream call whose POST stream each
`elicitation/create` (and `sampling/createMessage`, `roots/list`) came on (`PostStreamTap`, an
httpx response hook reading the stream as its bytes pass; the SDK merges every stream into one
before anything else can tell them apart).
A question no stream ties (the standalone GET stream, a stdio upstream) gets no call here.
"""

from __future__ import annotations

import contextvars
import json
from collections import OrderedDict
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import httpx2
from mcp.server.session import ServerSession
from mcp.shared.message import SessionMessage
from mcp_types import JSONRPCError, JSONRPCNotification, JSONRPCRequest, JSONRPCResponse, RequestId
from pydantic import RootModel

from elicitkit.client import ElicitationStream

if TYPE_CHECKING:
    from elicitkit.bridge._rounds import HeldCall

__all__ = ["AsSent", "HostCall", "PostStreamTap", "UpstreamCalls", "behalf", "on_behalf_of"]


class AsSent(RootModel[dict[str, Any]]):
    """A result as its sender sent it (the SDK has checked it against the method's result type
    by then): passed on as the JSON itself, not a model of it dumped again."""


_MAX_TIES = 1024
_TIED = ("elicitation/create", "sampling/createMessage", "roots/list")
"""The server-to-client requests the host answers on the stream of the call they serve."""

_behalf: contextvars.ContextVar[HostCall | None] = contextvars.ContextVar(
    "elicitkit_bridge_behalf", default=None
)


@dataclass(frozen=True)
class HostCall:
    """One host request in flight: the session (its own channel) and the request's id."""

    session: ServerSession
    request_id: RequestId
    held: HeldCall | None = field(default=None, compare=False)
    """For a 2026-07-28 host: the held call its questions go to, as rounds."""
    answers: frozenset[str] = field(default=frozenset(), compare=False)
    """For a 2026-07-28 host: what it answers itself in a round passed to it whole ("form",
    "url", "sampling", "roots"), as it declared on this request and `--answer` lets it."""


@contextmanager
def on_behalf_of(call: HostCall) -> Iterator[None]:
    """Upstream requests sent inside the block are made for `call`."""
    token = _behalf.set(call)
    try:
        yield
    finally:
        _behalf.reset(token)


def behalf() -> HostCall | None:
    """The host call the upstream request being made now is made for, if any."""
    return _behalf.get()


class UpstreamCalls:
    """The host call behind each open upstream request, and the upstream call of each question.

    A `Watch` for `elicitkit.client.WatchedTransport` (it sees each request as it is sent)."""

    def __init__(self) -> None:
        self._calls: dict[RequestId, HostCall] = {}
        self._streams: OrderedDict[RequestId, RequestId] = OrderedDict()

    def sent(self, item: SessionMessage) -> None:
        message = item.message
        call = _behalf.get()
        if isinstance(message, JSONRPCRequest) and call is not None:
            self._calls[message.id] = call
        elif isinstance(message, JSONRPCNotification) and message.method == "notifications/cancelled":
            request_id = (message.params or {}).get("requestId")
            if isinstance(request_id, str | int):
                self._calls.pop(request_id, None)

    def received(self, item: SessionMessage | Exception) -> None:
        message = item.message if isinstance(item, SessionMessage) else None
        if isinstance(message, JSONRPCResponse | JSONRPCError) and message.id is not None:
            self._calls.pop(message.id, None)

    def arrived_on(self, question_id: RequestId, call_id: RequestId) -> None:
        """A question (or a sampling or roots request) came on the POST stream of upstream
        request `call_id`."""
        self._streams[question_id] = call_id
        while len(self._streams) > _MAX_TIES:
            self._streams.popitem(last=False)

    def host_call(self, question_id: RequestId | None, *, keep: bool = False) -> HostCall | None:
        """The host call an upstream question serves, when its stream said; None otherwise.
        The tie is spent unless `keep` (a look before the question is answered)."""
        if question_id is None:
            return None
        call_id = self._streams.get(question_id) if keep else self._streams.pop(question_id, None)
        return None if call_id is None else self._calls.get(call_id)


class PostStreamTap:
    """An httpx response hook: notes which POST stream each upstream request of `_TIED` came on.

    It reads the event stream's `data:` lines as the bytes pass and changes nothing; a
    compressed stream is left untapped (its questions then go by the fallback)."""

    def __init__(self, calls: UpstreamCalls) -> None:
        self._calls = calls

    async def __call__(self, response: httpx2.Response) -> None:
        is_sse = response.headers.get("content-type", "").startswith("text/event-stream")
        plain = response.headers.get("content-encoding", "identity") == "identity"
        if response.request.method != "POST" or not is_sse or not plain:
            return
        call_id = _request_id(response.request.content)
        if call_id is not None and isinstance(response.stream, httpx2.AsyncByteStream):
            tied = call_id

            def note(question_id: RequestId) -> None:
                self._calls.arrived_on(question_id, tied)

            response.stream = ElicitationStream(response.stream, note, methods=_TIED)


def _request_id(body: bytes) -> RequestId | None:
    try:
        message = json.loads(body)
    except ValueError:
        return None
    request_id = message.get("id") if isinstance(message, dict) else None
    return request_id if isinstance(request_id, str | int) and not isinstance(request_id, bool) else None
