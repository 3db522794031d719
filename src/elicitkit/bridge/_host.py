"""The host side of one bridged session: its declared modes, its open calls, its channel.

The 2025-11-25 wire does not say which client request an `elicitation/create` serves, and the
upstream client learns only that *some* call was open (C-03). The bridge relates a question to
the host's most recent call still open on that session: with one call at a time (what hosts
do) that is exact; with several, it is the newest.
"""

from __future__ import annotations

import logging
from collections import OrderedDict
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from mcp.server.session import ServerSession
from mcp_types import ClientCapabilities, InitializeRequestParams, RequestId, ServerNotification
from mcp_types.version import MODERN_PROTOCOL_VERSIONS

logger = logging.getLogger("elicitkit.bridge")

__all__ = ["HostCall", "HostSession", "declared_modes"]


def declared_modes(capabilities: ClientCapabilities | None) -> frozenset[str]:
    """The elicitation modes a host declared: `{}` alone is form (the spec's default)."""
    elicitation = capabilities.elicitation if capabilities is not None else None
    if elicitation is None:
        return frozenset()
    modes = {name for name in ("form", "url") if getattr(elicitation, name, None) is not None}
    return frozenset(modes or {"form"})


@dataclass(frozen=True)
class HostCall:
    """One host request in flight: the session (its own channel) and the request's id."""

    session: ServerSession
    request_id: RequestId


@dataclass
class HostSession:
    """What the bridge knows of one host session."""

    modes: frozenset[str]
    modern: bool = False
    """A 2026-07-28 host: it cannot be sent `elicitation/create` (no back-channel)."""
    channel: ServerSession | None = None
    calls: OrderedDict[int, HostCall] = field(default_factory=OrderedDict)

    @classmethod
    def from_initialize(cls, params: Mapping[str, Any] | None) -> HostSession:
        """The host as its `initialize` request describes it (before the SDK commits it)."""
        init = InitializeRequestParams.model_validate(params or {}, by_name=False)
        return cls(modes=declared_modes(init.capabilities))

    @classmethod
    def of(cls, session: ServerSession) -> HostSession:
        modern = session.protocol_version in MODERN_PROTOCOL_VERSIONS
        return cls(modes=declared_modes(session.client_capabilities), modern=modern, channel=session)

    def asks_host(self, mode: str) -> bool:
        """Can this host be sent an `elicitation/create` in `mode`?"""
        return mode in self.modes and not self.modern

    def open(self, call: HostCall) -> int:
        key = id(call)
        self.calls[key] = call
        self.channel = call.session
        return key

    def close(self, key: int) -> None:
        self.calls.pop(key, None)

    def current_call(self) -> HostCall | None:
        """The newest host call still open, which an upstream question serves."""
        return next(reversed(self.calls.values()), None)

    async def notify(self, notification: ServerNotification) -> None:
        """Send `notification` to the host on its standalone channel; a closed host is logged."""
        if self.channel is None:
            return
        try:
            await self.channel.send_notification(notification)
        except Exception as error:  # a host that went away must not break the upstream side
            logger.debug("could not pass %s to the host: %s", notification.method, error)
