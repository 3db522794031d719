"""Long store work (a sweep) in slices of time, so the live operations around it keep their pace.

A batch of a fixed number of rows takes a few hundred microseconds on an idle machine and tens
of milliseconds on a busy one; what a live operation feels is the time, so the time is what is
bounded: after `SLICE` seconds of batches the job rests as long as it worked, and between
batches it gives the event loop a turn. It then holds at most half of the loop and of the store,
whatever the machine's load, and a live operation waits behind one batch at most.
"""

from __future__ import annotations

import time

import anyio
import anyio.lowlevel

__all__ = ["SLICE", "Pace"]

SLICE = 0.004  # seconds of batches between two rests


class Pace:
    """Call `turn()` after each batch of a long job (see the module docstring)."""

    def __init__(self, work: float = SLICE) -> None:
        self.work = work
        self._since = time.perf_counter()

    async def turn(self) -> None:
        worked = time.perf_counter() - self._since
        if worked < self.work:
            await anyio.lowlevel.checkpoint()
            return
        await anyio.sleep(worked)  # as long as it worked: the job takes half the time at most
        self._since = time.perf_counter()
