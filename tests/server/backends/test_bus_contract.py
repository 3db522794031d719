"""The `Bus` contract, the same tests for `LocalBus` (one process), `RedisBus` (two replicas
on a real Redis) and `PostgresBus` (two replicas on a real PostgreSQL): a completion reaches
the subscribers of that id, once, and no one else."""

from __future__ import annotations

import asyncio
import secrets
from collections.abc import AsyncIterator
from dataclasses import dataclass, field

import pytest
from support.postgres_server import PostgresServer
from support.redis_server import RedisServer
from support.redis_topology import ClusterNodes, SentinelGroup

from elicitkit.server._backends import open_bus
from elicitkit.server.bus import Bus, LocalBus
from elicitkit.server.bus._postgres import PostgresBus
from elicitkit.server.bus._redis import RedisBus
from elicitkit.server.store._redis import CLUSTER_SLOTS, shard_channel

pytestmark = pytest.mark.timeout(60)


@dataclass
class Replicas:
    """Where sessions subscribe (`a`) and where browsers publish (`b`): the same bus for
    LocalBus, two processes' worth of RedisBus sharing one Redis."""

    a: Bus
    b: Bus
    heard: list[tuple[str, str]] = field(default_factory=list)
    unordered: bool = False  # Cluster: ids go out on 16 sharded channels, not in one order

    def listener(self, name: str):  # type: ignore[no-untyped-def]
        async def hear(eid: str) -> None:
            self.heard.append((name, eid))

        return hear

    async def settle(self) -> None:
        """Publish a marker on `b` and wait until `a` delivers it: whatever was published before
        has been delivered by then (one channel, delivered in order). On a Cluster, one marker
        on each of the 16 sharded channels, each delivered in order."""
        markers: dict[str, str] = {}  # channel -> marker
        n = 0
        while len(markers) < (CLUSTER_SLOTS if self.unordered else 1):
            marker = f"marker-{len(self.heard)}-{id(markers)}-{n}"
            n += 1
            markers.setdefault(shard_channel("x:completed", marker) if self.unordered else "", marker)
        arrived: set[str] = set()
        all_arrived = asyncio.Event()

        async def mark(eid: str) -> None:
            arrived.add(eid)
            if len(arrived) == len(markers):
                all_arrived.set()

        for marker in markers.values():
            self.a.subscribe(marker, mark)
            await self.b.publish(marker)
        await asyncio.wait_for(all_arrived.wait(), 10)


@pytest.fixture(params=["local", "redis", "redis-sentinel", "redis-cluster", "postgres"])
async def replicas(request: pytest.FixtureRequest) -> AsyncIterator[Replicas]:
    if request.param == "local":
        bus = open_bus("memory://")
        assert isinstance(bus, LocalBus)
        yield Replicas(bus, bus)
        return
    if request.param in ("redis-sentinel", "redis-cluster"):
        topology: SentinelGroup | ClusterNodes = request.getfixturevalue(
            "shared_sentinels" if request.param == "redis-sentinel" else "redis_cluster"
        )
        channel = f"t{secrets.token_hex(6)}:completed"  # a channel (on a Cluster, 16) of its own
        a, b = open_bus(topology.url, channel=channel), open_bus(topology.url, channel=channel)
        assert isinstance(a, RedisBus) and isinstance(b, RedisBus)
        assert a.cluster == (request.param == "redis-cluster") and len(a.channels) == (16 if a.cluster else 1)
        await a.wait_connected()
        yield Replicas(a, b, unordered=a.cluster)
        await a.close()
        await b.close()
        return
    if request.param == "postgres":
        postgres: PostgresServer = request.getfixturevalue("shared_postgres")
        a, b = open_bus(postgres.url), open_bus(postgres.url)
        assert isinstance(a, PostgresBus) and isinstance(b, PostgresBus)
        await a.wait_connected()
        yield Replicas(a, b)
        await a.close()
        await b.close()
        return
    server: RedisServer = request.getfixturevalue("redis_server")
    a, b = open_bus(server.url), open_bus(server.url)
    assert isinstance(a, RedisBus) and isinstance(b, RedisBus)
    await a.wait_connected()
    yield Replicas(a, b)
    await a.close()
    await b.close()


async def test_only_the_subscribers_of_that_id_hear_it_once(replicas: Replicas) -> None:
    replicas.a.subscribe("x", replicas.listener("alice-1"))
    replicas.a.subscribe("x", replicas.listener("alice-1b"))
    replicas.a.subscribe("y", replicas.listener("alice-2"))
    await replicas.b.publish("x")
    await replicas.settle()
    assert sorted(replicas.heard) == [("alice-1", "x"), ("alice-1b", "x")]
    await replicas.b.publish("x")  # delivered once: the listeners are gone now
    await replicas.settle()
    assert len(replicas.heard) == 2


async def test_unsubscribe_and_a_failing_listener(replicas: Replicas) -> None:
    async def boom(eid: str) -> None:
        raise RuntimeError("session gone")

    replicas.a.subscribe("x", boom)
    replicas.a.subscribe("x", replicas.listener("ok"))
    cancel = replicas.a.subscribe("x", replicas.listener("never"))
    cancel()
    cancel()  # idempotent
    await replicas.b.publish("x")
    await replicas.settle()
    assert replicas.heard == [("ok", "x")]


async def test_an_id_longer_than_a_notify_payload_still_arrives(replicas: Replicas) -> None:
    """PostgreSQL refuses NOTIFY payloads over 8000 bytes; such an id travels as its hash."""
    long_id = "x" * 9000
    replicas.a.subscribe(long_id, replicas.listener("long"))
    replicas.a.subscribe("x" * 8999, replicas.listener("other"))
    await replicas.b.publish(long_id)
    await replicas.settle()
    assert replicas.heard == [("long", long_id)]


async def test_publishing_an_unknown_id_is_harmless(replicas: Replicas) -> None:
    await replicas.b.publish("nobody-waits-for-this")
    await replicas.settle()
    assert replicas.heard == []


async def test_many_completions_each_reach_their_own_session(replicas: Replicas) -> None:
    ids = [f"id-{i}" for i in range(200)]
    for i, eid in enumerate(ids):
        replicas.a.subscribe(eid, replicas.listener(f"session-{i}"))
    await asyncio.gather(*(replicas.b.publish(eid) for eid in ids))
    await replicas.settle()
    assert sorted(replicas.heard) == sorted((f"session-{i}", eid) for i, eid in enumerate(ids))


async def test_redis_bus_reaches_every_replica_but_only_its_sessions(redis_server: RedisServer) -> None:
    """Three replicas: the one holding the session hears the id; the others have no listener
    for it and deliver nothing."""
    buses = [open_bus(redis_server.url) for _ in range(3)]
    heard: list[tuple[int, str]] = []
    done = asyncio.Event()

    def listener(replica: int):  # type: ignore[no-untyped-def]
        async def hear(eid: str) -> None:
            heard.append((replica, eid))
            done.set()

        return hear

    try:
        buses[0].subscribe("alice-flow", listener(0))
        buses[1].subscribe("bob-flow", listener(1))
        for bus in buses:
            assert isinstance(bus, RedisBus)
            await bus.wait_connected()
        await buses[2].publish("alice-flow")
        await asyncio.wait_for(done.wait(), 10)
        await asyncio.sleep(0.3)
        assert heard == [(0, "alice-flow")]
    finally:
        for bus in buses:
            await bus.close()  # type: ignore[attr-defined]
