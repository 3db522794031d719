"""Every error a Redis store call can meet, as `StoreUnavailableError`, within one deadline.

A caller of the store sees its documented type, never a redis-py one: a server that is down, a
primary refusing writes (NOREPLICAS, READONLY), one still loading its data (LOADING), a Cluster
reconfiguring (CLUSTERDOWN, TRYAGAIN, a storm of MOVED), a full one (OOM), a refused login or
command, and anything else Redis answers with an error. Each call also has one overall deadline,
whatever redis-py's own retries and socket timeouts add up to.
"""

from __future__ import annotations

import asyncio
import time
from types import TracebackType
from typing import TYPE_CHECKING, Any

from redis import exceptions as redis_errors

from elicitkit.server.errors import StoreUnavailableError

if TYPE_CHECKING:
    from elicitkit.server.store._redis import RedisStore

__all__ = ["Reachable", "unavailable"]

_RETRY = (
    "Retry when Redis is back: this store reconnects by itself, and a retried change never applies twice."
)

# Error replies Redis gives while it cannot do the work for a while, by their first word.
_FOR_A_WHILE = {
    "NOREPLICAS": "refused the write because too few replicas are connected (min-replicas-to-write); "
    "bring the replicas back",
    "LOADING": "is still loading its data after a restart; retry in a moment",
    "MASTERDOWN": "is a replica that lost its primary",
    "CLUSTERDOWN": "is a Cluster that is down or reconfiguring",
    "TRYAGAIN": "is a Cluster moving the slot of this key",
    "BUSY": "is busy running a script",
    "MOVED": "is a Cluster whose slots moved faster than the client followed",
    "ASK": "is a Cluster moving the slot of this key",
}


def unavailable(where: str, exc: BaseException) -> StoreUnavailableError | None:
    """The sentence for an error of Redis (or of reaching it) at `where`, else None."""
    if isinstance(exc, (redis_errors.AuthenticationError, redis_errors.AuthorizationError)):
        return StoreUnavailableError(
            f"Redis at {where} refused the credentials ({exc}); check the user and password in the "
            "store URL (or password=)."
        )
    if isinstance(exc, redis_errors.OutOfMemoryError):
        return StoreUnavailableError(
            f"Redis at {where} is full and refused the write ({exc}); give it more memory (keep "
            "maxmemory-policy noeviction, see docs/deployment-redis.md)."
        )
    if isinstance(exc, redis_errors.ReadOnlyError):
        return StoreUnavailableError(
            f"Redis at {where} is a read-only replica ({exc}); point the store URL at the primary "
            "(during a failover this passes by itself: retry)."
        )
    if isinstance(exc, redis_errors.NoPermissionError):
        return StoreUnavailableError(
            f"The Redis user may not run what the store needs ({exc}); grant the ACL rules in "
            "docs/deployment-redis.md."
        )
    if isinstance(exc, redis_errors.ResponseError):
        word = str(exc).split(" ", 1)[0].upper()
        if word in _FOR_A_WHILE:
            return StoreUnavailableError(f"Redis at {where} {_FOR_A_WHILE[word]} ({exc}). {_RETRY}")
        return StoreUnavailableError(
            f"Redis at {where} refused a command of the store ({exc}); check that nothing else writes "
            "under the store's key prefix, and the server's version (5 or later, 7 for a Cluster)."
        )
    if isinstance(exc, (redis_errors.RedisError, redis_errors.RedisClusterException, OSError, TimeoutError)):
        # ConnectionError, TimeoutError, a Cluster's "cannot be connected", MOVED/ASK past the
        # client's redirects, a pool with no free connection in time, a socket error...
        return StoreUnavailableError(f"The Redis store at {where} is unavailable ({exc}). {_RETRY}")
    return None


_TICK = 0.01  # the watchdog's shortest sleep: 100 wakeups a second at most, whatever the load
_AGAIN = 0.1  # how often a call cut off but not out yet is cancelled again


class Deadlines:
    """The calls in flight and when each must end. One watchdog task (running while there are
    calls) cancels a late one, so a call costs a dict entry, not a timer of its own. A late call
    is cancelled again every `_AGAIN` seconds until it is out: one cancellation can be lost
    inside a driver (Python 3.11's `asyncio.wait_for` drops it when what it waits for finishes
    at the same moment, and redis-py waits that way to send), and the call would then run on
    to its socket timeouts and retries."""

    def __init__(self, seconds: float) -> None:
        self.seconds = seconds
        self._due: dict[asyncio.Task[Any], float] = {}
        self._late: dict[asyncio.Task[Any], tuple[int, float]] = {}  # cancellations, the last's time
        self._watch: asyncio.Task[None] | None = None

    def enter(self) -> None:
        task = asyncio.current_task()
        if task is None or task in self._due:
            return
        self._due[task] = time.monotonic() + self.seconds
        if self._watch is None:
            self._watch = asyncio.get_running_loop().create_task(self._watching())

    def left(self) -> float:
        """The seconds this task's call has left (the whole deadline outside a call)."""
        task = asyncio.current_task()
        due = self._due.get(task) if task is not None else None
        return self.seconds if due is None else due - time.monotonic()

    def exit(self) -> bool:
        """End this task's call; True when it was cut off at its deadline."""
        task = asyncio.current_task()
        if task is None or self._due.pop(task, None) is None:
            return False
        late = self._late.pop(task, None)
        if late is None:
            return False
        for _ in range(late[0]):  # every cancellation it was sent, delivered or lost
            task.uncancel()
        return True

    async def _watching(self) -> None:
        """Wake at the next deadline (not on a tick: a late call is cut off on time, and a
        watchdog with nothing due sleeps). Every call has the same length, so the calls are
        due in the order they entered, the dict's own order."""
        try:
            while self._due:
                now = time.monotonic()
                wake = now + self.seconds
                for task, (cancels, last) in self._late.items():  # cut off, not out yet
                    if now - last >= _AGAIN:
                        self._late[task] = (cancels + 1, now)
                        task.cancel()
                        last = now
                    wake = min(wake, last + _AGAIN)
                for task, due in self._due.items():
                    if task in self._late:
                        continue
                    if due > now:
                        wake = min(wake, due)
                        break
                    self._late[task] = (1, now)
                    task.cancel()  # delivered at the await inside the call: no other place
                    wake = min(wake, now + _AGAIN)
                await asyncio.sleep(max(_TICK, wake - now))
        finally:
            self._watch = None


class Reachable:
    """`RedisStore._reachable()`: the block of one call (one reusable object per store): the
    call's deadline and, on a Cluster, a free connection (redis-py's per-node pools fail at
    their limit instead of waiting); every error of the block leaves it as
    `StoreUnavailableError`."""

    __slots__ = ("_store",)

    def __init__(self, store: RedisStore) -> None:
        self._store = store

    async def __aenter__(self) -> None:
        store = self._store
        store.deadlines.enter()
        if store.cluster:
            try:
                if not store.scripts_loaded:
                    await store.load_scripts()
                await store.gate.__aenter__()
            except BaseException as exc:
                self._leave(exc)
                raise

    async def __aexit__(
        self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        store = self._store
        if store.cluster:
            await store.gate.__aexit__(kind, exc, tb)
        self._leave(exc)

    def _leave(self, exc: BaseException | None) -> None:
        store = self._store
        if store.deadlines.exit():
            raise StoreUnavailableError(
                f"The Redis store at {store.where()} did not answer within {store.timeout:g}s "
                f"(the store's timeout). {_RETRY}"
            ) from exc
        if exc is not None and (error := unavailable(store.where(), exc)) is not None:
            raise error from exc


def socket_timeout_of(client: Any) -> float | None:
    """The client's per-command socket timeout, when it says."""
    pool = getattr(client, "connection_pool", None)
    kwargs = getattr(pool, "connection_kwargs", None)
    if kwargs is None:
        kwargs = getattr(getattr(client, "nodes_manager", None), "connection_kwargs", {})
    value = kwargs.get("socket_timeout")
    return float(value) if value is not None else None
