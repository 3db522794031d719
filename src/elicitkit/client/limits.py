"""How much one server may ask of a person (C-31): a token bucket and a cap on questions waiting.

A question beyond either limit is answered `cancel` at once, without reaching the UI. Why
`cancel`: the spec defines it as "dismissed without making an explicit choice", which is
exactly what happened (nobody chose), every server already handles it, and it is honest where
`decline` would claim the person said no. A JSON-RPC error is kept for requests that are wrong
in themselves (C-02, C-03); a well-formed request that came too fast is not, and an error would
make many SDK-based tools raise instead of handling a normal outcome.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass


@dataclass(frozen=True)
class RateLimit:
    """Per server: `burst` questions at once, refilled at `per_second`; at most `max_waiting` pending."""

    per_second: float = 0.5
    burst: int = 5
    max_waiting: int = 3

    def __post_init__(self) -> None:
        if self.per_second < 0 or self.burst < 1 or self.max_waiting < 1:
            raise ValueError("RateLimit needs per_second >= 0, burst >= 1 and max_waiting >= 1.")


class TokenBucket:
    """A token bucket; `take()` is O(1) and keeps no history, so memory stays flat under a flood."""

    def __init__(self, limit: RateLimit, clock: Callable[[], float] = time.monotonic) -> None:
        self._limit = limit
        self._clock = clock
        self._tokens = float(limit.burst)
        self._stamp = clock()

    def take(self) -> bool:
        """Spend one token if there is one."""
        now = self._clock()
        refill = (now - self._stamp) * self._limit.per_second
        self._tokens = min(float(self._limit.burst), self._tokens + refill)
        self._stamp = now
        if self._tokens >= 1.0:
            self._tokens -= 1.0
            return True
        return False
