"""Redis clients for replicated (Sentinel) and sharded (Cluster) deployments, from a URL.

    redis+sentinel://[user:password@]host:port[,host:port...]/service[/db][?sentinel_username=..&sentinel_password=..]
    redis+cluster://[user:password@]host:port[,host:port...]

`rediss+sentinel://` and `rediss+cluster://` use TLS (to the Sentinels too). The `scheme+topology`
form is the one other Redis clients already read (and several hosts in the netloc are how libpq
and MongoDB write a seed list): one URL says how to find the data, so the same environment
variable can move from one server to a replicated or sharded one. The user and password are
the data nodes' ACL user; a Sentinel that asks for its own password takes `sentinel_password`.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import SplitResult, parse_qsl, unquote

from redis.asyncio import Redis, RedisCluster
from redis.asyncio.cluster import ClusterNode
from redis.asyncio.connection import BlockingConnectionPool
from redis.asyncio.sentinel import Sentinel, SentinelConnectionPool

from elicitkit.server._errors import BackendURLError

__all__ = ["TOPOLOGY_SCHEMES", "cluster_client", "hosts_of", "sentinel_client"]

TOPOLOGY_SCHEMES = ("redis+sentinel", "rediss+sentinel", "redis+cluster", "rediss+cluster")

_SENTINEL_QUERY = ("sentinel_username", "sentinel_password")
_SENTINEL_ANSWER = 1.0  # seconds a Sentinel has to answer before the next one is asked


class _BlockingSentinelPool(SentinelConnectionPool, BlockingConnectionPool):
    """A Sentinel pool that, like the single-server one, makes a busy caller wait for a free
    connection (up to `timeout`) instead of failing with "Too many connections"."""


def hosts_of(parts: SplitResult, shown: str, default_port: int) -> list[tuple[str, int]]:
    """The `host:port` list of a multi-host netloc (after any `user:password@`)."""
    hostlist = parts.netloc.rsplit("@", 1)[-1]
    hosts: list[tuple[str, int]] = []
    for item in hostlist.split(","):
        host, colon, port = item.strip().rpartition(":") if "]" not in item else item.partition("]:")
        if not colon:
            host, port = item.strip(), str(default_port)
        host = host.strip("[]")
        if not host or not port.isdigit() or not 0 < int(port) < 65536:
            raise BackendURLError(
                f"The Redis URL {shown!r} lists {item!r}, which is not host:port; write "
                "host:port,host:port after the scheme."
            )
        hosts.append((host, int(port)))
    return hosts


def _auth(parts: SplitResult, options: dict[str, Any]) -> None:
    if parts.username:
        options.setdefault("username", unquote(parts.username))
    if parts.password is not None:
        options.setdefault("password", unquote(parts.password))


def _tls(parts: SplitResult, options: dict[str, Any], shown: str) -> None:
    if parts.scheme.startswith("rediss"):
        options["ssl"] = True
    elif any(key.startswith("ssl") for key in options):
        raise BackendURLError(
            f"TLS options were given for {shown!r}, which is plain TCP; use rediss+... for TLS."
        )


def sentinel_client(parts: SplitResult, shown: str, common: dict[str, Any], **options: Any) -> Redis:
    """A client for the primary of a Sentinel service: it asks the Sentinels where the primary is
    at each (re)connection, so after a failover it follows the newly promoted one."""
    sentinels = hosts_of(parts, shown, 26379)
    path = [p for p in parts.path.split("/") if p]
    if not path or len(path) > 2 or (len(path) == 2 and not path[1].isdigit()):
        raise BackendURLError(
            f"The Sentinel URL {shown!r} must name the service (and optionally the database), like "
            "redis+sentinel://host:26379,host:26380/mymaster/0."
        )
    service, db = path[0], int(path[1]) if len(path) == 2 else 0
    query = dict(parse_qsl(parts.query))
    unknown = sorted(set(query) - set(_SENTINEL_QUERY))
    if unknown:
        raise BackendURLError(
            f"The Sentinel URL {shown!r} has {', '.join(unknown)}, which elicitkit does not know; "
            f"it takes {' and '.join(_SENTINEL_QUERY)}."
        )
    _auth(parts, options)
    _tls(parts, options, shown)
    sentinel_kwargs: dict[str, Any] = {
        key: value for key, value in options.items() if key.startswith(("socket_", "ssl"))
    }
    # A Sentinel answers from memory: one that has not answered within a second (or the socket
    # timeout, if shorter) hangs, and finding the primary moves on to the next Sentinel well
    # within a call's deadline (without a timeout, every call would wait on it to its deadline).
    sentinel_kwargs.setdefault("socket_connect_timeout", common.get("socket_connect_timeout"))
    sentinel_kwargs.setdefault(
        "socket_timeout", min(common.get("socket_timeout") or _SENTINEL_ANSWER, _SENTINEL_ANSWER)
    )
    sentinel_kwargs.update({key.removeprefix("sentinel_"): value for key, value in query.items()})
    for key in _SENTINEL_QUERY:
        if key in options:
            sentinel_kwargs[key.removeprefix("sentinel_")] = options.pop(key)
    pool_timeout = options.pop("pool_timeout", 5.0)
    manager = Sentinel(sentinels, sentinel_kwargs=sentinel_kwargs, db=db, **common, **options)  # type: ignore[no-untyped-call, unused-ignore]  # untyped in older redis-py
    primary: Redis = manager.master_for(
        service, connection_pool_class=_BlockingSentinelPool, timeout=pool_timeout
    )
    return primary


def cluster_client(parts: SplitResult, shown: str, common: dict[str, Any], **options: Any) -> RedisCluster:
    """A Cluster client from seed nodes: it learns the slot map from them and follows MOVED."""
    nodes = hosts_of(parts, shown, 6379)
    if parts.path.strip("/") or parts.query:
        raise BackendURLError(
            f"The Cluster URL {shown!r} has a path or query; a Cluster has only database 0, so write "
            "redis+cluster://host:port,host:port."
        )
    _auth(parts, options)
    _tls(parts, options, shown)
    return RedisCluster(
        startup_nodes=[ClusterNode(host, port) for host, port in nodes],
        require_full_coverage=True,
        **common,
        **options,
    )
