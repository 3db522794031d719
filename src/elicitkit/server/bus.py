"""Routes "elicitation X finished" to whoever started X, and to no one else (S-23).

The browser that finishes an elicitation may reach a different task, or with several
replicas a different process, than the MCP session that started it. The session subscribes
to its own elicitation id; the web page publishes the id when the record reaches a final
state. `LocalBus` does this inside one process; a Redis pub/sub bus implements the same two
methods across replicas.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from typing import Protocol

__all__ = ["Bus", "Listener", "LocalBus", "Unsubscribe"]

logger = logging.getLogger(__name__)

Listener = Callable[[str], Awaitable[None]]
Unsubscribe = Callable[[], None]


class Bus(Protocol):
    async def publish(self, elicitation_id: str) -> None:
        """Tell the subscribers of this id (and only them) that it reached a final state."""
        ...

    def subscribe(self, elicitation_id: str, listener: Listener) -> Unsubscribe:
        """Call `listener(id)` once when `elicitation_id` is published."""
        ...


class LocalBus:
    """An in-process `Bus`. Each listener runs at most once, then is dropped."""

    def __init__(self) -> None:
        self._listeners: dict[str, list[Listener]] = {}

    def subscribe(self, elicitation_id: str, listener: Listener) -> Unsubscribe:
        self._listeners.setdefault(elicitation_id, []).append(listener)

        def unsubscribe() -> None:
            listeners = self._listeners.get(elicitation_id, [])
            if listener in listeners:
                listeners.remove(listener)
            if not listeners:
                self._listeners.pop(elicitation_id, None)

        return unsubscribe

    async def publish(self, elicitation_id: str) -> None:
        for listener in self._listeners.pop(elicitation_id, []):
            try:
                await listener(elicitation_id)
            except Exception:  # one gone session must not stop the others' delivery
                logger.exception("elicitation completion listener failed")
