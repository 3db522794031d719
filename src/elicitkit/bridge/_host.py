"""The host side of one bridged session: what it declared, its open calls, its channel.

The 2025-11-25 wire does not say which client request an `elicitation/create` serves; over
Streamable HTTP the stream it came on does, and `UpstreamCalls` keeps that tie, so a question
goes to the host call whose upstream call asked it. When nothing ties it (the standalone GET
stream, a stdio upstream), it goes to the only host call open, or with several, the newest.
A 2025-11-25 host's `sampling/createMessage` and `roots/list` go the same way (`_relayed`).
"""

from __future__ import annotations

import logging
import secrets
from collections import OrderedDict
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import anyio
from mcp.server.session import ServerSession
from mcp_types import (
    ClientCapabilities,
    ElicitCompleteNotification,
    InitializeRequestParams,
    RequestId,
    RootsCapability,
    SamplingCapability,
    ServerNotification,
)
from mcp_types.version import MODERN_PROTOCOL_VERSIONS

from elicitkit.bridge._calls import HostCall, UpstreamCalls
from elicitkit.bridge._profiles import HostProfile

if TYPE_CHECKING:
    from elicitkit.bridge._rounds import HeldCall

logger = logging.getLogger("elicitkit.bridge")

_EXPIRED_KEPT = 256

__all__ = ["HostCall", "HostSession", "declared_modes"]


def declared_modes(capabilities: ClientCapabilities | None) -> frozenset[str]:
    """The elicitation modes a host declared: `{}` alone is form (the spec's default)."""
    elicitation = capabilities.elicitation if capabilities is not None else None
    if elicitation is None:
        return frozenset()
    modes = {name for name in ("form", "url") if getattr(elicitation, name, None) is not None}
    return frozenset(modes or {"form"})


@dataclass
class HostSession:
    """What the bridge knows of one host session."""

    modes: frozenset[str]
    modern: bool = False
    """A 2026-07-28 host: it cannot be sent `elicitation/create` (no back-channel); its
    questions go as input-required rounds of a held call."""
    channel: ServerSession | None = None
    """Where the host is sent what no call of its carries (set through `reach`)."""
    sampling: SamplingCapability | None = None
    roots: RootsCapability | None = None
    """What a 2025-11-25 host declared of sampling and roots, declared upstream as it is (the
    bridge passes those requests to the host); None for a 2026-07-28 host (no live requests)."""
    reached: anyio.Event = field(default_factory=anyio.Event)
    """Set once the host can be sent requests (`channel` is set)."""
    calls: OrderedDict[int, HostCall] = field(default_factory=OrderedDict)
    upstream: UpstreamCalls = field(default_factory=UpstreamCalls)
    """Which host call each upstream call and question belongs to."""
    tag: str = field(default_factory=lambda: secrets.token_urlsafe(12))
    """Names this session inside the state the bridge seals for it."""
    held: dict[str, HeldCall] = field(default_factory=dict)
    expired: OrderedDict[str, None] = field(default_factory=OrderedDict)
    """Held calls whose host never came back (a late retry is told why)."""
    profile: HostProfile | None = None
    """What the host really answers (`--host-profile`), beyond what it declared."""

    @classmethod
    def from_initialize(cls, params: Mapping[str, Any] | None) -> HostSession:
        """The host as its `initialize` request describes it (before the SDK commits it)."""
        init = InitializeRequestParams.model_validate(params or {}, by_name=False)
        return cls._declaring(init.capabilities, modern=False)

    @classmethod
    def of(cls, session: ServerSession) -> HostSession:
        modern = session.protocol_version in MODERN_PROTOCOL_VERSIONS
        host = cls._declaring(session.client_capabilities, modern=modern)
        host.reach(session)
        return host

    @classmethod
    def _declaring(cls, capabilities: ClientCapabilities | None, *, modern: bool) -> HostSession:
        host = cls(modes=declared_modes(capabilities), modern=modern)
        if capabilities is not None and not modern:
            host.sampling, host.roots = capabilities.sampling, capabilities.roots
        return host

    def reach(self, session: ServerSession) -> None:
        """The host can be sent requests on `session` from now on."""
        self.channel = session
        self.reached.set()

    @property
    def relays(self) -> frozenset[str]:
        """What of a server's requests this host answers itself: "sampling", "roots"."""
        declared = {"sampling": self.sampling, "roots": self.roots}
        return frozenset(kind for kind, capability in declared.items() if capability is not None)

    def asks_host(self, mode: str) -> bool:
        """Can this host be asked in `mode` (live, or for a 2026-07-28 host as a round)?"""
        return mode in self.modes and (self.profile is None or self.profile.asks(mode))

    def hold(self, call: HeldCall) -> None:
        self.held[call.key] = call

    def release(self, key: str) -> None:
        self.held.pop(key, None)

    def expire(self, key: str) -> None:
        self.release(key)
        self.expired[key] = None
        while len(self.expired) > _EXPIRED_KEPT:
            self.expired.popitem(last=False)

    def waiting(self) -> int:
        """Held calls with a question on its way to the host, or out to it now."""
        return sum(1 for call in self.held.values() if call.asking)

    def open(self, call: HostCall) -> int:
        key = id(call)
        self.calls[key] = call
        self.reach(call.session)
        return key

    def close(self, key: int) -> None:
        self.calls.pop(key, None)

    def call_for(self, question_id: RequestId | None, *, keep: bool = False) -> HostCall | None:
        """The host call an upstream question serves: the one its upstream call was made for,
        else (nothing says) the only one open, or the newest."""
        tied = self.upstream.host_call(question_id, keep=keep)
        if tied is not None and tied in self.calls.values():
            return tied
        return next(reversed(self.calls.values()), None)

    async def notify(self, notification: ServerNotification) -> None:
        """Send `notification` to the host on its standalone channel; a closed host is logged."""
        if self.channel is None:
            return
        if self.modern and isinstance(notification, ElicitCompleteNotification):
            return  # 2026-07-28 has no such notice: the call's own retry carries the completion
        try:
            await self.channel.send_notification(notification)
        except Exception as error:  # a host that went away must not break the upstream side
            logger.debug("could not pass %s to the host: %s", notification.method, error)
