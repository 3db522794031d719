"""How a completion reaches the replica holding the call: the `Bus` protocol, `LocalBus` (one
process), and the Redis bus beside them (imported on first use: it needs the `redis` extra)."""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from elicitkit.extras import needs
from elicitkit.server.bus.base import Bus, Listener, Listeners, LocalBus, Unsubscribe, call_listener

if TYPE_CHECKING:
    from elicitkit.server.bus._redis import RedisBus

__all__ = ["Bus", "Listener", "Listeners", "LocalBus", "RedisBus", "Unsubscribe", "call_listener"]


def __getattr__(name: str) -> Any:
    if name != "RedisBus":
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    with needs("redis"):
        return importlib.import_module("elicitkit.server.bus._redis").RedisBus
