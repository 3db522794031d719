"""A `Store` in Redis, shared by every replica of a server.

Each record is one hash; two sorted sets index it, the active ones by expiry and the finished
ones by when they finished, so a sweep touches only what is due. Every state change is one Lua
script (check the state, the expiry and the user, then write), so two replicas racing on one
record cannot both win, exactly as with SQLite's conditional UPDATE. A change to a final state
also publishes the record's id on the completions channel inside that same script, so the
completion and its announcement cannot come apart: no replica can die between the two, and the
notice leaves Redis the moment the write is durable. Keys also carry Redis TTLs,
so an unswept store still forgets old records. See docs/deployment-redis.md for the key layout
and the persistence settings under which nothing acknowledged is lost.
"""

from __future__ import annotations

import hashlib
import json
import secrets
import time
from collections.abc import Collection, Iterator
from contextlib import contextmanager
from typing import Any, cast

from redis import exceptions as redis_errors
from redis.asyncio import Redis

from elicitkit.server.errors import StoreUnavailableError
from elicitkit.server.store import ACTIVE, Record, State
from elicitkit.server.user import User

__all__ = ["COMPLETIONS_CHANNEL", "RedisStore"]

COMPLETIONS_CHANNEL = "elicitkit:completed"
"""The Redis channel that carries "elicitation X reached a final state" between replicas (with
the default key prefix; a store publishes on `<prefix>completed`)."""

# KEYS: record, active index, finished index, the user's active index (for count_active).
# ARGV: id, op, keep_ms, expire_at_ms, score, is_active, then field/value pairs.
_CREATE = """
if redis.call('EXISTS', KEYS[1]) == 1 then
  if redis.call('HGET', KEYS[1], 'op') == ARGV[2] then return 1 end
  return redis.error_reply('DUPLICATE record id already exists')
end
redis.call('HSET', KEYS[1], 'op', ARGV[2], unpack(ARGV, 7))
if ARGV[6] == '1' then
  redis.call('ZADD', KEYS[2], ARGV[5], ARGV[1])
  redis.call('PEXPIREAT', KEYS[1], ARGV[4])
  redis.call('ZADD', KEYS[4], ARGV[5], ARGV[1])
  redis.call('PEXPIREAT', KEYS[4], ARGV[4])  -- keep_for past this record's expiry
else
  redis.call('ZADD', KEYS[3], ARGV[5], ARGV[1])
  redis.call('PEXPIRE', KEYS[1], ARGV[3])
end
return 1
"""

# KEYS: record, active index, finished index.
# ARGV: id, op, to, now, check_expiry, check_user, issuer, subject, keep_ms, to_is_active,
#       completions channel ('' for none), from...
_TRANSITION = """
local rec = KEYS[1]
local state = redis.call('HGET', rec, 'state')
if not state then return false end
if redis.call('HGET', rec, 'op') == ARGV[2] then return redis.call('HGETALL', rec) end
local allowed = false
for i = 12, #ARGV do
  if ARGV[i] == state then allowed = true; break end
end
if not allowed then return false end
if ARGV[5] == '1' and tonumber(redis.call('HGET', rec, 'expires_at')) <= tonumber(ARGV[4]) then
  return false
end
if ARGV[6] == '1' and (redis.call('HGET', rec, 'issuer') ~= ARGV[7]
    or redis.call('HGET', rec, 'subject') ~= ARGV[8]) then
  return false
end
redis.call('HSET', rec, 'state', ARGV[3], 'updated_at', ARGV[4], 'op', ARGV[2])
if ARGV[10] ~= '1' then
  redis.call('ZREM', KEYS[2], ARGV[1])
  redis.call('ZADD', KEYS[3], ARGV[4], ARGV[1])
  redis.call('PEXPIRE', rec, ARGV[9])
  if ARGV[11] ~= '' then redis.call('PUBLISH', ARGV[11], ARGV[1]) end
end
return redis.call('HGETALL', rec)
"""

# KEYS: active index, finished index.  ARGV: now, cutoff, batch, record key prefix, keep_ms.
# Returns {changed, overdue seen, old seen}; the caller repeats while a batch came back full.
_SWEEP = """
local changed = 0
local overdue = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', ARGV[1], 'LIMIT', 0, ARGV[3])
for _, id in ipairs(overdue) do
  local rec = ARGV[4] .. id
  local state = redis.call('HGET', rec, 'state')
  redis.call('ZREM', KEYS[1], id)
  if state == 'pending' or state == 'opened' then
    redis.call('HSET', rec, 'state', 'expired', 'updated_at', ARGV[1], 'op', '')
    redis.call('ZADD', KEYS[2], ARGV[1], id)
    redis.call('PEXPIRE', rec, ARGV[5])
    changed = changed + 1
  end
end
local old = redis.call('ZRANGEBYSCORE', KEYS[2], '-inf', '(' .. ARGV[2], 'LIMIT', 0, ARGV[3])
for _, id in ipairs(old) do
  redis.call('ZREM', KEYS[2], id)
  changed = changed + redis.call('DEL', ARGV[4] .. id)
end
return {changed, #overdue, #old}
"""

# KEYS: lock.  ARGV: holder token.  Deletes the lock only if this holder still has it.
_RELEASE = """
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0
"""

_SWEEP_BATCH = 500  # bounded work per script call, so a big sweep never stalls Redis for others


def _text(value: bytes | str) -> str:
    return value.decode() if isinstance(value, bytes) else value


def _num(value: float) -> str:
    return repr(float(value))  # exact round trip of the float, and readable by Lua's tonumber


class RedisStore:
    """A `Store` in Redis (redis-py asyncio), for servers that run as several replicas.

    `client` is a `redis.asyncio.Redis` with `decode_responses=False`; `open_store("redis://...")`
    builds one with retries, backoff and health checks. `prefix` namespaces every key;
    `keep_for` is how long a record's key lives past its expiry or its final state even if no
    one sweeps. With `announce` (the default) a transition to a final state publishes the
    record's id on `<prefix>completed` (`completions_channel`) in the same script; a `RedisBus`
    given this store then leaves publishing to it.
    When Redis cannot be reached the operation raises `StoreUnavailableError`.
    """

    def __init__(
        self,
        client: Redis,
        *,
        prefix: str = "elicitkit:",
        keep_for: float = 86400.0,
        announce: bool = True,
        owns_client: bool = True,
    ) -> None:
        self.client = client
        self.prefix = prefix
        self.keep_for = keep_for
        self.completions_channel = f"{prefix}completed" if announce else None
        self._owns_client = owns_client
        self._active = f"{prefix}records:active"
        self._finished = f"{prefix}records:finished"
        self._create = client.register_script(_CREATE)
        self._transition = client.register_script(_TRANSITION)
        self._sweep = client.register_script(_SWEEP)
        self._release = client.register_script(_RELEASE)

    def _record_key(self, record_id: str) -> str:
        return f"{self.prefix}record:{record_id}"

    @contextmanager
    def _reachable(self) -> Iterator[None]:
        """Turn "Redis did not answer" (after redis-py's retries) into a sentence for the author."""
        try:
            yield
        except (redis_errors.AuthenticationError, redis_errors.AuthorizationError) as exc:
            raise StoreUnavailableError(
                f"Redis at {self._where()} refused the credentials ({exc}); check the user and "
                "password in the store URL (or password=)."
            ) from exc
        except redis_errors.OutOfMemoryError as exc:
            raise StoreUnavailableError(
                f"Redis at {self._where()} is full and refused the write ({exc}); give it more memory "
                "(keep maxmemory-policy noeviction, see docs/deployment-redis.md)."
            ) from exc
        except redis_errors.ReadOnlyError as exc:
            raise StoreUnavailableError(
                f"Redis at {self._where()} is a read-only replica ({exc}); point the store URL at "
                "the primary."
            ) from exc
        except redis_errors.NoPermissionError as exc:
            raise StoreUnavailableError(
                f"The Redis user may not run what the store needs ({exc}); grant the ACL rules in "
                "docs/deployment-redis.md."
            ) from exc
        except (redis_errors.ConnectionError, redis_errors.TimeoutError, OSError) as exc:
            raise StoreUnavailableError(
                f"The Redis store at {self._where()} is unavailable ({exc}). Retry when Redis is "
                "back: this store reconnects by itself, and a retried change never applies twice."
            ) from exc

    def _where(self) -> str:
        kwargs = self.client.connection_pool.connection_kwargs
        return f"{kwargs.get('host', '?')}:{kwargs.get('port', '?')}/{kwargs.get('db', 0)}"

    async def create(self, record: Record) -> None:
        active = record.state in ACTIVE
        fields: list[str] = []
        for name, value in self._encode(record).items():
            fields += [name, value]
        args: list[str | int] = [
            record.id,
            secrets.token_hex(8),
            int(self.keep_for * 1000),
            int((record.expires_at + self.keep_for) * 1000),
            _num(record.expires_at if active else record.updated_at),
            "1" if active else "0",
            *fields,
        ]
        keys = [self._record_key(record.id), self._active, self._finished, self._user_key(record.user)]
        with self._reachable():
            try:
                await self._create(keys=keys, args=args)
            except redis_errors.ResponseError as exc:
                if "DUPLICATE" in str(exc):
                    raise ValueError("record id already exists") from exc
                raise

    def _user_key(self, user: User) -> str:
        """The user's index of active record ids (scored by expiry), written by the create script
        and pruned as `count_active` reads it."""
        who = hashlib.sha256(json.dumps([user.issuer, user.subject]).encode()).hexdigest()
        return f"{self.prefix}user-active:{who}"  # no personal data in key names

    async def count_active(self, user: User) -> int:
        mine = self._user_key(user)
        with self._reachable():
            now = _num(time.time())  # the commands the documented least-privilege ACL allows
            gone = cast(list[bytes], await self.client.zrangebyscore(mine, "-inf", now))
            if gone:
                await self.client.zrem(mine, *gone)
            ids = [
                _text(i) for i in cast(list[bytes], await self.client.zrangebyscore(mine, f"({now}", "+inf"))
            ]
            if not ids:
                return 0
            async with self.client.pipeline(transaction=False) as pipe:
                for record_id in ids:
                    pipe.hget(self._record_key(record_id), "state")
                states = await pipe.execute()
            done = [
                i for i, state in zip(ids, states, strict=True) if state is None or _text(state) not in ACTIVE
            ]
            if done:
                await self.client.zrem(mine, *done)
        return len(ids) - len(done)

    async def get(self, record_id: str) -> Record | None:
        with self._reachable():
            raw = await self.client.hgetall(self._record_key(record_id))
        return None if not raw else self._decode(record_id, raw).effective()

    async def transition(
        self, record_id: str, *, from_states: Collection[State], to: State, user: User | None = None
    ) -> Record | None:
        states = list(from_states)
        if not states:
            return None
        args: list[str | int] = [
            record_id,
            secrets.token_hex(8),  # marks this call, so a retry after a lost reply is recognised
            to,
            _num(time.time()),
            "0" if to == "expired" else "1",
            "0" if user is None else "1",
            "" if user is None else user.issuer,
            "" if user is None else user.subject,
            int(self.keep_for * 1000),
            "1" if to in ACTIVE else "0",
            self.completions_channel or "",
            *states,
        ]
        keys = [self._record_key(record_id), self._active, self._finished]
        with self._reachable():
            reply = await self._transition(keys=keys, args=args)
        if not reply:
            return None
        flat = cast(list[bytes], reply)
        return self._decode(record_id, dict(zip(flat[::2], flat[1::2], strict=True)))

    async def sweep(self, *, now: float | None = None, keep_for: float = 86400.0) -> int:
        now = time.time() if now is None else now
        args: list[str | int] = [
            _num(now),
            _num(now - keep_for),
            _SWEEP_BATCH,
            self._record_key(""),
            int(self.keep_for * 1000),
        ]
        changed = 0
        with self._reachable():
            while True:
                reply = cast(list[int], await self._sweep(keys=[self._active, self._finished], args=args))
                changed += int(reply[0])
                if reply[1] < _SWEEP_BATCH and reply[2] < _SWEEP_BATCH:
                    return changed

    async def put_blob(self, key: str, data: bytes) -> None:
        with self._reachable():
            await self.client.set(f"{self.prefix}blob:{key}", bytes(data))

    async def get_blob(self, key: str) -> bytes | None:
        with self._reachable():
            value = await self.client.get(f"{self.prefix}blob:{key}")
        return None if value is None else cast(bytes, value)

    async def delete_blob(self, key: str) -> None:
        with self._reachable():
            await self.client.delete(f"{self.prefix}blob:{key}")

    async def put_once(self, key: str, data: bytes, *, ttl: float) -> None:
        with self._reachable():
            await self.client.set(f"{self.prefix}once:{key}", bytes(data), px=max(1, int(ttl * 1000)))

    async def take_once(self, key: str) -> bytes | None:
        with self._reachable():
            value = await self.client.getdel(f"{self.prefix}once:{key}")  # atomic: one taker only
        return None if value is None else cast(bytes, value)

    async def claim(self, key: str, *, ttl: float) -> str | None:
        token, lock = secrets.token_hex(16), f"{self.prefix}lock:{key}"
        with self._reachable():
            if await self.client.set(lock, token, nx=True, px=max(1, int(ttl * 1000))):
                return token
            # A retry after a lost reply finds its own SET done: the token tells it apart.
            held = await self.client.get(lock)
        return token if held is not None and _text(held) == token else None

    async def release(self, key: str, token: str) -> None:
        with self._reachable():
            await self._release(keys=[f"{self.prefix}lock:{key}"], args=[token])

    async def close(self) -> None:
        if self._owns_client:
            await self.client.aclose()

    @staticmethod
    def _encode(record: Record) -> dict[str, str]:
        return {
            "issuer": record.user.issuer,
            "subject": record.user.subject,
            "client_id": record.client_id,
            "flow": record.flow,
            "message": record.message,
            "state": record.state,
            "created_at": _num(record.created_at),
            "updated_at": _num(record.updated_at),
            "expires_at": _num(record.expires_at),
            "details": json.dumps(record.details),
        }

    @staticmethod
    def _decode(record_id: str, raw: dict[Any, Any]) -> Record:
        data = {_text(k): _text(v) for k, v in raw.items()}
        return Record(
            id=record_id,
            user=User(issuer=data["issuer"], subject=data["subject"]),
            client_id=data["client_id"],
            flow=data["flow"],
            message=data["message"],
            state=cast(State, data["state"]),
            created_at=float(data["created_at"]),
            updated_at=float(data["updated_at"]),
            expires_at=float(data["expires_at"]),
            details=json.loads(data["details"]),
        )
