"""Every error a Redis store call can meet, as `StoreUnavailableError` with its sentence.

A caller of the store sees its documented type, never a redis-py one: a server that is down, a
primary refusing writes (NOREPLICAS, READONLY), one still loading its data (LOADING), a Cluster
reconfiguring (CLUSTERDOWN, TRYAGAIN, a storm of MOVED), a full one (OOM), a refused login or
command, anything else Redis answers with an error, and a call past the store's deadline.
"""

from __future__ import annotations

from redis import exceptions as redis_errors

from elicitkit.server._errors import StoreOutcomeUnknownError, StoreUnavailableError

__all__ = ["late", "unavailable"]

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


_UNKNOWN = "so whether it was applied is unknown; read back what it changed before doing it again."


def unavailable(where: str, exc: BaseException, *, changing: bool = False) -> StoreUnavailableError | None:
    """The sentence for an error of Redis (or of reaching it) at `where`, else None. A call
    `changing` the store that lost its connection may have been applied (Redis answers a
    command it ran even if its reply is then lost): `StoreOutcomeUnknownError`."""
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
        if changing:
            return StoreOutcomeUnknownError(
                f"The Redis store at {where} lost the connection during a change ({exc}), {_UNKNOWN}"
            )
        return StoreUnavailableError(f"The Redis store at {where} is unavailable ({exc}). {_RETRY}")
    return None


def late(where: str, seconds: float, *, changing: bool = False) -> StoreUnavailableError:
    """The sentence for a call that did not end within the store's `timeout`."""
    if changing:
        return StoreOutcomeUnknownError(
            f"The Redis store at {where} did not answer a change within {seconds:g}s (the store's "
            f"timeout), {_UNKNOWN}"
        )
    return StoreUnavailableError(
        f"The Redis store at {where} did not answer within {seconds:g}s (the store's timeout). {_RETRY}"
    )
