"""How a completion reaches the replica holding the call: the `Bus` protocol, `LocalBus` (one
process), and the Redis and PostgreSQL buses beside them (imported on first use: each needs its extra)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from elicitkit.extras import lazy_names
from elicitkit.server.bus._base import (
    Bus,
    Held,
    Listener,
    Listeners,
    ListeningBus,
    LocalBus,
    Unsubscribe,
    call_listener,
)

if TYPE_CHECKING:
    from elicitkit.server.bus._postgres import PostgresBus
    from elicitkit.server.bus._redis import RedisBus

__all__ = [
    "Bus",
    "Held",
    "Listener",
    "Listeners",
    "ListeningBus",
    "LocalBus",
    "PostgresBus",
    "RedisBus",
    "Unsubscribe",
    "call_listener",
]

_OPTIONAL = {
    "PostgresBus": ("elicitkit.server.bus._postgres", "postgres"),
    "RedisBus": ("elicitkit.server.bus._redis", "redis"),
}


__getattr__, __dir__ = lazy_names(__name__, _OPTIONAL)
