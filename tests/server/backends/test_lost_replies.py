"""A change whose reply is lost is applied once and answered as applied, or reported as of unknown
outcome; never applied twice, never reported as not done when it was (issue 42).

Real servers behind a proxy that lets the request through and drops the answer, closing the
connection under it (tests/support/lost_reply.py): the server applied the change, the client
never heard. The store retries on a new connection; that retry must recognise its own earlier
try. When the server stays out of reach after the reply was lost, the caller hears
`StoreOutcomeUnknownError`, and a read of the change shows it applied."""

from __future__ import annotations

import secrets
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator

import asyncpg
import pytest
from support.lost_reply import LostReply
from support.postgres_server import PostgresServer

from elicitkit.server._errors import StoreOutcomeUnknownError, StoreUnavailableError
from elicitkit.server._user import User
from elicitkit.server.store import ACTIVE, Record, Store
from elicitkit.server.store._postgres import PostgresStore

pytestmark = pytest.mark.timeout(90)

ALICE = User("https://as.example", "alice")


def new_record() -> Record:
    return Record.new(ALICE, "client-1", "weather-key", "Your weather API key", ttl=600)


@pytest.fixture
def pg_proxy(shared_postgres: PostgresServer) -> Iterator[LostReply]:
    proxy = LostReply(shared_postgres.port).start()
    yield proxy
    proxy.close()


@pytest.fixture
async def pg(shared_postgres: PostgresServer, pg_proxy: LostReply) -> AsyncIterator[PostgresStore]:
    """A PostgreSQL store behind the proxy, one pooled connection, its own tables."""
    store = PostgresStore(
        pg_proxy.url(shared_postgres.url, shared_postgres.port),
        prefix=f"t{secrets.token_hex(6)}_",
        min_size=1,
        max_size=1,
        timeout=8.0,
    )
    yield store
    await store.close()


async def _increment(store: Store) -> object:
    return await store.increment("rounds", ttl=60)


async def _take(store: Store) -> object:
    return await store.take_once("state")


async def _replace(store: Store) -> object:
    return await store.replace_blob("sealed", b"old", b"new")


async def _prepare(store: Store) -> None:
    """Each change once on keys of its own, so the connection has its statements prepared and
    the reply that is lost is the change's own."""
    await store.increment("warm", ttl=60)
    await store.take_once("warm")
    await store.replace_blob("warm", b"x", b"y")
    await store.put_once("state", b"sealed-state", ttl=60)
    await store.put_blob("sealed", b"old")


# name: (the change, its answer, then a call that shows it applied once, and what that call answers)
CHANGES: dict[
    str, tuple[Callable[[Store], Awaitable[object]], object, Callable[[Store], Awaitable[object]], object]
] = {
    "increment": (_increment, 1, _increment, 2),  # the next one is the second, not the third
    "take_once": (_take, b"sealed-state", _take, None),  # taken once: gone
    "replace_blob": (_replace, True, lambda s: s.get_blob("sealed"), b"new"),
}


@pytest.mark.parametrize("name", list(CHANGES))
async def test_postgres_a_change_whose_reply_is_lost_is_applied_once_and_answered(
    pg: PostgresStore, pg_proxy: LostReply, name: str
) -> None:
    change, answer, then, after = CHANGES[name]
    await _prepare(pg)
    pg_proxy.lose_next_reply()
    assert await change(pg) == answer
    assert pg_proxy.lost == 1  # the reply really was lost, and the retry answered
    assert await then(pg) == after


async def test_postgres_records_whose_reply_is_lost_are_created_and_moved_once(
    pg: PostgresStore, pg_proxy: LostReply
) -> None:
    await pg.create(new_record(), max_active=5)
    await pg.transition(new_record().id, from_states=ACTIVE, to="completed")  # statements prepared
    record = new_record()
    pg_proxy.lose_next_reply()
    assert await pg.create(record, max_active=5)
    pg_proxy.lose_next_reply()
    moved = await pg.transition(record.id, from_states=ACTIVE, to="completed", user=ALICE)
    assert moved is not None and moved.state == "completed"
    assert pg_proxy.lost == 2
    assert await pg.count_active(ALICE) == 1  # the warm-up's, not this one's


async def test_postgres_a_change_whose_reply_never_comes_is_of_unknown_outcome(
    shared_postgres: PostgresServer, pg: PostgresStore, pg_proxy: LostReply
) -> None:
    """The reply is lost and the server stays out of reach for every retry: the caller is told the
    outcome is unknown (it was applied), not that nothing was written."""
    await pg.increment("warm", ttl=60)
    pg_proxy.lose_next_reply()
    pg_proxy.refuse()
    with pytest.raises(StoreOutcomeUnknownError, match="whether it was applied is unknown"):
        await pg.increment("rounds", ttl=60)
    with pytest.raises(StoreUnavailableError) as read:  # a read changes nothing: plainly unavailable
        await pg.get("anything")
    assert not isinstance(read.value, StoreOutcomeUnknownError)
    pg_proxy.accept()
    conn = await asyncpg.connect(shared_postgres.url)
    try:
        applied = await conn.fetchval(f"SELECT n FROM {pg.prefix}counters WHERE key = 'rounds'")
    finally:
        await conn.close()
    assert applied == 1  # it was written, once


async def test_postgres_a_change_that_never_left_is_plainly_unavailable(
    pg: PostgresStore, pg_proxy: LostReply
) -> None:
    await pg.increment("warm", ttl=60)
    await pg.close()  # no connection left: the next one must be opened, and is refused
    pg_proxy.refuse()
    with pytest.raises(StoreUnavailableError) as raised:
        await pg.increment("rounds", ttl=60)
    assert not isinstance(raised.value, StoreOutcomeUnknownError)
