"""`Finished`, what a live URL-mode wait parks on: set wakes the waiter, time runs out, a
cancelled waiter leaves nothing scheduled, and nothing is allocated until someone waits."""

from __future__ import annotations

import asyncio
import time
import tracemalloc
from collections.abc import AsyncIterator
from typing import Any

import anyio
import pytest

from elicitkit.server._finished import Finished

Timers = list[asyncio.TimerHandle]


@pytest.fixture
async def timers(monkeypatch: pytest.MonkeyPatch) -> AsyncIterator[Timers]:
    """Every timer the running event loop is asked for during the test."""
    loop = asyncio.get_running_loop()
    made: list[asyncio.TimerHandle] = []
    call_later = loop.call_later

    def recording(delay: float, callback: Any, *args: Any, **options: Any) -> asyncio.TimerHandle:
        handle = call_later(delay, callback, *args, **options)
        made.append(handle)
        return handle

    monkeypatch.setattr(loop, "call_later", recording)
    yield made


def released(timers: Timers) -> bool:
    """No timer of the test is left in the loop: each was cancelled or has run."""
    now = asyncio.get_running_loop().time()
    return all(t.cancelled() or t.when() <= now for t in timers)


async def test_nothing_is_allocated_for_waiting_until_someone_waits() -> None:
    """A server holds one per pending elicitation, most never waited on: each costs its own
    slots only (a future made up front would triple it, an event ten times more)."""
    tracing = tracemalloc.is_tracing()  # already traced (python -X tracemalloc): leave it on
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        pending = [Finished() for _ in range(1000)]
        each = (tracemalloc.get_traced_memory()[0] - before) / len(pending)
    finally:
        if not tracing:
            tracemalloc.stop()
    assert each < 100, each


async def test_set_wakes_the_waiter_and_a_late_wait_returns_at_once(
    timers: Timers,
) -> None:
    finished = Finished()
    waiter = asyncio.create_task(_wait(finished, 30))
    await asyncio.sleep(0.01)
    assert not waiter.done()
    finished.set()
    assert await asyncio.wait_for(waiter, 5) < 5
    assert finished.is_set() and timers and released(timers)  # its timer released
    started = time.monotonic()
    await finished.wait(30)  # already set: no wait at all
    assert time.monotonic() - started < 1


async def test_the_wait_ends_when_its_time_is_up(timers: Timers) -> None:
    finished = Finished()
    took = await _wait(finished, 0.05)
    assert 0.04 <= took < 5 and not finished.is_set()
    finished.close()
    assert timers and released(timers)


async def test_a_cancelled_waiter_leaves_no_timer_and_a_new_wait_works(
    timers: Timers,
) -> None:
    finished = Finished()
    with anyio.move_on_after(0.05):  # the session ends: the SDK cancels the tool call
        try:
            await finished.wait(3600)
        finally:
            finished.close()
    assert timers and released(timers) and not finished.is_set()
    later = asyncio.create_task(_wait(finished, 30))
    await asyncio.sleep(0.01)
    finished.set()
    assert await asyncio.wait_for(later, 5) < 5


async def test_a_cancellation_reaches_the_waiter() -> None:
    finished = Finished()
    task = asyncio.create_task(_wait(finished, 3600))
    await asyncio.sleep(0.01)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task


async def _wait(finished: Finished, seconds: float) -> float:
    started = time.monotonic()
    try:
        await finished.wait(seconds)
    finally:
        finished.close()
    return time.monotonic() - started
