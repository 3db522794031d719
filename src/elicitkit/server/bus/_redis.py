"""A `Bus` across replicas: Redis pub/sub carries "elicitation X finished" to every replica, and
each replica calls only its own listeners for X, so the notice still reaches only the session
that started X (S-23).

All completions travel on one channel, subscribed once per process: a session subscribing to
its id needs no round trip to Redis, so it cannot miss a completion that races its own
subscription. The `RedisStore` itself publishes each record that reaches a final state, in the
same script as the write (see `_redis_store.py`); a bus given that store does not publish it
again. Pub/sub keeps nothing for a subscriber that is not connected, so each time Redis
confirms the subscription (at start and after every reconnection) the bus asks the store, when
given one, about the ids it waits for and delivers those already finished. Redis going away is
logged, retried with capped exponential backoff, and resubscribed; publishing meanwhile
raises `BusUnavailableError`.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from typing import Any

from redis import exceptions as redis_errors
from redis.asyncio import Redis, RedisCluster
from redis.asyncio.client import PubSub
from redis.asyncio.cluster import ClusterPubSub

from elicitkit.server.bus._base import ListeningBus
from elicitkit.server.store import (
    COMPLETIONS_CHANNEL,
    RedisStore,
    Store,
    cluster_gate,
    shard_channel,
    shard_channels,
)

__all__ = ["RedisBus"]

logger = logging.getLogger(__name__)

_DOWN = (redis_errors.ConnectionError, redis_errors.TimeoutError, redis_errors.RedisClusterException, OSError)


class RedisBus(ListeningBus):
    """A `Bus` over Redis pub/sub (redis-py asyncio), shared by every replica of a server.

    `client` is a `redis.asyncio.Redis` (`open_bus("redis://...")` builds one with retries and
    health checks); `store`, when given, lets the bus catch up on completions published while
    it was disconnected. When that store is a `RedisStore` on the same Redis server announcing
    on this bus's channel, its transitions already publish every final state, so `publish`
    sends nothing more. The listening task starts with the first `subscribe` (or `start()`)
    and stops with `close()`. Every error of a `publish` is `BusUnavailableError`, within `timeout`.
    """

    backend = "Redis"

    def __init__(
        self,
        client: Redis | RedisCluster,
        *,
        store: Store | None = None,
        channel: str = COMPLETIONS_CHANNEL,
        backoff_base: float = 0.05,
        backoff_cap: float = 2.0,
        owns_client: bool = True,
        timeout: float = 10.0,
    ) -> None:
        super().__init__(store)
        self.timeout = timeout
        """A `publish`'s overall deadline: past it, `BusUnavailableError`."""
        self.client = client
        self.channel = channel
        self.backoff_base = backoff_base
        self.backoff_cap = backoff_cap
        self._owns_client = owns_client
        self.cluster = isinstance(client, RedisCluster)
        self._gate = cluster_gate(client)
        self._initializing = asyncio.Lock()
        self._initialized = False
        self.channels = shard_channels(channel) if self.cluster else [channel]
        """What the bus listens to: on a Cluster, one sharded channel per hash tag of the store."""
        self._store_announces = (
            isinstance(store, RedisStore)
            and store.completions_channel == channel
            and _same_server(store.client, client)
        )

    async def publish(self, elicitation_id: str) -> None:
        """Announce `elicitation_id` to every replica (nothing when the store's write announces it);
        `BusUnavailableError` past `timeout`."""
        if self._store_announces:
            return  # the store's transition published it, atomically with the write
        try:
            async with asyncio.timeout(self.timeout):
                await self._publish(elicitation_id)
        except (redis_errors.RedisError, redis_errors.RedisClusterException, OSError, TimeoutError) as exc:
            raise self._unpublished(elicitation_id, exc) from exc

    async def _publish(self, elicitation_id: str) -> None:
        if isinstance(self.client, RedisCluster):
            async with self._gate:
                if not self._initialized:  # the first use by many tasks at once must not race
                    async with self._initializing:
                        await self.client.initialize()
                        self._initialized = True
                await self.client.spublish(shard_channel(self.channel, elicitation_id), elicitation_id)
        else:
            await self.client.publish(self.channel, elicitation_id)

    async def close(self) -> None:
        """Stop listening, and close the client unless it was given with `owns_client=False`."""
        await self._stop_listening()
        if self._owns_client:
            await self.client.aclose()

    # -- listening ------------------------------------------------------------------------

    async def _listen(self) -> None:
        failures = 0
        while True:
            pubsub: PubSub = self.client.pubsub()
            try:
                confirmed = 0
                if isinstance(pubsub, ClusterPubSub):
                    assert isinstance(self.client, RedisCluster)
                    await self.client.initialize()  # learn the slot map: which primary has which channel
                    await pubsub.ssubscribe(*self.channels)
                else:
                    await pubsub.subscribe(self.channel)
                while True:
                    if isinstance(pubsub, ClusterPubSub):  # polls each primary's connection in turn
                        message = await pubsub.get_sharded_message(timeout=0.05)
                    else:
                        message = await pubsub.get_message(timeout=1.0)
                    if message is None:
                        continue
                    kind = _text(message["type"])
                    if kind in ("message", "smessage"):
                        self._dispatch(message)
                    elif kind in ("subscribe", "ssubscribe"):
                        # Redis confirms each channel at first and after each reconnection
                        # (redis-py resubscribes by itself on short outages): once all are
                        # confirmed, and on every later confirmation, catch up.
                        confirmed += 1
                        if confirmed < len(self.channels):
                            continue
                        self.connected.set()
                        if failures:
                            logger.warning("Redis bus subscribed again after %d failed attempt(s)", failures)
                        failures = 0
                        await self._listeners.catch_up(self.store, self.backend)
            except Exception as exc:  # anything but cancellation: log, back off, subscribe again
                self.connected.clear()
                delay = min(self.backoff_cap, self.backoff_base * 2**failures)
                failures += 1
                if isinstance(exc, _DOWN):
                    logger.warning("Redis bus lost its subscription (%s); retrying in %.2fs", exc, delay)
                else:
                    logger.exception("Redis bus listener failed; retrying in %.2fs", delay)
                await asyncio.sleep(delay)
            finally:
                self.connected.clear()
                with contextlib.suppress(*_DOWN):
                    await pubsub.aclose()  # type: ignore[no-untyped-call, unused-ignore]  # untyped in older redis-py

    def _dispatch(self, message: dict[str, Any]) -> None:
        data = message.get("data")
        elicitation_id = data.decode() if isinstance(data, bytes) else str(data)
        self._listeners.deliver(elicitation_id)


def _text(value: bytes | str) -> str:
    return value.decode() if isinstance(value, bytes) else value


def _same_server(a: Redis | RedisCluster, b: Redis | RedisCluster) -> bool:
    """Whether two clients reach one Redis server, Sentinel service or Cluster (pub/sub channels
    span all databases)."""
    if a is b:
        return True
    if isinstance(a, RedisCluster) or isinstance(b, RedisCluster):
        if not (isinstance(a, RedisCluster) and isinstance(b, RedisCluster)):
            return False
        return bool(set(a.nodes_manager.startup_nodes) & set(b.nodes_manager.startup_nodes))
    services = [getattr(client.connection_pool, "service_name", None) for client in (a, b)]
    if any(services):
        return services[0] == services[1] and _sentinels(a) == _sentinels(b)
    first, second = a.connection_pool.connection_kwargs, b.connection_pool.connection_kwargs
    where = ("host", "port", "path")
    known = any(first.get(key) for key in ("host", "path"))
    return known and all(first.get(key) == second.get(key) for key in where)


def _sentinels(client: Redis) -> set[tuple[Any, Any]]:
    manager = getattr(client.connection_pool, "sentinel_manager", None)
    found = getattr(manager, "sentinels", [])
    return {
        (s.connection_pool.connection_kwargs.get("host"), s.connection_pool.connection_kwargs.get("port"))
        for s in found
    }
