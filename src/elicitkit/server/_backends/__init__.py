"""Choosing the store and the bus by configuration URL.

One process: `sqlite:///var/lib/app/elicitkit.sqlite3` (or `memory://` for tests) and the
in-process bus. Several replicas: the same `redis://host:port/db` (or `rediss://` for TLS) for
both, so any replica can serve the browser and the one holding the session hears about it.

    store = open_store(os.environ["ELICITKIT_STORE"])
    bus = open_bus(os.environ["ELICITKIT_STORE"], store=store)
    url_mode = UrlMode(browser=..., store=store, bus=bus, keys=KeyRing.from_env())

Redis connections retry with capped exponential backoff, check their health, and time out;
an operation that still fails raises `StoreUnavailableError` / `BusUnavailableError`.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any
from urllib.parse import SplitResult, urlsplit

from elicitkit.extras import needs
from elicitkit.server._errors import BackendURLError
from elicitkit.server.bus import Bus, LocalBus
from elicitkit.server.store import MemoryStore, Store

if TYPE_CHECKING:
    from redis.asyncio import Redis, RedisCluster

__all__ = ["open_bus", "open_store", "redis_client"]

_FORMS = (
    "sqlite:///absolute/path, memory://, redis://host:port/db, rediss://host:port/db, "
    "redis+sentinel://host:port,host:port/service/db, redis+cluster://host:port,host:port "
    "or postgresql://user:password@host:port/database"
)
_POSTGRES = ("postgresql", "postgres")
_TOPOLOGY = ("redis+sentinel", "rediss+sentinel", "redis+cluster", "rediss+cluster")


def open_store(
    url: str,
    *,
    password: str | None = None,
    prefix: str = "elicitkit:",
    clock: Callable[[], float] = time.time,
    **redis_options: Any,
) -> Store:
    """The `Store` a URL names: `sqlite:///path` (`sqlite://` alone: the default file),
    `memory://`, `redis://` / `rediss://` (see `redis_client` for AUTH and TLS options), or
    `postgresql://user:password@host:port/database` (options go to `asyncpg.create_pool`; tables
    are named after `prefix`, `elicitkit_records` by default; see docs/deployment.md).

    Redis and PostgreSQL take `timeout=` (default 10 s): each call's overall deadline, past which
    it raises `StoreUnavailableError`; Redis also `replicas_ack=` and `ack_timeout=`. `clock` is
    the wall clock every store reads (a test advances its own instead of sleeping)."""
    parts = _split(url, "store")
    if parts.scheme == "sqlite":
        _no_redis_options(url, password, redis_options)
        if parts.netloc:
            raise BackendURLError(
                f"The store URL {_safe(url)!r} names a host, which SQLite has none of; write the path "
                "after three slashes, like sqlite:///var/lib/app/elicitkit.sqlite3."
            )
        with needs("sqlite"):
            from elicitkit.server.store import SQLiteStore
        return SQLiteStore(parts.path or None, clock=clock)
    if parts.scheme == "memory":
        _no_redis_options(url, password, redis_options)
        return MemoryStore(clock=clock)
    if parts.scheme in _POSTGRES:
        with needs("postgres"):
            from elicitkit.server.store import PostgresStore
        if password is not None:
            redis_options["password"] = password
        return PostgresStore(url, prefix=_table_prefix(prefix), clock=clock, **redis_options)
    with needs("redis"):
        from elicitkit.server.store import RedisStore
    own = {
        key: redis_options.pop(key)
        for key in ("replicas_ack", "ack_timeout", "timeout")
        if key in redis_options
    }
    if own.get("replicas_ack"):  # a socket must outlast the WAIT it carries, or redis-py retries it whole
        redis_options.setdefault("socket_timeout", own.get("ack_timeout", 5.0) + 2.0)
    client = redis_client(url, password=password, **redis_options)
    return RedisStore(**own, client=client, prefix=prefix, clock=clock)


def open_bus(
    url: str,
    *,
    store: Store | None = None,
    password: str | None = None,
    channel: str | None = None,
    **redis_options: Any,
) -> Bus:
    """The `Bus` that goes with the store at `url`: in-process for `sqlite` and `memory`, Redis
    pub/sub for `redis` / `rediss`. Give it the `store`: the bus catches up from it after an
    outage, listens on the channel a `RedisStore` announces on (`channel` overrides), and leaves
    publishing to that store."""
    parts = _split(url, "bus")
    if parts.scheme in ("sqlite", "memory"):
        _no_redis_options(url, password, redis_options)
        return LocalBus()
    if parts.scheme in _POSTGRES:
        with needs("postgres"):
            from elicitkit.server.bus import PostgresBus
            from elicitkit.server.store import POSTGRES_CHANNEL, PostgresStore
        if password is not None or redis_options:
            raise BackendURLError(
                f"Options were given for the bus at {_safe(url)!r}; a PostgreSQL bus takes them from "
                "the URL (user, password, ?sslmode=...)."
            )
        if channel is None:
            channel = (
                store.completions_channel if isinstance(store, PostgresStore) else None
            ) or POSTGRES_CHANNEL
        return PostgresBus(url, store=store, channel=channel)
    with needs("redis"):
        from elicitkit.server.bus import RedisBus
        from elicitkit.server.store import COMPLETIONS_CHANNEL, RedisStore
    if channel is None:
        announced = store.completions_channel if isinstance(store, RedisStore) else None
        channel = announced or COMPLETIONS_CHANNEL
    return RedisBus(redis_client(url, password=password, **redis_options), store=store, channel=channel)


def redis_client(
    url: str,
    *,
    password: str | None = None,
    retries: int = 2,
    health_check_interval: int = 15,
    max_connections: int = 50,
    **options: Any,
) -> Redis | RedisCluster:
    """A redis-py asyncio client for `redis://[user:password@]host:port/db` or `rediss://...`;
    for a Sentinel service, `redis+sentinel://host:port,host:port/service/db` (it follows
    failovers), or for a Cluster, `redis+cluster://host:port,host:port` (seed nodes); the
    `rediss+` forms use TLS (see docs/deployment-redis.md).

    AUTH comes from the URL's userinfo or `password=` (and `username=`). TLS (`rediss://`) takes
    redis-py's options: `ssl_ca_certs=`, `ssl_certfile=`, `ssl_keyfile=`, `ssl_cert_reqs=`,
    `ssl_check_hostname=`. A failed command is retried `retries` times with exponential backoff
    (under a second in all with the defaults) before the error reaches the caller. At most
    `max_connections` are open at once; a busy caller waits (up to 5 s) for a free one.
    """
    parts = _split(url, "Redis")
    with needs("redis"):
        from redis.asyncio import BlockingConnectionPool, Redis
        from redis.asyncio.retry import Retry
        from redis.backoff import ExponentialBackoff
        from redis.exceptions import ConnectionError as RedisConnectionError
        from redis.exceptions import TimeoutError as RedisTimeoutError
    if parts.scheme in _TOPOLOGY:
        from elicitkit.server._backends import _redis_topology

        if password is not None:
            options["password"] = password
        common: dict[str, Any] = {
            "retry": Retry(ExponentialBackoff(cap=0.5, base=0.05), retries),
            "retry_on_error": [RedisConnectionError, RedisTimeoutError, ConnectionError, TimeoutError],
            "health_check_interval": health_check_interval,
            "max_connections": max_connections,
            "socket_connect_timeout": options.pop("socket_connect_timeout", 2.0),
            "socket_timeout": options.pop("socket_timeout", 5.0),
            "decode_responses": False,
        }
        build = (
            _redis_topology.cluster_client if "cluster" in parts.scheme else _redis_topology.sentinel_client
        )
        try:
            return build(parts, _safe(url), common, **options)
        except (TypeError, ValueError) as exc:
            if isinstance(exc, BackendURLError):
                raise
            raise BackendURLError(
                f"The Redis URL {_safe(url)!r} could not be used: {exc}. {_FORMS}."
            ) from exc
    if parts.scheme not in ("redis", "rediss"):
        raise BackendURLError(
            f"{_safe(url)!r} is not a Redis URL; write redis://host:port/db or rediss://..."
        )
    if parts.scheme == "redis" and any(key.startswith("ssl") for key in options):
        raise BackendURLError(
            f"TLS options were given for {_safe(url)!r}, which is plain TCP; use a rediss:// URL for TLS."
        )
    if not parts.hostname:
        raise BackendURLError(f"The Redis URL {_safe(url)!r} has no host; write redis://host:port/db.")
    try:
        parts.port  # noqa: B018 - urlsplit checks the port only when asked
    except ValueError:
        raise BackendURLError(
            f"The Redis URL {_safe(url)!r} has a port that is not a number from 0 to 65535; "
            "write redis://host:6379/0."
        ) from None
    db = parts.path.strip("/")
    if db and not db.isdigit():
        raise BackendURLError(
            f"The Redis URL {_safe(url)!r} names database {db!r}; a Redis database is a number, "
            "like redis://host:6379/0."
        )
    if password is not None:
        options["password"] = password
    retry = Retry(ExponentialBackoff(cap=0.5, base=0.05), retries)
    try:
        pool = BlockingConnectionPool.from_url(
            url,
            max_connections=max_connections,
            timeout=options.pop("pool_timeout", 5.0),
            retry=retry,
            retry_on_error=[RedisConnectionError, RedisTimeoutError, ConnectionError, TimeoutError],
            health_check_interval=health_check_interval,
            socket_connect_timeout=options.pop("socket_connect_timeout", 2.0),
            socket_timeout=options.pop("socket_timeout", 5.0),
            decode_responses=False,
            **options,
        )
    except (TypeError, ValueError) as exc:
        raise BackendURLError(f"The Redis URL {_safe(url)!r} could not be used: {exc}. {_FORMS}.") from exc
    return Redis.from_pool(pool)


def _split(url: str, what: str) -> SplitResult:
    try:
        parts = urlsplit(url)
    except ValueError as exc:
        raise BackendURLError(f"The {what} URL {_safe(url)!r} is not a URL ({exc}); use {_FORMS}.") from exc
    if parts.scheme not in ("sqlite", "memory", "redis", "rediss", *_TOPOLOGY, *_POSTGRES):
        raise BackendURLError(f"The {what} URL {_safe(url)!r} has no scheme elicitkit knows; use {_FORMS}.")
    return parts


def _table_prefix(prefix: str) -> str:
    """The Redis-style default prefix `elicitkit:` as a PostgreSQL table prefix `elicitkit_`."""
    return prefix.replace(":", "_")


def _no_redis_options(url: str, password: str | None, options: dict[str, Any]) -> None:
    given = sorted([*options, *(["password"] if password is not None else [])])
    if given:
        raise BackendURLError(
            f"Options {', '.join(given)} apply to Redis only, not to {_safe(url)!r}; drop them or use redis://."
        )


def _safe(url: str) -> str:
    """The URL with any password replaced, fit for an error message or a log."""
    try:
        parts = urlsplit(url)
    except ValueError:
        return "<unparsable URL>"
    if parts.password is None:
        return url
    host = parts.netloc.rsplit("@", 1)[1]
    user = parts.username or ""
    return parts._replace(netloc=f"{user}:***@{host}").geturl()
