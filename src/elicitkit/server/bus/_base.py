"""Routes "elicitation X finished" to whoever started X, and to no one else (S-23).

The browser that finishes an elicitation may reach a different task, or with several
replicas a different process, than the MCP session that started it. The session subscribes
to its own elicitation id; the web page publishes the id when the record reaches a final
state. `LocalBus` does this inside one process; a Redis pub/sub bus implements the same two
methods across replicas.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Awaitable, Callable, Iterator
from typing import TYPE_CHECKING, Protocol

from elicitkit.server._errors import BusUnavailableError
from elicitkit.server.store import TERMINAL, RecordStore

if TYPE_CHECKING:
    from mcp.server.connection import Connection

__all__ = ["Bus", "Held", "Listener", "Listeners", "ListeningBus", "LocalBus", "Unsubscribe"]

logger = logging.getLogger(__name__)

Listener = Callable[[str], Awaitable[None]]
Unsubscribe = Callable[[], None]


class Bus(Protocol):
    """Where "elicitation X finished" is announced and heard: `LocalBus` in one process,
    `RedisBus` or `PostgresBus` across replicas."""

    async def publish(self, elicitation_id: str) -> None:
        """Tell the subscribers of this id (and only them) that it reached a final state."""
        ...

    def subscribe(self, elicitation_id: str, listener: Listener) -> Unsubscribe:
        """Call `listener(id)` once when `elicitation_id` is published."""
        ...


class Listeners:
    """Who waits for which elicitation in this process. Each listener is handed out once.

    A server holds one entry per pending elicitation, almost always with one listener, so that
    listener is stored as it is (a list only for a second one) and `add` returns a slotted
    subscription object rather than a closure: about 250 bytes less per pending elicitation."""

    def __init__(self) -> None:
        self._by_id: dict[str, Listener | list[Listener]] = {}
        self._deliveries: set[asyncio.Task[None]] = set()

    def __contains__(self, elicitation_id: object) -> bool:
        return elicitation_id in self._by_id

    def __len__(self) -> int:
        return len(self._by_id)

    def ids(self) -> list[str]:
        """The ids someone here is waiting for."""
        return list(self._by_id)

    def add(self, elicitation_id: str, listener: Listener) -> Unsubscribe:
        """Add `listener` for `elicitation_id`; the returned call forgets it again."""
        present = self._by_id.get(elicitation_id)
        if present is None:
            self._by_id[elicitation_id] = listener
        elif isinstance(present, list):
            present.append(listener)
        else:
            self._by_id[elicitation_id] = [present, listener]
        return _Subscription(self, elicitation_id, listener)

    def remove(self, elicitation_id: str, listener: Listener) -> None:
        """Forget `listener` of `elicitation_id` (nothing happens if it was handed out already)."""
        present = self._by_id.get(elicitation_id)
        if isinstance(present, list):
            if listener in present:
                present.remove(listener)
            if len(present) == 1:
                self._by_id[elicitation_id] = present[0]
            elif not present:
                del self._by_id[elicitation_id]
        elif present is not None and present == listener:
            del self._by_id[elicitation_id]

    def take(self, elicitation_id: str) -> list[Listener]:
        """Remove and return the listeners of `elicitation_id`, so none runs twice."""
        present = self._by_id.pop(elicitation_id, None)
        if present is None:
            return []
        return present if isinstance(present, list) else [present]

    def deliver(self, elicitation_id: str) -> None:
        """Start the listeners of `elicitation_id` as tasks (a bus's reader must not wait on them)."""
        for listener in self.take(elicitation_id):
            task = asyncio.get_running_loop().create_task(call_listener(listener, elicitation_id))
            self._deliveries.add(task)
            task.add_done_callback(self._deliveries.discard)

    async def catch_up(self, store: RecordStore | None, bus: str) -> None:
        """Deliver the ids waited for that finished while the `bus` was not listening."""
        if store is None:
            return
        for elicitation_id in self.ids():
            try:
                record = await store.get(elicitation_id)
            except Exception as exc:  # the store may still be coming back; the next reconnect retries
                logger.warning("%s bus could not catch up on %s...: %s", bus, elicitation_id[:8], exc)
                continue
            if record is not None and record.state in TERMINAL and elicitation_id in self:
                self.deliver(elicitation_id)

    async def cancel_deliveries(self) -> None:
        """Stop the listeners still running (the bus is closing)."""
        for task in list(self._deliveries):
            task.cancel()
        await asyncio.gather(*self._deliveries, return_exceptions=True)


class _Subscription:
    """The `Unsubscribe` that `Listeners.add` returns: call it to forget that one listener."""

    __slots__ = ("elicitation_id", "listener", "listeners")

    def __init__(self, listeners: Listeners, elicitation_id: str, listener: Listener) -> None:
        self.listeners = listeners
        self.elicitation_id = elicitation_id
        self.listener = listener

    def __call__(self) -> None:
        self.listeners.remove(self.elicitation_id, self.listener)


async def call_listener(listener: Listener, elicitation_id: str) -> None:
    """Run one listener; one gone session must not stop the others' delivery."""
    try:
        await listener(elicitation_id)
    except Exception:
        logger.exception("elicitation completion listener failed")


class LocalBus:
    """An in-process `Bus`. Each listener runs at most once, then is dropped."""

    def __init__(self) -> None:
        self._listeners = Listeners()

    def subscribe(self, elicitation_id: str, listener: Listener) -> Unsubscribe:
        """Call `listener(id)` once when `elicitation_id` is published in this process."""
        return self._listeners.add(elicitation_id, listener)

    def waiting(self) -> int:
        """How many elicitations someone in this process waits for: a health and leak figure."""
        return len(self._listeners)

    async def publish(self, elicitation_id: str) -> None:
        """Run the listeners of `elicitation_id` now, each once."""
        for listener in self._listeners.take(elicitation_id):
            await call_listener(listener, elicitation_id)


_OWNED = "elicitkit.held"  # a connection's `state` entry: the ids held for it


class Held:
    """Listeners that outlive the call that subscribed them (the -32042 links), each let go as
    soon as nothing can use it: when its record finishes (`pop`), when its link expires (a
    timer), or when the MCP connection it would notify closes. A listener holds its session, so
    none may wait for a sweep that only comes with the next elicitation. `clock` is the wall
    clock the links' expiries are stamped by (the store's)."""

    def __init__(self, clock: Callable[[], float] = time.time) -> None:
        self.clock = clock
        self._by_id: dict[str, tuple[Unsubscribe, float, asyncio.TimerHandle | None, set[str] | None]] = {}

    def __len__(self) -> int:
        return len(self._by_id)

    def __iter__(self) -> Iterator[str]:
        """The ids whose listeners are held now."""
        return iter(list(self._by_id))

    def hold(
        self,
        elicitation_id: str,
        unsubscribe: Unsubscribe,
        *,
        expires_at: float,
        connection: Connection | None,
    ) -> None:
        """Keep `unsubscribe`'s listener until `expires_at` (by `clock`) or until `connection` (the
        SDK's `Connection`, None when unknown) closes, whichever comes first."""
        self.pop(elicitation_id)
        try:
            timer: asyncio.TimerHandle | None = asyncio.get_running_loop().call_later(
                max(0.0, expires_at - self.clock()), self.pop, elicitation_id
            )
        except RuntimeError:  # not asyncio: `release_due` (the sweep) lets it go
            timer = None
        owned = None
        if connection is not None:
            owned = connection.state.get(_OWNED)
            if not isinstance(owned, set):
                owned = connection.state[_OWNED] = set()
                connection.exit_stack.callback(self._release_all, owned)  # once per connection
            owned.add(elicitation_id)
        self._by_id[elicitation_id] = (unsubscribe, expires_at, timer, owned)

    def pop(self, elicitation_id: str, default: object = None) -> object:
        """Let the listener of `elicitation_id` go (its record finished, or it is due)."""
        entry = self._by_id.pop(elicitation_id, None)
        if entry is None:
            return default
        unsubscribe, _, timer, owned = entry
        if timer is not None:
            timer.cancel()
        if owned is not None:
            owned.discard(elicitation_id)
        unsubscribe()
        return entry

    def release_due(self, now: float) -> None:
        """Let go every listener whose link expired by `now`."""
        for elicitation_id, (_, expires_at, _, _) in list(self._by_id.items()):
            if expires_at <= now:
                self.pop(elicitation_id)

    def _release_all(self, owned: set[str]) -> None:
        for elicitation_id in list(owned):
            self.pop(elicitation_id)


class ListeningBus:
    """What the buses across replicas share: one listening task per process, started by the
    first `subscribe` (or `start()`), delivering to this process's listeners. A subclass writes
    `_listen()` (connect, set `connected`, `catch_up`, deliver; reconnect on loss) and `publish`."""

    backend = "a bus"
    """The server the bus runs on, as a sentence names it ("Redis", "PostgreSQL")."""

    def __init__(self, store: RecordStore | None) -> None:
        self.store = store
        self._listeners = Listeners()
        self._reader: asyncio.Task[None] | None = None
        self.connected = asyncio.Event()
        """Set while the bus listens; cleared during an outage (tests and health checks)."""

    def start(self) -> None:
        """Start listening now rather than at the first `subscribe` (must run in the event loop)."""
        if self._reader is None or self._reader.done():
            name = f"elicitkit-{self.backend.lower()}-bus"
            self._reader = asyncio.get_running_loop().create_task(self._listen(), name=name)

    def subscribe(self, elicitation_id: str, listener: Listener) -> Unsubscribe:
        """Call `listener(id)` once when `elicitation_id` is published on any replica (starts listening)."""
        unsubscribe = self._listeners.add(elicitation_id, listener)
        self.start()
        return unsubscribe

    def waiting(self) -> int:
        """How many elicitations someone in this process waits for: a health and leak figure."""
        return len(self._listeners)

    async def wait_connected(self, within: float = 10.0) -> None:
        """Start listening and wait until it is (so a test or a probe knows the bus is live)."""
        self.start()
        await asyncio.wait_for(self.connected.wait(), within)

    async def _listen(self) -> None:
        raise NotImplementedError

    async def _stop_listening(self) -> None:
        """Stop the listening task and the listeners still running (the bus is closing)."""
        reader, self._reader = self._reader, None
        if reader is not None:
            reader.cancel()
            await asyncio.gather(reader, return_exceptions=True)
        await self._listeners.cancel_deliveries()

    def _unpublished(self, elicitation_id: str, exc: BaseException) -> BusUnavailableError:
        """The error of a `publish` that did not reach the server."""
        return BusUnavailableError(
            f"The completion of elicitation {elicitation_id[:8]}... could not be published, because "
            f"{self.backend} did not answer ({exc}). The record is saved; the client finds it "
            "finished when it retries."
        )
