"""A page's lock on a record (`Site.complete`) against a real Redis: a lock whose release an
outage lost turns the person away for at most the store's deadline and a second once the store
is back, and a holder slower than its lock is stopped before it could keep or complete anything
unlocked, so a record is still completed once, with the entry of the page that completed it.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

import pytest
from support.redis_server import RedisServer
from support.tcp_proxy import TcpProxy

from elicitkit.server._backends import open_bus, open_store
from elicitkit.server._errors import StoreUnavailableError
from elicitkit.server._url_mode import UrlMode
from elicitkit.server._user import McpUsers, User
from elicitkit.server._vault import KeyRing
from elicitkit.server.store import Record, Store

pytestmark = pytest.mark.timeout(60)

DEADLINE = 1.0  # the store's `timeout`
MARGIN = 1.0 + 0.5  # the lock lives a second past the deadline; the event loop's share
PERSON = User("https://as.example", "alice")


@asynccontextmanager
async def page_of(url: str, prefix: str) -> AsyncIterator[UrlMode]:
    store = open_store(url, prefix=prefix, timeout=DEADLINE)
    bus = open_bus(url, store=store)
    try:
        yield UrlMode(
            public_url="http://127.0.0.1:1",
            keys=KeyRing.from_string(KeyRing.generate("k1")),
            store=store,
            bus=bus,
            users=McpUsers.single_user_local(),
        )
    finally:
        await bus.close()  # type: ignore[attr-defined]
        await store.close()


async def new_record(store: Store) -> Record:
    record = Record.new(PERSON, "client", "secret", "Your API key.", ttl=300)
    assert await store.create(record)
    return record


async def test_a_lock_lost_in_an_outage_turns_the_person_away_only_for_the_deadline(
    redis_server: RedisServer,
) -> None:
    proxy = TcpProxy(redis_server.port).start()
    url = redis_server.url.replace(f":{redis_server.port}", f":{proxy.port}", 1)
    try:
        async with page_of(url, "lock-outage:") as page:
            record = await new_record(page.store)

            async def keep_then_cut(current: Record) -> None:
                await page.vault.put(current.user, "key", "first")
                proxy.cut()  # the network goes: the completion and the lock's release are lost

            with pytest.raises(StoreUnavailableError):
                await page.site.complete(record.id, PERSON, keep_then_cut)
            await asyncio.sleep(0.5)
            proxy.restore()
            back = time.monotonic()
            outcomes = []
            while True:  # the person submits again, as the page asks them to
                try:
                    outcome = await page.site.complete(
                        record.id, PERSON, lambda current: page.vault.put(current.user, "key", "second")
                    )
                except StoreUnavailableError:
                    outcome = "unavailable"
                outcomes.append(outcome)
                if outcome not in ("busy", "unavailable"):
                    break
                await asyncio.sleep(0.1)
            waited = time.monotonic() - back
            assert outcome == "completed", outcomes
            assert waited <= DEADLINE + MARGIN, (waited, outcomes)
            stored = await page.store.get(record.id)
            assert stored is not None and stored.state == "completed"
            assert await page.vault.get(PERSON, "key") == "second"
    finally:
        proxy.close()


async def test_a_holder_slower_than_its_lock_is_stopped_and_the_record_completes_once(
    redis_server: RedisServer,
) -> None:
    async with page_of(redis_server.url, "lock-slow:") as page:
        record = await new_record(page.store)
        released = asyncio.Event()

        async def slow_keep(current: Record) -> None:
            await released.wait()  # far longer than the lock lives
            await page.vault.put(current.user, "key", "slow")

        slow = asyncio.create_task(page.site.complete(record.id, PERSON, slow_keep))
        await asyncio.sleep(0.2)
        busy = await page.site.complete(record.id, PERSON, lambda c: page.vault.put(c.user, "key", "x"))
        assert busy == "busy"  # while the holder works, no one else keeps an entry
        started = time.monotonic()
        with pytest.raises(StoreUnavailableError):
            await slow  # stopped before its lock ran out, having kept and completed nothing
        assert time.monotonic() - started <= DEADLINE + MARGIN
        released.set()
        fast = await page.site.complete(record.id, PERSON, lambda c: page.vault.put(c.user, "key", "fast"))
        assert fast == "completed"
        again = await page.site.complete(record.id, PERSON, lambda c: page.vault.put(c.user, "key", "late"))
        assert again == "closed"  # the store's transition lets one completion through, once
        await asyncio.sleep(0.2)
        assert await page.vault.get(PERSON, "key") == "fast"


async def test_a_lock_its_replicas_did_not_acknowledge_is_not_left_behind(redis_server: RedisServer) -> None:
    # A primary with no replica: with replicas_ack=1 every write is applied there but never
    # acknowledged, so the claimer gets an error, not the token; the lock must not stay set.
    acked = open_store(redis_server.url, prefix="lock-ack:", timeout=3.0, replicas_ack=1, ack_timeout=0.2)
    plain = open_store(redis_server.url, prefix="lock-ack:", timeout=3.0)
    try:
        with pytest.raises(StoreUnavailableError):
            await acked.claim("finish:record", ttl=60)
        assert await plain.claim("finish:record", ttl=60) is not None  # no one holds it
    finally:
        await acked.close()
        await plain.close()
