"""`Wire`: the watch that declares the modes the checker chooses and records the server.

The checker is a raw client: it must declare exactly the capabilities it is testing (the SDK
declares both modes whenever an elicitation callback is set), and it must see what the server
sent before the SDK parses it (a request without `message` never reaches a callback). So it is
a `Watch` on the client's public `WatchedTransport`, between the SDK's session and its
transport: it rewrites `capabilities.elicitation` on the way out (the initialize request, and
the per-request `_meta` of 2026-07-28), and turns every elicitation, -32042 and completion
notice on the way in into an observation; it keeps the raw reply of each `tools/call` (a
task-augmented one is answered with a `CreateTaskResult`, which the SDK refuses to parse).
Over HTTP the client's `StandaloneStreamTap` tells it which requests came on the standalone
GET stream.
"""

from __future__ import annotations

import copy
from collections import OrderedDict
from typing import Any

from mcp.client import Transport
from mcp.shared.message import SessionMessage
from mcp_types import (
    CLIENT_CAPABILITIES_META_KEY,
    URL_ELICITATION_REQUIRED,
    JSONRPCError,
    JSONRPCNotification,
    JSONRPCRequest,
    JSONRPCResponse,
    RequestId,
)

from elicitkit.check._observed import Asked, Call, Connection, Notice, Observations
from elicitkit.client import WatchedTransport

RELATED_TASK = "io.modelcontextprotocol/related-task"


def related_task(meta: Any) -> str | None:
    """The task id a message's `_meta` names under `RELATED_TASK`, or None."""
    related = meta.get(RELATED_TASK) if isinstance(meta, dict) else None
    task_id = related.get("taskId") if isinstance(related, dict) else None
    return task_id if isinstance(task_id, str) else None


#: The client requests a server may ask inside (REQUIREMENTS S-02); a task's questions come
#: inside its `tasks/result`.
ASSOCIABLE = frozenset({"tools/call", "prompts/get", "resources/read", "tasks/result"})


def declared_capability(declared: frozenset[str]) -> dict[str, Any] | None:
    """The `elicitation` capability for exactly these modes; None declares no elicitation."""
    return {mode: {} for mode in sorted(declared)} or None


#: how many standalone-stream ids one connection remembers until their requests are read
_MAX_STANDALONE = 1024


class Wire:
    """The record of one connection's traffic; `transport(inner)` puts it on a transport."""

    def __init__(self, connection: Connection, seen: Observations) -> None:
        self.connection = connection
        self.seen = seen
        self.call: Call | None = None
        self.known_ids: set[str] = set()
        #: request ids the HTTP layer saw on the standalone GET stream, not yet answered
        self._standalone: OrderedDict[RequestId, None] = OrderedDict()
        self._open: dict[Any, str] = {}
        #: the task whose `tasks/result` the checker waits on: the tasks page lets a server send its
        #: questions on any stream, so one tied to it by `_meta` is its own, wherever it came
        self.task_id: str | None = None

    def transport(self, inner: Transport) -> WatchedTransport:
        return WatchedTransport(inner, self)

    def arrived_standalone(self, request_id: RequestId) -> None:
        """`StandaloneStreamTap` saw an `elicitation/create` with this id on the GET stream."""
        self._standalone[request_id] = None
        while len(self._standalone) > _MAX_STANDALONE:
            self._standalone.popitem(last=False)

    def of_task(self, params: dict[str, Any]) -> bool:
        """Whether a request names the task being waited on in its related-task `_meta`."""
        return self.task_id is not None and related_task(params.get("_meta")) == self.task_id

    def came_loose(self, request_id: RequestId) -> bool:
        """Whether the `elicitation/create` with this id came on the standalone GET stream: a
        question of no call, whatever call is open when it arrives (forgotten once asked)."""
        return self._standalone.pop(request_id, False) is None

    # -- outgoing -------------------------------------------------------------------------------

    def sent(self, item: SessionMessage) -> SessionMessage | None:
        message = item.message
        if not isinstance(message, JSONRPCRequest):
            return None
        if message.method in ASSOCIABLE:
            self._open[message.id] = message.method
        params = copy.deepcopy(message.params) if message.params else None
        if params is None:
            return None
        wanted = declared_capability(self.connection.declared)
        touched = False
        caps = params.get("capabilities")
        if message.method == "initialize" and isinstance(caps, dict):
            _set(caps, wanted)
            touched = True
        meta = params.get("_meta")
        if isinstance(meta, dict) and isinstance(meta.get(CLIENT_CAPABILITIES_META_KEY), dict):
            _set(meta[CLIENT_CAPABILITIES_META_KEY], wanted)
            touched = True
        if not touched:
            return None
        return SessionMessage(message.model_copy(update={"params": params}), item.metadata)

    # -- incoming -------------------------------------------------------------------------------

    def received(self, item: SessionMessage | Exception) -> None:
        if isinstance(item, Exception):
            return
        message = item.message
        if isinstance(message, JSONRPCRequest) and message.method == "elicitation/create":
            params = dict(message.params or {})
            tasks = self.of_task(params)
            # forgotten when answered (`came_loose`)
            standalone = message.id in self._standalone and not tasks
            self._ask("request", params, in_flight=bool(self._open) or tasks, standalone=standalone)
        elif (
            isinstance(message, JSONRPCNotification)
            and message.method == "notifications/elicitation/complete"
        ):
            params = message.params or {}
            self.seen.notices.append(
                Notice(self.connection, params.get("elicitationId"), frozenset(self.known_ids))
            )
        elif isinstance(message, JSONRPCResponse):
            self._open.pop(message.id, None)
            result = message.result
            if isinstance(result, dict) and result.get("resultType") == "input_required":
                requests = result.get("inputRequests")
                for entry in (requests or {}).values() if isinstance(requests, dict) else ():
                    if isinstance(entry, dict) and entry.get("method") == "elicitation/create":
                        asked = entry.get("params")
                        self._ask("input-required", asked if isinstance(asked, dict) else {})
        elif isinstance(message, JSONRPCError):
            self._open.pop(message.id, None)
            if message.error.code == URL_ELICITATION_REQUIRED:
                raw = message.error.model_dump(by_alias=True, mode="json", exclude_none=True)
                tool = self.call.tool if self.call else None
                self.seen.url_required.append((self.connection, tool, raw))
                data = raw.get("data")
                listed = data.get("elicitations") if isinstance(data, dict) else None
                for entry in listed if isinstance(listed, list) else ():
                    if isinstance(entry, dict):
                        self._ask("-32042", entry)

    def _ask(
        self, source: Any, params: dict[str, Any], *, in_flight: bool = True, standalone: bool = False
    ) -> None:
        # One from the standalone stream is no call's (S-02), whichever call is open meanwhile.
        call = self.call if in_flight and not standalone else None
        asked = Asked(self.connection, call.tool if call else None, source, params, in_flight, standalone)
        self.seen.asked.append(asked)
        if call is not None:
            call.asked.append(asked)
        if isinstance(params.get("elicitationId"), str):
            self.known_ids.add(params["elicitationId"])


def _set(capabilities: dict[str, Any], wanted: dict[str, Any] | None) -> None:
    if wanted is None:
        capabilities.pop("elicitation", None)
    else:
        capabilities["elicitation"] = wanted
