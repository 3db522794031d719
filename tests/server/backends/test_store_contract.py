"""The `Store` contract, the same tests against every backend: memory, SQLite, and real servers:
Redis (alone, a Sentinel group, a 3-primary Cluster) and PostgreSQL."""

from __future__ import annotations

import asyncio
import secrets
from collections.abc import AsyncIterator
from dataclasses import replace
from pathlib import Path

import pytest
from support.clock import Clock
from support.postgres_server import PostgresServer
from support.redis_server import RedisServer
from support.redis_topology import ClusterNodes, SentinelGroup

from elicitkit.errors import ElicitationError
from elicitkit.server._backends import open_store
from elicitkit.server._errors import RecordExistsError
from elicitkit.server._user import User
from elicitkit.server.store import ACTIVE, MemoryStore, Record, Store
from elicitkit.server.store._postgres import PostgresStore
from elicitkit.server.store._redis import RedisStore
from elicitkit.server.store._sqlite import SQLiteStore

ALICE = User("https://as.example", "alice")
BOB = User("https://as.example", "bob")

pytestmark = pytest.mark.timeout(60)


@pytest.fixture
def clock() -> Clock:
    return Clock()


@pytest.fixture(params=["memory", "sqlite", "redis", "redis-sentinel", "redis-cluster", "postgres"])
async def store(request: pytest.FixtureRequest, tmp_path: Path, clock: Clock) -> AsyncIterator[Store]:
    backend: Store
    if request.param == "memory":
        backend = MemoryStore(clock=clock)
    elif request.param == "sqlite":
        backend = SQLiteStore(tmp_path / "s.sqlite3", clock=clock)
    elif request.param == "postgres":
        postgres: PostgresServer = request.getfixturevalue("shared_postgres")
        # fresh tables per test
        backend = open_store(postgres.url, prefix=f"t{secrets.token_hex(6)}_", clock=clock)
        assert isinstance(backend, PostgresStore)
    elif request.param == "redis-sentinel":
        group: SentinelGroup = request.getfixturevalue("shared_sentinels")
        backend = open_store(group.url, prefix=f"t{secrets.token_hex(6)}:", replicas_ack=1, clock=clock)
        assert isinstance(backend, RedisStore) and not backend.cluster
    elif request.param == "redis-cluster":
        cluster: ClusterNodes = request.getfixturevalue("redis_cluster")
        backend = open_store(cluster.url, prefix=f"t{secrets.token_hex(6)}:", clock=clock)
        assert isinstance(backend, RedisStore) and backend.cluster
    else:
        server: RedisServer = request.getfixturevalue("redis_server")
        backend = open_store(server.url, clock=clock)
        assert isinstance(backend, RedisStore)
    yield backend
    await backend.close()


def new_record(
    user: User = ALICE, ttl: float = 60.0, *, now: float | None = None, **details: object
) -> Record:
    return Record.new(
        user, "client-1", "weather-key", "Your weather API key", ttl=ttl, details=details, now=now
    )


async def let_pass(store: Store, clock: Clock, seconds: float) -> None:
    """`seconds` go by for `store`: its clock moves on. Redis keeps the ttls of single-use values
    and locks itself (PX, on its own clock), so for those real time passes too."""
    clock.advance(seconds)
    if isinstance(store, RedisStore):
        await asyncio.sleep(seconds)


async def test_create_get_round_trip_is_exact(store: Store) -> None:
    record = new_record(d=1, nested={"a": [1, "two"]}, text="é ✓")
    await store.create(record)
    assert await store.get(record.id) == record
    assert await store.get("no-such-id") is None


async def test_duplicate_id_is_refused_with_the_one_typed_error(store: Store) -> None:
    """Every backend raises `RecordExistsError` (never its driver's error), capped or not."""
    record = new_record()
    await store.create(record)
    for cap in (None, 5):
        with pytest.raises(RecordExistsError) as raised:
            await store.create(replace(record, user=BOB), max_active=cap)
        assert raised.value.elicitation_id == record.id
        assert isinstance(raised.value, ElicitationError) and isinstance(raised.value, ValueError)
    got = await store.get(record.id)
    assert got is not None and got.user == ALICE  # the first record is untouched


async def test_state_machine(store: Store) -> None:
    record = new_record()
    await store.create(record)
    opened = await store.transition(record.id, from_states={"pending"}, to="opened", user=ALICE)
    assert opened is not None and opened.state == "opened" and opened.updated_at >= record.updated_at
    assert await store.get(record.id) == opened  # what a transition returns is what it stored
    assert await store.transition(record.id, from_states={"pending"}, to="opened") is None
    done = await store.transition(record.id, from_states=ACTIVE, to="completed", user=ALICE)
    assert done is not None and done.state == "completed"
    assert await store.get(record.id) == done
    for to in ("completed", "declined", "cancelled", "expired"):
        assert await store.transition(record.id, from_states=ACTIVE, to=to) is None
    assert await store.transition(record.id, from_states=(), to="completed") is None
    assert await store.transition("unknown", from_states=ACTIVE, to="completed") is None
    other = new_record(d=1)
    await store.create(other)
    declined = await store.transition(other.id, from_states=ACTIVE, to="declined")  # no user given
    assert (
        declined
        == await store.get(other.id)
        == replace(other, state="declined", updated_at=declined.updated_at if declined else 0)
    )


async def test_transitions_are_bound_to_the_user(store: Store) -> None:
    """S-30: another user, or the same subject from another issuer, changes nothing."""
    record = new_record()
    await store.create(record)
    for stranger in (BOB, User("https://evil.example", "alice")):
        assert await store.transition(record.id, from_states=ACTIVE, to="completed", user=stranger) is None
    got = await store.get(record.id)
    assert got is not None and got.state == "pending" and got.user == ALICE


async def test_concurrent_completions_only_one_wins(store: Store) -> None:
    records = [new_record() for _ in range(10)]
    for record in records:
        await store.create(record)
    results = await asyncio.gather(
        *(
            store.transition(record.id, from_states=ACTIVE, to=to, user=ALICE)
            for record in records
            for to in ("completed", "declined", "completed", "cancelled", "completed")
        )
    )
    for i in range(len(records)):
        assert sum(r is not None for r in results[i * 5 : i * 5 + 5]) == 1


async def test_the_store_reads_the_clock_it_was_given(store: Store, clock: Clock) -> None:
    """Expiry, the per-user count and the sweep follow the store's clock, not the machine's: an
    hour passes for the store in no time at all."""
    record, later = new_record(ttl=3600, now=clock()), new_record(ttl=7200, now=clock())
    await store.create(record)
    await store.create(later)
    clock.advance(3601)
    got = await store.get(record.id)
    assert got is not None and got.state == "expired"
    assert await store.count_active(ALICE) == 1
    assert await store.transition(record.id, from_states=ACTIVE, to="opened", user=ALICE) is None
    assert await store.sweep() == 1
    moved = await store.transition(later.id, from_states=ACTIVE, to="completed", user=ALICE)
    assert moved is not None and moved.updated_at >= record.created_at + 3601


async def test_expired_reads_as_expired_and_cannot_move_except_to_expired(store: Store, clock: Clock) -> None:
    record = new_record(ttl=0.05, now=clock())
    await store.create(record)
    clock.advance(0.1)
    got = await store.get(record.id)
    assert got is not None and got.state == "expired"
    assert await store.transition(record.id, from_states=ACTIVE, to="completed", user=ALICE) is None
    expired = await store.transition(record.id, from_states=ACTIVE, to="expired")
    assert expired is not None and expired.state == "expired"


async def test_sweep_expires_then_forgets(store: Store, clock: Clock) -> None:
    overdue, live, done = (new_record(ttl=ttl, now=clock()) for ttl in (0.01, 60, 60))
    for record in (overdue, live, done):
        await store.create(record)
    await store.transition(done.id, from_states=ACTIVE, to="completed")
    clock.advance(0.05)
    assert await store.sweep() == 1
    got = await store.get(overdue.id)
    assert got is not None and got.state == "expired"
    assert await store.sweep() == 0
    assert await store.sweep(now=clock() + 10, keep_for=1) == 2
    assert await store.get(overdue.id) is None and await store.get(done.id) is None
    still = await store.get(live.id)
    assert still is not None and still.state == "pending"


async def test_sweep_under_load(store: Store, clock: Clock) -> None:
    """1,200 overdue and 300 live records, swept while the live ones are being completed."""
    overdue = [new_record(ttl=0.2, now=clock()) for _ in range(1200)]
    live = [new_record(ttl=60, now=clock()) for _ in range(300)]
    await asyncio.gather(*(store.create(r) for r in overdue + live))
    clock.advance(0.3)

    async def complete_all() -> int:
        results = await asyncio.gather(
            *(store.transition(r.id, from_states=ACTIVE, to="completed", user=ALICE) for r in live)
        )
        return sum(r is not None for r in results)

    swept, completed = await asyncio.gather(store.sweep(), complete_all())
    assert swept == 1200 and completed == 300
    states = [await store.get(r.id) for r in overdue[::50] + live[::10]]
    assert [s.state for s in states if s] == ["expired"] * 24 + ["completed"] * 30
    # nothing overdue is left active, so a second sweep has nothing to do
    assert await store.sweep() == 0


@pytest.mark.parametrize("store", ["sqlite", "redis", "postgres"], indirect=True)
async def test_a_big_sweep_lets_live_operations_through(store: Store, clock: Clock) -> None:
    """A sweep of many overdue records goes in batches: a flow that starts while it runs
    finishes before it does, instead of waiting behind one long write."""
    overdue = [new_record(ttl=0.2, now=clock()) for _ in range(6000)]
    for start in range(0, len(overdue), 500):
        await asyncio.gather(*(store.create(r) for r in overdue[start : start + 500]))
    clock.advance(0.3)
    sweeping = asyncio.create_task(store.sweep())
    await asyncio.sleep(0)  # the sweep has begun
    live = new_record(ttl=60, now=clock())
    await store.create(live)
    assert await store.transition(live.id, from_states=ACTIVE, to="completed", user=ALICE)
    assert not sweeping.done()
    assert await sweeping == 6000


async def test_blobs(store: Store) -> None:
    assert await store.get_blob("k") is None
    await store.put_blob("k", b"\x00sealed")
    await store.put_blob("k", b"\x01sealed\xff")
    assert await store.get_blob("k") == b"\x01sealed\xff"
    await store.delete_blob("k")
    await store.delete_blob("k")
    assert await store.get_blob("k") is None


async def test_single_use_values(store: Store, clock: Clock) -> None:
    await store.put_once("state-1", b"v1", ttl=60)
    assert await store.take_once("state-1") == b"v1"
    assert await store.take_once("state-1") is None
    await store.put_once("state-2", b"v2", ttl=0.01)
    await let_pass(store, clock, 0.05)
    assert await store.take_once("state-2") is None
    assert await store.take_once("never") is None


async def test_single_use_value_has_exactly_one_taker(store: Store) -> None:
    await store.put_once("state-3", b"v3", ttl=60)
    taken = await asyncio.gather(*(store.take_once("state-3") for _ in range(20)))
    assert taken.count(b"v3") == 1 and taken.count(None) == 19


async def test_satisfies_the_protocol(store: Store) -> None:
    assert isinstance(store, Store)


async def test_many_tasks_reading_and_moving_records_at_once_never_trip_over_each_other(store: Store) -> None:
    records = [new_record() for _ in range(500)]
    for record in records:
        await store.create(record)

    async def visit(record: Record) -> bool:
        assert await store.get(record.id) is not None
        moved = await store.transition(record.id, from_states=ACTIVE, to="opened", user=ALICE)
        await store.put_once(f"state-{record.id}", b"x", ttl=60)
        assert await store.take_once(f"state-{record.id}") == b"x"
        return moved is not None

    assert all(await asyncio.gather(*(visit(r) for r in records)))
    assert {(await store.get(r.id)).state for r in records} == {"opened"}  # type: ignore[union-attr]


async def test_claim_has_exactly_one_winner_among_many(store: Store) -> None:
    holders = await asyncio.gather(*(store.claim("lock-1", ttl=60) for _ in range(20)))
    won = [holder for holder in holders if holder is not None]
    assert len(won) == 1 and len(won[0]) >= 32
    assert await store.claim("lock-1", ttl=60) is None  # still held
    assert await store.claim("lock-2", ttl=60) is not None  # other keys are separate


async def test_claim_is_released_only_by_its_holder(store: Store) -> None:
    holder = await store.claim("lock-3", ttl=60)
    assert holder is not None
    await store.release("lock-3", "not-the-holder")
    assert await store.claim("lock-3", ttl=60) is None
    await store.release("lock-3", holder)
    again = await store.claim("lock-3", ttl=60)
    assert again is not None and again != holder
    await store.release("never-claimed", holder)  # nothing to free: no error


async def test_an_expired_claim_can_be_taken_over(store: Store, clock: Clock) -> None:
    stale = await store.claim("lock-4", ttl=0.05)
    assert stale is not None
    await let_pass(store, clock, 0.1)
    taker = await store.claim("lock-4", ttl=60)
    assert taker is not None and taker != stale
    await store.release("lock-4", stale)  # the dead holder's late release frees nothing
    assert await store.claim("lock-4", ttl=60) is None
    await store.release("lock-4", taker)
    assert await store.claim("lock-4", ttl=60) is not None


async def test_claim_is_exclusive_across_sqlite_connections(tmp_path: Path) -> None:
    """Replicas sharing one SQLite file: each store its own connection, one winner among them."""
    stores = [SQLiteStore(tmp_path / "shared.sqlite3") for _ in range(4)]
    try:
        for s in stores:  # opened one by one: racing first opens of a new file is another matter
            await s.get_blob("warm-up")
        tries = [(s, n) for s in stores for n in range(5)]
        holders = await asyncio.gather(*(s.claim("lock-5", ttl=60) for s, _ in tries))
        (winner,) = [(s, h) for (s, _), h in zip(tries, holders, strict=True) if h is not None]
        other = stores[(stores.index(winner[0]) + 1) % len(stores)]
        assert await other.claim("lock-5", ttl=60) is None
        await other.release("lock-5", winner[1])  # the holder's token frees it from any replica
        assert await other.claim("lock-5", ttl=60) is not None
    finally:
        for s in stores:
            await s.close()


async def test_claim_and_release_need_no_more_than_the_documented_acl(redis_server: RedisServer) -> None:
    from test_backends import ACL_RULES

    admin = open_store(redis_server.url)
    assert isinstance(admin, RedisStore)
    await admin.client.execute_command("ACL", "SETUSER", "elicitkit", *ACL_RULES)  # type: ignore[no-untyped-call]
    store = open_store(f"redis://elicitkit:elicitkit-pw@127.0.0.1:{redis_server.port}/0")
    try:
        holder = await store.claim("lock-6", ttl=60)
        assert holder is not None and await store.claim("lock-6", ttl=60) is None
        await store.release("lock-6", holder)
        assert await store.claim("lock-6", ttl=60) is not None
    finally:
        await store.close()
        await admin.close()


async def test_count_active_counts_one_users_open_unexpired_records(store: Store, clock: Clock) -> None:
    alice, bob = ALICE, BOB
    made = [Record.new(alice, "c", "f", "m", ttl=60, now=clock()) for _ in range(3)]
    made.append(Record.new(alice, "c", "f", "m", ttl=0.5, now=clock()))
    made.append(Record.new(bob, "c", "f", "m", ttl=60, now=clock()))
    for record in made:
        await store.create(record)
    assert await store.count_active(alice) == 4 and await store.count_active(bob) == 1
    await store.transition(made[0].id, from_states={"pending"}, to="completed", user=alice)
    await store.transition(made[1].id, from_states={"pending"}, to="opened", user=alice)
    assert await store.count_active(alice) == 3
    clock.advance(0.7)  # one of alice's runs out
    assert await store.count_active(alice) == 2
    assert await store.count_active(User("https://other-as.example", "alice")) == 0
