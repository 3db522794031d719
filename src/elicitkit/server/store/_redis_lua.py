"""The Lua scripts of `RedisStore`: each state change is one script, so it is atomic in Redis.
Also what goes in and out of them: the named values a script takes, records read back."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from string import Template
from typing import Any, cast

from elicitkit.server._errors import StoreUnavailableError
from elicitkit.server._user import User
from elicitkit.server.store._base import Record, State, details_from

# The record's fields, as its hash names them.
FIELDS = (
    "issuer", "subject", "client_id", "flow", "message", "state",
    "created_at", "updated_at", "expires_at", "details",
)  # fmt: skip
# Written out in the scripts (no table built and unpacked per call): `'issuer', a.issuer, ...`
# as HSET takes them.
_HSET_FIELDS = ", ".join(f"'{name}', a.{name}" for name in FIELDS)
# What a transition answers: the fields its caller does not know already. It knows the id, the
# state it asked for and the time it sent, and (when it gave one) the user the script checked.
REPLY_FIELDS = ("client_id", "flow", "message", "created_at", "expires_at", "details", "issuer", "subject")
_REPLY_BY_NAME = ", ".join(f"f.{name} or false" for name in REPLY_FIELDS)  # false: missing

# CREATE, RESERVE, VOID, TRANSITION and SWEEP take their values as one JSON object (ARGV[1],
# decoded with Redis's built-in cjson into `a`) and read each by its name: redis-py packs each
# argument in Python, so one argument instead of 14-16 is most of the client's cost of a call.
# What is written into a hash goes as a string, even a number, so it is written byte for byte
# as given (a Lua number would be reformatted).


def named(values: Mapping[str, Any]) -> str:
    """The one argument a script takes: `values` as a JSON object, text as it is (not escaped
    to ASCII), so each string reaches the hash byte for byte."""
    return json.dumps(values, ensure_ascii=False, separators=(",", ":"))


_REPLY_KEYS = tuple(name.encode() for name in REPLY_FIELDS)


def stored_record(elicitation_id: str, raw: Mapping[Any, Any]) -> Record:
    """A record from its hash, as HGETALL returns it."""
    state, updated_at = raw.get(b"state"), raw.get(b"updated_at")
    if state is None or updated_at is None:
        raise _incomplete(elicitation_id)
    values = [raw.get(name) for name in _REPLY_KEYS]
    return record_from(elicitation_id, values, state.decode(), float(updated_at), None)


def record_from(
    elicitation_id: str, values: Sequence[bytes | None], state: State, updated_at: float, user: User | None
) -> Record:
    """A record from the values of REPLY_FIELDS in order (what TRANSITION answers) and the rest:
    its state and when it changed, and its user when the caller knows it (a transition's caller
    had the script check that the record is that user's, so the user stands for its own)."""
    if len(values) != len(REPLY_FIELDS) or None in values:
        raise _incomplete(elicitation_id)
    client_id, flow, message, created, expires, details, issuer, subject = cast(list[bytes], values)
    return Record(
        id=elicitation_id,
        user=User(issuer=issuer.decode(), subject=subject.decode()) if user is None else user,
        client_id=client_id.decode(),
        flow=flow.decode(),
        message=message.decode(),
        state=state,
        created_at=float(created),
        updated_at=updated_at,
        expires_at=float(expires),
        details=details_from(details),
    )


def _incomplete(elicitation_id: str) -> StoreUnavailableError:
    return StoreUnavailableError(
        f"The Redis record {elicitation_id[:8]}... lacks some of its fields, so it cannot be read; check "
        "that nothing else writes under the store's key prefix."
    )


# Keep the user's index keep_for past the expiry of their last record, rounded up to the hour:
# one ending sooner never shortens it, and most creates find it long enough already, so they
# write nothing (a refused GT or NX is not a write: nothing goes to the AOF). Redis 7 says so in
# one command (GT: only later; NX: a new index has no TTL yet). $index: its key, $score: the new
# record's expiry, $at: the index's expiry in ms.
_INDEX_TTL = Template("""
  if redis.REDIS_VERSION_NUM then
    if redis.call('PEXPIREAT', $index, $at, 'GT') == 0 then
      redis.call('PEXPIREAT', $index, $at, 'NX')
    end
  elseif #redis.call('ZRANGEBYSCORE', $index, '(' .. $score, '+inf', 'LIMIT', 0, 1) == 0 then
    redis.call('PEXPIREAT', $index, $at)
  end
""")

# KEYS: record, active index, finished index, the record's void mark (see VOID), and (not on a
# Cluster) the user's active index.
# a: id, op (this call's mark), active (a boolean), keep_ms and expire_at_ms (the key's TTL
# once finished, its expiry while active), the record's FIELDS (the user's index is scored by
# expires_at), index_expire_at_ms (the user's index's expiry), cap (absent: none), now, prefix
# (the records' key prefix). Returns 1, or 0 when the cap refused it (or its caller voided this
# very call before it arrived): the user's open records are counted (their states read, the
# index pruned) and the record written in one script, so no two creates of one user can pass
# the cap together.
CREATE = (
    """
local a = cjson.decode(ARGV[1])
if redis.call('GET', KEYS[4]) == a.op then return 0 end  -- voided before it arrived: nothing
if redis.call('EXISTS', KEYS[1]) == 1 then
  local op = redis.call('HGET', KEYS[1], 'op')
  if op == a.op then return 1 end
  local same = redis.call('HGET', KEYS[1], 'created_at') == a.created_at
    and redis.call('HGET', KEYS[1], 'subject') == a.subject
    and redis.call('HGET', KEYS[1], 'issuer') == a.issuer
  if same and op == 'void' then
    -- its caller retries a create it was told failed, which was voided: as if never written
    redis.call('DEL', KEYS[1])
    redis.call('ZREM', KEYS[3], a.id)
  else
    -- a retry by a new call, which finds its earlier try landed: it claims the record, so
    -- no void of that earlier try (in this or another process) may take it now
    if same and redis.call('HGET', KEYS[1], 'state') == 'pending' then
      redis.call('HSET', KEYS[1], 'op', a.op)
    end
    return redis.error_reply('DUPLICATE record id already exists')
  end
end
if a.cap and KEYS[5] then
  local gone = redis.call('ZRANGEBYSCORE', KEYS[5], '-inf', a.now)
  for _, id in ipairs(redis.call('ZRANGEBYSCORE', KEYS[5], '(' .. a.now, '+inf')) do
    local state = redis.call('HGET', a.prefix .. id, 'state')
    if state ~= 'pending' and state ~= 'opened' then gone[#gone + 1] = id end
  end
  if #gone > 0 then redis.call('ZREM', KEYS[5], unpack(gone)) end
  if #redis.call('ZRANGEBYSCORE', KEYS[5], '(' .. a.now, '+inf') >= tonumber(a.cap) then return 0 end
end
redis.call('HSET', KEYS[1], 'op', a.op, """
    + _HSET_FIELDS
    + """)
if a.active then
  redis.call('ZADD', KEYS[2], a.expires_at, a.id)
  redis.call('PEXPIREAT', KEYS[1], a.expire_at_ms)
  if KEYS[5] then
    redis.call('ZADD', KEYS[5], a.expires_at, a.id)
"""
    + _INDEX_TTL.substitute(index="KEYS[5]", score="a.expires_at", at="a.index_expire_at_ms")
    + """
  end
else
  redis.call('ZADD', KEYS[3], a.updated_at, a.id)
  redis.call('PEXPIRE', KEYS[1], a.keep_ms)
end
return 1
"""
)

# Void a create whose caller was told it failed (an error, a lost reply, a write the replicas did
# not confirm): no one will ever know its id, so it must hold none of the user's places. Written
# in Redis, so every replica sees it at once. A record still exactly as that create wrote it (its
# op mark unchanged: no one opened it, no one retried it) is cancelled, marked `void`, and leaves
# the user's index; a record not there yet gets a void mark instead, until its expiry, so the
# create, should it still arrive, writes nothing. A retry of that very record by its caller (a
# new call, a new op) finds it void and creates it anew, under the cap.
# KEYS: record, finished index, void mark, and (not on a Cluster) the user's active index.
# a: id, op (the create's mark), now, until_ms (the record's expiry).
VOID = """
local a = cjson.decode(ARGV[1])
if redis.call('HGET', KEYS[1], 'op') == a.op then
  local state = redis.call('HGET', KEYS[1], 'state')
  if state == 'pending' or state == 'opened' then
    redis.call('HSET', KEYS[1], 'state', 'cancelled', 'updated_at', a.now, 'op', 'void')
    redis.call('ZADD', KEYS[2], a.now, a.id)
    if KEYS[4] then redis.call('ZREM', KEYS[4], a.id) end
  end
elseif redis.call('EXISTS', KEYS[1]) == 0 then
  redis.call('SET', KEYS[3], a.op)
  redis.call('PEXPIREAT', KEYS[3], a.until_ms)
end
return 1
"""

# KEYS: record, finished index.
# a: id, op (this call's mark), to, now, from (the states it may leave), check_expiry (a
# boolean), issuer and subject (absent: any user), to_active (a boolean), channel (the
# completions channel; absent: none) and publish (PUBLISH, or SPUBLISH on a Cluster, where the
# channel shares the record's hash slot).
# Returns the values of REPLY_FIELDS in order (or nil when the change is refused). One HGETALL
# reads everything the conditions need, taken by field name (whatever order Redis keeps the
# hash in), and the reply, built from it, carries no field names. Every script uses only the
# commands of the documented least-privilege ACL (docs/deployment-redis.md).
TRANSITION = (
    """
local a = cjson.decode(ARGV[1])
local rec = KEYS[1]
local h = redis.call('HGETALL', rec)
if #h == 0 then return false end
local f = {}
for i = 1, #h, 2 do f[h[i]] = h[i + 1] end
if f.op ~= a.op then  -- the same op: a retry of this call whose reply was lost, answer again
  local allowed = false
  for _, state in ipairs(a.from) do
    if state == f.state then allowed = true; break end
  end
  if not allowed then return false end
  if a.check_expiry and tonumber(f.expires_at) <= tonumber(a.now) then return false end
  if a.issuer and (f.issuer ~= a.issuer or f.subject ~= a.subject) then return false end
  redis.call('HSET', rec, 'state', a.to, 'updated_at', a.now, 'op', a.op)
  -- A final state: into the finished index. The active index keeps the id until the sweep
  -- passes its expiry and drops it unchanged, and the key keeps the TTL it was created with
  -- (its expiry + keep_for): two writes fewer than taking both out here.
  if not a.to_active then
    redis.call('ZADD', KEYS[2], a.now, a.id)
    if a.channel then redis.call(a.publish, a.channel, a.id) end
  end
end
return {"""
    + _REPLY_BY_NAME
    + """}
"""
)

# KEYS: active index, finished index.  a: now, cutoff (finished before it: deleted), batch,
# prefix (the records' key prefix).
# Returns {changed, overdue seen, old seen}; the caller repeats while a batch came back full.
# The active index holds every record created active until its expiry passes: one that
# finished sooner is only dropped from it here.
SWEEP = """
local a = cjson.decode(ARGV[1])
local changed = 0
local overdue = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', a.now, 'LIMIT', 0, a.batch)
for _, id in ipairs(overdue) do
  local rec = a.prefix .. id
  local state = redis.call('HGET', rec, 'state')
  redis.call('ZREM', KEYS[1], id)
  if state == 'pending' or state == 'opened' then
    redis.call('HSET', rec, 'state', 'expired', 'updated_at', a.now, 'op', '')
    redis.call('ZADD', KEYS[2], a.now, id)
    changed = changed + 1
  end
end
local old = redis.call('ZRANGEBYSCORE', KEYS[2], '-inf', '(' .. a.cutoff, 'LIMIT', 0, a.batch)
for _, id in ipairs(old) do
  redis.call('ZREM', KEYS[2], id)
  changed = changed + redis.call('DEL', a.prefix .. id)
end
return {changed, #overdue, #old}
"""

# On a Cluster a user's index lives in a slot of its own, apart from their records (which
# spread over 16), so the cap is a reservation there, one script, before the record's create.
# KEYS: the user's index.  a: what CREATE takes (it reads id, expires_at, cap, now and
# index_expire_at_ms). Returns 1 (reserved, or reserved already by this very create), or 0
# when the cap refused it. An id leaves the index when its record finishes (the store removes
# it after the transition) or its expiry passes; one left behind by a crash counts until
# then, on the safe side.
RESERVE = (
    """
local a = cjson.decode(ARGV[1])
local gone = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', a.now)
if #gone > 0 then redis.call('ZREM', KEYS[1], unpack(gone)) end
local open = redis.call('ZRANGEBYSCORE', KEYS[1], '(' .. a.now, '+inf')
for _, id in ipairs(open) do
  if id == a.id then return 1 end
end
if a.cap and #open >= tonumber(a.cap) then return 0 end
redis.call('ZADD', KEYS[1], a.expires_at, a.id)
"""
    + _INDEX_TTL.substitute(index="KEYS[1]", score="a.expires_at", at="a.index_expire_at_ms")
    + """
return 1
"""
)

# The writes below that a second run would change again keep a mark of their operation beside
# their key (ARGV[1]: how long, in ms), holding what they answered: redis-py resends a command
# whose connection died, and the resend finds the mark and answers the same instead of applying
# again (a counter bumped twice, a value taken and then reported missing, a blob swapped and
# then reported changed).

# KEYS: counter, mark.  ARGV: mark ms, ttl ms.  One more, and the ttl starts again.
INCREMENT = """
local done = redis.call('GET', KEYS[2])
if done then return tonumber(done) end
local n = redis.call('INCR', KEYS[1])
redis.call('PEXPIRE', KEYS[1], ARGV[2])
redis.call('SET', KEYS[2], n, 'PX', ARGV[1])
return n
"""

# KEYS: single-use value, mark.  ARGV: mark ms.  Returns 'v' and the value, or 'n' for none.
TAKE = """
local done = redis.call('GET', KEYS[2])
if done then return done end
local value = redis.call('GET', KEYS[1])
if not value then return 'n' end
redis.call('DEL', KEYS[1])
redis.call('SET', KEYS[2], 'v' .. value, 'PX', ARGV[1])
return 'v' .. value
"""

# KEYS: blob, mark.  ARGV: mark ms, old, new.  Compare and set; 1 when set, else 0.
REPLACE = """
if redis.call('GET', KEYS[2]) then return 1 end
if redis.call('GET', KEYS[1]) ~= ARGV[2] then return 0 end
redis.call('SET', KEYS[1], ARGV[3])
redis.call('SET', KEYS[2], '1', 'PX', ARGV[1])
return 1
"""

# KEYS: lock.  ARGV: holder token.  Deletes the lock only if this holder still has it.
RELEASE = """
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0
"""

SWEEP_BATCH = 50  # bounded work per script call (about 1 ms), so a big sweep never stalls Redis for others
