"""The `Bus` contract, the same tests for `LocalBus` (one process) and `RedisBus` (two replicas
on a real Redis): a completion reaches the subscribers of that id, once, and no one else."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from dataclasses import dataclass, field

import pytest
from support.redis_server import RedisServer

from elicitkit.server.backends import open_bus
from elicitkit.server.bus import Bus, LocalBus
from elicitkit.server.bus._redis import RedisBus

pytestmark = pytest.mark.timeout(60)


@dataclass
class Replicas:
    """Where sessions subscribe (`a`) and where browsers publish (`b`): the same bus for
    LocalBus, two processes' worth of RedisBus sharing one Redis."""

    a: Bus
    b: Bus
    heard: list[tuple[str, str]] = field(default_factory=list)

    def listener(self, name: str):  # type: ignore[no-untyped-def]
        async def hear(eid: str) -> None:
            self.heard.append((name, eid))

        return hear

    async def settle(self) -> None:
        """Publish a marker on `b` and wait until `a` delivers it: whatever was published before
        has been delivered by then (one channel, delivered in order)."""
        arrived = asyncio.Event()

        async def mark(eid: str) -> None:
            arrived.set()

        marker = f"marker-{len(self.heard)}-{id(arrived)}"
        self.a.subscribe(marker, mark)
        await self.b.publish(marker)
        await asyncio.wait_for(arrived.wait(), 10)


@pytest.fixture(params=["local", "redis"])
async def replicas(request: pytest.FixtureRequest) -> AsyncIterator[Replicas]:
    if request.param == "local":
        bus = open_bus("memory://")
        assert isinstance(bus, LocalBus)
        yield Replicas(bus, bus)
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
