"""Redis going away and coming back, against a real redis-server: typed errors during the outage,
reconnection after it, nothing acknowledged lost, nothing completed twice."""

from __future__ import annotations

import asyncio
import dataclasses
import hashlib
import json
import time
from collections import Counter
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from contextlib import contextmanager
from typing import Any

import pytest
from support.clock import Clock
from support.redis_server import RedisServer
from support.redis_topology import PASSWORD, USER, SentinelGroup

from elicitkit.server._backends import open_bus, open_store, redis_client
from elicitkit.server._errors import BusUnavailableError, StoreUnavailableError
from elicitkit.server._user import User
from elicitkit.server.bus._redis import RedisBus
from elicitkit.server.store import ACTIVE, Record
from elicitkit.server.store._redis import RedisStore
from elicitkit.server.store._redis_lua import FIELDS, stored_record

ALICE = User("https://as.example", "alice")
BOB = User("https://as.example", "bob")

pytestmark = pytest.mark.timeout(90)


def new_record(ttl: float = 600.0) -> Record:
    return Record.new(ALICE, "client-1", "weather-key", "Your weather API key", ttl=ttl)


@pytest.fixture
def clock() -> Clock:
    return Clock()


@pytest.fixture
async def store(redis_server: RedisServer, clock: Clock) -> AsyncIterator[RedisStore]:
    backend = open_store(redis_server.url, clock=clock)
    assert isinstance(backend, RedisStore)
    yield backend
    await backend.close()


async def restart(server: RedisServer, *, down_for: float = 0.3) -> None:
    await asyncio.to_thread(server.restart, down_for=down_for, crash=True)


async def eventually(check: Callable[[], Awaitable[bool]], within: float = 15.0) -> None:
    deadline = time.monotonic() + within
    while not await check():
        assert time.monotonic() < deadline, "condition not met in time"
        await asyncio.sleep(0.05)


async def test_outage_raises_a_typed_error_then_the_store_reconnects(
    redis_server: RedisServer, store: RedisStore
) -> None:
    record = new_record()
    await store.create(record)
    redis_server.kill()
    started = time.monotonic()
    with pytest.raises(StoreUnavailableError) as raised:
        await store.get(record.id)
    assert time.monotonic() - started < 5  # retried with backoff, then a clear error, not a hang
    assert "unavailable" in str(raised.value) and "Retry when Redis is back" in str(raised.value)
    for operation in (
        store.create(new_record()),
        store.transition(record.id, from_states=ACTIVE, to="completed"),
        store.sweep(),
        store.put_blob("k", b"v"),
        store.take_once("k"),
    ):
        with pytest.raises(StoreUnavailableError):
            await operation
    await asyncio.to_thread(redis_server.start)
    got = await store.get(record.id)  # same store object: it reconnected by itself
    assert got == record


async def test_a_short_restart_is_absorbed_by_the_retries(
    redis_server: RedisServer, store: RedisStore
) -> None:
    """A restart shorter than the backoff window is invisible to the caller."""
    record = new_record()
    await store.create(record)
    redis_server.kill()
    later = asyncio.get_running_loop().run_in_executor(None, redis_server.start)
    got = await store.get(record.id)
    await later
    assert got == record


async def test_nothing_acknowledged_is_lost_in_a_crash(redis_server: RedisServer, store: RedisStore) -> None:
    """appendonly yes + appendfsync always: every acknowledged write survives SIGKILL."""
    records = [new_record() for _ in range(200)]
    await asyncio.gather(*(store.create(r) for r in records))
    done = await asyncio.gather(
        *(store.transition(r.id, from_states=ACTIVE, to="completed", user=ALICE) for r in records[:100])
    )
    await store.put_blob("vault:alice:weather", b"\x01sealed")
    await store.put_once("state-x", b"once", ttl=600)
    await restart(redis_server)
    for record, completed in zip(records[:100], done, strict=True):
        assert await store.get(record.id) == completed
    for record in records[100:]:
        assert await store.get(record.id) == record
    assert await store.get_blob("vault:alice:weather") == b"\x01sealed"
    assert await store.take_once("state-x") == b"once"
    assert await store.take_once("state-x") is None


async def test_redis_restart_in_the_middle_of_100_pending_flows(redis_server: RedisServer) -> None:
    """Issue 8, must show 2. Replica A holds 100 waiting sessions (bus subscriptions); replica B
    serves 100 browsers, two tabs each racing to finish the same flow. Redis crashes and comes
    back while they work. Afterwards all 100 are completed, each session heard exactly once,
    and no flow was completed twice."""
    store_a, store_b = open_store(redis_server.url), open_store(redis_server.url)
    bus_a = open_bus(redis_server.url, store=store_a)
    bus_b = open_bus(redis_server.url, store=store_b)
    assert isinstance(bus_a, RedisBus) and isinstance(bus_b, RedisBus)
    heard: Counter[str] = Counter()
    all_heard = asyncio.Event()
    records = [new_record() for _ in range(100)]

    async def on_complete(elicitation_id: str) -> None:
        heard[elicitation_id] += 1
        if len(heard) == len(records):
            all_heard.set()

    try:
        for record in records:
            await store_a.create(record)
            bus_a.subscribe(record.id, on_complete)
        await bus_a.wait_connected()
        wins: Counter[str] = Counter()
        outage_errors = 0

        async def browser_tab(record: Record, delay: float) -> None:
            """Open, then complete; on an outage error wait and retry, like a person pressing again."""
            nonlocal outage_errors
            await asyncio.sleep(delay)
            while True:
                try:
                    await store_b.transition(record.id, from_states={"pending"}, to="opened", user=ALICE)
                    done = await store_b.transition(record.id, from_states=ACTIVE, to="completed", user=ALICE)
                    if done is not None:
                        wins[record.id] += 1
                        await bus_b.publish(record.id)
                    return
                except (StoreUnavailableError, BusUnavailableError):
                    outage_errors += 1
                    await asyncio.sleep(0.2)

        tabs = [
            asyncio.create_task(browser_tab(record, delay=i * 0.02 + tab * 0.01))
            for i, record in enumerate(records)
            for tab in range(2)
        ]
        await asyncio.sleep(0.5)  # some flows are finished, most are pending
        finished_before = sum(wins.values())
        await restart(redis_server, down_for=1.5)  # longer than the retries absorb
        await asyncio.wait_for(asyncio.gather(*tabs), 60)
        await asyncio.wait_for(all_heard.wait(), 30)
        await asyncio.sleep(0.3)  # a duplicate notice would arrive by now

        assert 0 < finished_before < 100, finished_before  # the restart really was mid-way
        assert outage_errors > 0  # and callers really met it, as a typed error
        final = [await store_a.get(r.id) for r in records]
        assert [r.state if r else None for r in final] == ["completed"] * 100  # none lost
        assert max(wins.values()) == 1  # none completed twice
        assert set(heard) == {r.id for r in records} and set(heard.values()) == {1}  # heard once each
    finally:
        for closing in (bus_a, bus_b, store_a, store_b):
            await closing.close()


async def test_bus_resubscribes_after_a_restart(redis_server: RedisServer) -> None:
    bus_a, bus_b = RedisBus(open_redis(redis_server)), RedisBus(open_redis(redis_server))
    heard: list[str] = []
    got = asyncio.Event()

    async def listener(eid: str) -> None:
        heard.append(eid)
        got.set()

    try:
        bus_a.subscribe("after-restart", listener)
        await bus_a.wait_connected()
        await restart(redis_server)
        await bus_a.wait_connected(within=15)
        await bus_b.publish("after-restart")
        await asyncio.wait_for(got.wait(), 10)
        assert heard == ["after-restart"]
    finally:
        await bus_a.close()
        await bus_b.close()


async def test_publish_during_an_outage_is_a_typed_error(redis_server: RedisServer) -> None:
    bus = RedisBus(open_redis(redis_server))
    try:
        redis_server.kill()
        with pytest.raises(BusUnavailableError) as raised:
            await bus.publish("some-id")
        assert "could not be published" in str(raised.value)
    finally:
        await bus.close()


async def test_bus_catches_up_on_what_finished_while_it_was_away(redis_server: RedisServer) -> None:
    """Pub/sub keeps nothing for an absent subscriber: a completion published before this
    replica's subscription was confirmed is found in the store when it is."""
    store = open_store(redis_server.url)
    bus_a = RedisBus(open_redis(redis_server), store=store)
    bus_b = RedisBus(open_redis(redis_server))
    record, unfinished = new_record(), new_record()
    heard: list[str] = []
    got = asyncio.Event()

    async def listener(eid: str) -> None:
        heard.append(eid)
        got.set()

    try:
        for r in (record, unfinished):
            await store.create(r)
        await store.transition(record.id, from_states=ACTIVE, to="completed")
        await bus_b.publish(record.id)  # nobody on bus A is listening yet
        bus_a.subscribe(record.id, listener)
        bus_a.subscribe(unfinished.id, listener)
        await asyncio.wait_for(got.wait(), 10)
        await asyncio.sleep(0.3)
        assert heard == [record.id]  # the unfinished one is still waited for, not delivered
        await restart(redis_server)
        await bus_a.wait_connected(within=15)
        await asyncio.sleep(0.3)
        assert heard == [record.id]  # catching up again after the restart delivers nothing twice
    finally:
        for closing in (bus_a, bus_b, store):
            await closing.close()


def record_key(store: RedisStore, elicitation_id: str) -> str:
    """A record's hash, as docs/deployment-redis.md lays the keys out (one Redis, no Cluster)."""
    return f"{store.prefix}record:{elicitation_id}"


def active_index(store: RedisStore) -> str:
    return f"{store.prefix}records:active"


def user_index(store: RedisStore, user: User) -> str:
    """The user's index of active records: named by a digest, no personal data in key names."""
    who = hashlib.sha256(json.dumps([user.issuer, user.subject]).encode()).hexdigest()
    return f"{store.prefix}user-active:{who}"


@contextmanager
def commands_sent(store: RedisStore) -> Iterator[list[tuple[Any, ...]]]:
    """The commands the store sends to Redis inside the block, as redis-py would resend one."""
    sent: list[tuple[Any, ...]] = []
    execute = store.client.execute_command

    async def noting(*args: Any, **options: Any) -> Any:
        sent.append(args)
        return await execute(*args, **options)

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(store.client, "execute_command", noting)
        yield sent


def open_redis(server: RedisServer):  # type: ignore[no-untyped-def]
    from elicitkit.server._backends import redis_client

    return redis_client(server.url)


async def test_a_retried_transition_whose_reply_was_lost_reports_done(store: RedisStore) -> None:
    """redis-py resends a command whose reply was lost; the script sees its own token and answers
    as before instead of "someone else won", and does not announce the completion twice. A
    different call still cannot complete it twice."""
    record = new_record()
    await store.create(record)
    pubsub = store.client.pubsub()
    await pubsub.subscribe("elicitkit:completed")
    with commands_sent(store) as sent:
        first = await store.transition(record.id, from_states=ACTIVE, to="completed", user=ALICE)
    transition = [command for command in sent if command[0] == "EVALSHA"][-1]
    resent = await store.client.execute_command(*transition)  # the same command again
    assert first is not None and first.state == "completed"
    assert resent  # the same record, not None
    assert await store.transition(record.id, from_states=ACTIVE, to="completed") is None
    heard = []
    while (message := await pubsub.get_message(timeout=0.3)) is not None:
        if message["type"] == "message":
            heard.append(message["data"].decode())
    await pubsub.aclose()  # type: ignore[no-untyped-call]
    assert heard == [record.id]


async def test_a_retried_create_whose_reply_was_lost_is_not_a_duplicate(store: RedisStore) -> None:
    """redis-py resends a command whose reply was lost: the create script sees its own op mark
    and answers as it did, not "record id already exists"; another create of the id is refused."""
    record = new_record()
    with commands_sent(store) as sent:
        await store.create(record)
    create = [command for command in sent if command[0] == "EVALSHA"][-1]  # after any NOSCRIPT
    assert await store.client.execute_command(*create) == 1  # the same command again
    with pytest.raises(ValueError, match="already exists"):
        await store.create(record)
    assert await store.get(record.id) == record
    assert await store.count_active(ALICE) == 1


async def test_an_emptied_script_cache_is_refilled_on_the_next_call(store: RedisStore) -> None:
    """A restarted or failed-over Redis has no scripts: the store sees NOSCRIPT, loads the script
    and runs the operation once (it did not run the first time)."""
    record = new_record()
    await store.create(record)
    for operation in (
        lambda: store.create(new_record()),
        lambda: store.transition(record.id, from_states={"pending"}, to="opened", user=ALICE),
        lambda: store.sweep(),
        lambda: store.release("lock", "nobody"),
    ):
        await store.client.script_flush()
        await operation()
    await store.client.script_flush()
    done = await store.transition(record.id, from_states={"opened"}, to="completed", user=ALICE)
    assert done is not None and done.state == "completed"
    assert await store.transition(record.id, from_states=ACTIVE, to="cancelled") is None  # once only


async def test_awkward_text_is_stored_byte_for_byte(store: RedisStore) -> None:
    """The scripts take their values as one JSON array (decoded by Redis's cjson): text that
    JSON escapes, or that is not plain ASCII, must reach the hash unchanged."""
    awkward = 'q"b\\s/\x00\x01\x1f\u2028 \u00e9 \u2713 \U0001f600 \ufeff end'
    user = User(issuer="https://as.example/\u00e9", subject=awkward)
    record = Record.new(user, awkward, "weather-key", awkward, ttl=600, details={"t": awkward})
    await store.create(record)
    assert await store.get(record.id) == record
    raw = await store.client.hgetall(record_key(store, record.id))
    assert raw[b"message"] == raw[b"subject"] == raw[b"client_id"] == awkward.encode()
    assert raw[b"created_at"] == repr(record.created_at).encode()  # numbers as written, exactly
    moved = await store.transition(record.id, from_states={"pending"}, to="opened", user=user)
    assert moved is not None and moved.user == user and moved.message == awkward
    assert moved.details == {"t": awkward} and moved.created_at == record.created_at
    assert await store.transition(record.id, from_states={"opened"}, to="completed", user=ALICE) is None


async def test_a_record_as_earlier_versions_wrote_it_still_reads_and_moves(store: RedisStore) -> None:
    """The hash layout is the contract across versions (docs/deployment-redis.md): a record
    written field by field, as an earlier release wrote it, reads and moves like a new one."""
    record = new_record()
    key = record_key(store, record.id)
    await store.client.hset(  # field order of an earlier release, op mark included
        key,
        mapping={
            "op": "an-earlier-op", "issuer": ALICE.issuer, "subject": ALICE.subject,
            "client_id": record.client_id, "flow": record.flow, "message": record.message,
            "state": "pending", "created_at": repr(record.created_at),
            "updated_at": repr(record.updated_at), "expires_at": repr(record.expires_at),
            "details": '{"k": [1, "two"]}',
        },
    )  # fmt: skip
    await store.client.zadd(f"{store.prefix}records:active", {record.id: record.expires_at})
    assert await store.get(record.id) == dataclasses.replace(record, details={"k": [1, "two"]})
    moved = await store.transition(record.id, from_states={"pending"}, to="opened", user=ALICE)
    assert moved is not None and moved.state == "opened" and moved.details == {"k": [1, "two"]}
    assert (moved.id, moved.user, moved.message, moved.expires_at) == (
        record.id, ALICE, record.message, record.expires_at
    )  # fmt: skip
    assert await store.get(record.id) == moved


@pytest.mark.parametrize("layout", ["another field order", "a hashtable"])
async def test_a_record_in_any_field_order_or_encoding_moves_alike(store: RedisStore, layout: str) -> None:
    """The transition reads a record's fields by name: a hash written in another order, or with
    a value long enough that Redis keeps it as a hashtable (arbitrary order), is checked and
    answered exactly as the create script's own layout."""
    long = layout == "a hashtable"
    record = Record.new(ALICE, "client-1", "weather-key", "m" * 100 if long else "short", ttl=600)
    key = record_key(store, record.id)
    if long:
        await store.create(record)
    else:  # the create script's fields, last first
        fields = {"op": "an-op", "issuer": ALICE.issuer, "subject": ALICE.subject}
        fields |= {"client_id": record.client_id, "flow": record.flow, "message": record.message}
        fields |= {"state": "pending", "created_at": repr(record.created_at)}
        fields |= {"updated_at": repr(record.updated_at), "expires_at": repr(record.expires_at)}
        await store.client.hset(key, mapping=dict(reversed({**fields, "details": "{}"}.items())))
        await store.client.zadd(f"{store.prefix}records:active", {record.id: record.expires_at})
    encoding = (await store.client.object("encoding", key)).decode()
    assert encoding == ("hashtable" if long else "listpack")
    order = [name.decode() for name in (await store.client.hgetall(key))]
    # Not the create script's order. The whole order is compared: a hashtable's follows its
    # hash seed, and its first two names matched now and then.
    assert order != ["op", *FIELDS]

    assert await store.transition(record.id, from_states={"pending"}, to="opened", user=BOB) is None
    assert await store.transition(record.id, from_states={"opened"}, to="completed", user=ALICE) is None
    moved = await store.transition(record.id, from_states={"pending"}, to="opened", user=ALICE)
    assert moved == dataclasses.replace(record, state="opened", updated_at=moved.updated_at if moved else 0)
    done = await store.transition(record.id, from_states={"opened"}, to="completed", user=ALICE)
    assert done is not None and done.state == "completed" and done.message == record.message
    assert await store.get(record.id) == done


def test_a_record_read_back_sets_every_field_of_record() -> None:
    """`stored_record` fills every field of a record from its hash, the user included."""
    values = [b"https://as.example", b"alice", b"c", b"f", b"m", b"opened", b"1.5", b"2.5", b"3.5"]
    fields = [name.encode() for name in FIELDS]
    read = stored_record("id-1", dict(zip(fields, [*values, b'{"a": 1}'], strict=True)))
    assert set(vars(read)) == {field.name for field in dataclasses.fields(Record)}
    assert read == Record(
        id="id-1", user=ALICE, client_id="c", flow="f", message="m", state="opened",
        created_at=1.5, updated_at=2.5, expires_at=3.5, details={"a": 1},
    )  # fmt: skip


async def test_keys_carry_ttls_so_an_unswept_store_still_forgets(store: RedisStore) -> None:
    record = new_record(ttl=600)
    await store.create(record)
    key = record_key(store, record.id)
    assert 600_000 + 86_300_000 < await store.client.pttl(key) <= 600_000 + 86_400_000
    await store.transition(record.id, from_states=ACTIVE, to="completed")
    # the TTL it was created with stands: it ends keep_for past the expiry, so at least keep_for
    # past the final state, and a transition writes no PEXPIRE (one command less to the AOF)
    assert 600_000 + 86_300_000 < await store.client.pttl(key) <= 600_000 + 86_400_000
    await store.put_once("s", b"v", ttl=30)
    assert 0 < await store.client.pttl(f"{store.prefix}once:s") <= 30_000


async def test_a_full_redis_is_a_typed_error_with_what_to_do(
    redis_server: RedisServer, store: RedisStore
) -> None:
    await store.create(new_record())
    await store.client.config_set("maxmemory", 1)  # noeviction is the default policy
    try:
        with pytest.raises(StoreUnavailableError, match="is full and refused the write"):
            await store.create(new_record())
    finally:
        await store.client.config_set("maxmemory", 0)
    await store.create(new_record())


async def test_a_large_sweep_leaves_redis_responsive(store: RedisStore, clock: Clock) -> None:
    """10,000 overdue records are swept in bounded batches: reads keep being answered meanwhile,
    and flows being completed at the same time are not disturbed."""
    overdue = [new_record(ttl=0.5) for _ in range(10_000)]
    live = [new_record() for _ in range(100)]
    for chunk in range(0, len(overdue), 1000):
        await asyncio.gather(*(store.create(r) for r in overdue[chunk : chunk + 1000]))
    await asyncio.gather(*(store.create(r) for r in live))
    clock.advance(0.6)
    sweeping = asyncio.create_task(store.sweep())
    slowest, completed = 0.0, 0
    for record in live:
        started = time.perf_counter()
        assert await store.get(record.id) is not None
        done = await store.transition(record.id, from_states=ACTIVE, to="completed", user=ALICE)
        completed += done is not None
        slowest = max(slowest, time.perf_counter() - started)
    assert await sweeping == 10_000
    assert completed == 100
    assert slowest < 0.5, slowest  # one batch at a time (about 40 ms), never the whole sweep at once
    assert await store.client.zcount(active_index(store), "-inf", time.time()) == 0


async def test_a_record_finished_early_leaves_the_active_index_at_the_sweep_unchanged(
    store: RedisStore,
) -> None:
    """A final state does not take the id out of the active index (one write less per
    completion): the first sweep past its expiry drops it there and leaves the record as it is."""
    record = new_record(ttl=600)
    await store.create(record)
    done = await store.transition(record.id, from_states=ACTIVE, to="completed", user=ALICE)
    assert done is not None
    active = active_index(store)
    assert await store.client.zscore(active, record.id) == record.expires_at
    assert await store.sweep(now=record.expires_at + 1) == 0  # nothing changed, only dropped
    assert await store.client.zscore(active, record.id) is None
    assert await store.get(record.id) == done


async def test_a_write_that_lands_on_a_replica_is_a_typed_error(sentinel_group: SentinelGroup) -> None:
    """During a failover a connection can still reach the demoted primary. A write that changes
    nothing there (its condition fails) is followed by WAIT, which a replica refuses: the caller
    gets the typed "retry" error, not redis-py's ResponseError, and a write is refused as read-only."""
    replica = sentinel_group.nodes[1].port
    store = open_store(f"redis://{USER}:{PASSWORD}@127.0.0.1:{replica}/0", replicas_ack=1)
    try:
        with pytest.raises(StoreUnavailableError, match="answered from a replica"):
            await store.transition("no-such-id", from_states=ACTIVE, to="completed", user=ALICE)
        with pytest.raises(StoreUnavailableError, match="read-only replica"):
            await store.create(new_record())
    finally:
        await store.close()  # type: ignore[attr-defined]


async def test_a_record_ending_sooner_never_shortens_the_users_index(redis_server: RedisServer) -> None:
    """The user's index of active records (what the per-user cap counts) lives keep_for past
    the expiry of the user's last record: a later record that ends sooner must not cut it short,
    or the longer one would drop out of `count_active` while still active."""
    store = RedisStore(redis_client(redis_server.url), prefix="short:", keep_for=5)
    try:
        long, short = new_record(ttl=1000), new_record(ttl=10)
        await store.create(long)
        await store.create(short)
        index = user_index(store, ALICE)
        assert await store.client.pttl(index) > 900_000
        await store.create(new_record(ttl=2000))  # a later end does extend it
        assert await store.client.pttl(index) > 1_900_000
        # rounded up to the hour, so most creates find the index long enough and write nothing
        assert await store.client.pexpiretime(index) % 3_600_000 == 0
        assert await store.count_active(ALICE) == 3
    finally:
        await store.close()
