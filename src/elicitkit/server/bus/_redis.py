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
from redis.asyncio import Redis
from redis.asyncio.client import PubSub

from elicitkit.server.bus import Listener, Listeners, Unsubscribe, call_listener
from elicitkit.server.errors import BusUnavailableError
from elicitkit.server.store import COMPLETIONS_CHANNEL, TERMINAL, RedisStore, Store

__all__ = ["RedisBus"]

logger = logging.getLogger(__name__)

_DOWN = (redis_errors.ConnectionError, redis_errors.TimeoutError, OSError)


class RedisBus:
    """A `Bus` over Redis pub/sub (redis-py asyncio), shared by every replica of a server.

    `client` is a `redis.asyncio.Redis` (`open_bus("redis://...")` builds one with retries and
    health checks); `store`, when given, lets the bus catch up on completions published while
    it was disconnected. When that store is a `RedisStore` on the same Redis server announcing
    on this bus's channel, its transitions already publish every final state, so `publish`
    sends nothing more. The listening task starts with the first `subscribe` (or `start()`)
    and stops with `close()`.
    """

    def __init__(
        self,
        client: Redis,
        *,
        store: Store | None = None,
        channel: str = COMPLETIONS_CHANNEL,
        backoff_base: float = 0.05,
        backoff_cap: float = 2.0,
        owns_client: bool = True,
    ) -> None:
        self.client = client
        self.store = store
        self.channel = channel
        self.backoff_base = backoff_base
        self.backoff_cap = backoff_cap
        self._owns_client = owns_client
        self._store_announces = (
            isinstance(store, RedisStore)
            and store.completions_channel == channel
            and _same_server(store.client, client)
        )
        self._listeners = Listeners()
        self._reader: asyncio.Task[None] | None = None
        self._deliveries: set[asyncio.Task[None]] = set()
        self.connected = asyncio.Event()
        """Set while the bus is subscribed; cleared during an outage (tests and health checks)."""

    def start(self) -> None:
        """Start listening now rather than at the first `subscribe` (must run in the event loop)."""
        if self._reader is None or self._reader.done():
            self._reader = asyncio.get_running_loop().create_task(self._listen(), name="elicitkit-redis-bus")

    def subscribe(self, elicitation_id: str, listener: Listener) -> Unsubscribe:
        unsubscribe = self._listeners.add(elicitation_id, listener)
        self.start()
        return unsubscribe

    def waiting(self) -> int:
        """How many elicitations someone in this process waits for: a health and leak figure."""
        return len(self._listeners)

    async def publish(self, elicitation_id: str) -> None:
        if self._store_announces:
            return  # the store's transition published it, atomically with the write
        try:
            await self.client.publish(self.channel, elicitation_id)
        except _DOWN as exc:
            raise BusUnavailableError(
                f"The completion of elicitation {elicitation_id[:8]}... could not be published, because "
                f"Redis did not answer ({exc}). The record is saved; the client finds it finished "
                "when it retries."
            ) from exc

    async def wait_connected(self, within: float = 10.0) -> None:
        """Start listening and wait until subscribed (so a test or a probe knows the bus is live)."""
        self.start()
        await asyncio.wait_for(self.connected.wait(), within)

    async def close(self) -> None:
        reader, self._reader = self._reader, None
        if reader is not None:
            reader.cancel()
            await asyncio.gather(reader, return_exceptions=True)
        for task in list(self._deliveries):
            task.cancel()
        await asyncio.gather(*self._deliveries, return_exceptions=True)
        if self._owns_client:
            await self.client.aclose()

    # -- listening ------------------------------------------------------------------------

    async def _listen(self) -> None:
        failures = 0
        while True:
            pubsub: PubSub = self.client.pubsub()
            try:
                await pubsub.subscribe(self.channel)
                while True:
                    message = await pubsub.get_message(timeout=1.0)
                    if message is None:
                        continue
                    if message["type"] == "message":
                        self._dispatch(message)
                    elif message["type"] == "subscribe":
                        # Redis confirms the subscription at first and after each reconnection
                        # (redis-py resubscribes by itself on short outages): catch up then.
                        self.connected.set()
                        if failures:
                            logger.warning("Redis bus subscribed again after %d failed attempt(s)", failures)
                        failures = 0
                        await self._catch_up()
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
                    await pubsub.aclose()  # type: ignore[no-untyped-call]

    def _dispatch(self, message: dict[str, Any]) -> None:
        data = message.get("data")
        elicitation_id = data.decode() if isinstance(data, bytes) else str(data)
        self._deliver(elicitation_id)

    def _deliver(self, elicitation_id: str) -> None:
        for listener in self._listeners.take(elicitation_id):
            task = asyncio.get_running_loop().create_task(call_listener(listener, elicitation_id))
            self._deliveries.add(task)
            task.add_done_callback(self._deliveries.discard)

    async def _catch_up(self) -> None:
        """Deliver the ids we wait for that finished while we were not subscribed."""
        if self.store is None:
            return
        for elicitation_id in self._listeners.ids():
            try:
                record = await self.store.get(elicitation_id)
            except Exception as exc:  # the store may still be coming back; the next reconnect retries
                logger.warning("Redis bus could not catch up on %s...: %s", elicitation_id[:8], exc)
                continue
            if record is not None and record.state in TERMINAL and elicitation_id in self._listeners:
                self._deliver(elicitation_id)


def _same_server(a: Redis, b: Redis) -> bool:
    """Whether two clients reach one Redis server (its pub/sub channels span all databases)."""
    if a is b:
        return True
    first, second = a.connection_pool.connection_kwargs, b.connection_pool.connection_kwargs
    where = ("host", "port", "path")
    known = any(first.get(key) for key in ("host", "path"))
    return known and all(first.get(key) == second.get(key) for key in where)
