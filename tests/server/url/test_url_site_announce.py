"""A saved answer stays saved when the completion bus is down for a moment."""

from __future__ import annotations

import logging

import pytest

from elicitkit.server import BusUnavailableError, KeyRing, LocalUserIdentity, MemoryStore, User
from elicitkit.server._web.site import Site


class DownBus:
    """A test double: a bus whose backend is unreachable."""

    def __init__(self) -> None:
        self.attempts: list[str] = []

    async def publish(self, elicitation_id: str) -> None:
        self.attempts.append(elicitation_id)
        raise BusUnavailableError("The completion bus cannot be reached; try again.")

    def subscribe(self, elicitation_id: str, listener: object) -> object:
        raise AssertionError("not used")


async def test_announce_survives_a_bus_outage_and_logs_it(caplog: pytest.LogCaptureFixture) -> None:
    bus = DownBus()
    site = Site(
        server_name="test",
        store=MemoryStore(),
        keys=KeyRing.from_string(KeyRing.generate()),
        bus=bus,  # type: ignore[arg-type]
        browser=LocalUserIdentity(User("local", "alice")),
        flows={},
        public_url="http://127.0.0.1:1",
    )
    with caplog.at_level(logging.WARNING):
        await site.announce("rec-1")
    assert bus.attempts == ["rec-1"]
    assert "delivered on reconnect" in caplog.text
