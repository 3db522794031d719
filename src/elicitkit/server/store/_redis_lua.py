"""The Lua scripts of `RedisStore`: each state change is one script, so it is atomic in Redis.
Also what goes in and out of them: the values packed for a script, records read back."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from json.encoder import encode_basestring
from string import Template
from typing import Any, cast

from elicitkit.server.store.base import Record, State, details_from
from elicitkit.server.user import User

# The record's fields, in the order the scripts take their values and return them.
FIELDS = (
    "issuer", "subject", "client_id", "flow", "message", "state",
    "created_at", "updated_at", "expires_at", "details",
)  # fmt: skip
# Written out in the scripts (no table built and unpacked per call): `'issuer', A[7], ...` as
# HSET takes them.
_HSET_FIELDS = ", ".join(f"'{name}', A[{7 + i}]" for i, name in enumerate(FIELDS))
# What a transition answers: the fields its caller does not know already. It knows the id, the
# state it asked for and the time it sent, and (when it gave one) the user the script checked.
REPLY_FIELDS = ("client_id", "flow", "message", "created_at", "expires_at", "details", "issuer", "subject")
_REPLY_BY_NAME = ", ".join(f"f.{name} or false" for name in REPLY_FIELDS)  # false: missing

# CREATE and TRANSITION take their values as one JSON array of strings (ARGV[1], decoded with
# Redis's built-in cjson into A): redis-py packs each argument in Python, so one argument
# instead of 14-16 is most of the client's cost of a call. Strings, even for numbers, so every
# value is written byte for byte as before (a Lua number would be reformatted).


def packed(values: list[str]) -> str:
    """The one argument CREATE and TRANSITION take, escaped by the json module's own C escaper:
    what `json.dumps(values, ensure_ascii=False, separators=(",", ":"))` writes, minus its
    encoder's Python layers."""
    return "[" + ",".join(map(encode_basestring, values)) + "]"


_REPLY_KEYS = tuple(name.encode() for name in REPLY_FIELDS)


def stored_record(elicitation_id: str, raw: Mapping[Any, Any]) -> Record:
    """A record from its hash, as HGETALL returns it."""
    state, updated_at = raw.get(b"state"), raw.get(b"updated_at")
    if state is None or updated_at is None:
        raise ValueError(f"the Redis record {elicitation_id!r} lacks some of its fields")
    values = [raw.get(name) for name in _REPLY_KEYS]
    return record_from(elicitation_id, values, state.decode(), float(updated_at), None)


def record_from(
    elicitation_id: str, values: Sequence[bytes | None], state: State, updated_at: float, user: User | None
) -> Record:
    """A record from the values of REPLY_FIELDS in order (what TRANSITION answers) and the rest:
    its state and when it changed, and its user when the caller knows it (a transition's caller
    had the script check that the record is that user's, so the user stands for its own)."""
    if len(values) != len(REPLY_FIELDS) or None in values:
        raise ValueError(f"the Redis record {elicitation_id!r} lacks some of its fields")
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

# Void the creates of one user whose caller was told they failed (an error, or a write the
# replicas did not confirm): each record that is still exactly as its create wrote it (its op
# mark unchanged: no one opened it, no one retried it) is cancelled, marked `void`, and leaves
# the user's index, so it holds none of the user's places; a retry of that very record (its
# caller may retry with the same record: RecordExistsError tells it an earlier try landed)
# finds it void and creates it anew, under the cap. $args: the table of values, $first: the index
# of the first (id, op) pair in it, $now, $prefix: the records' key prefix, $finished and
# $index: the finished index and the user's index.
_VOID = Template("""
for i = $first, #$args, 2 do
  local id, rec = $args[i], $prefix .. $args[i]
  if redis.call('HGET', rec, 'op') == $args[i + 1] then
    local state = redis.call('HGET', rec, 'state')
    if state == 'pending' or state == 'opened' then
      redis.call('HSET', rec, 'state', 'cancelled', 'updated_at', $now, 'op', 'void')
      redis.call('ZADD', $finished, $now, id)
      redis.call('ZREM', $index, id)
    end
  end
end
""")

# KEYS: record, active index, finished index, and (not on a Cluster) the user's active index.
# A: id, op, keep_ms, expire_at_ms, score, is_active, then the values of FIELDS in order
# (the names are in the script: half the values to send), then the user's index's expiry, the
# per-user cap ('' for none), now, and the records' key prefix, then (not on a Cluster) the
# (id, op) pairs of this user's creates to void first. Returns 1, or 0 when the cap refused it:
# the user's open records are counted (their states read, the index pruned) and the record
# written in one script, so no two creates of one user can pass the cap together.
CREATE = (
    """
local A = cjson.decode(ARGV[1])
if KEYS[4] then"""
    + _VOID.substitute(args="A", first="21", now="A[19]", prefix="A[20]", finished="KEYS[3]", index="KEYS[4]")
    + """end
if redis.call('EXISTS', KEYS[1]) == 1 then
  local op = redis.call('HGET', KEYS[1], 'op')
  if op == A[2] then return 1 end
  local same = redis.call('HGET', KEYS[1], 'created_at') == A[13]
    and redis.call('HGET', KEYS[1], 'subject') == A[8] and redis.call('HGET', KEYS[1], 'issuer') == A[7]
  if same and op == 'void' then
    -- its caller retries a create it was told failed, which was voided: as if never written
    redis.call('DEL', KEYS[1])
    redis.call('ZREM', KEYS[3], A[1])
  else
    -- a retry by a new call, which finds its earlier try landed: it claims the record, so
    -- no void of that earlier try (in this or another process) may take it now
    if same and redis.call('HGET', KEYS[1], 'state') == 'pending' then
      redis.call('HSET', KEYS[1], 'op', A[2])
    end
    return redis.error_reply('DUPLICATE record id already exists')
  end
end
if A[18] ~= '' and KEYS[4] then
  local gone = redis.call('ZRANGEBYSCORE', KEYS[4], '-inf', A[19])
  for _, id in ipairs(redis.call('ZRANGEBYSCORE', KEYS[4], '(' .. A[19], '+inf')) do
    local state = redis.call('HGET', A[20] .. id, 'state')
    if state ~= 'pending' and state ~= 'opened' then gone[#gone + 1] = id end
  end
  if #gone > 0 then redis.call('ZREM', KEYS[4], unpack(gone)) end
  if #redis.call('ZRANGEBYSCORE', KEYS[4], '(' .. A[19], '+inf') >= tonumber(A[18]) then return 0 end
end
redis.call('HSET', KEYS[1], 'op', A[2], """
    + _HSET_FIELDS
    + """)
if A[6] == '1' then
  redis.call('ZADD', KEYS[2], A[5], A[1])
  redis.call('PEXPIREAT', KEYS[1], A[4])
  if KEYS[4] then
    redis.call('ZADD', KEYS[4], A[5], A[1])
"""
    + _INDEX_TTL.substitute(index="KEYS[4]", score="A[5]", at="A[17]")
    + """
  end
else
  redis.call('ZADD', KEYS[3], A[5], A[1])
  redis.call('PEXPIRE', KEYS[1], A[3])
end
return 1
"""
)

# KEYS: finished index, the user's active index.  ARGV: now, records' key prefix, then (id, op)
# pairs: `_VOID` alone, for a create whose write the replicas did not confirm, run at once on
# the connection that wrote it.
VOID = "local A = ARGV\n" + _VOID.substitute(
    args="A", first="3", now="A[1]", prefix="A[2]", finished="KEYS[1]", index="KEYS[2]"
)

# KEYS: record, finished index.
# A: id, op, to, now, check_expiry, check_user, issuer, subject, to_is_active,
#    completions channel ('' for none), PUBLISH or SPUBLISH (Cluster: the channel shares
#    the record's hash slot), from...
# Returns the values of REPLY_FIELDS in order (or nil when the change is refused). One HGETALL
# reads everything the conditions need, taken by field name (whatever order Redis keeps the
# hash in), and the reply, built from it, carries no field names. Every script uses only the
# commands of the documented least-privilege ACL (docs/deployment-redis.md).
TRANSITION = (
    """
local A = cjson.decode(ARGV[1])
local rec = KEYS[1]
local h = redis.call('HGETALL', rec)
if #h == 0 then return false end
local f = {}
for i = 1, #h, 2 do f[h[i]] = h[i + 1] end
if f.op ~= A[2] then  -- the same op: a retry of this call whose reply was lost, answer again
  local allowed = false
  for i = 12, #A do
    if A[i] == f.state then allowed = true; break end
  end
  if not allowed then return false end
  if A[5] == '1' and tonumber(f.expires_at) <= tonumber(A[4]) then return false end
  if A[6] == '1' and (f.issuer ~= A[7] or f.subject ~= A[8]) then return false end
  redis.call('HSET', rec, 'state', A[3], 'updated_at', A[4], 'op', A[2])
  -- A final state: into the finished index. The active index keeps the id until the sweep
  -- passes its expiry and drops it unchanged, and the key keeps the TTL it was created with
  -- (its expiry + keep_for): two writes fewer than taking both out here.
  if A[9] ~= '1' then
    redis.call('ZADD', KEYS[2], A[4], A[1])
    if A[10] ~= '' then redis.call(A[11], A[10], A[1]) end
  end
end
return {"""
    + _REPLY_BY_NAME
    + """}
"""
)

# KEYS: active index, finished index.  ARGV: now, cutoff, batch, record key prefix.
# Returns {changed, overdue seen, old seen}; the caller repeats while a batch came back full.
# The active index holds every record created active until its expiry passes: one that
# finished sooner is only dropped from it here.
SWEEP = """
local changed = 0
local overdue = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', ARGV[1], 'LIMIT', 0, ARGV[3])
for _, id in ipairs(overdue) do
  local rec = ARGV[4] .. id
  local state = redis.call('HGET', rec, 'state')
  redis.call('ZREM', KEYS[1], id)
  if state == 'pending' or state == 'opened' then
    redis.call('HSET', rec, 'state', 'expired', 'updated_at', ARGV[1], 'op', '')
    redis.call('ZADD', KEYS[2], ARGV[1], id)
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

# On a Cluster a user's index lives in a slot of its own, apart from their records (which
# spread over 16), so the cap is a reservation there, one script, before the record's create:
# KEYS: the user's index.  ARGV: id, its expiry, cap ('' for none), now, the index's expiry ms.
# Returns 1 (reserved, or reserved already by this very create), or 0 when the cap refused it.
# An id leaves the index when its record finishes (the store removes it after the transition)
# or its expiry passes; one left behind by a crash counts until then, on the safe side.
RESERVE = (
    """
local gone = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', ARGV[4])
if #gone > 0 then redis.call('ZREM', KEYS[1], unpack(gone)) end
local open = redis.call('ZRANGEBYSCORE', KEYS[1], '(' .. ARGV[4], '+inf')
for _, id in ipairs(open) do
  if id == ARGV[1] then return 1 end
end
if ARGV[3] ~= '' and #open >= tonumber(ARGV[3]) then return 0 end
redis.call('ZADD', KEYS[1], ARGV[2], ARGV[1])
"""
    + _INDEX_TTL.substitute(index="KEYS[1]", score="ARGV[2]", at="ARGV[5]")
    + """
return 1
"""
)

# KEYS: counter.  ARGV: ttl ms.  One more, and the ttl starts again.
INCREMENT = """
local n = redis.call('INCR', KEYS[1])
redis.call('PEXPIRE', KEYS[1], ARGV[1])
return n
"""

# KEYS: lock.  ARGV: holder token.  Deletes the lock only if this holder still has it.
RELEASE = """
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0
"""

SWEEP_BATCH = 50  # bounded work per script call (about 1 ms), so a big sweep never stalls Redis for others
