"""A wall clock a test moves by hand, for the stores' `clock=`."""

from __future__ import annotations

import time


class Clock:
    """The machine's wall clock plus whatever a test advanced it by: records made on the
    machine's clock agree with it, and no test waits for time to pass."""

    def __init__(self) -> None:
        self.ahead = 0.0

    def __call__(self) -> float:
        return time.time() + self.ahead

    def advance(self, seconds: float) -> None:
        self.ahead += seconds
