"""Elicitation records and their state machine.

A URL-mode elicitation outlives the request that started it: the person finishes it in a
browser, maybe after the server restarted. Its record is bound to the *user* (issuer and
subject of the verified MCP token) and the client, never to a session id alone (S-30), and
moves through its states only by conditional, atomic transitions, so two browsers racing on
one record cannot both complete it.

`Store` is the interface; `SQLiteStore` (the default, in `_sqlite_store`) and `MemoryStore`
implement it. A Redis backend implements the same methods.
"""

from __future__ import annotations

import json
import logging
import secrets
import time
from collections.abc import AsyncIterator, Callable, Collection, Mapping
from contextlib import asynccontextmanager
from dataclasses import dataclass, field, replace
from types import MappingProxyType
from typing import Any, Literal, Protocol, runtime_checkable

import anyio

from elicitkit.server._errors import BackendUnavailableError, RecordExistsError
from elicitkit.server._user import User

__all__ = [
    "ACTIVE",
    "TERMINAL",
    "CounterStore",
    "MemoryStore",
    "Record",
    "State",
    "Store",
    "holding",
    "new_elicitation_id",
]

logger = logging.getLogger(__name__)

State = Literal["pending", "opened", "completed", "declined", "cancelled", "expired"]
ACTIVE: frozenset[State] = frozenset({"pending", "opened"})
TERMINAL: frozenset[State] = frozenset({"completed", "declined", "cancelled", "expired"})

_ID_BYTES = 24  # 192 random bits, well above the 128 the house rules ask for


def new_elicitation_id() -> str:
    """A fresh, unguessable record id (URL-safe, no personal data in it)."""
    return secrets.token_urlsafe(_ID_BYTES)


@dataclass(frozen=True)
class Record:
    """One URL-mode elicitation: who it is for, what it asks, and where it stands."""

    user: User
    client_id: str
    flow: str
    message: str
    expires_at: float
    id: str = field(default_factory=new_elicitation_id)
    state: State = "pending"
    created_at: float = field(default_factory=time.time)
    updated_at: float = field(default_factory=time.time)
    details: dict[str, Any] = field(default_factory=dict)

    @classmethod
    def new(
        cls,
        user: User,
        client_id: str,
        flow: str,
        message: str,
        *,
        ttl: float,
        details: dict[str, Any] | None = None,
        now: float | None = None,
    ) -> Record:
        """A pending record that expires `ttl` seconds from `now` (the wall clock by default)."""
        now = time.time() if now is None else now
        return cls(
            user=user,
            client_id=client_id,
            flow=flow,
            message=message,
            expires_at=now + ttl,
            created_at=now,
            updated_at=now,
            details=dict(details or {}),
        )

    @classmethod
    def from_row(cls, row: Any) -> Record:
        """A record read back from a SQL row of `row()`'s column order (details as JSON text)."""
        return cls(
            id=row[0],
            user=User(issuer=row[1], subject=row[2]),
            client_id=row[3],
            flow=row[4],
            message=row[5],
            state=row[6],
            created_at=row[7],
            updated_at=row[8],
            expires_at=row[9],
            details=details_from(row[10]),
        )

    def row(self) -> tuple[Any, ...]:
        """The record as a SQL row, in the column order the SQL backends share (details as JSON)."""
        user = self.user
        return (
            self.id,
            user.issuer,
            user.subject,
            self.client_id,
            self.flow,
            self.message,
            self.state,
            self.created_at,
            self.updated_at,
            self.expires_at,
            json.dumps(self.details),
        )

    def effective(self, now: float | None = None) -> Record:
        """This record as it stands at `now`: an active record past its expiry reads as expired."""
        now = time.time() if now is None else now
        if self.state in ACTIVE and now >= self.expires_at:
            return replace(self, state="expired")
        return self


def details_from(stored: str | bytes) -> dict[str, Any]:
    """A record's details from the JSON a backend stored; most records have none (`{}`),
    which is not worth a parse."""
    if stored in ("{}", b"{}"):
        return {}
    details: dict[str, Any] = json.loads(stored)
    return details


@runtime_checkable
class RecordStore(Protocol):
    """The elicitation records and their state machine: what `UrlMode` and the pages need.

    Every method is safe to call from many tasks (and, for shared backends, many
    processes) at once; `transition` is the only way a record changes state.
    """

    async def create(self, record: Record, *, max_active: int | None = None) -> bool:
        """Insert a new record. Ids are random; a collision raises `RecordExistsError`, on every store.

        With `max_active`, refuse (return False, write nothing) when the record's user already
        has that many active, unexpired records: checked and written as one atomic step across
        every process sharing the store, so concurrent creates of one user on many replicas
        cannot pass the cap together. Returns True when the record was created."""
        ...

    async def count_active(self, user: User) -> int:
        """How many of `user`'s records are active and unexpired: what the per-user cap counts."""
        ...

    async def get(self, elicitation_id: str) -> Record | None:
        """The record as it stands now (expired if past its expiry), or None if unknown."""
        ...

    async def transition(
        self, elicitation_id: str, *, from_states: Collection[State], to: State, user: User | None = None
    ) -> Record | None:
        """Move a record to `to` only if it is in one of `from_states`, not past its expiry (unless
        `to` is "expired"), and bound to `user` when given. Atomic: returns the updated record,
        or None when the condition did not hold and nothing changed."""
        ...

    async def sweep(self, *, now: float | None = None, keep_for: float = 86400.0) -> int:
        """Mark overdue active records expired and delete terminal records older than `keep_for`
        seconds; returns how many records changed."""
        ...


@runtime_checkable
class CounterStore(Protocol):
    """Counters that only go up, shared by every process on the store: what a bound that a
    client must not be able to reset needs (the rounds of a 2026-07-28 URL elicitation)."""

    async def increment(self, key: str, *, ttl: float) -> int:
        """Add one to the counter `key` and return its new value, atomically across every
        process sharing the store; a counter unchanged for `ttl` seconds starts again at 0."""
        ...


@runtime_checkable
class BlobStore(Protocol):
    """Opaque, already encrypted blobs under a key: what the `Vault` needs."""

    async def put_blob(self, key: str, data: bytes) -> None:
        """Store an opaque (already encrypted) blob under `key`, replacing any earlier one."""
        ...

    async def get_blob(self, key: str) -> bytes | None:
        """The blob under `key`, or None when there is none."""
        ...

    async def delete_blob(self, key: str) -> None:
        """Delete the blob under `key`; nothing happens when there is none."""
        ...

    def blob_keys(self, prefix: str = "") -> AsyncIterator[str]:
        """Every blob key that starts with `prefix`, read in bounded batches, so a store of any size
        is listed in steady memory; a blob written or deleted meanwhile may or may not be listed."""
        ...

    async def replace_blob(self, key: str, old: bytes, new: bytes) -> bool:
        """Put `new` under `key` only if `key` still holds exactly `old`, atomically (compare and
        set); False if it changed or went away meanwhile, so a concurrent write is never lost."""
        ...


@runtime_checkable
class OnceStore(Protocol):
    """Short-lived values read exactly once: what an OAuth `state` needs."""

    async def put_once(self, key: str, data: bytes, *, ttl: float) -> None:
        """Keep a short-lived value that `take_once` can read exactly once (OAuth `state`)."""
        ...

    async def take_once(self, key: str) -> bytes | None:
        """Return and delete the value, or None if unknown, already taken or past its ttl."""
        ...


@runtime_checkable
class LockStore(Protocol):
    """Locks with a ttl shared by every process on the store: what `holding` needs."""

    async def claim(self, key: str, *, ttl: float) -> str | None:
        """Take the lock `key` for `ttl` seconds if no one holds it (or its holder's ttl ran out).

        Returns a random holder token, or None when someone else holds it. Atomic across every
        process sharing the store, so replicas can take turns (refreshing one user's OAuth
        token); the ttl frees the lock of a holder that died."""
        ...

    async def release(self, key: str, token: str) -> None:
        """Free `key` if `token` still holds it; a lock taken over after its ttl stays taken."""
        ...


@runtime_checkable
class Store(RecordStore, CounterStore, BlobStore, OnceStore, LockStore, Protocol):
    """Where records, counters, sealed blobs, single-use values and locks live: one backend for all,
    each user of it typed with the part it needs.

    `clock` is the wall clock (seconds since the epoch) the store stamps and compares expiries
    by, and the one clock of the `UrlMode` that uses the store: its links, the browser's
    sessions, OAuth tokens and consents, and 2026-07-28 question timeouts all read it (a test
    passes a clock it moves by hand, `MemoryStore(clock=...)`)."""

    clock: Callable[[], float]

    async def close(self) -> None:
        """Let go of what the store holds (connections, threads); call it once, at shutdown."""
        ...


class MemoryStore:
    """A `Store` in this process's memory: for tests and throwaway servers. Lost on restart.

    `clock` is the wall clock the store reads (seconds since the epoch), as in every store (see
    `Store`): a test advances its own instead of sleeping."""

    def __init__(self, *, clock: Callable[[], float] = time.time) -> None:
        self.clock = clock
        self._records: dict[str, Record] = {}
        self._blobs: dict[str, bytes] = {}
        self._once: dict[str, tuple[bytes, float]] = {}
        self._claims: dict[str, tuple[str, float]] = {}
        self._counters: dict[str, tuple[int, float]] = {}

    @property
    def records(self) -> Mapping[str, Record]:
        """Every record held, by id, as written (a read-only view): what a test of a server's
        tools looks at to see which flows were created and where each one stands."""
        return MappingProxyType(self._records)

    async def create(self, record: Record, *, max_active: int | None = None) -> bool:
        """Insert `record`; False, with nothing written, when its user has `max_active` open already
        (`RecordStore.create`)."""
        # No await between the check and the write: atomic within the event loop.
        if record.id in self._records:
            raise RecordExistsError(record.id)
        if max_active is not None and self._active(record.user) >= max_active:
            return False
        self._records[record.id] = record
        return True

    async def get(self, elicitation_id: str) -> Record | None:
        """The record as it stands by the store's clock (expired when past its expiry), or None
        (`RecordStore.get`)."""
        record = self._records.get(elicitation_id)
        return None if record is None else record.effective(self.clock())

    async def count_active(self, user: User) -> int:
        """How many of `user`'s records are open and unexpired by the store's clock
        (`RecordStore.count_active`)."""
        return self._active(user)

    def _active(self, user: User) -> int:
        now = self.clock()
        return sum(
            1 for r in self._records.values() if r.user == user and r.state in ACTIVE and now < r.expires_at
        )

    async def increment(self, key: str, *, ttl: float) -> int:
        """Add one to the counter `key` and return its value; unchanged for `ttl` seconds, it starts again
        (`CounterStore.increment`)."""
        now = self.clock()
        count, deadline = self._counters.get(key, (0, 0.0))
        count = count + 1 if now < deadline else 1
        self._counters[key] = (count, now + ttl)
        return count

    async def transition(
        self, elicitation_id: str, *, from_states: Collection[State], to: State, user: User | None = None
    ) -> Record | None:
        """Move the record to `to` if its state, expiry and user allow it, in one atomic step; None otherwise
        (`RecordStore.transition`)."""
        # No await between the check and the write: atomic within the event loop.
        now = self.clock()
        record = self._records.get(elicitation_id)
        if record is None or record.state not in from_states:
            return None
        if user is not None and record.user != user:
            return None
        if to != "expired" and now >= record.expires_at:
            return None
        updated = replace(record, state=to, updated_at=now)
        self._records[elicitation_id] = updated
        return updated

    async def sweep(self, *, now: float | None = None, keep_for: float = 86400.0) -> int:
        """Expire overdue records and drop those finished `keep_for` seconds ago; how many changed
        (`RecordStore.sweep`)."""
        now = self.clock() if now is None else now
        changed = 0
        for rid, record in list(self._records.items()):
            if record.state in ACTIVE and now >= record.expires_at:
                self._records[rid] = replace(record, state="expired", updated_at=now)
                changed += 1
            elif record.state in TERMINAL and now - record.updated_at > keep_for:
                del self._records[rid]
                changed += 1
        for key, (_, deadline) in list(self._once.items()):
            if now >= deadline:
                del self._once[key]
        for key, (_, deadline) in list(self._claims.items()):
            if now >= deadline:
                del self._claims[key]
        for key, (_, deadline) in list(self._counters.items()):
            if now >= deadline:
                del self._counters[key]
        return changed

    async def put_blob(self, key: str, data: bytes) -> None:
        """Keep the sealed `data` under `key`, replacing what was there (`BlobStore.put_blob`)."""
        self._blobs[key] = bytes(data)

    async def get_blob(self, key: str) -> bytes | None:
        """The blob under `key`, or None (`BlobStore.get_blob`)."""
        return self._blobs.get(key)

    async def delete_blob(self, key: str) -> None:
        """Delete the blob under `key`; nothing happens when there is none (`BlobStore.delete_blob`)."""
        self._blobs.pop(key, None)

    async def blob_keys(self, prefix: str = "") -> AsyncIterator[str]:
        """Every blob key that starts with `prefix`, read in bounded batches (`BlobStore.blob_keys`)."""
        for key in sorted(k for k in self._blobs if k.startswith(prefix)):
            yield key

    async def replace_blob(self, key: str, old: bytes, new: bytes) -> bool:
        """Put `new` under `key` only if it still holds `old`, atomically; False otherwise
        (`BlobStore.replace_blob`)."""
        if self._blobs.get(key) != old:
            return False
        self._blobs[key] = bytes(new)
        return True

    async def put_once(self, key: str, data: bytes, *, ttl: float) -> None:
        """Keep `data` under `key` for `ttl` seconds, for one `take_once` (`OnceStore.put_once`)."""
        self._once[key] = (bytes(data), self.clock() + ttl)

    async def take_once(self, key: str) -> bytes | None:
        """Return and delete the value under `key`; None when unknown, taken or past its ttl
        (`OnceStore.take_once`)."""
        item = self._once.pop(key, None)
        if item is None or self.clock() >= item[1]:
            return None
        return item[0]

    async def claim(self, key: str, *, ttl: float) -> str | None:
        """Take the lock `key` for `ttl` seconds: a holder token, or None when another holds it
        (`LockStore.claim`)."""
        now = self.clock()  # no await between the check and the write, as in `transition`
        held = self._claims.get(key)
        if held is not None and now < held[1]:
            return None
        token = secrets.token_hex(16)
        self._claims[key] = (token, now + ttl)
        return token

    async def release(self, key: str, token: str) -> None:
        """Free the lock `key` if `token` still holds it (`LockStore.release`)."""
        held = self._claims.get(key)
        if held is not None and held[0] == token:
            del self._claims[key]

    async def close(self) -> None:
        """Nothing to let go: the records live and die with this object."""
        return None


@asynccontextmanager
async def holding(store: LockStore, key: str, *, ttl: float, wait: float = 0.0) -> AsyncIterator[bool]:
    """Hold the store's lock `key` for the block: True, or False when another holder kept it
    for `wait` seconds. Shared by every process on the store; `ttl` frees a dead holder's lock,
    so it must outlast the block's worst case."""
    deadline = time.monotonic() + wait
    pause = 0.02
    while (holder := await store.claim(key, ttl=ttl)) is None:
        if time.monotonic() + pause > deadline:
            yield False
            return
        await anyio.sleep(pause)
        pause = min(pause * 2, 0.5)
    try:
        yield True
    finally:
        with anyio.CancelScope(shield=True):
            try:
                await store.release(key, holder)
            except BackendUnavailableError as error:  # the ttl frees it; keep what happened inside
                logger.warning("could not release the store lock %s: %s", key.split(":", 1)[0], error)
