"""`Finished`, what a live URL-mode wait parks on: set wakes the waiter, time runs out, a
cancelled waiter leaves nothing scheduled, and nothing is allocated until someone waits."""

from __future__ import annotations

import asyncio
import time

import anyio
import pytest

from elicitkit.server._finished import Finished


async def test_set_wakes_the_waiter_and_a_late_wait_returns_at_once() -> None:
    finished = Finished()
    assert finished._waiter is None  # nothing for waiting until someone waits
    waiter = asyncio.create_task(_wait(finished, 30))
    await asyncio.sleep(0.01)
    assert not waiter.done()
    finished.set()
    assert await asyncio.wait_for(waiter, 5) < 5
    assert finished.is_set() and finished._timer is None  # its timer released
    started = time.monotonic()
    await finished.wait(30)  # already set: no wait at all
    assert time.monotonic() - started < 1


async def test_the_wait_ends_when_its_time_is_up() -> None:
    finished = Finished()
    took = await _wait(finished, 0.05)
    assert 0.04 <= took < 5 and not finished.is_set()
    finished.close()
    assert finished._timer is None


async def test_a_cancelled_waiter_leaves_no_timer_and_a_new_wait_works() -> None:
    finished = Finished()
    with anyio.move_on_after(0.05):  # the session ends: the SDK cancels the tool call
        try:
            await finished.wait(3600)
        finally:
            finished.close()
    assert finished._timer is None and not finished.is_set()
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
