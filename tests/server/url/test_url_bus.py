"""The bus delivers "X finished" to X's subscribers only, once."""

from __future__ import annotations

from elicitkit.server.bus import LocalBus


async def test_only_subscribers_of_that_id_hear_it() -> None:
    bus = LocalBus()
    heard: list[tuple[str, str]] = []

    async def listener(name: str):  # type: ignore[no-untyped-def]
        async def hear(eid: str) -> None:
            heard.append((name, eid))

        return hear

    bus.subscribe("x", await listener("alice-1"))
    bus.subscribe("y", await listener("alice-2"))
    await bus.publish("x")
    assert heard == [("alice-1", "x")]
    await bus.publish("x")  # delivered once
    assert heard == [("alice-1", "x")]


async def test_unsubscribe_and_failing_listener() -> None:
    bus = LocalBus()
    heard: list[str] = []

    async def boom(eid: str) -> None:
        raise RuntimeError("session gone")

    async def ok(eid: str) -> None:
        heard.append(eid)

    async def never(eid: str) -> None:
        heard.append("never")

    bus.subscribe("x", boom)
    bus.subscribe("x", ok)
    cancel = bus.subscribe("x", never)
    cancel()
    await bus.publish("x")
    assert heard == ["x"]


async def test_each_listener_of_one_id_unsubscribes_alone_in_any_order() -> None:
    bus = LocalBus()
    heard: list[str] = []

    def listener(name: str):  # type: ignore[no-untyped-def]
        async def hear(eid: str) -> None:
            heard.append(name)

        return hear

    first = bus.subscribe("x", listener("first"))
    second = bus.subscribe("x", listener("second"))
    third = bus.subscribe("x", listener("third"))
    second()
    second()  # twice is harmless
    first()
    assert bus.waiting() == 1
    await bus.publish("x")
    assert heard == ["third"]
    third()  # after delivery: nothing left to forget, nothing breaks
    only = bus.subscribe("y", listener("only"))
    only()
    assert bus.waiting() == 0
    await bus.publish("y")
    assert heard == ["third"]


def test_a_pending_listener_costs_the_bus_little_memory() -> None:
    """A server holds one per pending elicitation (issue 35: thousands of sessions); a list and a
    closure per id cost about 460 bytes, the listener kept as it is about 90."""
    import gc
    import tracemalloc

    class Listener:
        __slots__ = ()

        async def __call__(self, elicitation_id: str) -> None:
            return None

    bus = LocalBus()
    ids = [f"elicitation-{i:08d}-padding-to-a-real-id" for i in range(2000)]
    listeners = [Listener() for _ in ids]
    gc.collect()
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        kept = [bus.subscribe(i, listener) for i, listener in zip(ids, listeners, strict=True)]
        per_listener = (tracemalloc.get_traced_memory()[0] - before) / len(ids)
    finally:
        tracemalloc.stop()
    assert len(kept) == bus.waiting() == len(ids)
    assert per_listener < 200, f"{per_listener:.0f} bytes per pending listener"
