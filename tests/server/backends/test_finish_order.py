"""What a page keeps is kept before anyone hears the elicitation completed.

With Redis the completion is announced by the very script that marks the record completed, so
the page must keep the entry (the vault write) first: otherwise the waiting tool, woken on
another replica, reads the vault before the value is there. Real Redis store and bus, the real
pages over ASGI; only the flow is a test double, one whose keeping takes a while.
"""

from __future__ import annotations

import asyncio
import re

import httpx
import pytest
from starlette.applications import Starlette
from starlette.datastructures import FormData
from support.redis_server import RedisServer

from elicitkit.server import KeyRing, LocalUserIdentity, User
from elicitkit.server._backends import open_bus, open_store
from elicitkit.server._web.site import Site
from elicitkit.server.store import Record

pytestmark = pytest.mark.timeout(60)

ALICE = User("local", "alice")


class SlowFlow:
    """A test double flow: keeping the entry takes 0.3 s, as a slow vault write would."""

    name = "slow"
    title = "Slow secret"
    template = "secret.html"

    def __init__(self) -> None:
        self.kept = asyncio.Event()

    async def check(self, record: Record, form: FormData) -> str | None:
        return None

    async def finish(self, record: Record, form: FormData) -> None:
        await asyncio.sleep(0.3)
        self.kept.set()


async def test_the_entry_is_kept_before_the_completion_is_heard(redis_server: RedisServer) -> None:
    store_b, store_a = open_store(redis_server.url), open_store(redis_server.url)
    bus_b, bus_a = open_bus(redis_server.url, store=store_b), open_bus(redis_server.url, store=store_a)
    flow = SlowFlow()
    site = Site(  # replica B serves the browser
        server_name="test",
        store=store_b,
        keys=KeyRing.from_string(KeyRing.generate()),
        bus=bus_b,
        browser=LocalUserIdentity(ALICE),
        flows={flow.name: flow},
        public_url="https://testserver",
    )
    kept_when_heard: list[bool] = []
    heard = asyncio.Event()

    async def on_completed(elicitation_id: str) -> None:  # replica A holds the waiting session
        kept_when_heard.append(flow.kept.is_set())
        heard.set()

    record = Record.new(ALICE, "client-1", flow.name, "Your slow secret", ttl=60)
    transport = httpx.ASGITransport(app=Starlette(routes=site.routes()))
    try:
        await store_b.create(record)
        bus_a.subscribe(record.id, on_completed)
        await bus_a.wait_connected()  # type: ignore[attr-defined]
        async with httpx.AsyncClient(transport=transport, base_url="https://testserver") as browser:
            page = await browser.get(f"/elicit/{record.id}")
            assert page.status_code == 200, page.text
            csrf = re.search(r'name="csrf" value="([^"]+)"', page.text)
            assert csrf is not None
            done = await browser.post(
                f"/elicit/{record.id}", data={"csrf": csrf.group(1), "secret": "s3cret", "action": "save"}
            )
            assert done.status_code == 200, done.text
            again = await browser.post(  # a second tab, or a double click: nothing kept twice
                f"/elicit/{record.id}", data={"csrf": csrf.group(1), "secret": "other", "action": "save"}
            )
            assert again.status_code in (409, 410), again.text
        await asyncio.wait_for(heard.wait(), 10)
        assert kept_when_heard == [True]
        final = await store_a.get(record.id)
        assert final is not None and final.state == "completed"
    finally:
        for closing in (bus_a, bus_b, store_a, store_b):
            await closing.close()  # type: ignore[attr-defined]
