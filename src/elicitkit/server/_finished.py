"""`Finished`: the one-shot signal a URL elicitation's waiter parks on, at the smallest cost.

A server holds one per pending elicitation (thousands, each for minutes), and most are never
waited on (the -32042 path only needs the notice sent). So nothing is allocated for waiting
until someone waits: on asyncio the wait is one bare future and one timer, awaited as it is
(no coroutine of its own), where an `anyio.Event` holds an `asyncio.Event` and its deque from
the start (about 900 bytes) and `anyio.move_on_after` a cancel scope. Other event loops get
the portable anyio wait.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable
from typing import TYPE_CHECKING

import anyio

if TYPE_CHECKING:
    from mcp.server.session import ServerSession

    from elicitkit.server.bus import Held

__all__ = ["Delivery", "Finished"]

logger = logging.getLogger("elicitkit.server.url_mode")


class Finished:
    """Set once. `wait(seconds)` gives an awaitable that ends when it is set or when `seconds`
    have passed; `close()` releases the wait's timer (call it when the waiter is done). One
    waiter at a time: cancelling it cancels the shared future."""

    __slots__ = ("_is_set", "_timer", "_waiter")

    def __init__(self) -> None:
        self._is_set = False
        self._waiter: asyncio.Future[None] | anyio.Event | None = None
        self._timer: asyncio.TimerHandle | None = None

    def is_set(self) -> bool:
        return self._is_set

    def set(self) -> None:
        self._is_set = True
        waiter = self._waiter
        if isinstance(waiter, anyio.Event):
            waiter.set()
        elif waiter is not None and not waiter.done():
            waiter.set_result(None)
        self.close()

    def wait(self, seconds: float) -> Awaitable[None]:
        if self._is_set:
            return _no_wait()
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:  # not asyncio (trio)
            return self._wait_anyio(seconds)
        waiter = self._waiter
        if not isinstance(waiter, asyncio.Future) or waiter.done():
            waiter = self._waiter = loop.create_future()
            self.close()
            self._timer = loop.call_later(max(0.0, seconds), _settle, waiter)
        return waiter

    def close(self) -> None:
        timer, self._timer = self._timer, None
        if timer is not None:
            timer.cancel()

    async def _wait_anyio(self, seconds: float) -> None:
        if not isinstance(self._waiter, anyio.Event):
            self._waiter = anyio.Event()
        event = self._waiter
        with anyio.move_on_after(seconds):
            await event.wait()


async def _no_wait() -> None:
    return None


def _settle(waiter: asyncio.Future[None]) -> None:
    if not waiter.done():
        waiter.set_result(None)


class Delivery:
    """The completion listener of one elicitation. One per pending elicitation, so a slotted
    object: a third of the memory of a closure over the same four values."""

    __slots__ = ("finished", "held", "related_request_id", "session")

    def __init__(self, session: ServerSession, related_request_id: str | int | None, held: Held) -> None:
        self.session = session
        self.related_request_id = related_request_id
        self.held = held
        self.finished = Finished()

    async def __call__(self, elicitation_id: str) -> None:
        self.held.pop(elicitation_id, None)
        try:
            related = self.related_request_id
            await self.session.send_elicit_complete(elicitation_id, related_request_id=related)
        except Exception as exc:  # the session may be gone; the retry path still works
            logger.info("completion notice not delivered: %s", type(exc).__name__)
        finally:
            self.finished.set()
