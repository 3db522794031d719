"""Every error a Redis store call can meet, as `StoreUnavailableError`, within one deadline.

A caller of the store sees its documented type, never a redis-py one: a server that is down, a
primary refusing writes (NOREPLICAS, READONLY), one still loading its data (LOADING), a Cluster
reconfiguring (CLUSTERDOWN, TRYAGAIN, a storm of MOVED), a full one (OOM), a refused login or
command, and anything else Redis answers with an error. Each call also has one overall deadline,
whatever redis-py's own retries and socket timeouts add up to.
"""

from __future__ import annotations

import asyncio
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


class Reachable:
    """`RedisStore._reachable()`, one per call: the call's deadline and, on a Cluster, a free
    connection (redis-py's per-node pools fail at their limit instead of waiting); every error
    of the block leaves it as `StoreUnavailableError`."""

    __slots__ = ("_deadline", "_gated", "_store")

    def __init__(self, store: RedisStore) -> None:
        self._store = store
        self._deadline = asyncio.timeout(store.timeout)
        self._gated = False

    async def __aenter__(self) -> None:
        store = self._store
        await self._deadline.__aenter__()
        if store.cluster:
            try:
                if not store.scripts_loaded:
                    await store.load_scripts()
                await store.gate.__aenter__()
                self._gated = True
            except BaseException as exc:
                await self.__aexit__(type(exc), exc, exc.__traceback__)
                raise

    async def __aexit__(
        self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        store = self._store
        if self._gated:
            self._gated = False
            await store.gate.__aexit__(kind, exc, tb)
        try:
            await self._deadline.__aexit__(kind, exc, tb)
        except TimeoutError as late:
            raise StoreUnavailableError(
                f"The Redis store at {store.where()} did not answer within {store.timeout:g}s "
                f"(the store's timeout). {_RETRY}"
            ) from exc or late
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
