"""A `Bus` across replicas over PostgreSQL LISTEN/NOTIFY: "elicitation X finished" reaches every
replica, and each calls only its own listeners for X, so the notice still reaches only the session
that started X (S-23).

One channel, listened to once per process on a connection of its own (outside the pool, since a
pooled connection is handed to others between statements). The `PostgresStore` notifies each
final state in the same statement as the write, so a bus given that store sends nothing more.
NOTIFY keeps nothing for a listener that is not connected, so each time the bus (re)connects it
asks the store, when given one, about the ids it waits for and delivers those already finished.
A lost connection (PostgreSQL restarted, network cut) is noticed by a periodic check, logged,
and reopened with capped exponential backoff. A payload is at most 8000 bytes: an id longer than
`_MAX_PAYLOAD` travels as its SHA-256, matched against the ids waited for.
"""

from __future__ import annotations

import asyncio
import hashlib
import logging
from typing import TYPE_CHECKING, Any

from elicitkit.server.bus._base import ListeningBus
from elicitkit.server.store import POSTGRES_CHANNEL, PostgresStore, Store, import_asyncpg

if TYPE_CHECKING:
    import asyncpg

__all__ = ["PostgresBus"]

logger = logging.getLogger(__name__)

_MAX_PAYLOAD = 512  # well under PostgreSQL's 8000-byte limit; record ids are 32 characters
_HASHED = "sha256:"


def payload_for(elicitation_id: str) -> str:
    """What NOTIFY carries for an id: the id itself, or its hash when it is too long."""
    if len(elicitation_id.encode()) <= _MAX_PAYLOAD and not elicitation_id.startswith(_HASHED):
        return elicitation_id
    return _HASHED + hashlib.sha256(elicitation_id.encode()).hexdigest()


class PostgresBus(ListeningBus):
    """A `Bus` over PostgreSQL LISTEN/NOTIFY (asyncpg), shared by every replica of a server.

    `dsn` is the database URL; `store`, when given, lets the bus catch up on completions
    notified while it was disconnected, and when it is a `PostgresStore` on the same database
    notifying on this bus's channel, `publish` sends nothing (the store's transition did).
    `health_every` is how often the listening connection is checked. The listening task starts
    with the first `subscribe` (or `start()`) and stops with `close()`.
    """

    backend = "PostgreSQL"

    def __init__(
        self,
        dsn: str,
        *,
        store: Store | None = None,
        channel: str = POSTGRES_CHANNEL,
        health_every: float = 1.0,
        backoff_base: float = 0.05,
        backoff_cap: float = 2.0,
        timeout: float = 10.0,
    ) -> None:
        super().__init__(store)
        self.timeout = timeout
        """A `publish`'s overall deadline: past it, `BusUnavailableError`."""
        self._asyncpg = import_asyncpg()
        self.dsn = dsn
        self.channel = channel
        self.health_every = health_every
        self.backoff_base = backoff_base
        self.backoff_cap = backoff_cap
        self._store_announces = (
            isinstance(store, PostgresStore) and store.completions_channel == channel and store.dsn == dsn
        )
        self._sender: asyncpg.Connection | None = None
        self._sending = asyncio.Lock()

    async def publish(self, elicitation_id: str) -> None:
        """Announce `elicitation_id` to every replica (`pg_notify`, nothing when the store's write notifies);
        `BusUnavailableError` past `timeout`."""
        if self._store_announces:
            return  # the store's transition notified, in the same statement as the write
        try:
            async with asyncio.timeout(self.timeout), self._sending:  # one statement at a time
                if self._sender is None or self._sender.is_closed():
                    self._sender = await self._asyncpg.connect(self.dsn, timeout=5)
                await self._sender.execute(
                    "SELECT pg_notify($1, $2)", self.channel, payload_for(elicitation_id), timeout=5
                )
        except (
            self._asyncpg.PostgresError,
            self._asyncpg.InterfaceError,
            self._asyncpg.exceptions.InternalClientError,
            OSError,
            TimeoutError,
        ) as exc:  # every error of the driver
            sender, self._sender = self._sender, None
            if sender is not None:
                sender.terminate()
            raise self._unpublished(elicitation_id, exc) from exc

    async def close(self) -> None:
        """Stop listening and close the bus's connections."""
        await self._stop_listening()
        sender, self._sender = self._sender, None
        if sender is not None:
            sender.terminate()

    # -- listening ------------------------------------------------------------------------

    async def _listen(self) -> None:
        failures = 0
        while True:
            conn: asyncpg.Connection | None = None
            lost = asyncio.Event()
            try:
                conn = await self._asyncpg.connect(self.dsn, timeout=5)
                conn.add_termination_listener(lambda _conn, lost=lost: lost.set())
                await conn.add_listener(self.channel, self._on_notify)
                self.connected.set()
                if failures:
                    logger.warning("PostgreSQL bus listening again after %d failed attempt(s)", failures)
                failures = 0
                await self._listeners.catch_up(self.store, self.backend)
                while not lost.is_set():
                    try:
                        await asyncio.wait_for(lost.wait(), self.health_every)
                    except TimeoutError:
                        await conn.execute("SELECT 1", timeout=5)  # a dead peer is found here
                raise ConnectionError("the listening connection was closed")
            except Exception as exc:  # anything but cancellation: log, back off, listen again
                self.connected.clear()
                delay = min(self.backoff_cap, self.backoff_base * 2**failures)
                failures += 1
                logger.warning("PostgreSQL bus lost its connection (%s); retrying in %.2fs", exc, delay)
                await asyncio.sleep(delay)
            finally:
                self.connected.clear()
                if conn is not None:
                    conn.terminate()

    def _on_notify(self, _conn: Any, _pid: int, _channel: str, payload: object) -> None:
        payload = str(payload)
        if payload.startswith(_HASHED):
            for elicitation_id in self._listeners.ids():
                if payload_for(elicitation_id) == payload:
                    self._listeners.deliver(elicitation_id)
            return
        self._listeners.deliver(payload)
