"""A `Store` in Redis, shared by every replica of a server.

Each record is one hash; two sorted sets index it, those created active by expiry and the
finished ones by when they finished, so a sweep touches only what is due. Every state change
is one Lua script (check the state, the expiry and the user, then write), so two replicas
racing on one record cannot both win, exactly as with SQLite's conditional UPDATE. A change to a final state
also publishes the record's id on the completions channel inside that same script, so the
completion and its announcement cannot come apart: no replica can die between the two, and the
notice leaves Redis the moment the write is durable. Keys also carry Redis TTLs,
so an unswept store still forgets old records. See docs/deployment-redis.md for the key layout
and the persistence settings under which nothing acknowledged is lost.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import json
import os
import re
import secrets
import time
import zlib
from collections.abc import AsyncIterator, Awaitable, Callable, Collection, Sequence
from contextlib import AbstractAsyncContextManager, asynccontextmanager, nullcontext
from functools import lru_cache
from typing import Any, cast

import anyio
from redis import exceptions as redis_errors
from redis.asyncio import Redis, RedisCluster
from redis.commands.core import AsyncScript

from elicitkit.errors import ConfigurationError
from elicitkit.server._errors import RecordExistsError, StoreOutcomeUnknownError, StoreUnavailableError
from elicitkit.server._user import User
from elicitkit.server.store._base import ACTIVE, Record, State
from elicitkit.server.store._pace import Pace
from elicitkit.server.store._redis_errors import late, unavailable
from elicitkit.server.store._redis_lua import (
    CREATE,
    INCREMENT,
    RELEASE,
    REPLACE,
    RESERVE,
    SWEEP,
    SWEEP_BATCH,
    TAKE,
    TRANSITION,
    VOID,
    named,
    record_from,
    stored_record,
)

__all__ = ["CLUSTER_SLOTS", "COMPLETIONS_CHANNEL", "RedisStore", "shard_channel", "shard_channels"]

COMPLETIONS_CHANNEL = "elicitkit:completed"
"""The Redis channel that carries "elicitation X reached a final state" between replicas (with
the default key prefix; a store publishes on `<prefix>completed`)."""


CLUSTER_SLOTS = 16
"""On Redis Cluster, records are spread over this many hash tags (`{elicitkit:0}` ...
`{elicitkit:15}`), each with its own indexes and completions channel, so every script touches
one slot and the load spreads over the primaries. Every replica must use the same number."""


def shard_channels(channel: str) -> list[str]:
    """On a Cluster, the sharded channels that stand for `channel` (`<prefix>completed`): one per
    hash tag, `{<prefix><n>}:completed`, each in the slot of the records it announces."""
    base = channel.removesuffix("completed")
    return [f"{{{base}{n}}}:completed" for n in range(CLUSTER_SLOTS)]


def shard_channel(channel: str, elicitation_id: str) -> str:
    """The one of `shard_channels(channel)` that announces `elicitation_id`."""
    return shard_channels(channel)[_bucket(elicitation_id)]


def cluster_gate(client: Redis | RedisCluster) -> AbstractAsyncContextManager[Any]:
    """At most as many commands at once as a Cluster node's pool allows; no limit otherwise (the
    single-server pool already makes callers wait)."""
    if isinstance(client, RedisCluster):
        return asyncio.Semaphore(
            max(1, int(client.nodes_manager.connection_kwargs.get("max_connections", 100)))
        )
    return nullcontext()


def _bucket(elicitation_id: str) -> int:
    return zlib.crc32(elicitation_id.encode()) % CLUSTER_SLOTS


def _text(value: bytes | str) -> str:
    return value.decode() if isinstance(value, bytes) else value


_HOUR_MS = 3_600_000
_KEYS_BATCH = 500  # the COUNT of one SCAN in `blob_keys`
_MARK_KEPT = 60.0  # seconds an operation's mark outlives the call's own deadline
_VOIDS_PER_USER = 32  # the voids not yet written a store remembers per user (newest kept)


class _Sockets:
    """Counts the (re)connections of one connection while a write and its WAIT run on it: WAIT
    counts the writes of its own socket, so one that redis-py re-sent on a new socket would
    confirm nothing and still pass. (A bound method: redis-py keeps connect callbacks weakly.)"""

    __slots__ = ("__weakref__", "opened")

    def __init__(self) -> None:
        self.opened = 0

    def connected(self, connection: object) -> None:
        self.opened += 1


def _socket_timeout(client: Redis | RedisCluster) -> float | None:
    """The client's per-command socket timeout, when it says."""
    pool = getattr(client, "connection_pool", None)
    kwargs = getattr(pool, "connection_kwargs", None)
    if kwargs is None:
        kwargs = getattr(getattr(client, "nodes_manager", None), "connection_kwargs", {})
    value = kwargs.get("socket_timeout")
    return float(value) if value is not None else None


def _num(value: float) -> str:
    return repr(float(value))  # exact round trip of the float, and readable by Lua's tonumber


@lru_cache(maxsize=1024)
def _who(issuer: str, subject: str) -> str:
    """The user's part of their index's key name: a digest, so no personal data in key names."""
    return hashlib.sha256(json.dumps([issuer, subject]).encode()).hexdigest()


class RedisStore:
    """A `Store` in Redis (redis-py asyncio), for servers that run as several replicas.

    `client` is a `redis.asyncio.Redis` with `decode_responses=False` (a Sentinel-managed one
    follows failovers) or a `redis.asyncio.RedisCluster`; `open_store("redis://...")`,
    `"redis+sentinel://..."` or `"redis+cluster://..."` builds one with retries, backoff and
    health checks. On a Cluster, keys carry hash tags so each operation touches one slot, and
    completions go out with sharded pub/sub (`SPUBLISH`) on one channel per tag.
    `prefix` namespaces every key; `keep_for` is how long a record's key lives past its expiry
    even if no one sweeps (one that finishes sooner, at least that long after it finishes).
    With `replicas_ack=n` every write is followed, on its connection, by `WAIT n`: it is
    acknowledged only once n replicas have it, so a Sentinel failover to one of them cannot lose
    it (else `StoreUnavailableError`; a retry is safe). The WAIT lasts `ack_timeout` at most, and
    never past the call's `timeout`. A create its caller was told failed (unconfirmed, cut off
    at its deadline, or lost with its connection) is voided in Redis, where every replica sees
    it: at once when Redis still answers, else by this store's next call once it answers again,
    so it holds none of the user's places. A change that lost its connection and may have been
    applied raises `StoreOutcomeUnknownError`.
    With `announce` (the default) a transition to a final state publishes the record's id on
    `<prefix>completed` (`completions_channel`) in the same script; a `RedisBus` given this
    store then leaves publishing to it.
    When Redis cannot be reached the operation raises `StoreUnavailableError`.
    `clock` is the wall clock the store reads for records (their expiry, the per-user cap, what a
    sweep finds overdue); the ttls of single-use values, locks and counters are Redis's own.
    """

    def __init__(
        self,
        client: Redis | RedisCluster,
        *,
        prefix: str = "elicitkit:",
        keep_for: float = 86400.0,
        announce: bool = True,
        owns_client: bool = True,
        replicas_ack: int = 0,
        ack_timeout: float = 5.0,
        timeout: float = 10.0,
        clock: Callable[[], float] = time.time,
    ) -> None:
        if replicas_ack and isinstance(client, RedisCluster):
            raise ConfigurationError(
                "replicas_ack is for a primary with replicas (Sentinel), not for a Cluster, where "
                "each primary keeps its own replicas; leave it out for a Cluster."
            )
        self.clock = clock
        self.replicas_ack = replicas_ack
        self.ack_timeout = ack_timeout
        self.timeout = timeout
        """Each call's overall deadline: past it, `StoreUnavailableError`, whatever redis-py's
        retries and socket timeouts would add up to."""
        socket_timeout = _socket_timeout(client)
        # WAIT must answer before the socket gives up on it (or redis-py would retry it whole).
        self._wait_ms = max(1, int(ack_timeout * 1000))
        if socket_timeout is not None:
            self._wait_ms = max(1, min(self._wait_ms, int((socket_timeout - 0.5) * 1000)))
        self.client = client
        self.prefix = prefix
        self.keep_for = keep_for
        self.completions_channel = f"{prefix}completed" if announce else None
        self._owns_client = owns_client
        self.cluster = isinstance(client, RedisCluster)
        self.gate = cluster_gate(client)
        # What is left of a call's deadline when its WAIT starts, kept for what follows it: a
        # void of an unconfirmed create, and the error.
        self._after_wait = min(0.5, timeout / 4)
        self._told_failed: dict[User, dict[str, tuple[str, float]]] = {}
        """Per user, the creates whose caller was told they failed and whose void is not written
        yet (Redis was out of reach): id -> (op mark, expiry)."""
        self._loading = asyncio.Lock()
        self.scripts_loaded = False
        self.spaces = [f"{{{prefix}{n}}}:" for n in range(CLUSTER_SLOTS)] if self.cluster else [prefix]
        """Key prefixes, one per hash tag on a Cluster (the `prefix` alone otherwise)."""
        # redis-py's script objects: EVALSHA, and on NOSCRIPT (a Redis that restarted or failed
        # over has an empty script cache and ran nothing) SCRIPT LOAD and once more.
        self._create = client.register_script(CREATE)
        self._transition = client.register_script(TRANSITION)
        self._sweep = client.register_script(SWEEP)
        self._release = client.register_script(RELEASE)
        self._reserve = client.register_script(RESERVE)
        self._increment = client.register_script(INCREMENT)
        self._void = client.register_script(VOID)
        self._take = client.register_script(TAKE)
        self._replace = client.register_script(REPLACE)

    async def _acked(self, queue: Callable[[Any], Awaitable[Any]]) -> Any:
        """One write; with `replicas_ack`, followed on the same connection by WAIT, so it is
        acknowledged only once that many replicas hold it (else `StoreOutcomeUnknownError`: the
        primary has it, a failover may lose it)."""
        if not self.replicas_ack or not isinstance(self.client, Redis):
            return await queue(self.client)
        demoted = None
        sockets = _Sockets()
        # One connection for both (WAIT counts that connection's writes); a script's NOSCRIPT
        # is answered there too, before the WAIT.
        async with self.client.client() as one:
            connection = one.connection
            assert connection is not None
            connection.register_connect_callback(sockets.connected)  # type: ignore[no-untyped-call, unused-ignore]
            try:
                result = await queue(one)
                left = anyio.current_effective_deadline() - anyio.current_time()  # of the call's deadline
                wait_ms = max(1, int(min(self._wait_ms, (left - self._after_wait) * 1000)))
                acked = int(await one.wait(self.replicas_ack, wait_ms))
            except redis_errors.ResponseError as exc:
                if "WAIT cannot be used with replica" not in str(exc):
                    raise
                demoted = exc  # a write that changed nothing reached a node demoted by a failover
            finally:
                connection.deregister_connect_callback(sockets.connected)  # type: ignore[no-untyped-call, unused-ignore]
        if demoted is not None:
            # Its connection is idle again: close it, so the next call asks for the primary anew.
            await self.client.connection_pool.disconnect(inuse_connections=False)
            raise StoreUnavailableError(
                f"Redis at {self.where()} answered from a replica, not the primary (a failover is "
                "under way, or the store URL names a replica); retry: a retried change never "
                "applies twice."
            ) from demoted
        if sockets.opened:
            raise StoreOutcomeUnknownError(
                f"Redis at {self.where()} lost the connection between a write and its replicas' "
                "confirmation, so a failover could still lose it: whether it was applied is "
                "unknown; read back what it changed before doing it again."
            )
        if acked < self.replicas_ack:
            raise StoreOutcomeUnknownError(
                f"Redis at {self.where()} applied a write that only {acked} of {self.replicas_ack} "
                f"replica(s) confirmed within {wait_ms / 1000:g}s, so a failover could still lose it: "
                "whether it stands is unknown; read back what it changed before doing it again, "
                "and check the replicas' health."
            )
        return result

    async def _eval(
        self,
        script: AsyncScript,
        keys: Sequence[str],
        args: Sequence[str | int | bytes],
        *,
        acked: bool = True,
    ) -> Any:
        """Run `script`, a write acknowledged as `_acked` says (unless `acked` is false)."""
        if not acked or not self.replicas_ack:
            return await script(keys, args)
        return await self._acked(lambda one: script(keys, args, client=one))

    async def load_scripts(self) -> None:
        """Learn the slot map and load the scripts on every primary once, before many tasks do it
        at once (redis-py's Cluster client, first used by many tasks together, trips over itself)."""
        async with self._loading:
            if not self.scripts_loaded:
                assert isinstance(self.client, RedisCluster)
                await self.client.initialize()
                for script in (
                    self._create, self._transition, self._sweep, self._release, self._reserve,
                    self._increment, self._void, self._take, self._replace,
                ):  # fmt: skip
                    await self.client.script_load(script.script)
                self.scripts_loaded = True

    def _space(self, elicitation_id: str) -> str:
        return self.spaces[_bucket(elicitation_id)] if self.cluster else self.prefix

    def _keys(self, elicitation_id: str) -> list[str]:
        """The record's key and its space's two indexes: one hash slot on a Cluster."""
        space = self._space(elicitation_id)
        return [f"{space}record:{elicitation_id}", f"{space}records:active", f"{space}records:finished"]

    def _record_key(self, elicitation_id: str) -> str:
        return f"{self._space(elicitation_id)}record:{elicitation_id}"

    def _void_keys(self, user: User, elicitation_id: str) -> list[str]:
        """What VOID takes: the record, its finished index, its void mark and, when they share a
        slot (not on a Cluster), the user's index."""
        space = self._space(elicitation_id)
        keys = [
            f"{space}record:{elicitation_id}",
            f"{space}records:finished",
            f"{space}void:{elicitation_id}",
        ]
        return keys if self.cluster else [*keys, self._user_key(user)]

    def _mark(self, key: str) -> tuple[str, int]:
        """A fresh operation's mark for a write to `key`, and how long it is kept. Out of the
        blobs', values' and counters' names (a listing of blob keys never meets one); on a
        Cluster tagged with what Redis hashes of `key`, so it is in the key's slot."""
        mark = f"{self.prefix}op:{os.urandom(8).hex()}"
        if self.cluster:
            opened = key.find("{")
            closed = key.find("}", opened + 1) if opened >= 0 else -1
            hashed = key[opened + 1 : closed] if closed > opened + 1 else key
            mark = f"{mark}:{{{hashed}}}"  # (a key with a "}" but no tag: another slot, refused)
        return mark, int((self.timeout + _MARK_KEPT) * 1000)

    def channel_for(self, elicitation_id: str) -> str:
        """The channel a final state of `elicitation_id` is announced on."""
        channel = f"{self.prefix}completed"
        return shard_channel(channel, elicitation_id) if self.cluster else channel

    @asynccontextmanager
    async def _reachable(self, *, changing: bool = False, within: float | None = None) -> AsyncIterator[None]:
        """The block of one call: its deadline (`timeout`), on a Cluster a free connection
        (redis-py's per-node pools fail at their limit instead of waiting), and every error of
        the block as `StoreUnavailableError` (`StoreOutcomeUnknownError` for a block `changing`
        the store that lost its connection or its deadline; `within` shortens the deadline). At
        the deadline the block is cancelled, again on every turn of the loop until it is out
        (anyio's cancel scope), so a cancellation that a driver loses still stops it. First, the
        voids not yet written."""
        seconds = self.timeout if within is None else within
        with anyio.move_on_after(seconds) as deadline:
            if self._told_failed:
                await self._write_voids()
            try:
                if self.cluster:
                    if not self.scripts_loaded:
                        await self.load_scripts()
                    async with self.gate:
                        yield
                else:
                    yield
            except Exception as exc:
                if (error := unavailable(self.where(), exc, changing=changing)) is not None:
                    raise error from exc
                raise
        if deadline.cancelled_caught:
            raise late(self.where(), seconds, changing=changing)

    def where(self) -> str:
        """Where this store's Redis is, as a sentence names it (no password)."""
        if isinstance(self.client, RedisCluster):
            seeds = list(self.client.nodes_manager.startup_nodes)[:3]
            return "the Cluster at " + ",".join(seeds)
        pool = self.client.connection_pool
        service = getattr(pool, "service_name", None)
        if service is not None:
            return f"the Sentinel service {service!r}"
        kwargs = pool.connection_kwargs
        return f"{kwargs.get('host', '?')}:{kwargs.get('port', '?')}/{kwargs.get('db', 0)}"

    async def create(self, record: Record, *, max_active: int | None = None) -> bool:
        """Insert `record`; False, with nothing written, when its user has `max_active` open already
        (`RecordStore.create`)."""
        active = record.state in ACTIVE
        user = record.user
        expire_at_ms = int((record.expires_at + self.keep_for) * 1000)  # the key's TTL while active
        op = os.urandom(8).hex()  # marks this call: a retry of it is recognised by it
        now, prefix = _num(self.clock()), f"{self._space(record.id)}record:"
        if failed := self._told_failed.get(user):
            failed.pop(record.id, None)  # its caller retries it: theirs again, not one to void
        values: dict[str, Any] = {
            "id": record.id,
            "op": op,
            "active": active,
            "keep_ms": str(int(self.keep_for * 1000)),
            "expire_at_ms": str(expire_at_ms),
            "issuer": user.issuer,
            "subject": user.subject,
            "client_id": record.client_id,
            "flow": record.flow,
            "message": record.message,
            "state": record.state,
            "created_at": _num(record.created_at),
            "updated_at": _num(record.updated_at),
            "expires_at": _num(record.expires_at),
            "details": json.dumps(record.details) if record.details else "{}",
            "index_expire_at_ms": str(-(-expire_at_ms // _HOUR_MS) * _HOUR_MS),  # rounded up to the hour
            "now": now,
            "prefix": prefix,
        }
        if max_active is not None and active:
            values["cap"] = max_active
        keys = [*self._keys(record.id), f"{self._space(record.id)}void:{record.id}"]
        index = self._user_key(user)
        argument = named(values)
        try:
            # The void of a create told failed is written within the call's deadline too.
            async with self._reachable(changing=True, within=self.timeout - self._after_wait):
                if self.cluster and active:  # the user's index is in a slot of its own: reserve first
                    if not await self._eval(self._reserve, [index], [argument]):
                        return False
                elif not self.cluster:
                    keys.append(index)
                try:
                    return bool(await self._eval(self._create, keys, [argument]))
                except redis_errors.ResponseError as exc:
                    if "DUPLICATE" not in str(exc):
                        raise
                    if self.cluster and active:  # best effort: the reservation's expiry frees it anyway
                        with contextlib.suppress(redis_errors.RedisError, redis_errors.RedisClusterException):
                            await self.client.zrem(index, record.id)
                    raise RecordExistsError(record.id) from exc
        except RecordExistsError:
            raise  # another record's id: not this create's to void
        except BaseException as exc:
            # Told failed, yet perhaps applied (its reply lost, its deadline passed, its replicas
            # silent, its caller gone): no one will know its id, so it must hold no place.
            unknown = isinstance(exc, StoreOutcomeUnknownError) or not isinstance(exc, StoreUnavailableError)
            if not active or not unknown:  # refused (NOREPLICAS, OOM, ...): nothing was written
                if self.cluster and active:  # but its place was reserved; else its expiry frees it
                    with anyio.move_on_after(self._after_wait), contextlib.suppress(Exception):
                        await self.client.zrem(index, record.id)
                raise
            self._told_failed.setdefault(user, {})[record.id] = (op, record.expires_at)
            if not isinstance(exc, StoreOutcomeUnknownError):
                raise  # the caller went away: this store's next call writes the void
            with anyio.move_on_after(self._after_wait):
                await self._write_voids(user)
            if record.id in self._told_failed.get(user, {}):
                raise  # Redis does not answer: this store's next call writes the void
            raise StoreUnavailableError(
                f"The Redis store at {self.where()} could not confirm a create ({exc.__cause__ or exc}), "
                "so it voided it: nothing was created and the user's place is free; retry."
            ) from exc

    async def _write_voids(self, only: User | None = None) -> None:
        """Write in Redis the voids of creates told failed (`only` that user's), each where every
        replica sees it; one Redis does not answer stays for the next call. Never raises."""
        now = _num(self.clock())
        for user in [only] if only is not None else list(self._told_failed):
            failed = self._told_failed.get(user, {})
            for elicitation_id, (op, expires_at) in list(failed.items()):
                if expires_at > self.clock():  # an expired one counts for no one: just forget it
                    until_ms = int(expires_at * 1000) + 1
                    void = named({"id": elicitation_id, "op": op, "now": now, "until_ms": until_ms})
                    try:
                        await self._void(self._void_keys(user, elicitation_id), [void])
                        if self.cluster:  # its reservation, in the user's slot
                            await self.client.zrem(self._user_key(user), elicitation_id)
                    except (redis_errors.RedisError, redis_errors.RedisClusterException, OSError):
                        return  # Redis does not answer: the next call tries again
                failed.pop(elicitation_id, None)
            while len(failed) > _VOIDS_PER_USER:
                del failed[next(iter(failed))]  # the oldest: its record expires in time anyway
            if not failed:
                self._told_failed.pop(user, None)

    def _user_key(self, user: User) -> str:
        """The user's index of active record ids (scored by expiry): one key per user, in the
        slot of its own hash tag on a Cluster (chosen by the user's digest)."""
        who = _who(user.issuer, user.subject)
        space = self.spaces[_bucket(who)] if self.cluster else self.prefix
        return f"{space}user-active:{who}"

    async def count_active(self, user: User) -> int:
        """How many of `user`'s records are open and unexpired by the store's clock
        (`RecordStore.count_active`)."""
        mine = self._user_key(user)
        async with self._reachable():
            now = _num(self.clock())  # the commands the documented least-privilege ACL allows
            gone = cast(list[bytes], await self.client.zrangebyscore(mine, "-inf", now))
            if gone:
                await self.client.zrem(mine, *gone)
            ids = [
                _text(i) for i in cast(list[bytes], await self.client.zrangebyscore(mine, f"({now}", "+inf"))
            ]
            done, count = [], 0
            async with self.client.pipeline(transaction=False) as reads:  # one round trip, not one a record
                for elicitation_id in ids:
                    reads.hget(self._record_key(elicitation_id), "state")
                states = cast(list[bytes | None], await reads.execute()) if ids else []
            for elicitation_id, state in zip(ids, states, strict=True):
                if state is not None and _text(state) in ACTIVE:
                    count += 1
                elif state is not None or not self.cluster:  # on a Cluster, maybe a create under way
                    done.append(elicitation_id)
            if done:
                await self.client.zrem(mine, *done)
        return count

    async def increment(self, key: str, *, ttl: float) -> int:
        """Add one to the counter `key` and return its value; unchanged for `ttl` seconds, it starts again
        (`CounterStore.increment`)."""
        counter = f"{self.prefix}count:{key}"
        mark, kept = self._mark(counter)
        async with self._reachable(changing=True):
            count = await self._eval(self._increment, [counter, mark], [kept, max(1, int(ttl * 1000))])
        return int(count)

    async def get(self, elicitation_id: str) -> Record | None:
        """The record as it stands by the store's clock (expired when past its expiry), or None
        (`RecordStore.get`)."""
        async with self._reachable():
            raw = await self.client.hgetall(self._record_key(elicitation_id))
        return None if not raw else stored_record(elicitation_id, raw).effective(self.clock())

    async def transition(
        self, elicitation_id: str, *, from_states: Collection[State], to: State, user: User | None = None
    ) -> Record | None:
        """Move the record to `to` if its state, expiry and user allow it, in one atomic step; None otherwise
        (`RecordStore.transition`)."""
        states = list(from_states)
        if not states:
            return None
        now = self.clock()
        values: dict[str, Any] = {
            "id": elicitation_id,
            "op": os.urandom(8).hex(),  # marks this call, so a retry after a lost reply is recognised
            "to": to,
            "now": _num(now),
            "from": states,
            "check_expiry": to != "expired",
            "to_active": to in ACTIVE,
        }
        if user is not None:
            values["issuer"], values["subject"] = user.issuer, user.subject
        if self.completions_channel:
            values["channel"] = self.channel_for(elicitation_id)
            values["publish"] = "SPUBLISH" if self.cluster else "PUBLISH"
        record, _, finished = self._keys(elicitation_id)
        async with self._reachable(changing=True):
            reply = await self._eval(self._transition, [record, finished], [named(values)])
            if reply and self.cluster and to not in ACTIVE:  # its user's index is in another slot
                issuer, subject = _text(reply[-2]), _text(reply[-1])
                with contextlib.suppress(
                    redis_errors.RedisError, redis_errors.RedisClusterException, OSError
                ):
                    # done: the change stands; a member left behind counts until its expiry (safe side)
                    await self.client.zrem(self._user_key(User(issuer, subject)), elicitation_id)
        return None if not reply else record_from(elicitation_id, reply, to, now, user)

    async def sweep(self, *, now: float | None = None, keep_for: float = 86400.0) -> int:
        """Expire overdue records and drop those finished `keep_for` seconds ago; how many changed
        (`RecordStore.sweep`)."""
        now = self.clock() if now is None else now
        if self._told_failed:
            with anyio.move_on_after(self.timeout):
                await self._write_voids()
        changed = 0
        pace = Pace()  # Redis runs one script at a time: rests let the live commands through
        for space in self.spaces:  # one script call per hash tag, each within one slot
            values = {
                "now": _num(now),
                "cutoff": _num(now - keep_for),
                "batch": SWEEP_BATCH,
                "prefix": f"{space}record:",
            }
            keys = [f"{space}records:active", f"{space}records:finished"]
            while True:
                async with self._reachable():  # a deadline per batch: a big sweep takes many
                    reply = cast(list[int], await self._eval(self._sweep, keys, [named(values)], acked=False))
                changed += int(reply[0])
                if reply[1] < SWEEP_BATCH and reply[2] < SWEEP_BATCH:
                    break
                await pace.turn()
        return changed

    async def put_blob(self, key: str, data: bytes) -> None:
        """Keep the sealed `data` under `key`, replacing what was there (`BlobStore.put_blob`)."""
        async with self._reachable(changing=True):
            await self._acked(lambda c: c.set(f"{self.prefix}blob:{key}", bytes(data)))

    async def get_blob(self, key: str) -> bytes | None:
        """The blob under `key`, or None (`BlobStore.get_blob`)."""
        async with self._reachable():
            value = await self.client.get(f"{self.prefix}blob:{key}")
        return None if value is None else cast(bytes, value)

    async def delete_blob(self, key: str) -> None:
        """Delete the blob under `key`; nothing happens when there is none (`BlobStore.delete_blob`)."""
        async with self._reachable(changing=True):
            await self._acked(lambda c: c.delete(f"{self.prefix}blob:{key}"))

    async def blob_keys(self, prefix: str = "") -> AsyncIterator[str]:
        """Every blob key that starts with `prefix`, read in bounded batches (`BlobStore.blob_keys`)."""
        # SCAN on each primary (a Cluster's blobs carry no hash tag, so they are spread over every
        # node), one deadline per batch; SCAN may list a key twice, never skips one that stays.
        head = f"{self.prefix}blob:"
        match = re.sub(r"([*?\[\]\\])", r"\\\1", head + prefix) + "*"
        nodes: list[Any] = [None]
        if isinstance(self.client, RedisCluster):
            async with self._reachable():
                await self.client.initialize()
                nodes = list(self.client.get_primaries())
        for node in nodes:
            cursor: Any = 0
            while True:
                async with self._reachable():
                    if node is None:
                        cursor, batch = await self.client.scan(cursor, match=match, count=_KEYS_BATCH)
                    else:
                        reply = await self.client.scan(
                            cursor, match=match, count=_KEYS_BATCH, target_nodes=node
                        )
                        cursor, batch = cast(dict[str, int], reply[0])[node.name], reply[1]
                for key in batch:
                    yield _text(key)[len(head) :]
                if int(cursor) == 0:
                    break

    async def replace_blob(self, key: str, old: bytes, new: bytes) -> bool:
        """Put `new` under `key` only if it still holds `old`, atomically; False otherwise
        (`BlobStore.replace_blob`)."""
        blob = f"{self.prefix}blob:{key}"
        mark, kept = self._mark(blob)
        async with self._reachable(changing=True):
            done = await self._eval(self._replace, [blob, mark], [kept, bytes(old), bytes(new)])
        return bool(int(done))

    async def put_once(self, key: str, data: bytes, *, ttl: float) -> None:
        """Keep `data` under `key` for `ttl` seconds, for one `take_once` (`OnceStore.put_once`)."""
        async with self._reachable(changing=True):
            await self._acked(
                lambda c: c.set(f"{self.prefix}once:{key}", bytes(data), px=max(1, int(ttl * 1000)))
            )

    async def take_once(self, key: str) -> bytes | None:
        """Return and delete the value under `key`; None when unknown, taken or past its ttl
        (`OnceStore.take_once`)."""
        once = f"{self.prefix}once:{key}"
        mark, kept = self._mark(once)
        async with self._reachable(changing=True):  # atomic: one taker only
            taken = cast(bytes, await self._eval(self._take, [once, mark], [kept]))
        return taken[1:] if taken[:1] == b"v" else None

    async def claim(self, key: str, *, ttl: float) -> str | None:
        """Take the lock `key` for `ttl` seconds: a holder token, or None when another holds it
        (`LockStore.claim`)."""
        token, lock = secrets.token_hex(16), f"{self.prefix}lock:{key}"
        async with self._reachable():
            try:
                if await self._acked(lambda c: c.set(lock, token, nx=True, px=max(1, int(ttl * 1000)))):
                    return token
            except (StoreUnavailableError, redis_errors.RedisError, OSError) as exc:
                # Perhaps set (its reply lost, or not acknowledged by the replicas), yet no one
                # would hold it (the caller gets an error, not the token): take it back rather
                # than leave it turning everyone away for its ttl.
                try:
                    await self._eval(self._release, [lock], [token], acked=False)
                except (redis_errors.RedisError, OSError):
                    if isinstance(exc, StoreUnavailableError):
                        raise exc from exc.__cause__
                    raise (unavailable(self.where(), exc, changing=True) or exc) from exc
                raise StoreUnavailableError(
                    f"Redis at {self.where()} did not confirm taking the lock ({exc}); it was let go, "
                    "so no one holds it: retry."
                ) from exc
            # A retry after a lost reply finds its own SET done: the token tells it apart.
            held = await self.client.get(lock)
        return token if held is not None and _text(held) == token else None

    async def release(self, key: str, token: str) -> None:
        """Free the lock `key` if `token` still holds it (`LockStore.release`)."""
        async with self._reachable(changing=True):
            await self._eval(self._release, [f"{self.prefix}lock:{key}"], [token])

    async def close(self) -> None:
        """Close the Redis client unless it was given with `owns_client=False`; call it once, at shutdown."""
        if self._owns_client:
            await self.client.aclose()
