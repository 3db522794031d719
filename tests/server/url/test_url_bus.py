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
