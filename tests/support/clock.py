"""A wall clock a test moves by hand, for the stores' `clock=` (and so for `UrlMode`'s)."""

from __future__ import annotations

import time


class Clock:
    """The machine's wall clock plus whatever a test advanced it by: records made on the
    machine's clock agree with it, and no test waits for time to pass.

    `Clock(at=...)` stands still at that time (seconds since the epoch) until the test moves
    it: a piece of the server that read the machine's clock instead would be years off."""

    def __init__(self, at: float | None = None) -> None:
        self.at = at
        self.ahead = 0.0

    def __call__(self) -> float:
        return (time.time() if self.at is None else self.at) + self.ahead

    def advance(self, seconds: float) -> None:
        self.ahead += seconds
